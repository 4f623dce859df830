package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// CREATE INDEX and DROP INDEX.
//
// An index is recorded in its table's catalog entry (catalog.IndexDef):
// pg_class (relkind 'i'), pg_index, pg_indexes, pg_attribute,
// pg_get_indexdef, psql's \d and \di, pg_dump and the drivers' metadata
// show it, so that migrations, ORMs (pandas' to_sql index, SQLAlchemy's
// Index, Django's db_index) and schema dumps run unchanged. It has no
// effect on queries or writes: the tables are columnar Parquet files read
// by scans that prune on per-file and per-row-group statistics, and the
// bounded native cache. A temporary table's indexes are kept in the
// session's copy of its entry and go with it. A UNIQUE index would have to enforce uniqueness,
// which is not built yet, so CREATE UNIQUE INDEX is refused (0A000)
// rather than recorded as a promise that is not kept.

// indexAMs maps the access methods PostgreSQL 15 has to their pg_am OIDs.
var indexAMs = map[string]uint32{"btree": 403, "hash": 405, "gist": 783, "gin": 2742, "spgist": 4000, "brin": 3580}

// planIndex plans CREATE INDEX and DROP INDEX; ok is false for any other
// statement.
func (s *session) planIndex(st *bsql.Statement) (p plan, ok bool, err error) {
	switch n := st.Tree.GetNode().(type) {
	case *pg_query.Node_IndexStmt:
		is := n.IndexStmt
		if err := s.ddlAllowed("CREATE INDEX"); err != nil {
			return nil, true, err
		}
		return tagOnly("CREATE INDEX", func(ctx context.Context) error { return s.createIndex(ctx, is) }), true, nil
	case *pg_query.Node_ReindexStmt:
		rs := n.ReindexStmt
		return tagOnly("REINDEX", func(ctx context.Context) error { return s.reindex(ctx, rs) }), true, nil
	case *pg_query.Node_DropStmt:
		if n.DropStmt.RemoveType != pg_query.ObjectType_OBJECT_INDEX {
			return nil, false, nil
		}
		ds := n.DropStmt
		if err := s.ddlAllowed("DROP INDEX"); err != nil {
			return nil, true, err
		}
		return tagOnly("DROP INDEX", func(ctx context.Context) error { return s.dropIndexes(ctx, ds) }), true, nil
	}
	return nil, false, nil
}

func (s *session) createIndex(ctx context.Context, is *pg_query.IndexStmt) error {
	rv := is.Relation
	switch {
	case is.Primary || is.Isconstraint:
		return pgerr.New(pgerr.FeatureNotSupported, "constraint indexes are not supported here")
	case is.Unique && is.NullsNotDistinct:
		return pgerr.New(pgerr.FeatureNotSupported, "unique indexes NULLS NOT DISTINCT are not supported")
	case is.Unique && is.WhereClause != nil:
		return pgerr.New(pgerr.FeatureNotSupported, "partial unique indexes are not supported")
	case is.ExcludeOpNames != nil:
		return pgerr.New(pgerr.FeatureNotSupported, "exclusion constraints are not supported")
	case rv.Catalogname != "" && rv.Catalogname != s.db:
		return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	method := strings.ToLower(is.AccessMethod)
	if method == "" {
		method = "btree"
	}
	if _, known := indexAMs[method]; !known {
		return pgerr.New(pgerr.UndefinedObject, "access method \"%s\" does not exist", is.AccessMethod)
	}
	if tt := s.tempTable(rv.Schemaname, rv.Relname); tt != nil {
		return s.createTempIndex(ctx, is, tt, method)
	}
	id, a, o, err := s.lookupExisting(ctx, rv)
	if err != nil {
		return err
	}
	if o.view != nil {
		return pgerr.New("42809", "\"%s\" is not a table or materialized view", rv.Relname)
	}
	if err := s.requireTableOwner(ctx, a, id, false); err != nil {
		return err
	}
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		return err
	}
	def, colNames, err := indexDef(is, t, method)
	if err != nil {
		return err
	}
	key, err := uniqueKeyOf(is, def)
	if err != nil {
		return err
	}
	def.Unique = key != nil
	taken, err := s.relationNames(ctx, id.Schema)
	if err != nil {
		return err
	}
	def.Name = is.Idxname
	if def.Name == "" {
		if def.Name, err = chooseIndexName(id.Name, colNames, func(n string) (bool, error) { return s.nameTaken(ctx, id.Schema, n, taken) }); err != nil {
			return err
		}
	} else if exists, err := s.nameTaken(ctx, id.Schema, def.Name, taken); err != nil {
		return err
	} else if exists {
		if is.IfNotExists {
			return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable,
				Message: fmt.Sprintf("relation \"%s\" already exists, skipping", def.Name)})
		}
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", def.Name)
	}
	if def.OID, err = s.eng.Catalog().AllocOID(ctx); err != nil {
		return err
	}
	record := func(e *catalog.Entry) error {
		if e.IndexNamed(def.Name) != nil {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", def.Name)
		}
		e.Indexes = append(e.Indexes, def)
		return nil
	}
	if key == nil {
		return s.b.sec.updateTable(ctx, id, record)
	}
	// A unique index: the rows must not repeat its key, which is enforced
	// from then on (keys.go).
	key.Name = def.Name
	return s.addKey(ctx, id, *key, record)
}

