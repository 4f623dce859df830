package pgcatalog

import "time"

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
	Sessions   []Session
	Settings   []Setting // the session's configuration parameters (pg_settings)
}

// Setting is one configuration parameter as the session sees it.
type Setting struct {
	Name, Value, Default, ShortDesc string
	ReadOnly                        bool
}

// Table is one of our tables.
type Table struct {
	OID        uint32
	Schema     string
	Name       string
	Columns    []Column
	PrimaryKey []string // column names, in key order
}

// Column is one column of a table.
type Column struct {
	Name    string
	TypeOID uint32
	TypeMod int32
	NotNull bool
	Default string // PostgreSQL expression text, "" = none
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
	ServerVersion string // e.g. "16.4"
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
