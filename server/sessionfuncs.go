package server

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// Session functions: set_config, current_setting, txid_current /
// pg_current_xact_id, current_schema, current_schemas, current_query, and
// the privilege functions of privfuncs.go (bsql.SessionFunctions). They are
// DuckDB scalar functions registered
// once per DuckDB database (registration is database-wide); each call finds
// its session in the context of the query that runs it (withSession, set
// at every statement's entry point and kept by selectPlan.watch), so the
// answer is the calling session's.
//
// Errors: DuckDB turns a function's error into text; the function keeps
// the *pgerr.Error in the session (udfErr) and decorate returns that one,
// with its SQLSTATE.
//
// Effects of set_config on reported parameters (ParameterStatus) and on
// TimeZone (DuckDB's own zone) are applied when the statement completes
// (flushSettings). Known gaps: set_config(..., true) inside a block lasts
// for the session, like SET LOCAL here; a statement that fails keeps the
// settings it changed.

type sessionKey struct{}

// withSession tags ctx with the session, for the session functions.
func withSession(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// sessionFuncState is the session's side of the session functions.
type sessionFuncState struct {
	mu      sync.Mutex // DuckDB may call a function from several threads
	err     *pgerr.Error
	changed []*guc
	// txid: the transaction id handed out, for tx (or, outside a
	// transaction, for statement number stmt).
	txid     int64
	txidTx   *txState
	txidStmt uint64
	stmt     uint64 // statement counter
}

// registeredFuncs runs registerSessionFuncs once per DuckDB database.
var registeredFuncs sync.Map // *sql.DB -> *sharedSetup

func registerSessionFuncs(ctx context.Context, db *sql.DB, conn *sql.Conn) error {
	v, _ := registeredFuncs.LoadOrStore(db, &sharedSetup{})
	sh := v.(*sharedSetup)
	sh.once.Do(func() {
		vc, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
		bo, _ := duckdb.NewTypeInfo(duckdb.TYPE_BOOLEAN)
		bi, _ := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
		li, err := duckdb.NewListInfo(vc)
		if err != nil {
			sh.err = err
			return
		}
		type set struct {
			name string
			fns  []duckdb.ScalarFunc
		}
		for _, f := range []set{
			{"set_config", []duckdb.ScalarFunc{&sessionFunc{in: []duckdb.TypeInfo{vc, vc, bo}, out: vc, fn: fnSetConfig}}},
			{"current_setting", []duckdb.ScalarFunc{
				&sessionFunc{in: []duckdb.TypeInfo{vc}, out: vc, fn: fnCurrentSetting},
				&sessionFunc{in: []duckdb.TypeInfo{vc, bo}, out: vc, fn: fnCurrentSetting},
			}},
			{"txid_current", []duckdb.ScalarFunc{&sessionFunc{out: bi, fn: fnTxidCurrent}}},
			{"pg_current_xact_id", []duckdb.ScalarFunc{&sessionFunc{out: bi, fn: fnTxidCurrent}}},
			{"current_schema", []duckdb.ScalarFunc{&sessionFunc{out: vc, fn: fnCurrentSchema}}},
			{"current_query", []duckdb.ScalarFunc{&sessionFunc{out: vc, fn: fnCurrentQuery}}},
			{"current_schemas", []duckdb.ScalarFunc{&sessionFunc{in: []duckdb.TypeInfo{bo}, out: li, fn: fnCurrentSchemas}}},
			// Sequences (sequence.go): by name or by OID.
			{"nextval", []duckdb.ScalarFunc{&sessionFunc{in: []duckdb.TypeInfo{vc}, out: bi, fn: fnNextval}, &sessionFunc{in: []duckdb.TypeInfo{bi}, out: bi, fn: fnNextval}}},
			{"currval", []duckdb.ScalarFunc{&sessionFunc{in: []duckdb.TypeInfo{vc}, out: bi, fn: fnCurrval}, &sessionFunc{in: []duckdb.TypeInfo{bi}, out: bi, fn: fnCurrval}}},
			{"setval", []duckdb.ScalarFunc{
				&sessionFunc{in: []duckdb.TypeInfo{vc, bi}, out: bi, fn: fnSetval}, &sessionFunc{in: []duckdb.TypeInfo{bi, bi}, out: bi, fn: fnSetval},
				&sessionFunc{in: []duckdb.TypeInfo{vc, bi, bo}, out: bi, fn: fnSetval}, &sessionFunc{in: []duckdb.TypeInfo{bi, bi, bo}, out: bi, fn: fnSetval},
			}},
			{"lastval", []duckdb.ScalarFunc{&sessionFunc{out: bi, fn: fnLastval}}},
			{"pg_get_serial_sequence", []duckdb.ScalarFunc{&sessionFunc{in: []duckdb.TypeInfo{vc, vc}, out: vc, fn: fnSerialSequence}}},
		} {
			if err := duckdb.RegisterScalarUDFSet(conn, bsql.SessionFuncPrefix+f.name, f.fns...); err != nil {
				sh.err = fmt.Errorf("register %s: %w", f.name, err)
				return
			}
		}
		privs, err := privFuncSets()
		if err != nil {
			sh.err = err
			return
		}
		adv, err := advisoryFuncSets()
		if err != nil {
			sh.err = err
			return
		}
		for name, fns := range adv {
			privs[name] = fns
		}
		for name, fns := range privs {
			if err := duckdb.RegisterScalarUDFSet(conn, bsql.SessionFuncPrefix+name, fns...); err != nil {
				sh.err = fmt.Errorf("register %s: %w", name, err)
				return
			}
		}
	})
	return sh.err
}

// sessionFunc is one overload of a session function.
type sessionFunc struct {
	in  []duckdb.TypeInfo
	out duckdb.TypeInfo
	fn  func(ctx context.Context, s *session, args []driver.Value) (any, error)
}

func (f *sessionFunc) Config() duckdb.ScalarFuncConfig {
	// Volatile: never folded at prepare time (set_config has an effect,
	// and the others' answers change between statements).
	return duckdb.ScalarFuncConfig{InputTypeInfos: f.in, ResultTypeInfo: f.out, Volatile: true, SpecialNullHandling: true}
}

func (f *sessionFunc) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowContextExecutor: func(ctx context.Context, args []driver.Value) (any, error) {
		s, ok := ctx.Value(sessionKey{}).(*session)
		if !ok {
			return nil, fmt.Errorf("BUG: session function called outside a session's statement")
		}
		s.fx.mu.Lock()
		defer s.fx.mu.Unlock()
		v, err := f.fn(ctx, s, args)
		if err != nil {
			if pe, ok := pgerr.As(err); ok && s.fx.err == nil {
				s.fx.err = pe
			}
			return nil, err
		}
		return v, nil
	}}
}

