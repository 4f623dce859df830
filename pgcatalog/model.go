package pgcatalog

import (
	"time"

	"github.com/bsdb/bsdb-pg/acl"
)

// Well-known OIDs (PostgreSQL's own, fixed by initdb).
const (
	OIDPgCatalog     = 11
	OIDPublic        = 2200
	OIDInfoSchema    = 13000 // initdb-assigned in PostgreSQL; fixed here
	OIDBootstrapUser = 10    // the superuser "postgres", owner of everything
	OIDDatabaseOwner = 6171  // pg_database_owner, owner of schema public
	OIDHeapAM        = 2
	OIDBtreeAM       = 403
	OIDDefaultColl   = 100
	OIDPgDefaultTS   = 1663
	OIDFirstDatabase = 1 // template1 is 1 in PostgreSQL; ours start at 16000
)

// Snapshot is what the dynamic relations are built from: the caller's view
// of the storage catalog and the server's sessions at statement start.
type Snapshot struct {
	Database   string   // current database
	User       string   // session user
	SearchPath []string // effective search path, without pg_catalog
	Databases  []string
	Schemas    []string // schemas of the current database (user schemas)
	Tables     []Table
	Sequences  []Sequence // sequences.go
	Sessions   []Session
	Settings   []Setting // the session's configuration parameters (pg_settings)
	// Roles are the stored roles (pg_authid without the predefined roles,
	// which are added); nil = the bootstrap superuser "postgres" alone.
	Roles   []Role
	Members []Member // role memberships (pg_auth_members), predefined ones added
	// DatabaseACL and SchemaACL give owner and ACL by name (schemas of the
	// current database); a name missing: owned by the bootstrap superuser
	// (schema public: pg_database_owner, initdb's ACL), default ACL.
	DatabaseACL map[string]Object
	SchemaACL   map[string]Object
}

// Role is one stored role (a row of pg_authid).
type Role struct {
	OID                                                                 uint32
	Name                                                                string
	Super, Inherit, CreateRole, CreateDB, Login, Replication, BypassRLS bool
	ConnLimit                                                           int32
	Password                                                            string // rolpassword, "" = NULL
	// ValidUntil is rolvaliduntil: microseconds since 2000-01-01 UTC
	// (math.MaxInt64 infinity, math.MinInt64 -infinity), nil = NULL.
	ValidUntil *int64
}

// Member is one row of pg_auth_members: Member is a member of Role.
type Member struct {
	Role, Member, Grantor uint32
	Admin                 bool
}

// Object is the owner and ACL of a database or schema.
type Object struct {
	Owner uint32
	ACL   []string // aclitem texts; nil = NULL (the default ACL)
	// Restricted and Privileges: as Table's, for information_schema.schemata.
	Restricted bool
	Privileges acl.Mode
}

// Setting is one configuration parameter as the session sees it.
type Setting struct {
	Name, Value, Default, ShortDesc string
	ReadOnly                        bool
	// PostgreSQL's description (pg_settings' columns); Context "" = none
	// (the row shows the fields above only). Value, Boot and Reset are in
	// the parameter's base unit.
	Context, VarType, Category, Unit, ExtraDesc, Min, Max string
	EnumVals                                              []string
	Boot, Reset, Source                                   string
}

// Table is one of our tables.
type Table struct {
	OID        uint32
	Schema     string
	Name       string
	Columns    []Column
	PrimaryKey []string // column names, in key order
	// PKName is the primary key constraint's (and index's) name; "" =
	// Name + "_pkey".
	PKName string
	Owner  uint32   // relowner; 0 = the bootstrap superuser
	ACL    []string // relacl as aclitem texts; nil = NULL
	// Restricted: the information_schema views show the table only as far
	// as the session's role may see it, by Privileges (what it holds on
	// the table; every privilege when it has the owner's); false: shown.
	Restricted bool
	Privileges acl.Mode
	// View: a view (relkind 'v') whose definition pg_get_viewdef prints
	// is ViewDef; false: a table.
	View    bool
	ViewDef string
	// Indexes are the table's indexes other than its primary key's.
	Indexes []Index
	// Comment is the table's or view's COMMENT ON text ("" = none).
	Comment string
	// ForeignKeys are the table's FOREIGN KEY constraints.
	ForeignKeys []ForeignKey
	// Checks are the table's CHECK constraints.
	Checks []Check
}

// Check is a CHECK constraint (pg_constraint contype 'c').
type Check struct {
	OID      uint32
	Name     string
	Expr     string  // PostgreSQL text of the condition
	Keys     []int64 // attnums of the columns it reads
	NotValid bool
}

// Index is an index of a table (relkind 'i').
type Index struct {
	OID  uint32
	Name string
	// AM is the access method's OID (pg_am); Def is pg_get_indexdef's
	// text; Keys are the key columns' attnums (0 for an expression) and
	// KeyNames their names (pg_attribute of the index).
	AM  uint32
	Def string
	// Keys hold the INCLUDE columns after the NKeys key columns.
	Keys     []int64
	NKeys    int
	Options  []int64 // indoption of the key columns
	KeyNames []string
	KeyTypes []uint32
	Pred     bool   // a partial index (indpred is not null)
	Comment  string // COMMENT ON INDEX, "" = none
	// Unique: indisunique. ConstraintOID: the UNIQUE constraint whose
	// index it is (pg_constraint contype 'u'), 0 = none.
	Unique        bool
	ConstraintOID uint32
}

// Column is one column of a table.
type Column struct {
	Name    string
	TypeOID uint32
	TypeMod int32
	NotNull bool
	Default string // PostgreSQL expression text, "" = none
	// Identity is attidentity: "a" (GENERATED ALWAYS), "d" (BY DEFAULT)
	// or "" (Default is then not shown: the sequence is the identity's).
	Identity string
	Comment  string // COMMENT ON COLUMN, "" = none
	// Attnum is pg_attribute.attnum; 0 = the column's position.
	Attnum int
}

// Num is the attnum of column c at position i of its table.
func (c Column) Num(i int) int {
	if c.Attnum > 0 {
		return c.Attnum
	}
	return i + 1
}

// Session is one row of pg_stat_activity.
type Session struct {
	PID             uint32
	Database        string
	User            string
	ApplicationName string
	ClientAddr      string
	State           string
	Query           string
	BackendStart    time.Time
	QueryStart      time.Time
	StateChange     time.Time
}

// Facts are the per-connection constants baked into the session macros.
type Facts struct {
	Database      string
	User          string
	PID           uint32
	ServerVersion string // e.g. "15.18"
	StartTime     time.Time
}

// typeRow is one generated pg_type row (static_gen.go).
type typeRow struct {
	oid       int64
	name      string
	namespace int64
	len       int32
	byval     bool
	typtype   string
	category  string
	preferred bool
	delim     string
	relid     int64
	elem      int64
	array     int64
	input     string
	output    string
	receive   string
	send      string
	modin     string
	modout    string
	align     string
	storage   string
	basetype  int64
	typmod    int32
	ndims     int32
	collation int64
	formatted string
}

// pkName is the name of t's primary key constraint and index.
func pkName(t Table) string {
	if t.PKName != "" {
		return t.PKName
	}
	return t.Name + "_pkey"
}
