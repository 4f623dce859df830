package crashtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
)

var (
	flagRounds = flag.Int("rounds", envInt("BSDB_SOAK_ROUNDS", 5), "sustained SIGKILL: rounds (env BSDB_SOAK_ROUNDS)")
	flagSoak   = flag.Duration("soak", envDuration("BSDB_SOAK_DURATION", 0), "soak: run the SIGKILL loop and the linearizability check for this long each (env BSDB_SOAK_DURATION); 0 = use -rounds / the short default")
	flagAllOff = flag.Bool("alloffsets", os.Getenv("BSDB_TORN_ALL_OFFSETS") != "", "torn WAL: truncate at every byte offset of the final frame (env BSDB_TORN_ALL_OFFSETS)")
)

func TestMain(m *testing.M) { testserver.Main(m) }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// table is the one table every test writes: id is unique per row, chosen
// by the client; w is the writer; payload pads the rows a little.
const (
	tableName   = "ct"
	createTable = "CREATE TABLE ct (id bigint, w integer, payload text)"
)

// serverEnv is the environment of every server: sync durability and a
// short age flush, so that commits run all the time.
func serverEnv(flushMS int, extra ...string) []string {
	env := []string{"BSDB_WAL_DURABILITY=sync", "BSDB_FLUSH_INTERVAL_MS=" + strconv.Itoa(flushMS), "BSDB_MAX_CONCURRENCY=1", "BSDB_LOG_LEVEL=info"}
	return append(env, extra...)
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func connect(ctx context.Context, t testing.TB, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// ledger is the client-side record of every row: attempted (sent, the
// answer not yet known or an error), acknowledged (INSERT/COPY returned
// success). Ids are unique across the whole test.
type ledger struct {
	mu        sync.Mutex
	attempted map[int64]bool // every id ever sent
	acked     map[int64]bool
	ackOrder  []int64 // acked ids in acknowledgement order
	next      int64
}

func newLedger() *ledger {
	return &ledger{attempted: map[int64]bool{}, acked: map[int64]bool{}, next: 1}
}

// reserve records n fresh ids as attempted (before they are sent) and
// returns them.
func (l *ledger) reserve(n int) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = l.next
		l.attempted[l.next] = true
		l.next++
	}
	return ids
}

func (l *ledger) ack(ids []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		l.acked[id] = true
		l.ackOrder = append(l.ackOrder, id)
	}
}

// ackedCount is the length of the acknowledgement order now: every id in
// ackOrder[:n] was acknowledged before this call returned.
func (l *ledger) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ackOrder)
}

func (l *ledger) ackedPrefix(n int) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ackOrder[:n:n]
}

func (l *ledger) wasAttempted(id int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.attempted[id]
}

// writeOne sends one write of ids: a single-row INSERT, a multi-row INSERT
// or a COPY (pgx CopyFrom, binary), chosen by kind.
func writeOne(ctx context.Context, c *pgx.Conn, kind int, w int, ids []int64) error {
	switch kind % 3 {
	case 0:
		if len(ids) != 1 {
			return fmt.Errorf("BUG: single-row insert of %d ids", len(ids))
		}
		_, err := c.Exec(ctx, "INSERT INTO ct VALUES ($1, $2, $3)", ids[0], w, "single")
		return err
	case 1:
		var sb strings.Builder
		sb.WriteString("INSERT INTO ct VALUES ")
		for i, id := range ids {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, %d, 'multi')", id, w)
		}
		_, err := c.Exec(ctx, sb.String())
		return err
	default:
		rows := make([][]any, len(ids))
		for i, id := range ids {
			rows[i] = []any{id, int32(w), "copy"}
		}
		n, err := c.CopyFrom(ctx, pgx.Identifier{tableName}, []string{"id", "w", "payload"}, pgx.CopyFromRows(rows))
		if err == nil && n != int64(len(ids)) {
			return fmt.Errorf("copy: %d rows acknowledged, %d sent", n, len(ids))
		}
		return err
	}
}

// writer writes until ctx ends or a write fails; it returns the first error
// (nil when ctx ended). Every id is reserved before it is sent and
// acknowledged only after success.
func writer(ctx context.Context, c *pgx.Conn, l *ledger, w int, rng *rand.Rand) error {
	for k := 0; ctx.Err() == nil; k++ {
		kind := rng.IntN(3)
		n := 1
		if kind != 0 {
			n = 1 + rng.IntN(20)
		}
		ids := l.reserve(n)
		if err := writeOne(ctx, c, kind, w, ids); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		l.ack(ids)
	}
	return nil
}

// readIDs returns the multiset of ids in the table.
func readIDs(ctx context.Context, c *pgx.Conn) (map[int64]int, error) {
	return readIDsFrom(ctx, c, tableName)
}

// tally is what a verification found.
type tally struct {
	acked, present, lost, duplicated, phantom, inflightPresent int
}

func (y tally) String() string {
	return fmt.Sprintf("acked=%d present=%d lost=%d duplicated=%d phantom=%d in-flight-present=%d",
		y.acked, y.present, y.lost, y.duplicated, y.phantom, y.inflightPresent)
}

// verifyRows checks the table against the ledger: every acknowledged id
// exactly once, attempted-but-unacknowledged ids at most once, nothing
// never sent. It reports the first few violations with t.Errorf.
func verifyRows(t testing.TB, l *ledger, got map[int64]int) tally {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var y tally
	var bad []string
	for id, n := range got {
		y.present++
		switch {
		case !l.attempted[id]:
			y.phantom++
			bad = append(bad, fmt.Sprintf("id %d never sent, present %d times", id, n))
		case n > 1:
			y.duplicated++
			bad = append(bad, fmt.Sprintf("id %d present %d times", id, n))
		case !l.acked[id]:
			y.inflightPresent++
		}
	}
	for id := range l.acked {
		y.acked++
		if got[id] == 0 {
			y.lost++
			bad = append(bad, fmt.Sprintf("acknowledged id %d lost", id))
		}
	}
	if len(bad) > 0 {
		if len(bad) > 10 {
			bad = append(bad[:10], fmt.Sprintf("... %d more", len(bad)-10))
		}
		t.Errorf("rows violate the ledger (%v):\n  %s", y, strings.Join(bad, "\n  "))
	}
	return y
}

// waitExit waits (up to d) until the server process has exited on its own
// and returns its wait status. It never signals a live process.
func waitExit(s *testserver.Server, d time.Duration) (syscall.WaitStatus, error) {
	pid := s.Cmd.Process.Pid
	deadline := time.Now().Add(d)
	for {
		if exitedOrZombie(pid) {
			s.Kill() // the process is a zombie or reaped: this only waits for the reaper
			ws, ok := s.Cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok {
				return 0, errors.New("no wait status")
			}
			return ws, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("server pid %d still running after %v", pid, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exitedOrZombie reports whether pid has exited (state Z in /proc, or gone).
func exitedOrZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// diedAt reports whether a server process that exited with ws died at the
// armed crash point: internal/crash prints the point's name, then sends the
// process SIGKILL. Any other exit (a clean one, a panic, another signal)
// is not a crash at that point.
func diedAt(ws syscall.WaitStatus, out, point string) bool {
	return ws.Signaled() && ws.Signal() == syscall.SIGKILL &&
		strings.Contains(out, "crash point "+point+" reached")
}
