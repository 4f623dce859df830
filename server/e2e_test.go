package server

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
)

// testServer runs an engine and a wire server in process.
type testServer struct {
	t    testing.TB
	dir  string
	eng  *planner.Engine
	b    *Backend
	srv  *pgwire.Server
	addr string
}

func startServer(t testing.TB, dir string) *testServer {
	t.Helper()
	return startServerWith(t, dir, 200*time.Millisecond, func(*Backend) {})
}

// startServerWith starts a server whose engine flushes every flushInterval
// (-1: never by age), with setup applied to its backend.
func startServerWith(t testing.TB, dir string, flushInterval time.Duration, setup func(*Backend)) *testServer {
	t.Helper()
	return startServerConfig(t, planner.Config{DataDir: dir, FlushInterval: flushInterval}, setup)
}

// startServerConfig starts a server on cfg (DataDir "" = a temp dir; 2
// query threads unless set).
func startServerConfig(t testing.TB, cfg planner.Config, setup func(*Backend)) *testServer {
	t.Helper()
	return startServerAuth(t, cfg, setup, func(*Backend) pgwire.AuthConfig {
		return pgwire.AuthConfig{Method: "trust", TrustLoopback: true}
	})
}

// startServerAuth is startServerConfig with the authentication auth
// returns for the backend.
func startServerAuth(t testing.TB, cfg planner.Config, setup func(*Backend), auth func(*Backend) pgwire.AuthConfig) *testServer {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	dir := cfg.DataDir
	if cfg.MaxConcurrency == 0 {
		cfg.MaxConcurrency = 2
	}
	ctx := context.Background()
	eng, err := planner.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBackend(eng, nil)
	setup(b)
	srv := pgwire.NewServer(pgwire.Config{Listen: "127.0.0.1:0", ServerVersion: ServerVersion, Auth: auth(b)}, b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	ts := &testServer{t: t, dir: dir, eng: eng, b: b, srv: srv, addr: ln.Addr().String()}
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) stop() {
	if ts.eng == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = ts.srv.Shutdown(ctx)
	if err := ts.eng.Close(ctx); err != nil {
		ts.t.Errorf("engine close: %v", err)
	}
	ts.eng = nil
}

func (ts *testServer) url() string {
	return fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", ts.addr)
}

func (ts *testServer) conn(t testing.TB) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), ts.url())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func mustExec(t testing.TB, c *pgx.Conn, sql string, args ...any) pgconn.CommandTag {
	t.Helper()
	tag, err := c.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

func queryStrings(t *testing.T, c *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func sqlState(err error) string {
	if pe, ok := err.(*pgconn.PgError); ok {
		return pe.Code
	}
	return ""
}

func TestEndToEndBasics(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id bigint NOT NULL, name text, score double precision)")
	if tag := mustExec(t, c, "INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', NULL), (3, NULL, 3.25)"); tag.String() != "INSERT 0 3" {
		t.Fatalf("tag %q", tag)
	}
	got := queryStrings(t, c, "SELECT id, name, score FROM t ORDER BY id")
	want := []string{"1|a|1.5", "2|b|<nil>", "3|<nil>|3.25"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v want %v", got, want)
	}
	// Another session sees the rows at once.
	c2 := ts.conn(t)
	if got := queryStrings(t, c2, "SELECT count(*) FROM t"); got[0] != "3" {
		t.Fatalf("count from another session = %v", got)
	}
	// Extended protocol with parameters.
	if got := queryStrings(t, c, "SELECT name FROM t WHERE id = $1", int64(2)); fmt.Sprint(got) != "[b]" {
		t.Fatalf("param query = %v", got)
	}
	// Errors.
	if _, err := c.Exec(context.Background(), "SELECT * FROM nope"); sqlState(err) != "42P01" {
		t.Fatalf("unknown table: %v", err)
	}
	if _, err := c.Exec(context.Background(), "SELEC 1"); sqlState(err) != "42601" {
		t.Fatalf("syntax error: %v", err)
	}
	if _, err := c.Exec(context.Background(), "SELECT 1/0"); sqlState(err) != "22012" {
		t.Fatalf("division by zero: %v", err)
	}
	if _, err := c.Exec(context.Background(), "INSERT INTO t VALUES (NULL, 'x', 1)"); sqlState(err) != "23502" {
		t.Fatalf("not null: %v", err)
	}
	// The session still works after errors.
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "3" {
		t.Fatalf("count = %v", got)
	}
}

func TestTransactions(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	other := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int)")
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO t VALUES (1), (2)")
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "2" {
		t.Fatalf("own writes not visible in block: %v", got)
	}
	if got := queryStrings(t, other, "SELECT count(*) FROM t"); got[0] != "0" {
		t.Fatalf("uncommitted writes visible to another session: %v", got)
	}
	mustExec(t, c, "COMMIT")
	if got := queryStrings(t, other, "SELECT count(*) FROM t"); got[0] != "2" {
		t.Fatalf("committed writes invisible: %v", got)
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO t VALUES (3)")
	mustExec(t, c, "ROLLBACK")
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "2" {
		t.Fatalf("rollback kept rows: %v", got)
	}
	// Failed block: 25P02 until ROLLBACK.
	mustExec(t, c, "BEGIN")
	if _, err := c.Exec(context.Background(), "SELECT 1/0"); sqlState(err) != "22012" {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), "SELECT 1"); sqlState(err) != "25P02" {
		t.Fatalf("in failed block: %v", err)
	}
	mustExec(t, c, "ROLLBACK")
	if got := queryStrings(t, c, "SELECT 1"); got[0] != "1" {
		t.Fatal(got)
	}
}

