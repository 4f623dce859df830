package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/txn"
)

// startCopyServer is startServer with a COPY direct threshold and no
// flush by age.
func startCopyServer(t *testing.T, dir string, directBytes int64) *testServer {
	t.Helper()
	return startServerWith(t, dir, -1, func(b *Backend) { b.CopyDirectBytes = directBytes })
}

func (ts *testServer) table(t *testing.T, name string) *txn.Table {
	t.Helper()
	tb, err := ts.eng.Table(context.Background(), catalog.TableID{Database: "postgres", Schema: "public", Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return tb.T
}

// parquetFiles counts the data files under dir.
func parquetFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".parquet") && strings.Contains(p, string(filepath.Separator)+"data"+string(filepath.Separator)) {
			n++
		}
		return nil
	})
	return n
}

func pgErr(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// eventRows is a pgx CopyFromSource of n events-like rows starting at id lo.
type eventRows struct {
	i, n int64
	fail int64 // row index at which Err reports an error (0: never)
}

func (r *eventRows) Next() bool { r.i++; return r.i <= r.n }
func (r *eventRows) Values() ([]any, error) {
	i := r.i
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 10 * time.Millisecond)
	return []any{i, ts, int32(i % 1000), fmt.Sprintf("kind_%02d", i%20), float64(i) / 4, strings.Repeat("p", 40)}, nil
}
func (r *eventRows) Err() error {
	if r.fail > 0 && r.i >= r.fail {
		return fmt.Errorf("client gave up")
	}
	return nil
}

const eventsDDL = "CREATE TABLE events (id bigint, ts timestamptz, user_id int, kind text, value double precision, payload text)"

var eventCols = []string{"id", "ts", "user_id", "kind", "value", "payload"}

// TestCopyDirect: an autocommit COPY beyond the threshold streams into
// Parquet files and commits once: all rows visible right after the ack, on
// another connection too, still there after a restart; it never went
// through the WAL or the buffer.
func TestCopyDirect(t *testing.T) {
	dir := t.TempDir()
	ts := startCopyServer(t, dir, 256<<10)
	c := ts.conn(t)
	mustExec(t, c, eventsDDL)
	mustExec(t, c, "INSERT INTO events (id) VALUES (0)")
	const n = 200_000
	got, err := c.CopyFrom(context.Background(), pgx.Identifier{"events"}, eventCols, &eventRows{n: n})
	if err != nil || got != n {
		t.Fatalf("copy: %d %v", got, err)
	}
	other := ts.conn(t)
	want := fmt.Sprint(n + 1)
	if got := queryStrings(t, other, "SELECT count(*) FROM events"); got[0] != want {
		t.Fatalf("count right after the ack: %v, want %s", got, want)
	}
	if got := queryStrings(t, other, "SELECT sum(id)::text, count(DISTINCT id), max(payload) FROM events"); got[0] != fmt.Sprintf("%d|%s|%s", int64(n)*(n+1)/2, want, strings.Repeat("p", 40)) {
		t.Fatalf("contents: %v", got)
	}
	tb := ts.table(t, "events")
	st := tb.BulkStats()
	if st.Committed != 1 || st.Rows != n || st.Active != 0 {
		t.Fatalf("bulk stats %+v: the COPY did not go direct", st)
	}
	if bound := int64(4*(txn.BulkQueueBatches*copyBatchRows+256<<10) + copyBatchRows); st.PeakHeldRows > bound {
		t.Fatalf("peak held rows %d > %d", st.PeakHeldRows, bound)
	}
	if b := tb.BufferedBytes(); b > 1<<10 {
		t.Fatalf("the COPY went through the buffer: %d bytes buffered", b)
	}
	// A small COPY stays on the WAL path.
	if _, err := c.CopyFrom(context.Background(), pgx.Identifier{"events"}, eventCols, &eventRows{i: n, n: n + 10}); err != nil {
		t.Fatal(err)
	}
	if st := tb.BulkStats(); st.Loads != 1 {
		t.Fatalf("a 10-row COPY went direct: %+v", st)
	}
	ts.stop()
	ts2 := startCopyServer(t, dir, 256<<10)
	if got := queryStrings(t, ts2.conn(t), "SELECT count(*), sum(id)::text FROM events"); got[0] != fmt.Sprintf("%d|%d", n+11, int64(n+10)*(n+11)/2) {
		t.Fatalf("after restart: %v", got)
	}
}

