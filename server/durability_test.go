package server

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/wal"
)

// The server's durability (BSDB_WAL_DURABILITY) is the default of every
// session's synchronous_commit, as postgresql.conf's: with async, an INSERT
// is acknowledged without an fdatasync of its own; a session that sets
// synchronous_commit = on (by SET or in its startup packet) gets one per
// commit; RESET returns to the session's starting value.
func TestServerDurabilityIsSessionDefault(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		dur  wal.Durability
		want string
	}{{wal.DurabilityAsync, "off"}, {wal.DurabilitySync, "on"}} {
		t.Run(tc.want, func(t *testing.T) {
			// No background sync within the test: a sync seen is a commit's.
			ts := startServerConfig(t, planner.Config{Durability: tc.dur, FlushInterval: -1, SyncInterval: time.Hour, SyncBatchSize: 1 << 30}, func(*Backend) {})
			c := ts.conn(t)
			if got := queryStrings(t, c, "SHOW synchronous_commit"); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("SHOW synchronous_commit = %v, want %s", got, tc.want)
			}
			mustExec(t, c, "CREATE TABLE d (i int)")
			tb, err := ts.eng.Table(ctx, catalog.TableID{Database: "postgres", Schema: "public", Name: "d"})
			if err != nil {
				t.Fatal(err)
			}
			syncs := func() int64 { return tb.T.WAL().Stats().Syncs }
			inserts := func(c *pgx.Conn, n int) int64 {
				t.Helper()
				before := syncs()
				for i := 0; i < n; i++ {
					mustExec(t, c, "INSERT INTO d VALUES ($1)", i)
				}
				return syncs() - before
			}
			if n := inserts(c, 5); (tc.dur == wal.DurabilityAsync) != (n == 0) {
				t.Errorf("5 inserts with synchronous_commit=%s: %d fdatasyncs", tc.want, n)
			}
			mustExec(t, c, "SET synchronous_commit = on")
			if n := inserts(c, 3); n < 3 {
				t.Errorf("3 inserts after SET synchronous_commit = on: %d fdatasyncs, want 3", n)
			}
			mustExec(t, c, "RESET synchronous_commit")
			if got := queryStrings(t, c, "SHOW synchronous_commit"); len(got) != 1 || got[0] != tc.want {
				t.Errorf("after RESET: synchronous_commit = %v, want %s", got, tc.want)
			}
			// A startup option wins over the server's default, also for RESET.
			cfg, err := pgx.ParseConfig(ts.url())
			if err != nil {
				t.Fatal(err)
			}
			cfg.RuntimeParams["options"] = "-c synchronous_commit=on"
			c2, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close(ctx)
			mustExec(t, c2, "SET synchronous_commit = off")
			mustExec(t, c2, "RESET synchronous_commit")
			if got := queryStrings(t, c2, "SHOW synchronous_commit"); len(got) != 1 || got[0] != "on" {
				t.Errorf("startup option on, SET off, RESET: %v, want on", got)
			}
			if n := inserts(c2, 2); n < 2 {
				t.Errorf("2 inserts with synchronous_commit=on from the startup packet: %d fdatasyncs", n)
			}
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM d").Scan(&n); err != nil || n != 10 {
				t.Errorf("count = %d, %v; want 10", n, err)
			}
		})
	}
}
