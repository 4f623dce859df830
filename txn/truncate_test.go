package txn

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// TestTruncateWith: the table's rows become the given ones in one manifest
// version, durably; a failure before that manifest leaves the table as it
// was, in process and after a reopen.
func TestTruncateWith(t *testing.T) {
	ctx := context.Background()
	for _, fault := range []string{"", "before-parquet", "before-manifest"} {
		t.Run("fault="+fault, func(t *testing.T) {
			e := newEnv(t)
			tb := e.create()
			_ = write(tb, 1, 2)
			if err := tb.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			_ = write(tb, 3)
			switch fault {
			case "before-parquet":
				e.faulty.AddRule(objstore.FailBefore(keyHas("/data/"), objstore.OpPutFile))
			case "before-manifest":
				e.faulty.AddRule(objstore.FailBefore(keyHas("/_manifest/"), objstore.OpPutIfAbsent))
			}
			r1, r2 := batch(tb, 10, 11), batch(tb, 12)
			err := tb.TruncateWith(ctx, []arrow.RecordBatch{r1, r2})
			r1.Release()
			r2.Release()
			want := set(10, 11, 12)
			if fault != "" {
				if err == nil {
					t.Fatal("TruncateWith succeeded despite the fault")
				}
				want = set(1, 2, 3)
			} else if err != nil {
				t.Fatal(err)
			}
			exactlyOnce(t, e.snapshotIDs(tb), want)
			e.faulty.ClearRules()
			if err := write(tb, 20); err != nil {
				t.Fatal(err)
			}
			want[20] = true
			exactlyOnce(t, e.snapshotIDs(tb), want)
			_ = tb.Abandon()
			tb = e.open()
			exactlyOnce(t, e.snapshotIDs(tb), want)
			if err := tb.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			_ = tb.Abandon()
			tb = e.open()
			exactlyOnce(t, e.snapshotIDs(tb), want)
		})
	}
}
