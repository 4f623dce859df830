package pgcatalog

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bsdb/bsdb-pg/acl"
)

// The pg_catalog relations. Column lists are PostgreSQL 15's, minus
// internal columns no client reads (xid fields); array-valued columns are
// DuckDB lists.

func init() {
	register("pg_catalog", "pg_namespace", false, "oid:oid nspname:name nspowner:oid nspacl:text[]", namespaceRows)
	register("pg_catalog", "pg_class", false, `oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid
		relam:oid relfilenode:oid reltablespace:oid relpages:int4 reltuples:float4 relallvisible:int4 reltoastrelid:oid
		relhasindex:bool relisshared:bool relpersistence:char relkind:char relnatts:int2 relchecks:int2 relhasrules:bool
		relhastriggers:bool relhassubclass:bool relrowsecurity:bool relforcerowsecurity:bool relispopulated:bool
		relreplident:char relispartition:bool relrewrite:oid relfrozenxid:xid relminmxid:xid relacl:text[] reloptions:text[] relpartbound:text`, classRows)
	register("pg_catalog", "pg_attribute", false, `attrelid:oid attname:name atttypid:oid attstattarget:int4 attlen:int2
		attnum:int2 attndims:int4 attcacheoff:int4 atttypmod:int4 attbyval:bool attalign:char attstorage:char
		attcompression:char attnotnull:bool atthasdef:bool atthasmissing:bool attidentity:char attgenerated:char
		attisdropped:bool attislocal:bool attinhcount:int4 attcollation:oid attacl:text[] attoptions:text[]
		attfdwoptions:text[] attmissingval:text`, attributeRows)
	register("pg_catalog", "pg_attrdef", false, "oid:oid adrelid:oid adnum:int2 adbin:text", attrdefRows)
	register("pg_catalog", "pg_constraint", false, `oid:oid conname:name connamespace:oid contype:char condeferrable:bool
		condeferred:bool convalidated:bool conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid
		confupdtype:char confdeltype:char confmatchtype:char conislocal:bool coninhcount:int4 connoinherit:bool
		conkey:int2[] confkey:int2[] conpfeqop:oid[] conppeqop:oid[] conffeqop:oid[] conexclop:oid[] conbin:text`, constraintRows)
	register("pg_catalog", "pg_index", false, `indexrelid:oid indrelid:oid indnatts:int2 indnkeyatts:int2 indisunique:bool
		indnullsnotdistinct:bool indisprimary:bool indisexclusion:bool indimmediate:bool indisclustered:bool
		indisvalid:bool indcheckxmin:bool indisready:bool indislive:bool indisreplident:bool indkey:int2vector
		indcollation:oidvector indclass:oidvector indoption:int2vector indexprs:text indpred:text`, indexRows)
	register("pg_catalog", "pg_database", false, `oid:oid datname:name datdba:oid encoding:int4 datlocprovider:char
		datistemplate:bool datallowconn:bool datconnlimit:int4 datfrozenxid:xid datminmxid:xid dattablespace:oid datcollate:text datctype:text
		daticulocale:text datcollversion:text datacl:text[]`, databaseRows)
	register("pg_catalog", "pg_stat_activity", false, `datid:oid datname:name pid:int4 leader_pid:int4 usesysid:oid
		usename:name application_name:text client_addr:text client_hostname:text client_port:int4
		backend_start:timestamptz xact_start:timestamptz query_start:timestamptz state_change:timestamptz
		wait_event_type:text wait_event:text state:text query_id:int8 query:text backend_type:text`, activityRows)
	register("pg_catalog", "pg_tables", false, `schemaname:name tablename:name tableowner:name tablespace:name
		hasindexes:bool hasrules:bool hastriggers:bool rowsecurity:bool`, tablesRows)
	register("pg_catalog", "pg_indexes", false, "schemaname:name tablename:name indexname:name tablespace:name indexdef:text", indexesRows)
	register("pg_catalog", "pg_settings", false, `name:text setting:text unit:text category:text short_desc:text
		extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[]
		boot_val:text reset_val:text sourcefile:text sourceline:int4 pending_restart:bool`, settingsRows)
	register("bsdb_internal", "visible", false, "oid:oid", visibleRows)
	register("bsdb_internal", "defs", false, "oid:oid def:text", defRows)

	register("pg_catalog", "pg_type", true, `oid:oid typname:name typnamespace:oid typowner:oid typlen:int2 typbyval:bool
		typtype:char typcategory:char typispreferred:bool typisdefined:bool typdelim:char typrelid:oid
		typsubscript:regproc typelem:oid typarray:oid typinput:regproc typoutput:regproc typreceive:regproc
		typsend:regproc typmodin:regproc typmodout:regproc typanalyze:regproc typalign:char typstorage:char
		typnotnull:bool typbasetype:oid typtypmod:int4 typndims:int4 typcollation:oid typdefaultbin:text
		typdefault:text typacl:text[]`, typeRows)
	register("bsdb_internal", "typefmt", true, "oid:oid fmt:text", func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, t := range builtinTypes {
			rows = append(rows, []any{t.oid, FormatType(uint32(t.oid), -1)})
		}
		return rows
	})
	register("pg_catalog", "pg_collation", true, `oid:oid collname:name collnamespace:oid collowner:oid collprovider:char
		collisdeterministic:bool collencoding:int4 collcollate:text collctype:text colliculocale:text collversion:text`,
		func(*Snapshot, *Facts) [][]any {
			return [][]any{
				{int64(100), "default", int64(11), int64(10), "d", true, int32(-1), nil, nil, nil, nil},
				{int64(950), "C", int64(11), int64(10), "c", true, int32(-1), "C", "C", nil, nil},
				{int64(951), "POSIX", int64(11), int64(10), "c", true, int32(-1), "POSIX", "POSIX", nil, nil},
			}
		})
	register("pg_catalog", "pg_tablespace", true, "oid:oid spcname:name spcowner:oid spcacl:text[] spcoptions:text[]", func(*Snapshot, *Facts) [][]any {
		return [][]any{{int64(1663), "pg_default", int64(10), nil, nil}, {int64(1664), "pg_global", int64(10), nil, nil}}
	})
	register("pg_catalog", "pg_extension", true, `oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:bool
		extversion:text extconfig:oid[] extcondition:text[]`, func(*Snapshot, *Facts) [][]any {
		return [][]any{{int64(13001), "plpgsql", int64(10), int64(11), false, "1.0", nil, nil}}
	})
	register("pg_catalog", "pg_roles", false, `rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool
		rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolpassword:text
		rolvaliduntil:timestamptz rolbypassrls:bool rolconfig:text[] oid:oid`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, r := range allRoles(s) {
			rows = append(rows, []any{r.Name, r.Super, r.Inherit, r.CreateRole, r.CreateDB, r.Login, r.Replication, r.ConnLimit,
				"********", validUntil(r.ValidUntil), r.BypassRLS, nil, int64(r.OID)})
		}
		return rows
	})
	register("pg_catalog", "pg_authid", false, `oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool
		rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolbypassrls:bool rolconnlimit:int4 rolpassword:text
		rolvaliduntil:timestamptz`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, r := range allRoles(s) {
			var pw any
			if r.Password != "" {
				pw = r.Password
			}
			rows = append(rows, []any{int64(r.OID), r.Name, r.Super, r.Inherit, r.CreateRole, r.CreateDB, r.Login, r.Replication,
				r.BypassRLS, r.ConnLimit, pw, validUntil(r.ValidUntil)})
		}
		return rows
	})
	register("pg_catalog", "pg_user", false, `usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool
		usebypassrls:bool passwd:text valuntil:timestamptz useconfig:text[]`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, r := range allRoles(s) {
			if r.Login {
				rows = append(rows, []any{r.Name, int64(r.OID), r.CreateDB, r.Super, r.Replication, r.BypassRLS, "********",
					validUntil(r.ValidUntil), nil})
			}
		}
		return rows
	})
	register("pg_catalog", "pg_auth_members", false, "roleid:oid member:oid grantor:oid admin_option:bool", func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, m := range append(predefinedMembers(), s.Members...) {
			rows = append(rows, []any{int64(m.Role), int64(m.Member), int64(m.Grantor), m.Admin})
		}
		return rows
	})
	// Always empty here: we have no such objects.
	register("pg_catalog", "pg_inherits", true, "inhrelid:oid inhparent:oid inhseqno:int4 inhdetachpending:bool", none)
	register("pg_catalog", "pg_enum", true, "oid:oid enumtypid:oid enumsortorder:float4 enumlabel:name", none)
	register("pg_catalog", "pg_locks", true, `locktype:text database:oid relation:oid page:int4 tuple:int2 virtualxid:text
		transactionid:text classid:oid objid:oid objsubid:int2 virtualtransaction:text pid:int4 mode:text
		granted:bool fastpath:bool waitstart:timestamptz`, none)
	register("pg_catalog", "pg_views", false, "schemaname:name viewname:name viewowner:name definition:text", viewsRows)
	register("pg_catalog", "pg_matviews", true, "schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:bool ispopulated:bool definition:text", none)
	register("pg_catalog", "pg_sequence", true, "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8 seqmin:int8 seqcache:int8 seqcycle:bool", none)
	register("pg_catalog", "pg_policy", true, `oid:oid polname:name polrelid:oid polcmd:char polpermissive:bool
		polroles:oid[] polqual:text polwithcheck:text`, none)
	register("pg_catalog", "pg_statistic_ext", true, `oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid
		stxstattarget:int4 stxkeys:int2vector stxkind:char[]`, none)
	register("pg_catalog", "pg_publication", true, `oid:oid pubname:name pubowner:oid puballtables:bool pubinsert:bool
		pubupdate:bool pubdelete:bool pubtruncate:bool pubviaroot:bool`, none)
	register("pg_catalog", "pg_publication_namespace", true, "oid:oid pnpubid:oid pnnspid:oid", none)
	register("pg_catalog", "pg_publication_rel", true, "oid:oid prpubid:oid prrelid:oid prqual:text prattrs:int2[]", none)
	register("pg_catalog", "pg_trigger", true, `oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:int2
		tgenabled:char tgisinternal:bool tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid tgdeferrable:bool
		tginitdeferred:bool tgnargs:int2`, none)
	register("pg_catalog", "pg_rewrite", true, "oid:oid rulename:name ev_class:oid ev_type:char ev_enabled:char is_instead:bool ev_qual:text ev_action:text", none)
	register("pg_catalog", "pg_foreign_table", true, "ftrelid:oid ftserver:oid ftoptions:text[]", none)
	register("pg_catalog", "pg_partitioned_table", true, "partrelid:oid partstrat:char partnatts:int2 partdefid:oid partattrs:int2vector partclass:oidvector partcollation:oidvector partexprs:text", none)
	register("pg_catalog", "pg_depend", true, "classid:oid objid:oid objsubid:int4 refclassid:oid refobjid:oid refobjsubid:int4 deptype:char", none)
	register("pg_catalog", "pg_event_trigger", true, "oid:oid evtname:name evtevent:name evtowner:oid evtfoid:oid evtenabled:char evttags:text[]", none)
	register("pg_catalog", "pg_foreign_data_wrapper", true, "oid:oid fdwname:name fdwowner:oid fdwhandler:oid fdwvalidator:oid fdwacl:text[] fdwoptions:text[]", none)
	register("pg_catalog", "pg_foreign_server", true, "oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text srvversion:text srvacl:text[] srvoptions:text[]", none)
}