func TestConcurrentWritersVisibleToAll(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id bigint, w int)")
	var wg sync.WaitGroup
	const writers, per = 4, 25
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			cw, err := pgx.Connect(context.Background(), ts.url())
			if err != nil {
				t.Error(err)
				return
			}
			defer cw.Close(context.Background())
			reader, err := pgx.Connect(context.Background(), ts.url())
			if err != nil {
				t.Error(err)
				return
			}
			defer reader.Close(context.Background())
			for i := 0; i < per; i++ {
				id := int64(w*1000 + i)
				if _, err := cw.Exec(context.Background(), "INSERT INTO t VALUES ($1, $2)", id, w); err != nil {
					t.Error(err)
					return
				}
				// Read-your-write from a fresh statement of another session.
				var n int64
				if err := reader.QueryRow(context.Background(), "SELECT count(*) FROM t WHERE id = $1", id).Scan(&n); err != nil || n != 1 {
					t.Errorf("row %d: count %d err %v", id, n, err)
				}
			}
		}(w)
	}
	wg.Wait()
	got := queryStrings(t, c, "SELECT w, count(*) FROM t GROUP BY w ORDER BY w")
	if len(got) != writers {
		t.Fatalf("groups %v", got)
	}
	for _, g := range got {
		if !strings.HasSuffix(g, fmt.Sprintf("|%d", per)) {
			t.Fatalf("groups %v", got)
		}
	}
}

func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'one'), (2, 'two')")
	c.Close(context.Background())
	ts.stop()
	ts2 := startServer(t, dir)
	c2 := ts2.conn(t)
	got := queryStrings(t, c2, "SELECT id, s FROM t ORDER BY id")
	if fmt.Sprint(got) != "[1|one 2|two]" {
		t.Fatalf("after restart: %v", got)
	}
}

func TestCopyFromAndTo(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	rows := [][]any{{int32(1), "a"}, {int32(2), nil}, {int32(3), "c\td"}}
	n, err := c.CopyFrom(context.Background(), pgx.Identifier{"t"}, []string{"id", "s"}, pgx.CopyFromRows(rows))
	if err != nil || n != 3 {
		t.Fatalf("copy from: %d %v", n, err)
	}
	var buf strings.Builder
	tag, err := c.PgConn().CopyTo(context.Background(), &buf, "COPY t TO STDOUT")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sort.Strings(lines)
	if tag.String() != "COPY 3" || fmt.Sprint(lines) != "[1\ta 2\t\\N 3\tc\\td]" {
		t.Fatalf("copy to: %q %q", tag, lines)
	}
	// A bad row: nothing of that COPY is committed.
	_, err = c.PgConn().CopyFrom(context.Background(), strings.NewReader("4\tx\nfive\ty\n"), "COPY t FROM STDIN")
	if sqlState(err) != "22P02" {
		t.Fatalf("bad copy: %v", err)
	}
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "3" {
		t.Fatalf("half a COPY committed: %v", got)
	}
}

// TestImplicitTransactions: a pgx batch (one Sync) and a multi-statement
// Query message are each one transaction, as in PostgreSQL.
func TestImplicitTransactions(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int)")
	b := &pgx.Batch{}
	b.Queue("INSERT INTO t VALUES (1)")
	b.Queue("INSERT INTO t VALUES (2)")
	b.Queue("SELECT 1/0")
	b.Queue("INSERT INTO t VALUES (3)")
	if err := c.SendBatch(context.Background(), b).Close(); sqlState(err) != "22012" {
		t.Fatalf("batch: %v", err)
	}
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "0" {
		t.Fatalf("a failed batch left %s rows", got[0])
	}
	b = &pgx.Batch{}
	b.Queue("INSERT INTO t VALUES (1)")
	b.Queue("INSERT INTO t VALUES (2)")
	b.Queue("SELECT count(*) FROM t") // sees the batch's own writes
	br := c.SendBatch(context.Background(), b)
	_, _ = br.Exec()
	_, _ = br.Exec()
	var n int64
	if err := br.QueryRow().Scan(&n); err != nil || n != 2 {
		t.Fatalf("own writes in batch: %d %v", n, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, ts.conn(t), "SELECT count(*) FROM t"); got[0] != "2" {
		t.Fatalf("committed batch: %v", got)
	}
	// Simple protocol: an error rolls back the statements before it.
	_, err := c.Exec(context.Background(), "INSERT INTO t VALUES (10); INSERT INTO t VALUES (11); SELECT 1/0", pgx.QueryExecModeSimpleProtocol)
	if sqlState(err) != "22012" {
		t.Fatalf("multi-statement: %v", err)
	}
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "2" {
		t.Fatalf("failed multi-statement query left rows: %v", got)
	}
	mustExec(t, c, "INSERT INTO t VALUES (10); INSERT INTO t VALUES (11)", pgx.QueryExecModeSimpleProtocol)
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "4" {
		t.Fatalf("multi-statement commit: %v", got)
	}
}

// TestDuckDBKeywordsAsIdentifiers: names that are keywords in DuckDB but
// not reserved in PostgreSQL ("at", "map", "left"...) work everywhere.
func TestDuckDBKeywordsAsIdentifiers(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE kw (id int, at timestamptz, map text, qualify int)")
	n, err := c.CopyFrom(context.Background(), pgx.Identifier{"kw"}, []string{"id", "at", "map", "qualify"},
		pgx.CopyFromRows([][]any{{int32(1), time.Unix(0, 0), "m", int32(7)}}))
	if err != nil || n != 1 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	got := queryStrings(t, c, "SELECT k.map, qualify AS at FROM kw AS k WHERE at < now() ORDER BY at")
	if fmt.Sprint(got) != "[m|7]" {
		t.Fatalf("got %v", got)
	}
}