func argString(v driver.Value) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// fnSetConfig is set_config(name, value, is_local).
func fnSetConfig(ctx context.Context, s *session, args []driver.Value) (any, error) {
	name, ok := argString(args[0])
	if !ok {
		return nil, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
	}
	value, ok := argString(args[1])
	if !ok {
		// PostgreSQL: a NULL value resets the parameter.
		g, err := s.set.reset(name)
		if err != nil {
			return nil, err
		}
		s.fx.changed = append(s.fx.changed, g)
		v, _, _ := s.set.get(name)
		return v, nil
	}
	local, _ := args[2].(bool)
	if local && !s.inBlock() {
		// SET LOCAL outside a block lasts for a transaction that ends
		// with this statement: validate, report, do not keep.
		tmp := *s.set
		tmp.vals = make(map[string]string, len(s.set.vals))
		for k, v := range s.set.vals {
			tmp.vals[k] = v
		}
		if _, err := tmp.set(name, value, false); err != nil {
			return nil, err
		}
		v, _, _ := tmp.get(name)
		return v, nil
	}
	g, err := s.set.set(name, value, false)
	if err != nil {
		return nil, err
	}
	s.fx.changed = append(s.fx.changed, g)
	v, _, _ := s.set.get(name)
	return v, nil
}

// fnCurrentSetting is current_setting(name [, missing_ok]).
func fnCurrentSetting(ctx context.Context, s *session, args []driver.Value) (any, error) {
	name, ok := argString(args[0])
	if !ok {
		return nil, nil
	}
	v, _, err := s.set.get(name)
	if err != nil {
		if len(args) > 1 {
			if missingOK, _ := args[1].(bool); missingOK {
				return nil, nil
			}
		}
		return nil, err
	}
	return v, nil
}