// allRoles is pg_authid: the stored roles (or the bootstrap superuser)
// and PostgreSQL's predefined roles, by OID.
func allRoles(s *Snapshot) []Role {
	stored := s.Roles
	if stored == nil {
		stored = []Role{{OID: acl.BootstrapSuperuser, Name: "postgres", Super: true, Inherit: true, CreateRole: true,
			CreateDB: true, Login: true, Replication: true, BypassRLS: true, ConnLimit: -1}}
	}
	out := append([]Role(nil), stored...)
	for _, p := range acl.Predefined {
		out = append(out, Role{OID: p.OID, Name: p.Name, Inherit: true, ConnLimit: -1})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

func predefinedMembers() []Member {
	var out []Member
	for _, e := range acl.PredefinedEdges {
		out = append(out, Member{Role: e.Role, Member: e.Member, Grantor: e.Grantor, Admin: e.Admin})
	}
	return out
}

// roleName is a role's name (pg_get_userbyid), "" if there is none.
func roleName(s *Snapshot, oid uint32) string {
	for _, r := range allRoles(s) {
		if r.OID == oid {
			return r.Name
		}
	}
	return ""
}

// validUntil is rolvaliduntil's value.
func validUntil(v *int64) any {
	switch {
	case v == nil:
		return nil
	case *v == math.MaxInt64:
		return timeLit("infinity")
	case *v == math.MinInt64:
		return timeLit("-infinity")
	}
	return ts(pgEpoch.Add(time.Duration(*v) * time.Microsecond))
}

var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// aclArray is an aclitem[] value: nil is NULL.
func aclArray(a []string) any {
	if a == nil {
		return nil
	}
	return append([]string{}, a...)
}

// publicSchemaACL is initdb's ACL of schema public, and systemSchemaACL
// the one of pg_catalog and information_schema.
var (
	publicSchemaACL = []string{"pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"}
	systemSchemaACL = []string{"postgres=UC/postgres", "=U/postgres"}
)

// schemaObject is a schema's owner and ACL.
func schemaObject(s *Snapshot, sc string) Object {
	if o, ok := s.SchemaACL[sc]; ok {
		return o
	}
	if sc == "public" {
		return Object{Owner: OIDDatabaseOwner, ACL: publicSchemaACL}
	}
	return Object{Owner: OIDBootstrapUser}
}

func databaseObject(s *Snapshot, db string) Object {
	if o, ok := s.DatabaseACL[db]; ok {
		return o
	}
	return Object{Owner: OIDBootstrapUser}
}

func tableOwner(t Table) uint32 {
	if t.Owner == 0 {
		return OIDBootstrapUser
	}
	return t.Owner
}

func namespaceRows(s *Snapshot, _ *Facts) [][]any {
	rows := [][]any{
		{int64(OIDPgCatalog), "pg_catalog", int64(OIDBootstrapUser), aclArray(systemSchemaACL)},
		{int64(OIDInfoSchema), "information_schema", int64(OIDBootstrapUser), aclArray(systemSchemaACL)},
	}
	for _, sc := range s.Schemas {
		o := schemaObject(s, sc)
		rows = append(rows, []any{int64(SchemaOID(sc)), sc, int64(o.Owner), aclArray(o.ACL)})
	}
	return rows
}

func classRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	row := func(oid uint32, name string, ns uint32, owner uint32, am int64, kind string, natts int, hasIndex bool, relacl any) []any {
		return []any{int64(oid), name, int64(ns), int64(0), int64(0), int64(owner), am, int64(oid), int64(0),
			int32(0), float32(-1), int32(0), int64(0), hasIndex, false, "p", kind, int16(natts), int16(0), false,
			false, false, false, false, true, "d", false, int64(0), int64(0), int64(0), relacl, nil, nil}
	}
	referenced := map[uint32]bool{}
	for _, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			referenced[fk.RefOID] = true
		}
	}
	for _, t := range sortedTables(s.Tables) {
		ns := SchemaOID(t.Schema)
		if t.View {
			rows = append(rows, row(t.OID, t.Name, ns, tableOwner(t), 0, "v", len(t.Columns), false, aclArray(t.ACL)))
			continue
		}
		r := row(t.OID, t.Name, ns, tableOwner(t), OIDHeapAM, "r", len(t.Columns), len(t.PrimaryKey) > 0 || len(t.Indexes) > 0, aclArray(t.ACL))
		// relhastriggers: PostgreSQL implements a foreign key with
		// triggers on both tables, and psql's \d shows foreign keys and
		// "Referenced by" only for a table that has triggers.
		r[20] = len(t.ForeignKeys) > 0 || referenced[t.OID]
		r[18] = int16(len(t.Checks)) // relchecks: psql's \d looks for them when > 0
		rows = append(rows, r)
		if len(t.PrimaryKey) > 0 {
			rows = append(rows, row(PKIndexOID(t.OID), pkName(t), ns, tableOwner(t), OIDBtreeAM, "i", len(t.PrimaryKey), false, nil))
		}
		for _, x := range t.Indexes {
			rows = append(rows, row(x.OID, x.Name, ns, tableOwner(t), int64(x.AM), "i", len(x.Keys), false, nil))
		}
	}
	rows = append(rows, sequenceClassRows(s, row)...)
	for i, k := range sortedKeys() {
		r := registry[k]
		if r.schema == "bsdb_internal" {
			continue
		}
		rows = append(rows, row(systemRelOID(k, i), r.name, SchemaOID(r.schema), OIDBootstrapUser, OIDHeapAM, "r", len(r.cols), false, nil))
	}
	return rows
}

func attributeRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		for i, c := range t.Columns {
			length, byval, align, storage, coll, _ := typeFacts(c.TypeOID)
			ndims := int32(0)
			if tr, ok := typeByOID[c.TypeOID]; ok && tr.category == "A" {
				ndims = 1
			}
			rows = append(rows, []any{int64(t.OID), c.Name, int64(c.TypeOID), int32(-1), int16(length), int16(c.Num(i)),
				ndims, int32(-1), c.TypeMod, byval, align, storage, "", c.NotNull, c.Default != "" && c.Identity == "", false, c.Identity, "",
				false, true, int32(0), coll, nil, nil, nil, nil})
		}
		for _, x := range t.Indexes {
			for i, name := range x.KeyNames {
				typ := x.KeyTypes[i]
				length, byval, align, storage, coll, _ := typeFacts(typ)
				rows = append(rows, []any{int64(x.OID), name, int64(typ), int32(-1), int16(length),
					int16(i + 1), int32(0), int32(-1), int32(-1), byval, align, storage, "", false, false, false, "", "",
					false, true, int32(0), coll, nil, nil, nil, nil})
			}
		}
		for i, k := range t.PrimaryKey {
			for _, c := range t.Columns {
				if c.Name == k {
					length, byval, align, storage, coll, _ := typeFacts(c.TypeOID)
					rows = append(rows, []any{int64(PKIndexOID(t.OID)), c.Name, int64(c.TypeOID), int32(-1), int16(length),
						int16(i + 1), int32(0), int32(-1), c.TypeMod, byval, align, storage, "", false, false, false, "", "",
						false, true, int32(0), coll, nil, nil, nil, nil})
				}
			}
		}
	}
	return rows
}