// uniqueKeyOf is the key a CREATE UNIQUE INDEX enforces (nil for a plain
// index); a unique index on expressions is refused.
func uniqueKeyOf(is *pg_query.IndexStmt, def catalog.IndexDef) (*planner.KeyDef, error) {
	if !is.Unique {
		return nil, nil
	}
	k := &planner.KeyDef{}
	for _, c := range def.Keys {
		if c.Column == "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "unique indexes on expressions are not supported")
		}
		k.Columns = append(k.Columns, c.Column)
	}
	return k, nil
}

// indexOption is pg_index.indoption of a key: 1 DESC, 2 NULLS FIRST
// (which DESC implies unless NULLS LAST).
func indexOption(opts string) int64 {
	var o int64
	if strings.Contains(opts, "DESC") {
		o |= 1
		if !strings.Contains(opts, "NULLS LAST") {
			o |= 2
		}
	} else if strings.Contains(opts, "NULLS FIRST") {
		o |= 2
	}
	return o
}

// indexDef is the recorded form of the index is on t, without its name
// and OID, and the names its generated name is made of.
func indexDef(is *pg_query.IndexStmt, t *planner.Table, method string) (catalog.IndexDef, []string, error) {
	def := catalog.IndexDef{Method: method}
	var colNames []string // for the generated name
	for _, n := range is.IndexParams {
		el := n.GetIndexElem()
		if el == nil {
			continue
		}
		k := catalog.IndexKey{Options: indexKeyOptions(el)}
		switch {
		case el.Name != "":
			if t.Schema.Index(el.Name) < 0 {
				return def, nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", el.Name)
			}
			k.Column = el.Name
			colNames = append(colNames, el.Name)
		case el.Expr != nil:
			text, err := bsql.DeparseExpr(el.Expr)
			if err != nil {
				return def, nil, err
			}
			k.Expr = text
			name := bsql.ColumnNameOf(el.Expr)
			if name == "?column?" {
				name = "expr"
			}
			colNames = append(colNames, name)
		}
		def.Keys = append(def.Keys, k)
	}
	if len(def.Keys) > 32 {
		return def, nil, pgerr.New("54011", "cannot use more than 32 columns in an index")
	}
	for _, n := range is.IndexIncludingParams {
		el := n.GetIndexElem()
		if el == nil || el.Name == "" {
			return def, nil, pgerr.New(pgerr.FeatureNotSupported, "expressions are not supported in included columns")
		}
		if t.Schema.Index(el.Name) < 0 {
			return def, nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", el.Name)
		}
		def.Include = append(def.Include, el.Name)
	}
	if is.WhereClause != nil {
		text, err := bsql.DeparseExpr(is.WhereClause)
		if err != nil {
			return def, nil, err
		}
		def.Where = text
	}
	return def, colNames, nil
}

// createTempIndex records an index of a temporary table: in the session's
// copy of its entry, gone with the table.
func (s *session) createTempIndex(ctx context.Context, is *pg_query.IndexStmt, t *planner.Table, method string) error {
	def, colNames, err := indexDef(is, t, method)
	if err != nil {
		return err
	}
	taken := s.tempNames()
	def.Name = is.Idxname
	if def.Name == "" {
		def.Name, _ = chooseIndexName(t.ID.Name, colNames, func(n string) (bool, error) { return taken[n], nil })
	} else if taken[def.Name] {
		if is.IfNotExists {
			return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable,
				Message: fmt.Sprintf("relation \"%s\" already exists, skipping", def.Name)})
		}
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", def.Name)
	}
	key, err := uniqueKeyOf(is, def)
	if err != nil {
		return err
	}
	if key != nil {
		key.Name = def.Name
		var dup *planner.ErrDuplicateKey
		if err := t.CheckUnique(ctx, *key); errors.As(err, &dup) {
			return duplicateKeyError(dup)
		} else if err != nil {
			return err
		}
		def.Unique = true
	}
	def.OID = planner.TempOID()
	t.Entry.Indexes = append(t.Entry.Indexes, def)
	return t.SetKeys(planner.EntryKeys(t.ID, &t.Entry, t.Schema))
}

