package pgwire

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func pgxConnect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestPgxExtendedAndSimple(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := pgxConnect(t, ts.url("alice", "", "default_query_exec_mode="+strings.ReplaceAll(mode.String(), " ", "_")))
			var n int64
			var s string
			// int8 travels in binary in the extended modes. (The simple
			// protocol inlines parameters, which the test backend cannot
			// parse.)
			if mode != pgx.QueryExecModeSimpleProtocol {
				if err := conn.QueryRow(ctx, "select $1::int8, $2::text", int64(-7), "héllo").Scan(&n, &s); err != nil {
					t.Fatal(err)
				}
				if n != -7 || s != "héllo" {
					t.Errorf("got %d %q", n, s)
				}
			}
			rows, err := conn.Query(ctx, "select generate_series(1, 100)")
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil || len(got) != 100 || got[99] != 100 {
				t.Errorf("generate_series: %v %v", len(got), err)
			}
			_, err = conn.Exec(ctx, "select error()")
			if pgCode(err) != pgerr.DivisionByZero {
				t.Errorf("error: %v", err)
			}
			// The connection is usable after the error.
			if err := conn.QueryRow(ctx, "select generate_series(1, 5)").Scan(&n); err != nil || n != 1 {
				t.Errorf("after error: %v %d", err, n)
			}
		})
	}
}