// attrdefOID is a column default's OID: table OID plus attnum in the high
// bits (stable, distinct from table and key OIDs).
func attrdefOID(table uint32, attnum int) int64 { return int64(table) | int64(attnum)<<32 }

// defaultOID is the OID of column c's default (pg_attrdef.oid): for a
// default that calls nextval of a sequence, the sequence's OID (unique
// among defaults, and within the 32 bits of an oid: pg_dump keys its
// objects by it and resolves pg_depend's rows of the default with it;
// pg_attrdef and pg_class are different classes, so the same number
// names two objects as in PostgreSQL), else attrdefOID.
func defaultOID(s *Snapshot, t Table, c Column, i int) int64 {
	if q := defaultSequence(s, t, c); q != nil {
		return int64(q.OID)
	}
	return attrdefOID(t.OID, c.Num(i))
}

// defaultSequence is the sequence of the snapshot whose nextval column c's
// default calls, or nil. PostgreSQL resolves the name once, when the
// default is stored; here an unqualified name (what CREATE TABLE stores
// for a serial column of public) is looked for in the table's schema,
// then public, then the search path.
func defaultSequence(s *Snapshot, t Table, c Column) *Sequence {
	const pre, post = "nextval('", "'::regclass)"
	d := strings.TrimSpace(c.Default)
	if c.Identity != "" || !strings.HasPrefix(d, pre) || !strings.HasSuffix(d, post) {
		return nil
	}
	name := strings.ReplaceAll(d[len(pre):len(d)-len(post)], "''", "'")
	parts, ok := splitQualified(name)
	if !ok {
		return nil
	}
	find := func(schema, rel string) *Sequence {
		for i := range s.Sequences {
			if q := &s.Sequences[i]; q.Schema == schema && q.Name == rel {
				return q
			}
		}
		return nil
	}
	if len(parts) == 2 {
		return find(parts[0], parts[1])
	}
	for _, sc := range append([]string{t.Schema, "public"}, s.SearchPath...) {
		if q := find(sc, parts[0]); q != nil {
			return q
		}
	}
	return nil
}