// tempNames are the names of the session's temporary relations (tables,
// their indexes, views).
func (s *session) tempNames() map[string]bool {
	taken := map[string]bool{}
	for name, tt := range s.temp.tables {
		taken[name] = true
		for _, x := range tt.Entry.Indexes {
			taken[x.Name] = true
		}
	}
	for name := range s.temp.views {
		taken[name] = true
	}
	return taken
}

// dropTempIndex drops the index name of a temporary table (found true).
func (s *session) dropTempIndex(name string) bool {
	for _, t := range s.temp.tables {
		for i := range t.Entry.Indexes {
			if t.Entry.Indexes[i].Name == name {
				t.Entry.Indexes = append(t.Entry.Indexes[:i:i], t.Entry.Indexes[i+1:]...)
				_ = t.SetKeys(planner.EntryKeys(t.ID, &t.Entry, t.Schema))
				return true
			}
		}
	}
	return false
}

// indexRef is an index found by name: one of a temporary table (temp),
// or one recorded in the entry of table id (pkey: its primary key's);
// a is the session's authorization it was looked up with.
type indexRef struct {
	temp *catalog.IndexDef
	id   catalog.TableID
	pkey bool
	a    *authz
}

// lookupIndex resolves an index name as PostgreSQL does: the session's
// temporary tables first, then the named schema or the search path; nil
// when no index has the name.
func (s *session) lookupIndex(ctx context.Context, rv *pg_query.RangeVar) (*indexRef, error) {
	if rv.Schemaname == "" || s.isTempSchema(rv.Schemaname) {
		for _, t := range s.temp.tables {
			if x := t.Entry.IndexNamed(rv.Relname); x != nil {
				return &indexRef{temp: x}, nil
			}
		}
	}
	a, err := s.authz(ctx)
	if err != nil {
		return nil, err
	}
	schemas := []string{rv.Schemaname}
	if rv.Schemaname == "" {
		if schemas, err = s.searchPathFor(ctx, a); err != nil {
			return nil, err
		}
	}
	id, found, pkey, err := s.findIndex(ctx, schemas, rv.Relname)
	if err != nil || !found && !pkey {
		return nil, err
	}
	return &indexRef{id: id, pkey: pkey, a: a}, nil
}

// reindex checks what REINDEX names and does nothing more: an index here
// holds no structure to rebuild.
func (s *session) reindex(ctx context.Context, rs *pg_query.ReindexStmt) error {
	switch rs.Kind {
	case pg_query.ReindexObjectType_REINDEX_OBJECT_INDEX:
		rv := rs.Relation
		ref, err := s.lookupIndex(ctx, rv)
		if err != nil {
			return err
		}
		if ref == nil {
			return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
		}
	case pg_query.ReindexObjectType_REINDEX_OBJECT_TABLE:
		rv := rs.Relation
		if s.tempTable(rv.Schemaname, rv.Relname) != nil {
			return nil
		}
		id, a, _, err := s.lookupExisting(ctx, rv)
		if err != nil {
			return err
		}
		return s.requireTableOwner(ctx, a, id, false)
	case pg_query.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		if _, err := s.b.sec.schema(ctx, s.db, rs.Name); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", rs.Name)
			}
			return err
		}
	case pg_query.ReindexObjectType_REINDEX_OBJECT_DATABASE, pg_query.ReindexObjectType_REINDEX_OBJECT_SYSTEM:
		if rs.Name != "" && rs.Name != s.db {
			return pgerr.New(pgerr.FeatureNotSupported, "can only reindex the currently open database")
		}
	}
	return nil
}

// indexKeyOptions is an index key's ordering as pg_get_indexdef prints it:
// DESC, and NULLS FIRST / LAST where it is not the direction's default.
func indexKeyOptions(el *pg_query.IndexElem) string {
	desc := el.Ordering == pg_query.SortByDir_SORTBY_DESC
	var opts []string
	if desc {
		opts = append(opts, "DESC")
	}
	switch el.NullsOrdering {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		if !desc {
			opts = append(opts, "NULLS FIRST")
		}
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		if desc {
			opts = append(opts, "NULLS LAST")
		}
	}
	return strings.Join(opts, " ")
}