// TestCopyDirectFailureCommitsNothing: a bad row after the COPY went
// direct, a client error mid-stream, and a cancelled COPY each fail the
// whole COPY: nothing committed, no data file left behind, the error and
// its CONTEXT as PostgreSQL reports them.
func TestCopyDirectFailureCommitsNothing(t *testing.T) {
	dir := t.TempDir()
	ts := startCopyServer(t, dir, 64<<10)
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'x')")
	tb := ts.table(t, "t")
	files := parquetFiles(t, dir)

	var data strings.Builder
	// More than one batch: the COPY goes direct at its first batch's end.
	const good = copyBatchRows + copyBatchRows/2
	for i := 0; i < good; i++ {
		fmt.Fprintf(&data, "%d\tsome text %d\n", i, i)
	}
	data.WriteString("oops\tbad\n")
	_, err := c.PgConn().CopyFrom(context.Background(), strings.NewReader(data.String()), "COPY t FROM STDIN")
	pe := pgErr(err)
	if pe == nil || pe.Code != "22P02" || pe.Message != `invalid input syntax for type integer: "oops"` || pe.Where != fmt.Sprintf(`COPY t, line %d, column id: "oops"`, good+1) {
		t.Fatalf("bad row: %#v", err)
	}
	if st := tb.BulkStats(); st.Loads != 1 || st.Aborted != 1 || st.Committed != 0 {
		t.Fatalf("the failing COPY did not go direct, or was not aborted: %+v", st)
	}

	// The client fails the COPY (CopyFail) mid-stream.
	_, err = c.CopyFrom(context.Background(), pgx.Identifier{"t"}, []string{"id", "s"}, pgx.CopyFromFunc(func() func() ([]any, error) {
		i := 0
		return func() ([]any, error) {
			i++
			if i > good {
				return nil, fmt.Errorf("client gave up")
			}
			return []any{int32(i), "row"}, nil
		}
	}()))
	if err == nil {
		t.Fatal("a failed client COPY succeeded")
	}

	// Cancelled while streaming.
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	go func() {
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(pw, "%d\tstream\n", i); err != nil {
				return
			}
			if i == 50_000 {
				go func() { time.Sleep(100 * time.Millisecond); cancel() }()
			}
		}
	}()
	c3 := ts.conn(t)
	_, err = c3.PgConn().CopyFrom(ctx, pr, "COPY t FROM STDIN")
	pw.Close()
	if err == nil {
		t.Fatal("cancelled COPY succeeded")
	}
	if got := queryStrings(t, ts.conn(t), "SELECT count(*) FROM t"); got[0] != "1" {
		t.Fatalf("failed COPYs left rows: %v", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for tb.BulkStats().Active > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := parquetFiles(t, dir); got != files {
		t.Fatalf("%d data files after failed COPYs, want %d: a failed COPY left files", got, files)
	}
	if st := tb.BulkStats(); st.Committed != 0 || st.Active != 0 {
		t.Fatalf("bulk stats after failures: %+v", st)
	}
}

// TestCopyInTransactionStaysOnWAL: inside BEGIN ... COMMIT a large COPY is
// part of the transaction (WAL path): ROLLBACK discards it.
func TestCopyInTransactionStaysOnWAL(t *testing.T) {
	ts := startCopyServer(t, "", 64<<10)
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	var data strings.Builder
	for i := 0; i < 50_000; i++ {
		fmt.Fprintf(&data, "%d\tsome text\n", i)
	}
	mustExec(t, c, "BEGIN")
	if _, err := c.PgConn().CopyFrom(context.Background(), strings.NewReader(data.String()), "COPY t FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "50000" {
		t.Fatalf("own COPY inside the transaction: %v", got)
	}
	mustExec(t, c, "ROLLBACK")
	if got := queryStrings(t, c, "SELECT count(*) FROM t"); got[0] != "0" {
		t.Fatalf("rolled back COPY visible: %v", got)
	}
	if st := ts.table(t, "t").BulkStats(); st.Loads != 0 {
		t.Fatalf("a COPY inside a transaction went direct: %+v", st)
	}
}

// TestCopyDirectReaders: connections counting rows during a large direct
// COPY see the count before it or after it, never a part.
func TestCopyDirectReaders(t *testing.T) {
	ts := startCopyServer(t, "", 64<<10)
	c := ts.conn(t)
	mustExec(t, c, eventsDDL)
	mustExec(t, c, "INSERT INTO events (id) VALUES (0)")
	const n = 300_000
	readers := []*pgx.Conn{ts.conn(t), ts.conn(t)}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var before, after, partial atomic.Int64
	for _, rc := range readers {
		wg.Add(1)
		go func(rc *pgx.Conn) {
			defer wg.Done()
			for !stop.Load() {
				var cnt int64
				if err := rc.QueryRow(context.Background(), "SELECT count(*) FROM events").Scan(&cnt); err != nil {
					t.Error(err)
					return
				}
				switch cnt {
				case 1:
					before.Add(1)
				case n + 1:
					after.Add(1)
				default:
					partial.Add(1)
					t.Errorf("a reader saw %d rows: part of the COPY", cnt)
				}
			}
		}(rc)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := c.CopyFrom(context.Background(), pgx.Identifier{"events"}, eventCols, &eventRows{n: n}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if before.Load() == 0 || after.Load() == 0 || partial.Load() > 0 {
		t.Fatalf("before=%d after=%d partial=%d", before.Load(), after.Load(), partial.Load())
	}
}

// TestCopyNotNullNamesRelation: a NULL for a NOT NULL column in COPY is
// 23502 with PostgreSQL 15's message, which names the relation, and its
// DETAIL, which shows the row, in text, CSV and binary COPY; nothing is
// committed.
func TestCopyNotNullNamesRelation(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE nu (a int, b int NOT NULL)")
	for _, cp := range []struct{ stmt, data string }{
		{"COPY nu FROM STDIN", "1\t1\n2\t\\N\n"},
		{"COPY nu FROM STDIN (FORMAT csv)", "1,1\n2,\n"},
	} {
		_, err := c.PgConn().CopyFrom(context.Background(), strings.NewReader(cp.data), cp.stmt)
		wantErr(t, cp.stmt, err, "23502", `null value in column "b" of relation "nu" violates not-null constraint`, "Failing row contains (2, null).")
	}
	_, err := c.CopyFrom(context.Background(), pgx.Identifier{"nu"}, []string{"a", "b"}, pgx.CopyFromRows([][]any{{1, 1}, {2, nil}}))
	wantErr(t, "binary COPY", err, "23502", `null value in column "b" of relation "nu" violates not-null constraint`, "Failing row contains (2, null).")
	// An unlisted column shows its default.
	mustExec(t, c, "CREATE TABLE nd (a int, b int NOT NULL, c text DEFAULT 'dflt')")
	_, err = c.PgConn().CopyFrom(context.Background(), strings.NewReader("7\t\\N\n"), "COPY nd (a, b) FROM STDIN")
	wantErr(t, "COPY nd (a, b)", err, "23502", `null value in column "b" of relation "nd" violates not-null constraint`, "Failing row contains (7, null, dflt).")
	if got := queryStrings(t, c, "SELECT count(*) FROM nu"); got[0] != "0" {
		t.Errorf("rows after the failed COPYs: %v", got)
	}
}