// splitQualified splits a possibly qualified, possibly quoted relation
// name as a regclass literal spells it: [schema,] name (unquoted names
// folded to lower case).
func splitQualified(s string) ([]string, bool) {
	var parts []string
	for len(s) > 0 {
		var p string
		if s[0] == '"' {
			end := -1
			for i := 1; i < len(s); i++ {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						i++
						continue
					}
					end = i
					break
				}
			}
			if end < 0 {
				return nil, false
			}
			p, s = strings.ReplaceAll(s[1:end], `""`, `"`), s[end+1:]
		} else {
			i := strings.IndexByte(s, '.')
			if i < 0 {
				i = len(s)
			}
			p, s = strings.ToLower(s[:i]), s[i:]
		}
		parts = append(parts, p)
		if len(s) > 0 {
			if s[0] != '.' {
				return nil, false
			}
			s = s[1:]
		}
	}
	return parts, len(parts) == 1 || len(parts) == 2
}

func attrdefRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		for i, c := range t.Columns {
			if c.Default != "" && c.Identity == "" {
				rows = append(rows, []any{defaultOID(s, t, c, i), int64(t.OID), int16(c.Num(i)), shownDefault(s, t, c)})
			}
		}
	}
	return rows
}

// shownDefault is DefaultExpr as the session sees it: the sequence a
// nextval default calls is named as regclass output names it, qualified
// unless its schema is in the search path.
func shownDefault(s *Snapshot, t Table, c Column) string {
	q := defaultSequence(s, t, c)
	if q == nil {
		return DefaultExpr(c)
	}
	name := quoteIdent(q.Name)
	if !slices.Contains(s.SearchPath, q.Schema) {
		name = quoteIdent(q.Schema) + "." + name
	}
	return "nextval('" + strings.ReplaceAll(name, "'", "''") + "'::regclass)"
}