// relationNames returns the names taken in schema sc by relations:
// tables, views, their indexes and primary keys (sequences: nameTaken).
func (s *session) relationNames(ctx context.Context, sc string) (map[string]bool, error) {
	ents, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, e := range ents {
		if e.ID.Schema != sc {
			continue
		}
		taken[e.ID.Name] = true
		for _, x := range e.Indexes {
			taken[x.Name] = true
		}
		if t, err := s.eng.Table(ctx, e.ID); err == nil {
			if key, name := e.EffectiveKey(t.Schema.PrimaryKey); len(key) > 0 {
				if name == "" {
					name = e.ID.Name + "_pkey"
				}
				taken[name] = true
			}
		}
	}
	return taken, nil
}

// indexHasName reports whether an index (or a primary key's) of id's
// schema is named id.Name.
func (s *session) indexHasName(ctx context.Context, id catalog.TableID) (bool, error) {
	_, found, pkey, err := s.findIndex(ctx, []string{id.Schema}, id.Name)
	return found || pkey, err
}

// nameTaken reports whether a relation of schema sc (an index included,
// per taken from relationNames) has the name.
func (s *session) nameTaken(ctx context.Context, sc, name string, taken map[string]bool) (bool, error) {
	if taken[name] {
		return true, nil
	}
	return s.relationExists(ctx, catalog.TableID{Database: s.db, Schema: sc, Name: name}) // a sequence
}

// chooseIndexName is PostgreSQL's ChooseIndexName for an index that is no
// constraint: table_col1_col2_idx, cut to fit 63 bytes, and numbered
// (idx1, idx2, ...) until no relation has the name.
func chooseIndexName(table string, cols []string, taken func(string) (bool, error)) (string, error) {
	return chooseRelationName(table, cols, "idx", taken)
}

// chooseRelationName is PostgreSQL's ChooseRelationName over a table's
// columns: table_col1_col2_label, then label1, label2, ... while taken.
func chooseRelationName(table string, cols []string, label string, taken func(string) (bool, error)) (string, error) {
	addition := ""
	for _, c := range cols {
		if addition != "" {
			addition += "_"
		}
		addition += c
		if len(addition) >= 63 {
			break
		}
	}
	for pass := 0; ; pass++ {
		l := label
		if pass > 0 {
			l = fmt.Sprintf("%s%d", label, pass)
		}
		name := makeObjectName(table, addition, l)
		if t, err := taken(name); err != nil || !t {
			return name, err
		}
	}
}

func (s *session) dropIndexes(ctx context.Context, ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	_ = cascade // nothing depends on an index here
	a, err := s.authz(ctx)
	if err != nil {
		return err
	}
	for _, obj := range ds.Objects {
		sc, name, err := s.dropObjectName(obj)
		if err != nil {
			return err
		}
		if (sc == "" || s.isTempSchema(sc)) && s.dropTempIndex(name) {
			continue
		}
		var schemas []string
		if sc != "" {
			schemas = []string{sc}
		} else if schemas, err = s.searchPathFor(ctx, a); err != nil {
			return err
		}
		id, found, pkey, err := s.findIndex(ctx, schemas, name)
		if err != nil {
			return err
		}
		switch {
		case pkey:
			return pgerr.New("2BP01", "cannot drop index %s because constraint %s on table %s requires it", name, name, id.Name).
				WithHint("You can drop constraint %s on table %s instead.", name, id.Name)
		case !found:
			if ds.MissingOk {
				if err := s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
					Message: fmt.Sprintf("index \"%s\" does not exist, skipping", name)}); err != nil {
					return err
				}
				continue
			}
			return pgerr.New(pgerr.UndefinedObject, "index \"%s\" does not exist", name)
		}
		ta, err := s.authz(ctx)
		if err != nil {
			return err
		}
		if err := s.requireTableOwner(ctx, ta, id, true); err != nil {
			return err
		}
		err = s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
			for i := range e.Indexes {
				if e.Indexes[i].Name == name {
					e.Indexes = append(e.Indexes[:i:i], e.Indexes[i+1:]...)
					return nil
				}
			}
			return pgerr.New(pgerr.UndefinedObject, "index \"%s\" does not exist", name)
		})
		if err == nil {
			err = s.refreshKeys(ctx, id) // a unique index's key is no longer enforced
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// findIndex finds the index name in the first of schemas that has a
// relation of that name: its table, and pkey when it is a primary key's or
// a UNIQUE constraint's.
func (s *session) findIndex(ctx context.Context, schemas []string, name string) (id catalog.TableID, found, pkey bool, err error) {
	ents, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return id, false, false, err
	}
	for _, sc := range schemas {
		for _, e := range ents {
			if e.ID.Schema != sc {
				continue
			}
			if x := e.IndexNamed(name); x != nil {
				// A UNIQUE constraint's index goes with the constraint.
				return e.ID, true, x.Constraint, nil
			}
			if t, terr := s.eng.Table(ctx, e.ID); terr == nil {
				if key, kn := e.EffectiveKey(t.Schema.PrimaryKey); len(key) > 0 && (kn == name || kn == "" && e.ID.Name+"_pkey" == name) {
					return e.ID, false, true, nil
				}
			}
		}
	}
	return id, false, false, nil
}

