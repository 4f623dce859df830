package crashtest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// TestMultiTableCrashPoints: a transaction that writes two tables dies at
// each point of the multi-table commit (the server aborts there); after a
// restart, every acknowledged transaction is in both tables exactly once,
// the one that was in flight is in both or in neither as the point
// dictates, and the tables hold the same ids.
func TestMultiTableCrashPoints(t *testing.T) {
	for _, point := range crash.Multi {
		t.Run(point, func(t *testing.T) { runMultiCrashPoint(t, point) })
	}
}

func runMultiCrashPoint(t *testing.T, point string) {
	ctx := testCtx(t, 2*time.Minute)
	dataDir := t.TempDir()
	armed := point + ":20"
	s := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100, "BSDB_CRASH_AT="+armed)})
	c := connect(ctx, t, s.URL)
	for _, q := range []string{createTable, strings.Replace(createTable, "ct", "ct2", 1)} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// One writer: the transaction that reaches the point is the only one
	// in flight, so what the restart must show of it is known.
	l := newLedger()
	var inflight []int64
	for k := 0; ; k++ {
		ids := l.reserve(1 + k%3)
		if err := writeBoth(ctx, c, ids); err != nil {
			inflight = ids
			break
		}
		l.ack(ids)
	}
	ws, err := waitExit(s, 60*time.Second)
	if err != nil {
		t.Fatalf("crash point %s never fired: %v", armed, err)
	}
	if !diedAt(ws, s.Output(), point) {
		t.Fatalf("server exited with %v, want death by SIGKILL at %s:\n%s", ws, armed, s.Output())
	}

	r := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	c = connect(ctx, t, r.URL)
	check := func() {
		t.Helper()
		got := map[string]map[int64]int{}
		for _, tb := range []string{"ct", "ct2"} {
			ids, err := readIDsFrom(ctx, c, tb)
			if err != nil {
				t.Fatalf("%s unreadable after restart: %v", tb, err)
			}
			verifyRows(t, l, ids)
			got[tb] = ids
		}
		for id := range got["ct"] {
			if got["ct2"][id] != got["ct"][id] {
				t.Errorf("id %d: %d rows in ct, %d in ct2: the transaction was not atomic", id, got["ct"][id], got["ct2"][id])
			}
		}
		for id := range got["ct2"] {
			if got["ct"][id] == 0 {
				t.Errorf("id %d in ct2 only: the transaction was not atomic", id)
			}
		}
		want := 0
		if point == crash.TxAfterLog {
			want = 1 // its commit record is durable: it committed
		}
		for _, id := range inflight {
			if got["ct"][id] != want {
				t.Errorf("in-flight id %d at %s: %d rows, want %d", id, point, got["ct"][id], want)
			}
		}
	}
	check()
	if l.ackedCount() < 19 {
		t.Errorf("only %d ids acknowledged before %s: the test proves little", l.ackedCount(), armed)
	}
	// A clean stop commits everything; the data survives another restart,
	// and the commit log is empty again.
	c.Close(ctx)
	if err := r.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	checkQuiescentLayout(t, dataDir)
	if logs, _ := filepath.Glob(filepath.Join(dataDir, "warehouse", "txlog.d", "*")); len(logs) != 0 {
		t.Errorf("after a clean shutdown the multi-table commit log still holds %v", logs)
	}
	r.Restart()
	c = connect(ctx, t, r.URL)
	check()
}

// writeBoth inserts ids into ct and ct2 in one transaction (one simple
// query message).
func writeBoth(ctx context.Context, c *pgx.Conn, ids []int64) error {
	var vals []string
	for _, id := range ids {
		vals = append(vals, fmt.Sprintf("(%d, 0, 'tx')", id))
	}
	v := strings.Join(vals, ", ")
	_, err := c.Exec(ctx, "BEGIN; INSERT INTO ct VALUES "+v+"; INSERT INTO ct2 VALUES "+v+"; COMMIT")
	return err
}

// readIDsFrom returns the multiset of ids in table.
func readIDsFrom(ctx context.Context, c *pgx.Conn, table string) (map[int64]int, error) {
	rows, err := c.Query(ctx, "SELECT id FROM "+table)
	if err != nil {
		return nil, err
	}
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		out[id]++
	}
	rows.Close()
	return out, rows.Err()
}