// DefaultExpr is a column default as pg_get_expr prints it: PostgreSQL
// shows a string literal default with its cast to the column's type
// ('x'::character varying, 'x'::text; also with doubled quotes inside).
func DefaultExpr(c Column) string {
	d := strings.TrimSpace(c.Default)
	if len(d) >= 2 && d[0] == '\'' && d[len(d)-1] == '\'' && !strings.Contains(strings.ReplaceAll(d[1:len(d)-1], "''", ""), "'") {
		// The literal became a constant of the column's type: a
		// non-negative integer constant prints bare (ruleutils'
		// get_const_expr), as PostgreSQL shows it.
		if n, err := strconv.ParseInt(strings.TrimSpace(d[1:len(d)-1]), 10, 32); err == nil && n >= 0 && c.TypeOID == 23 {
			return strconv.FormatInt(n, 10)
		}
		return d + "::" + FormatType(c.TypeOID, -1)
	}
	return d
}

func keyNums(t Table) []int64 {
	var out []int64
	for _, k := range t.PrimaryKey {
		for i, c := range t.Columns {
			if c.Name == k {
				out = append(out, int64(c.Num(i)))
			}
		}
	}
	return out
}

func constraintRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		rows = append(rows, foreignKeyConstraintRows(s, t)...)
		for _, c := range t.Checks {
			keys := c.Keys
			if keys == nil {
				keys = []int64{}
			}
			rows = append(rows, []any{int64(c.OID), c.Name, int64(SchemaOID(t.Schema)), "c", false,
				false, !c.NotValid, int64(t.OID), int64(0), int64(0), int64(0), int64(0), " ", " ", " ", true,
				int32(0), false, keys, nil, nil, nil, nil, nil, nil})
		}
		for _, x := range t.Indexes {
			if x.ConstraintOID != 0 {
				rows = append(rows, []any{int64(x.ConstraintOID), x.Name, int64(SchemaOID(t.Schema)), "u", false,
					false, true, int64(t.OID), int64(0), int64(x.OID), int64(0), int64(0), " ", " ", " ", true,
					int32(0), true, x.Keys[:x.NKeys], nil, nil, nil, nil, nil, nil})
			}
		}
		if len(t.PrimaryKey) == 0 {
			continue
		}
		rows = append(rows, []any{int64(PKConstraintOID(t.OID)), pkName(t), int64(SchemaOID(t.Schema)), "p", false,
			false, true, int64(t.OID), int64(0), int64(PKIndexOID(t.OID)), int64(0), int64(0), " ", " ", " ", true,
			int32(0), true, keyNums(t), nil, nil, nil, nil, nil, nil})
	}
	return rows
}

func indexRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		for _, x := range t.Indexes {
			n, nkey := int16(len(x.Keys)), int16(x.NKeys)
			var pred any
			if x.Pred {
				pred = "" // not null: a partial index
			}
			rows = append(rows, []any{int64(x.OID), int64(t.OID), n, nkey, x.Unique, false, false, false, true, false,
				true, false, true, true, false, x.Keys, nil, nil, x.Options, nil, pred})
		}
		if len(t.PrimaryKey) == 0 {
			continue
		}
		n := int16(len(t.PrimaryKey))
		rows = append(rows, []any{int64(PKIndexOID(t.OID)), int64(t.OID), n, n, true, false, true, false, true, false,
			true, false, true, true, false, keyNums(t), nil, nil, make([]int64, len(t.PrimaryKey)), nil, nil})
	}
	return rows
}

// indexDef is pg_get_indexdef's text for a table's primary key index.
func indexDef(t Table) string {
	return fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s.%s USING btree (%s)", quoteIdent(pkName(t)), quoteIdent(t.Schema),
		quoteIdent(t.Name), quoteList(t.PrimaryKey))
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// quoteIdent quotes an identifier only when PostgreSQL's quote_identifier
// would: unless it is lower-case letters, digits and underscores, not
// starting with a digit, and no keyword other than an unreserved one.
func quoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain && !reservedWords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// reservedWords are the keywords quote_identifier quotes (extra_gen.go).
var reservedWords = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range parseLines(keywordLines, 1) {
		m[f[0]] = true
	}
	return m
}()

func indexesRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		if len(t.PrimaryKey) > 0 {
			rows = append(rows, []any{t.Schema, t.Name, pkName(t), nil, indexDef(t)})
		}
		for _, x := range t.Indexes {
			rows = append(rows, []any{t.Schema, t.Name, x.Name, nil, x.Def})
		}
	}
	return rows
}

func defRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		if t.View {
			rows = append(rows, []any{int64(t.OID), t.ViewDef})
		}
		if len(t.PrimaryKey) > 0 {
			rows = append(rows, []any{int64(PKIndexOID(t.OID)), indexDef(t)})
			rows = append(rows, []any{int64(PKConstraintOID(t.OID)), "PRIMARY KEY (" + quoteList(t.PrimaryKey) + ")"})
		}
		for _, x := range t.Indexes {
			rows = append(rows, []any{int64(x.OID), x.Def})
			if x.ConstraintOID != 0 {
				rows = append(rows, []any{int64(x.ConstraintOID), "UNIQUE (" + quoteList(x.KeyNames[:x.NKeys]) + ")"})
			}
		}
		for _, fk := range t.ForeignKeys {
			rows = append(rows, []any{int64(fk.OID), foreignKeyDef(s, fk)})
		}
		for _, c := range t.Checks {
			d := "CHECK ((" + c.Expr + "))"
			if c.NotValid {
				d += " NOT VALID"
			}
			rows = append(rows, []any{int64(c.OID), d})
		}
	}
	return rows
}

// visibleRows: pg_table_is_visible is true for a table found first along
// the search path under its name (and for every system relation).
func visibleRows(s *Snapshot, _ *Facts) [][]any {
	seen := map[string]bool{}
	var rows [][]any
	for _, sc := range s.SearchPath {
		for _, t := range sortedTables(s.Tables) {
			if t.Schema == sc && !seen[t.Name] {
				seen[t.Name] = true
				rows = append(rows, []any{int64(t.OID)})
				if len(t.PrimaryKey) > 0 && !seen[pkName(t)] {
					seen[pkName(t)] = true
					rows = append(rows, []any{int64(PKIndexOID(t.OID))})
				}
				for _, x := range t.Indexes {
					if !seen[x.Name] {
						seen[x.Name] = true
						rows = append(rows, []any{int64(x.OID)})
					}
				}
			}
		}
		for _, q := range s.Sequences {
			if q.Schema == sc && !seen[q.Name] {
				seen[q.Name] = true
				rows = append(rows, []any{int64(q.OID)})
			}
		}
	}
	for i, k := range sortedKeys() {
		if strings.HasPrefix(k, "pg_catalog.") {
			rows = append(rows, []any{int64(systemRelOID(k, i))})
		}
	}
	return rows
}