// bareExpr reports whether PostgreSQL's deparser prints the expression
// text without enclosing parentheses where it stands alone (an index key,
// a predicate): a column or a function call, not an operator expression.
func bareExpr(text string) bool {
	i := 0
	for i < len(text) && (text[i] == '_' || text[i] == '.' || text[i] == '"' || text[i] >= 'a' && text[i] <= 'z' ||
		text[i] >= 'A' && text[i] <= 'Z' || i > 0 && text[i] >= '0' && text[i] <= '9') {
		i++
	}
	if i == len(text) {
		return i > 0 // a column
	}
	if i == 0 || text[i] != '(' || !strings.HasSuffix(text, ")") {
		return false
	}
	depth := 0
	for j := i; j < len(text); j++ {
		switch text[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && j != len(text)-1 {
				return false // f(a) + g(b)
			}
		}
	}
	return true
}

// attnumOf is the attnum of column c at position i.
func attnumOf(c bsql.ColumnInfo, i int) int {
	if c.Attnum > 0 {
		return c.Attnum
	}
	return i + 1
}

// pgIndexes converts a table's recorded indexes for the catalogs.
func pgIndexes(e *catalog.Entry, cols []bsql.ColumnInfo) []pgcatalog.Index {
	var out []pgcatalog.Index
	for _, x := range e.Indexes {
		pi := pgcatalog.Index{OID: x.OID, Name: x.Name, AM: indexAMs[x.Method], Pred: x.Where != "", Comment: x.Comment, Unique: x.Unique}
		if x.Constraint {
			pi.ConstraintOID = x.ConstraintOID
		}
		var keys []string
		for _, k := range x.Keys {
			attnum, typ, name := int64(0), uint32(pgcatalog.OIDText), "expr"
			text := k.Expr
			if k.Column != "" {
				name, text = k.Column, quoteIdentIfNeeded(k.Column)
				for i, c := range cols {
					if c.Name == k.Column {
						attnum, typ = int64(attnumOf(c, i)), c.TypeOID
					}
				}
			} else if !bareExpr(text) {
				text = "(" + text + ")" // pg_get_indexdef parenthesizes what is no function call
			}
			if k.Options != "" {
				text += " " + k.Options
			}
			pi.Options = append(pi.Options, indexOption(k.Options))
			keys = append(keys, text)
			pi.Keys, pi.KeyNames, pi.KeyTypes = append(pi.Keys, attnum), append(pi.KeyNames, name), append(pi.KeyTypes, typ)
		}
		pi.NKeys = len(pi.Keys)
		for _, c := range x.Include {
			for i, col := range cols {
				if col.Name == c {
					pi.Keys, pi.KeyNames, pi.KeyTypes = append(pi.Keys, int64(attnumOf(col, i))), append(pi.KeyNames, c), append(pi.KeyTypes, col.TypeOID)
				}
			}
		}
		create := "CREATE INDEX"
		if x.Unique {
			create = "CREATE UNIQUE INDEX"
		}
		d := fmt.Sprintf("%s %s ON %s.%s USING %s (%s)", create, quoteIdentIfNeeded(x.Name), quoteIdentIfNeeded(e.ID.Schema),
			quoteIdentIfNeeded(e.ID.Name), x.Method, strings.Join(keys, ", "))
		if len(x.Include) > 0 {
			inc := make([]string, len(x.Include))
			for i, c := range x.Include {
				inc[i] = quoteIdentIfNeeded(c)
			}
			d += " INCLUDE (" + strings.Join(inc, ", ") + ")"
		}
		if x.Where != "" {
			if bareExpr(x.Where) {
				d += " WHERE " + x.Where
			} else {
				d += " WHERE (" + x.Where + ")"
			}
		}
		pi.Def = d
		out = append(out, pi)
	}
	return out
}