func TestPgxNamedStatementsAndTx(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ctx := context.Background()
	conn := pgxConnect(t, ts.url("alice", "", ""))
	if _, err := conn.Prepare(ctx, "ins", "insert into t values (1, 'one')"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prepare(ctx, "ins", "insert into t values (1, 'one')"); err != nil {
		t.Fatalf("pgx re-Prepare of identical SQL is a no-op: %v", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if conn.PgConn().TxStatus() != 'T' {
		t.Errorf("TxStatus = %c, want T", conn.PgConn().TxStatus())
	}
	if _, err := tx.Exec(ctx, "ins"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "bogus"); pgCode(err) != pgerr.SyntaxError {
		t.Fatalf("bogus: %v", err)
	}
	if conn.PgConn().TxStatus() != 'E' {
		t.Errorf("TxStatus = %c, want E", conn.PgConn().TxStatus())
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if conn.PgConn().TxStatus() != 'I' {
		t.Errorf("TxStatus = %c, want I", conn.PgConn().TxStatus())
	}
	if err := conn.Deallocate(ctx, "ins"); err != nil {
		t.Fatal(err)
	}
}

func TestPgxBatch(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ctx := context.Background()
	conn := pgxConnect(t, ts.url("alice", "", ""))
	b := &pgx.Batch{}
	b.Queue("insert into t values (1, 'a')")
	b.Queue("insert into t values (2, 'b')")
	b.Queue("select a, b from t")
	b.Queue("select $1::int8", int64(3))
	br := conn.SendBatch(ctx, b)
	for i := 0; i < 2; i++ {
		if _, err := br.Exec(); err != nil {
			t.Fatal(err)
		}
	}
	rows, _ := br.Query()
	type ab struct {
		A int64
		B string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ab])
	if err != nil || len(got) != 2 || got[1] != (ab{2, "b"}) {
		t.Errorf("rows %v %v", got, err)
	}
	var n int64
	if err := br.QueryRow().Scan(&n); err != nil || n != 3 {
		t.Errorf("%v %d", err, n)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	// An error in the middle of a batch: the rest is skipped up to Sync.
	b = &pgx.Batch{}
	b.Queue("insert into t values (3, 'c')")
	b.Queue("select error()")
	b.Queue("insert into t values (4, 'd')")
	if err := conn.SendBatch(ctx, b).Close(); pgCode(err) != pgerr.DivisionByZero {
		t.Fatalf("batch error: %v", err)
	}
	var count int
	rows, _ = conn.Query(ctx, "select a, b from t")
	for rows.Next() {
		count++
	}
	if rows.Err() != nil || count != 3 {
		t.Errorf("after failed batch: %d rows, %v", count, rows.Err())
	}
}

func TestPgxCopyFrom(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ctx := context.Background()
	conn := pgxConnect(t, ts.url("alice", "", ""))
	src := make([][]any, 1000)
	for i := range src {
		src[i] = []any{int64(i), strings.Repeat("x", i%10)}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a", "b"}, pgx.CopyFromRows(src))
	if err != nil || n != 1000 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	ts.b.mu.Lock()
	rows := len(ts.b.rows)
	last := ts.b.rows[rows-1]
	ts.b.mu.Unlock()
	if rows != 1000 || last != (testRow{999, "xxxxxxxxx"}) {
		t.Errorf("table has %d rows, last %+v", rows, last)
	}
	// CopyTo through the same plumbing.
	var sb strings.Builder
	tag, err := conn.PgConn().CopyTo(ctx, &sb, "copy t to stdout")
	if err != nil || tag.RowsAffected() != 1000 || !strings.HasPrefix(sb.String(), "0\t\n1\tx\n") {
		t.Errorf("CopyTo: %v %v %.20q", tag, err, sb.String())
	}
}

// pgx with a CancelRequest context watcher: canceling the context sends a
// CancelRequest; the server answers 57014 and the connection stays usable.
func TestPgxCancel(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	cfg, err := pgx.ParseConfig(ts.url("alice", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 10 * time.Second}
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-ts.b.started
		cancel()
	}()
	start := time.Now()
	_, err = conn.Exec(ctx, "select pg_sleep(30)")
	if pgCode(err) != pgerr.QueryCanceled {
		t.Fatalf("got %v, want 57014", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	var n int64
	if err := conn.QueryRow(context.Background(), "select generate_series(1, 1)").Scan(&n); err != nil || n != 1 {
		t.Errorf("after cancel: %v", err)
	}
}

func TestCancelRequest(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c, key := connectWithKey(t, ts.addr)
	// A cancel while idle does nothing.
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	c.send(&pgproto3.Query{String: "select pg_sleep(30)"})
	<-ts.b.started
	// Wrong secret and wrong pid are ignored.
	bad := append([]byte(nil), key.SecretKey...)
	bad[0] ^= 1
	sendCancel(t, ts.addr, key.ProcessID, bad)
	sendCancel(t, ts.addr, key.ProcessID+1, key.SecretKey)
	if _ = c.nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond)); true {
		if _, err := c.fe.Receive(); err == nil {
			t.Fatal("statement ended without a valid cancel")
		}
	}
	c.nc.Close()

	// Again with the right key.
	c, key = connectWithKey(t, ts.addr)
	c.send(&pgproto3.Query{String: "select pg_sleep(30)"})
	<-ts.b.started
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	got, m := c.until('E')
	if got != "T E(57014)" || m.(*pgproto3.ErrorResponse).Message != "canceling statement due to user request" {
		t.Errorf("got %s %+v", got, m)
	}
	c.until('Z')
	// The next statement is not affected.
	c.send(&pgproto3.Query{String: "select generate_series(1, 1)"})
	if got, _ := c.until('Z'); got != "T D(1) C(SELECT 1) Z(I)" {
		t.Errorf("after cancel: %s", got)
	}
}

func TestParameterStatusAndSessions(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ctx := context.Background()
	conn := pgxConnect(t, ts.url("alice", "", "application_name=app1&DateStyle=ISO"))
	pc := conn.PgConn()
	if pc.ParameterStatus("server_version") != "15.18 (bsdb-pg test)" || pc.ParameterStatus("application_name") != "app1" {
		t.Errorf("ParameterStatus: %q %q", pc.ParameterStatus("server_version"), pc.ParameterStatus("application_name"))
	}
	info := ts.b.lastInfo.Load()
	if info.User != "alice" || info.Database != "db" || info.Params["DateStyle"] != "ISO" || info.PID != pc.PID() {
		t.Errorf("StartupInfo = %+v (pid %d)", info, pc.PID())
	}
	if _, err := conn.Exec(ctx, "set application_name = 'app2'"); err != nil {
		t.Fatal(err)
	}
	if pc.ParameterStatus("application_name") != "app2" {
		t.Errorf("application_name after SET = %q", pc.ParameterStatus("application_name"))
	}
	done := make(chan error)
	go func() {
		_, err := conn.Exec(ctx, "select pg_sleep(1)")
		done <- err
	}()
	<-ts.b.started
	ss := ts.srv.Sessions()
	if len(ss) != 1 || ss[0].PID != pc.PID() || ss[0].State != "active" || ss[0].Query != "select pg_sleep(1)" ||
		ss[0].ApplicationName != "app2" || ss[0].User != "alice" || ss[0].ClientAddr == nil || ss[0].BackendStart.IsZero() {
		t.Errorf("Sessions while running = %+v", ss)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "begin"); err != nil {
		t.Fatal(err)
	}
	if ss := ts.srv.Sessions(); ss[0].State != "idle in transaction" {
		t.Errorf("state = %q", ss[0].State)
	}
}
