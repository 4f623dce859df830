package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/seq"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/wal"
)

// Backend implements pgwire.Backend over a planner.Engine.
type Backend struct {
	Eng    *planner.Engine
	Log    *slog.Logger
	Server func() *pgwire.Server // for pg_stat_activity; may be nil
	// CopyDirectBytes: an autocommit COPY larger than this streams into
	// Parquet files instead of the WAL (copy.go); 0 = DefaultCopyDirectBytes,
	// negative = never.
	CopyDirectBytes int64
	// sec: roles and privileges (security.go).
	sec   *security
	start time.Time
	mu    sync.Mutex
	// nextTxid counts the transaction ids txid_current hands out.
	nextTxid atomic.Int64
	// seqM: the sequences (sequence.go), made on first use.
	seqOnce sync.Once
	seqM    *seq.Manager
	// stmtHits counts queries run from a session's statement cache.
	stmtHits atomic.Int64
	// testQueryHook, set by this package's tests only, sees every Query
	// message first.
	testQueryHook func(query string)
}

var (
	_ pgwire.Backend              = (*Backend)(nil)
	_ pgwire.Session              = (*session)(nil)
	_ pgwire.ProtocolErrorHandler = (*session)(nil)
	_ pgwire.Syncer               = (*session)(nil)
)

// ProtocolError implements pgwire.ProtocolErrorHandler: an error pgwire
// raises itself inside a block fails the block, as in PostgreSQL.
func (s *session) ProtocolError(*pgerr.Error) { s.fail() }

// NewBackend returns a Backend.
func NewBackend(eng *planner.Engine, log *slog.Logger) *Backend {
	if log == nil {
		log = slog.Default()
	}
	return &Backend{Eng: eng, Log: log, start: time.Now(), sec: newSecurity(eng.Catalog())}
}

// NewSession implements pgwire.Backend.
// serverDefaults are the session settings the server's configuration
// changes from the built-in defaults: BSDB_WAL_DURABILITY=async is
// synchronous_commit=off for every session that does not SET it back on
// (as synchronous_commit in postgresql.conf).
func (b *Backend) serverDefaults() map[string]string {
	m := map[string]string{}
	if b.Eng != nil && b.Eng.Config().Durability == wal.DurabilityAsync {
		m["synchronous_commit"] = "off"
	}
	// The connection limits pgwire enforces (BSDB_MAX_CONNECTIONS).
	if b.Server != nil {
		if srv := b.Server(); srv != nil {
			m["max_connections"] = strconv.Itoa(srv.MaxConnections())
			m["superuser_reserved_connections"] = strconv.Itoa(srv.ReservedConnections())
		}
	}
	return m
}

