package wal

import (
	"testing"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// TestCrashPoints "crashes" at each WAL crash point by taking a crash
// clone of the MemFS exactly there, and checks what a restart finds:
//   - WALAfterAppend: the transaction is written but not synced; earlier
//     acknowledged ones survive, and the new one is not required to;
//   - WALAfterSync: the transaction is durable before it is acknowledged;
//   - WALAfterRotateSeal: the sealed segment (async data included) is
//     durable, and no new segment exists yet.
func TestCrashPoints(t *testing.T) {
	for _, point := range []string{crash.WALAfterAppend, crash.WALAfterSync, crash.WALAfterRotateSeal} {
		t.Run(point, func(t *testing.T) {
			mem := vfs.NewMem()
			w, _ := mustOpen(t, memOpts(t, mem), nil)
			defer w.Close()
			before := uuid.New()
			if _, err := appendTx(t, w, before, 0, 1, 2, DurabilitySync); err != nil {
				t.Fatal(err)
			}
			var clone *vfs.MemFS
			crash.SetHandler(func(string) { clone = mem.CrashClone() })
			defer crash.SetHandler(nil)
			crash.Arm(point, 1)
			defer crash.Disarm()

			tx := uuid.New()
			d := DurabilitySync
			if point == crash.WALAfterRotateSeal {
				d = DurabilityAsync
			}
			if _, err := appendTx(t, w, tx, 100, 2, 2, d); err != nil {
				t.Fatal(err)
			}
			if point == crash.WALAfterRotateSeal {
				if err := w.Rotate(); err != nil {
					t.Fatal(err)
				}
			}
			if clone == nil {
				t.Fatalf("crash point %s never reached", point)
			}
			w2, recs := mustOpen(t, memOpts(t, clone), nil)
			defer w2.Close()
			defer releaseAll(recs)
			got := txSet(t, recs)
			if _, ok := got[before]; !ok {
				t.Fatal("earlier acknowledged transaction lost")
			}
			_, has := got[tx]
			switch point {
			case crash.WALAfterSync, crash.WALAfterRotateSeal:
				if !has {
					t.Fatalf("transaction not durable at %s", point)
				}
			}
			if point == crash.WALAfterRotateSeal {
				names, _ := clone.ReadDir("/wal")
				n := 0
				for _, name := range names {
					if isSegment(name) {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("%d segments at %s, want only the sealed one", n, point)
				}
			}
		})
	}
}
