package pgwire

import (
	"context"
	"io"
	"net"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// StartupInfo describes an authenticated connection to the Backend.
type StartupInfo struct {
	User     string
	Database string
	// Params holds every startup parameter the client sent (user, database,
	// application_name, DateStyle, TimeZone, options, client_encoding, ...).
	Params     map[string]string
	RemoteAddr net.Addr
	PID        uint32 // backend pid we assigned (sent in BackendKeyData)
}

// Backend creates sessions. It is implemented by the SQL layer.
type Backend interface {
	// NewSession is called after authentication. An *pgerr.Error is sent
	// as FATAL (e.g. 3D000 unknown database); any other error as FATAL XX000.
	NewSession(ctx context.Context, info StartupInfo) (Session, error)
}

// SuperuserChecker is an optional Backend capability: IsSuperuser reports
// whether an authenticated user is a superuser, for the connection slots
// Config.ReservedConnections keeps for superusers. With a Backend that
// lacks it every user counts as a superuser (no one is refused for the
// reserve).
type SuperuserChecker interface {
	IsSuperuser(user string) bool
}

// Session is the SQL layer's half of one connection. pgwire calls its
// methods from one goroutine at a time, in wire order.
type Session interface {
	// ParameterStatus returns the initial ParameterStatus values
	// (server_version, server_encoding, client_encoding, DateStyle, TimeZone,
	// integer_datetimes, standard_conforming_strings, IntervalStyle,
	// application_name, is_superuser, session_authorization).
	ParameterStatus() [][2]string
	// SimpleQuery runs a Query message (may hold several statements) writing
	// each statement's result to w. Return an error to stop: pgwire sends
	// ErrorResponse.
	SimpleQuery(ctx context.Context, sql string, w ResultWriter) error
	// Prepare handles Parse. paramOIDs are what the client declared (0 = infer).
	Prepare(ctx context.Context, name, sql string, paramOIDs []uint32) (Statement, error)
	// Bind handles Bind: returns a portal ready to Execute. params are raw
	// bytes (nil = NULL) in paramFormats (0 text, 1 binary; len 0 = all
	// text, len 1 = all). pgwire has already checked the counts. params and
	// paramFormats are only valid during the call (they point into the
	// connection's read buffer): the session copies what it keeps.
	// resultFormats are the session's to keep.
	Bind(ctx context.Context, stmt Statement, portalName string, params [][]byte, paramFormats, resultFormats []int16) (Portal, error)
	// TxStatus is 'I' (idle), 'T' (in a transaction block) or 'E' (in a
	// failed transaction block); it is sent in every ReadyForQuery.
	TxStatus() byte
	// Close is called once when the connection ends (Terminate, EOF, error).
	Close()
}

// Syncer is an optional Session capability: Sync is called for each Sync
// message of the extended protocol, before ReadyForQuery, so the SQL layer
// can end the implicit transaction that PostgreSQL ends at Sync. An error
// is sent as ErrorResponse before the ReadyForQuery.
type Syncer interface {
	Sync(ctx context.Context) error
}

// ProtocolErrorHandler is an optional Session capability. pgwire calls
// ProtocolError for each ERROR it raises itself rather than receiving from
// the session (unknown or duplicate statement/portal names, inconsistent
// Bind counts or format codes, unsupported messages), so the session can
// fail its open transaction block, as PostgreSQL does for every error
// inside BEGIN ... COMMIT. The TxStatus that follows is the session's.
type ProtocolErrorHandler interface {
	ProtocolError(err *pgerr.Error)
}

// Statement is a prepared statement (the result of Parse).
type Statement interface {
	ParamOIDs() []uint32 // ParameterDescription (inferred types: drivers trust it)
	Columns() []Column   // RowDescription for Describe Statement (formats all 0); nil = NoData
	Close()
}

// Deallocator is an optional Statement capability: a statement the SQL
// layer has deallocated (SQL DEALLOCATE of a protocol-level statement; they
// share one namespace in PostgreSQL) is dropped by pgwire at its next
// lookup, as if closed.
type Deallocator interface {
	Deallocated() bool
}

// Portal is a bound statement (the result of Bind).
type Portal interface {
	Columns() []Column // with the result formats of Bind; nil = NoData
	// Execute runs (or resumes) the portal, writing at most maxRows rows
	// (0 = all). It returns suspended=true if rows remain (pgwire sends
	// PortalSuspended), else the portal wrote its completion via w.Complete.
	Execute(ctx context.Context, maxRows int, w ResultWriter) (suspended bool, err error)
	Close()
}

// Column is one field of a RowDescription.
type Column struct {
	Name     string
	TableOID uint32
	AttNum   int16
	TypeOID  uint32
	TypeSize int16
	TypeMod  int32
	Format   int16 // 0 text, 1 binary
}

// ResultWriter receives the results of one command. It is not safe for
// concurrent use, and is only valid until the call it was passed to returns.
type ResultWriter interface {
	// Describe sends RowDescription in the simple protocol; it is a no-op in
	// the extended protocol (RowDescription comes from Describe).
	Describe(cols []Column) error
	// Row sends a DataRow; values are already encoded in the column's
	// format; nil = NULL.
	Row(values [][]byte) error
	// Complete sends CommandComplete, e.g. "SELECT 3", "INSERT 0 5". After
	// CopyOut it first sends CopyDone.
	Complete(tag string) error
	EmptyQuery() error                        // EmptyQueryResponse
	Notice(n *pgerr.Error) error              // NoticeResponse
	ParameterStatus(name, value string) error // after SET of a reported parameter
	// CopyIn sends CopyInResponse; the reader yields the CopyData bytes
	// until CopyDone (io.EOF); CopyFail gives a 57014 error "COPY from stdin
	// failed: <msg>"; any other message gives 08P01.
	CopyIn(format int8, columnFormats []int16) (io.Reader, error)
	// CopyOut sends CopyOutResponse; each Write is one CopyData; Complete
	// afterwards sends CopyDone + CommandComplete.
	CopyOut(format int8, columnFormats []int16) (io.Writer, error)
}

// SessionInfo is one row of pg_stat_activity.
type SessionInfo struct {
	PID             uint32
	User            string
	Database        string
	ApplicationName string
	State           string // "starting", "idle", "active", "idle in transaction", "idle in transaction (aborted)"
	Query           string // the running or last query
	BackendStart    time.Time
	QueryStart      time.Time // zero before the first query
	StateChange     time.Time
	ClientAddr      net.Addr
}