// templateDatabases are PostgreSQL's template databases, listed as
// initdb creates them (template0 does not allow connections). They are
// not databases of ours: connecting to them is refused.
var templateDatabases = []struct {
	oid       int64
	name      string
	allowConn bool
}{{1, "template1", true}, {4, "template0", false}}

func databaseRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	ours := map[string]bool{}
	for _, d := range s.Databases {
		ours[d] = true
		o := databaseObject(s, d)
		rows = append(rows, []any{int64(DatabaseOID(d)), d, int64(o.Owner), int32(6), "c", false, true, int32(-1),
			int64(716), int64(1), int64(OIDPgDefaultTS), "C", "C", nil, nil, aclArray(o.ACL)})
	}
	for _, t := range templateDatabases {
		if !ours[t.name] {
			rows = append(rows, []any{t.oid, t.name, int64(OIDBootstrapUser), int32(6), "c", true, t.allowConn, int32(-1),
				int64(716), int64(1), int64(OIDPgDefaultTS), "C", "C", nil, nil, []string{"=c/postgres", "postgres=CTc/postgres"}})
		}
	}
	return rows
}

func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return timeLit(t.UTC().Format("2006-01-02 15:04:05.999999") + "+00")
}

func activityRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, se := range s.Sessions {
		var addr, port any
		if se.ClientAddr != "" {
			h, p, ok := strings.Cut(se.ClientAddr, ":")
			addr = h
			var n int32
			if _, err := fmt.Sscan(p, &n); ok && err == nil {
				port = n
			}
		}
		var usesysid any
		for _, r := range allRoles(s) {
			if r.Name == se.User {
				usesysid = int64(r.OID)
			}
		}
		rows = append(rows, []any{int64(DatabaseOID(se.Database)), se.Database, int32(se.PID), nil, usesysid, se.User,
			se.ApplicationName, addr, nil, port, ts(se.BackendStart), nil, ts(se.QueryStart), ts(se.StateChange), nil, nil,
			se.State, nil, se.Query, "client backend"})
	}
	return rows
}

func tablesRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		if !t.View {
			rows = append(rows, []any{t.Schema, t.Name, roleName(s, tableOwner(t)), nil, len(t.PrimaryKey) > 0, false, false, false})
		}
	}
	return rows
}

func viewsRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		if t.View {
			rows = append(rows, []any{t.Schema, t.Name, roleName(s, tableOwner(t)), t.ViewDef})
		}
	}
	return rows
}

func settingsRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, st := range s.Settings {
		if st.Context != "" {
			rows = append(rows, []any{st.Name, st.Value, nullIfEmpty(st.Unit), st.Category, st.ShortDesc, nullIfEmpty(st.ExtraDesc),
				st.Context, st.VarType, st.Source, nullIfEmpty(st.Min), nullIfEmpty(st.Max), aclArray(st.EnumVals), st.Boot, st.Reset,
				nil, nil, false})
			continue
		}
		ctx, src := "user", "default"
		if st.ReadOnly {
			ctx = "internal"
		}
		if st.Value != st.Default {
			src = "session"
		}
		rows = append(rows, []any{st.Name, st.Value, nil, "Client Connection Defaults", st.ShortDesc, nil, ctx, "string",
			src, nil, nil, nil, st.Default, st.Default, nil, nil, false})
	}
	return rows
}

func typeRows(*Snapshot, *Facts) [][]any {
	ts := Types()
	rows := make([][]any, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, []any{int64(t.OID), t.Name, int64(t.Namespace), int64(OIDBootstrapUser), t.Len, t.ByVal, string(t.TypType),
			string(t.Category), t.Preferred, true, string(t.Delim), int64(t.RelID), t.Subscript, int64(t.Elem), int64(t.Array), t.Input,
			t.Output, t.Receive, t.Send, t.ModIn, t.ModOut, t.Analyze, string(t.Align), string(t.Storage), false, int64(t.BaseType),
			t.TypMod, t.NDims, int64(t.Collation), nil, nil, nil})
	}
	return rows
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
