package txn

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

// FuzzTxLogRead: whatever bytes a log file holds, opening the log never
// panics; it either refuses with ErrTxLogCorrupt or reads records, and a
// valid record followed by the fuzzed bytes is still read when they are
// a torn tail.
func FuzzTxLogRead(f *testing.F) {
	id := uuid.MustParse("01020304-0506-8001-8000-000000000007")
	rec := encodeTxRecord([]TxPart{{Prefix: "db/public/a", TxID: id}, {Prefix: "db/public/b", TxID: id}})
	f.Add([]byte{})
	f.Add(rec)
	f.Add(rec[:len(rec)-3])
	f.Add(append(append([]byte(nil), rec...), 0, 0, 0, 0, 0, 0, 0, 0, 0))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		name := filepath.Join(dir, "txlog_00000000000000000001_1.log")
		if err := os.WriteFile(name, append(append([]byte(nil), rec...), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenTxLog(dir, nil, nil, true)
		if err != nil {
			if !errors.Is(err, ErrTxLogCorrupt) {
				t.Fatalf("open: %v (not ErrTxLogCorrupt)", err)
			}
			return
		}
		defer l.Close()
		if !l.Committed(id) {
			t.Fatal("the valid first record was lost")
		}
	})
}