// txidBase makes transaction ids increase across restarts: they start at
// the server's start time in milliseconds (a server would have to hand out
// more than 1000 ids per millisecond of its life to overtake the next
// start's).
var txidBase = sync.OnceValue(func() int64 { return time.Now().UnixMilli() })

// fnTxidCurrent is txid_current() / pg_current_xact_id(): one id per
// transaction (per statement outside a transaction), increasing across the
// server.
func fnTxidCurrent(ctx context.Context, s *session, _ []driver.Value) (any, error) {
	fx := &s.fx
	if s.tx != nil && fx.txidTx == s.tx || s.tx == nil && fx.txidTx == nil && fx.txidStmt == fx.stmt && fx.txid != 0 {
		return fx.txid, nil
	}
	fx.txid = txidBase() + s.b.nextTxid.Add(1)
	fx.txidTx, fx.txidStmt = s.tx, fx.stmt
	return fx.txid, nil
}

// schemaPath is the search path as current_schemas reports it: "$user"
// resolved, schemas that do not exist left out.
func (s *session) schemaPath(ctx context.Context) ([]string, error) {
	existing, err := s.eng.Catalog().ListSchemas(ctx, s.db)
	if err != nil {
		return nil, err
	}
	exists := map[string]bool{"pg_catalog": true, "information_schema": true}
	for _, e := range existing {
		exists[e] = true
	}
	var out []string
	for _, p := range strings.Split(s.set.vals["search_path"], ",") {
		p = strings.TrimSpace(p)
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		if p == "$user" {
			if rs, err := s.b.sec.snapshot(ctx); err == nil {
				p = s.currentRoleName(rs)
			}
		}
		if p != "" && exists[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// fnCurrentQuery is current_query(): the query string the client sent
// (DuckDB's own current_query() is the translated text, which names the
// server's files).
func fnCurrentQuery(_ context.Context, s *session, _ []driver.Value) (any, error) {
	return s.clientQuery, nil
}

// fnCurrentSchema is current_schema(): the first existing schema of the
// search path, NULL if none.
func fnCurrentSchema(ctx context.Context, s *session, _ []driver.Value) (any, error) {
	path, err := s.schemaPath(ctx)
	if err != nil || len(path) == 0 {
		return nil, err
	}
	return path[0], nil
}

// fnCurrentSchemas is current_schemas(include_implicit): the existing
// schemas of the search path, after pg_catalog (searched first when the
// path does not name it) when include_implicit.
func fnCurrentSchemas(ctx context.Context, s *session, args []driver.Value) (any, error) {
	implicit, ok := args[0].(bool)
	if !ok {
		return nil, nil
	}
	path, err := s.schemaPath(ctx)
	if err != nil {
		return nil, err
	}
	out := []any{}
	if implicit {
		named := false
		for _, p := range path {
			named = named || p == "pg_catalog"
		}
		if !named {
			out = append(out, "pg_catalog")
		}
	}
	for _, p := range path {
		out = append(out, p)
	}
	return out, nil
}

// takeFuncError returns (and clears) the error a session function raised.
func (s *session) takeFuncError() *pgerr.Error {
	s.fx.mu.Lock()
	defer s.fx.mu.Unlock()
	e := s.fx.err
	s.fx.err = nil
	return e
}

// flushSettings applies the effects of set_config calls of the statement
// that completes: DuckDB's time zone, ParameterStatus of reported ones.
func (s *session) flushSettings(ctx context.Context, w pgwire.ResultWriter) error {
	s.fx.mu.Lock()
	changed := s.fx.changed
	s.fx.changed = nil
	s.fx.mu.Unlock()
	return s.settingsChanged(ctx, w, changed)
}