// NewSession checks, as PostgreSQL's InitPostgres does after
// authentication: the role exists (FATAL 28000, whatever the
// authentication method, trust included) and may log in (28000), the
// database exists (3D000) and accepts connections, and the role has
// CONNECT on it (42501).
func (b *Backend) NewSession(ctx context.Context, info pgwire.StartupInfo) (pgwire.Session, error) {
	db := info.Database
	if db == "" {
		db = info.User
	}
	rs, err := b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	role := rs.byName[info.User]
	if role == nil {
		return nil, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InvalidAuthorizationSpec, Message: fmt.Sprintf("role \"%s\" does not exist", info.User)}
	}
	if !role.Login {
		return nil, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InvalidAuthorizationSpec, Message: fmt.Sprintf("role \"%s\" is not permitted to log in", info.User)}
	}
	dbs, err := b.Eng.Catalog().ListDatabases(ctx)
	if err != nil {
		return nil, err
	}
	found := false
	for _, d := range dbs {
		if d == db {
			found = true
		}
	}
	if db == "template0" {
		// Listed in pg_database (datallowconn false), like PostgreSQL's.
		return nil, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.ObjectNotInPrerequisiteState, Message: "database \"template0\" is not currently accepting connections"}
	}
	if !found {
		return nil, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.UndefinedDatabase, Message: fmt.Sprintf("database \"%s\" does not exist", db)}
	}
	conn, err := b.Eng.DB().Conn(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{b: b, eng: b.Eng, info: info, db: db, user: info.User, conn: conn, set: newSettings(info.User, b.serverDefaults()),
		sessionRole: role.OID, currentRole: role.OID, loginRole: role.OID}
	if err := s.checkConnect(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	s.set.vals["is_superuser"] = onOff(role.Super)
	if err := applyStartupSettings(s.set, info.Params); err != nil {
		conn.Close()
		return nil, err
	}
	s.set.markBase()
	if err := s.initConn(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// session is one client connection's SQL state.
type session struct {
	// schemaLocks: the schema locks the session's transaction holds, by
	// table (schemalock.go).
	schemaLocks map[catalog.TableID]func()
	// stmtStart is when the current statement started (statement_timestamp).
	stmtStart time.Time
	// clientQuery is the query string the current statement came from, as
	// the client sent it (current_query()).
	clientQuery string
	b           *Backend
	eng         *planner.Engine
	info        pgwire.StartupInfo
	db          string
	user        string // the name the client logged in with
	// sessionRole is session_user's OID (SET SESSION AUTHORIZATION
	// changes it), currentRole current_user's (SET ROLE): privileges are
	// checked for currentRole. loginRole is the authenticated role.
	sessionRole, currentRole, loginRole uint32
	// roleSet: SET ROLE is in effect (SHOW role names currentRole).
	roleSet bool
	conn    *sql.Conn
	// pseudo are relations of rows a statement is writing, by name, while
	// a query of it reads them: EXCLUDED of an INSERT ... ON CONFLICT DO
	// UPDATE (upsert.go), the rows a CHECK is evaluated over (checks.go).
	pseudo map[string]*bsql.TableInfo
	set    *settings
	tx     *txState
	// notices queued by the running statement, sent before its completion.
	notices []*pgerr.Error
	// pgcat: system catalog state of the connection (pgcatalog.go).
	pgcat sessionCatalog
	// cursors: the SQL cursors (DECLARE) by name (cursor.go).
	cursors map[string]*cursor
	// named: the named prepared statements, of SQL PREPARE and of the
	// extended protocol's Parse alike (prepare.go).
	named map[string]*prepared
	// multi: a multi-statement Query message is running; its implicit
	// transaction is a block for DECLARE CURSOR, as in PostgreSQL.
	multi bool
	// fx: state of the session functions (sessionfuncs.go).
	fx sessionFuncState
	// sq: currval, lastval and sequence name lookups (sequence.go).
	sq seqSession
	// stmts: the DuckDB prepared statements of recent queries (stmtcache.go).
	stmts stmtCache
	// stream: the streaming DuckDB result open on conn, if any
	// (duckstream.go): drained into memory before conn runs anything else.
	stream *duckStream
	// broken: a statement panicked; the session ends (recoverPanic).
	broken bool
	// temp: the session's temporary tables (temp.go).
	temp tempState
}

// sharedMacros runs bsql.SharedMacros once per DuckDB database.
var sharedMacros sync.Map // *sql.DB -> *sharedSetup

func (s *session) initConn(ctx context.Context) error {
	if err := registerSessionFuncs(ctx, s.eng.DB(), s.conn); err != nil {
		return fmt.Errorf("duckdb session functions: %w", err)
	}
	v, _ := sharedMacros.LoadOrStore(s.eng.DB(), &sharedSetup{})
	sh := v.(*sharedSetup)
	sh.once.Do(func() {
		// On a connection with the session settings: DuckDB parses a
		// macro's body with the settings in effect (integer_division
		// decides what "/" means there).
		ctx := context.WithoutCancel(ctx)
		conn, err := s.eng.DB().Conn(ctx)
		if err != nil {
			sh.err = err
			return
		}
		defer conn.Close()
		for _, q := range append(bsql.SessionSettings(), bsql.SharedMacros()...) {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				sh.err = fmt.Errorf("duckdb setup %.80q: %w", q, err)
				return
			}
		}
	})
	if sh.err != nil {
		return sh.err
	}
	for _, q := range bsql.SessionSettings() {
		if err := s.execDuck(ctx, q); err != nil {
			return fmt.Errorf("duckdb session setup %q: %w", q, err)
		}
	}
	return s.syncZone(ctx)
}

// syncZone tells DuckDB the session's time zone (timestamptz functions).
func (s *session) syncZone(ctx context.Context) error {
	name := s.set.types.TimeZone.String()
	if err := s.execDuck(ctx, fmt.Sprintf("SET TimeZone = '%s'", strings.ReplaceAll(name, "'", "''"))); err != nil {
		// Fixed offsets DuckDB/ICU cannot name: fall back to UTC for
		// DuckDB's own functions; output formatting still uses ours.
		_ = s.execDuck(ctx, "SET TimeZone = 'UTC'")
	}
	return nil
}

func (s *session) ParameterStatus() [][2]string {
	var out [][2]string
	for _, g := range sortedNames() {
		if g.reported {
			v, _, _ := s.set.get(g.name)
			out = append(out, [2]string{g.name, v})
		}
	}
	return out
}

func (s *session) TxStatus() byte {
	switch {
	case s.tx == nil || s.tx.implicit:
		return 'I'
	case s.tx.failed:
		return 'E'
	}
	return 'T'
}

func (s *session) Close() {
	if s.broken {
		// After a panic, closing may wait on a lock the panicking call
		// held: never in the connection's goroutine.
		go s.close()
		return
	}
	s.close()
}

func (s *session) close() {
	s.closeCursors()
	if s.tx != nil {
		s.rollback()
	}
	s.releaseAdvisory()
	s.releaseSchemaLocks()
	s.dropTempTables(context.Background())
	if s.stream != nil {
		s.stream.close()
	}
	s.stmts.clear()
	s.conn.Close()
}

// SimpleQuery runs every statement of a Query message in order; the first
// error stops the rest.
func (s *session) SimpleQuery(ctx context.Context, query string, w pgwire.ResultWriter) (err error) {
	defer s.recoverPanic(&err)
	if s.b.testQueryHook != nil {
		s.b.testQueryHook(query)
	}
	ctx = withSession(ctx, s)
	stmts, err := bsql.Parse(query)
	if err != nil {
		s.fail()
		return err
	}
	if len(stmts) > 1 {
		// PostgreSQL runs a multi-statement query in one implicit
		// transaction (unless it holds BEGIN/COMMIT of its own).
		s.beginImplicit()
		s.multi = true
		defer func() { s.multi = false }()
	}
	defer s.settleCursors(ctx)
	for _, st := range stmts {
		if err := s.runStatement(ctx, st, nil, nil, w, true); err != nil {
			if s.tx != nil && s.tx.implicit {
				s.rollback()
			}
			return err
		}
	}
	if err := s.endImplicit(ctx); err != nil {
		return s.decorate(ctx, err, nil)
	}
	return nil
}

// runStatement executes one statement to completion.
func (s *session) runStatement(ctx context.Context, st *bsql.Statement, params []any, resultFormats []int16, w pgwire.ResultWriter, simple bool) error {
	if st.Kind == bsql.KindEmpty {
		return w.EmptyQuery()
	}
	if err := s.checkFailed(st); err != nil {
		return err
	}
	s.settleCursors(ctx)
	s.fx.stmt++
	s.stmtStart = time.Now()
	s.clientQuery = st.Query
	s.takeFuncError()
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	// A transaction-level advisory lock taken outside a transaction ends
	// with the statement.
	defer func() {
		if s.tx == nil {
			s.releaseXactAdvisory()
			s.releaseSchemaLocks()
		}
	}()
	if simple {
		if err := bsql.NoParameters(st); err != nil {
			s.fail()
			return s.decorate(ctx, err, st)
		}
	}
	p, err := s.plan(ctx, st, params, resultFormats)
	if err != nil {
		s.fail()
		return s.decorate(ctx, err, st)
	}
	defer p.Close()
	if simple {
		if err := w.Describe(p.Columns()); err != nil {
			return err
		}
	}
	if _, err := p.execute(ctx, 0, &noticeWriter{ResultWriter: w, s: s}); err != nil {
		s.notices = nil
		s.fail()
		return s.decorate(ctx, err, st)
	}
	return nil
}

func (s *session) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.set.timeout > 0 {
		return context.WithTimeout(ctx, s.set.timeout)
	}
	// No timeout: the statement's own context (pgwire cancels it when the
	// statement ends) will do; a child would cost a context, a cancel
	// function and the parent's child set per statement.
	return ctx, func() {}
}

// decorate maps context errors and DuckDB errors to PostgreSQL's.
func (s *session) decorate(ctx context.Context, err error, st *bsql.Statement) error {
	if fe := s.takeFuncError(); fe != nil {
		// A session function failed: its error, not DuckDB's text of it.
		err = fe
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if s.set.timeout > 0 {
			return pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout")
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	if e := s.b.diskFullError(err); e != nil {
		return e
	}
	if st == nil {
		if _, ok := pgerr.As(err); ok {
			return err
		}
		return bsql.MapError(err, "")
	}
	if _, ok := pgerr.As(err); ok {
		return st.Locate(err)
	}
	return st.Locate(bsql.MapError(err, st.Text))
}

// checkFailed refuses statements in a failed block.
func (s *session) checkFailed(st *bsql.Statement) error {
	if s.tx == nil || !s.tx.failed || s.tx.implicit {
		return nil
	}
	switch st.Kind {
	case bsql.KindRollback, bsql.KindCommit:
		return nil
	case bsql.KindSavepoint:
		if isRollbackTo(st) {
			return nil
		}
	}
	return pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// fail marks an open block failed.
func (s *session) fail() {
	if s.tx != nil {
		s.tx.failed = true
		if len(s.tx.savepoints) == 0 {
			// The transaction can only roll back now: as PostgreSQL
			// aborts it at the error, the keys it inserted are free for
			// others at once, not at its ROLLBACK (keys.go).
			s.tx.keys.End()
			s.tx.keys = nil
		}
	}
}

// resolve resolves a possibly qualified name against the search path of
// the session's current role (privileges.go: resolveAs); it does not check
// that the table exists, nor any privilege.
func (s *session) resolve(ctx context.Context, schemaName, name string) (catalog.TableID, error) {
	a, err := s.authz(ctx)
	if err != nil {
		return catalog.TableID{}, err
	}
	return s.resolveAs(ctx, a, schemaName, name)
}

func (s *session) recoverPanic(err *error) {
	if r := recover(); r != nil {
		s.b.Log.Error("panic in session; ending it", "panic", r, "stack", string(debug.Stack()))
		// What the session holds is unknown after a panic: its DuckDB
		// connection's lock may be held by the call that panicked, so its
		// next statement would wait forever. The session ends, as
		// PostgreSQL ends a backend that crashed: FATAL, and the client
		// reconnects.
		s.broken = true
		*err = &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InternalError, Message: fmt.Sprintf("internal error: %v", r)}
	}
}

// statementStart is the current statement's start (now, before any).
func (s *session) statementStart() time.Time {
	if s.stmtStart.IsZero() {
		return time.Now()
	}
	return s.stmtStart
}
