package txn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/wal"
)

// multiEnv is two tables of one warehouse and the transaction log.
type multiEnv struct {
	*env
	logDir string
	log    *TxLog
	a, b   *Table
	optsA  Options
	optsB  Options
}

func newMultiEnv(t *testing.T) *multiEnv {
	t.Helper()
	e := newEnv(t)
	m := &multiEnv{env: e, logDir: filepath.Join(e.root, "txlog")}
	m.optsA, m.optsB = e.opts, e.opts
	m.optsA.Prefix, m.optsA.WALDir = "db/public/a", filepath.Join(e.root, "wal-a")
	m.optsB.Prefix, m.optsB.WALDir = "db/public/b", filepath.Join(e.root, "wal-b")
	m.openLog()
	m.optsA.TxLog, m.optsB.TxLog = m.log, m.log
	var err error
	if m.a, err = Create(context.Background(), m.optsA, testSchema); err != nil {
		t.Fatal(err)
	}
	if m.b, err = Create(context.Background(), m.optsB, testSchema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.a.Abandon(); _ = m.b.Abandon(); _ = m.log.Close() })
	return m
}

func (m *multiEnv) openLog() {
	m.t.Helper()
	l, err := OpenTxLog(m.logDir, nil, nil, false)
	if err != nil {
		m.t.Fatal(err)
	}
	m.log = l
}

// crash abandons both tables (no flush: the WALs keep everything) and the
// log, then opens all three again, as a restart does.
func (m *multiEnv) restart() {
	m.t.Helper()
	_ = m.a.Abandon()
	_ = m.b.Abandon()
	_ = m.log.Close()
	m.openLog()
	m.optsA.TxLog, m.optsB.TxLog = m.log, m.log
	var err error
	if m.a, err = Open(context.Background(), m.optsA); err != nil {
		m.t.Fatal(err)
	}
	if m.b, err = Open(context.Background(), m.optsB); err != nil {
		m.t.Fatal(err)
	}
}

// commit writes idA into a and idB into b as one transaction.
func (m *multiEnv) commit(c *Coordinator, idA, idB int64) error {
	ra, rb := batch(m.a, idA), batch(m.b, idB)
	defer ra.Release()
	defer rb.Release()
	_, err := c.Commit(context.Background(), []Part{
		{Table: m.a, Recs: []arrow.RecordBatch{ra}},
		{Table: m.b, Recs: []arrow.RecordBatch{rb}},
	}, wal.DurabilitySync)
	return err
}

type crashed struct{ point string }

// commitCrashing runs commit with point armed: the "process" stops there.
func (m *multiEnv) commitCrashing(point string, idA, idB int64) {
	m.t.Helper()
	crash.SetHandler(func(p string) { panic(crashed{p}) })
	defer crash.SetHandler(nil)
	crash.Arm(point, 1)
	defer crash.Disarm()
	func() {
		defer func() {
			r := recover()
			if c, ok := r.(crashed); !ok || c.point != point {
				m.t.Fatalf("crash point %s: recovered %v", point, r)
			}
		}()
		_ = m.commit(NewCoordinator(m.log), idA, idB)
	}()
}

// TestMultiTableCommitAtomicAcrossCrashes: a transaction over two tables
// is in both after a restart or in neither, at every point of the
// protocol, and the log and the WALs are cleaned up once both tables have
// committed it.
func TestMultiTableCommitAtomicAcrossCrashes(t *testing.T) {
	m := newMultiEnv(t)
	c := NewCoordinator(m.log)
	if err := m.commit(c, 1, 101); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, m.snapshotIDs(m.a), set(1))
	exactlyOnce(t, m.snapshotIDs(m.b), set(101))

	// Crash after both parts are durable, before the commit record: the
	// transaction was never acknowledged; neither table replays it.
	m.commitCrashing(crash.TxAfterPrepare, 2, 102)
	m.restart()
	exactlyOnce(t, m.snapshotIDs(m.a), set(1))
	exactlyOnce(t, m.snapshotIDs(m.b), set(101))

	// Crash with only a's part in its WAL (b's append never happened).
	ra := batch(m.a, 3)
	p, err := m.a.beginPrepare(context.Background(), []arrow.RecordBatch{ra}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.append(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.release()
	ra.Release()
	m.restart()
	exactlyOnce(t, m.snapshotIDs(m.a), set(1))
	exactlyOnce(t, m.snapshotIDs(m.b), set(101))

	// Crash after the commit record, before anything was published: both
	// tables replay it.
	m.commitCrashing(crash.TxAfterLog, 4, 104)
	m.restart()
	exactlyOnce(t, m.snapshotIDs(m.a), set(1, 4))
	exactlyOnce(t, m.snapshotIDs(m.b), set(101, 104))
	if n, _ := m.log.Pending(); n != 4 {
		t.Errorf("log entries waiting for the tables' commits: %d, want 4 (2 transactions x 2 tables)", n)
	}

	// Both tables commit: the records are resolved, and every WAL segment
	// (the aborted transactions' frames too) is pruned.
	for _, tb := range []*Table{m.a, m.b} {
		if err := tb.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if segs := tb.WAL().Segments(); len(segs) != 0 {
			t.Errorf("%s: %d WAL segments left after the commit: %+v", tb.Prefix(), len(segs), segs)
		}
	}
	if n, _ := m.log.Pending(); n != 0 {
		t.Errorf("log entries after both commits: %d, want 0", n)
	}
	m.restart()
	exactlyOnce(t, m.snapshotIDs(m.a), set(1, 4))
	exactlyOnce(t, m.snapshotIDs(m.b), set(101, 104))
	if n, files := m.log.Pending(); n != 0 || files != 0 {
		t.Errorf("after a restart: %d log entries in %d files, want none", n, files)
	}
	if names, _ := os.ReadDir(m.logDir); len(names) != 0 {
		t.Errorf("log files left: %v", names)
	}
}

// TestMultiTableReadersSeeAllOrNothing: a reader that snapshots both
// tables under ReadLock never sees a transaction in one table only.
func TestMultiTableReadersSeeAllOrNothing(t *testing.T) {
	m := newMultiEnv(t)
	c := NewCoordinator(m.log)
	ctx := context.Background()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var torn, reads atomic.Int64
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				c.ReadLock()
				sa, errA := m.a.Snapshot(ctx)
				sb, errB := m.b.Snapshot(ctx)
				c.ReadUnlock()
				if err := errors.Join(errA, errB); err != nil {
					t.Error(err)
					return
				}
				if sa.Rows() != sb.Rows() {
					torn.Add(1)
				}
				reads.Add(1)
				sa.Release()
				sb.Release()
			}
		}()
	}
	for i := range int64(300) {
		if err := m.commit(c, i, 1000+i); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if torn.Load() > 0 {
		t.Errorf("%d of %d reads saw a transaction in one table only", torn.Load(), reads.Load())
	}
	exactlyOnce(t, m.snapshotIDs(m.a), rangeSet(0, 300))
}

// TestTxLogTornTailAndCorruption: a record cut by a crash ends the file
// (its transaction was never acknowledged); a damaged record with more
// after it refuses to open.
func TestTxLogTornTailAndCorruption(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenTxLog(dir, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	gen := manifest.NewTxIDGen()
	var ids [3]TxPart
	for i := range ids {
		ids[i] = TxPart{Prefix: "db/public/a", TxID: gen.NewMulti()}
		if err := l.Commit([]TxPart{ids[i], {Prefix: "db/public/b", TxID: gen.NewMulti()}}, true); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	names, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(names) != 1 {
		t.Fatalf("files: %v", names)
	}
	path := names[0]
	data, _ := os.ReadFile(path)
	rec := len(data) / 3

	// Torn: the last record loses its last byte.
	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = OpenTxLog(dir, nil, nil, false)
	if err != nil {
		t.Fatalf("torn tail: %v", err)
	}
	if !l.Committed(ids[0].TxID) || !l.Committed(ids[1].TxID) || l.Committed(ids[2].TxID) {
		t.Errorf("torn tail: committed = %v %v %v, want true true false", l.Committed(ids[0].TxID), l.Committed(ids[1].TxID), l.Committed(ids[2].TxID))
	}
	l.Close()

	// Corrupt: a flipped bit in the first record, two records after it.
	bad := append([]byte(nil), data...)
	bad[rec/2] ^= 0x10
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenTxLog(dir, nil, nil, false); !errors.Is(err, ErrTxLogCorrupt) {
		t.Fatalf("corrupt record: %v, want ErrTxLogCorrupt", err)
	}
}

// TestTxLogSharedByTwoProcesses: two logs on one directory (two servers
// on one data directory): each sees the other's commits, even those made
// after it opened, and never deletes the other's file; a dead process's
// file is adopted by the next log that opens the directory.
func TestTxLogSharedByTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	gen := manifest.NewTxIDGen()
	open := func() *TxLog {
		l, err := OpenTxLog(dir, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	p1 := open()
	x := gen.NewMulti()
	if err := p1.Commit([]TxPart{{Prefix: "a", TxID: x}, {Prefix: "b", TxID: gen.NewMulti()}}, true); err != nil {
		t.Fatal(err)
	}
	p2 := open()
	if !p2.Committed(x) {
		t.Fatal("p2 does not see p1's commit")
	}
	y := gen.NewMulti()
	if err := p1.Commit([]TxPart{{Prefix: "a", TxID: y}, {Prefix: "b", TxID: gen.NewMulti()}}, true); err != nil {
		t.Fatal(err)
	}
	if !p2.Committed(y) {
		t.Fatal("p2 does not see a commit p1 made after p2 opened")
	}
	if p2.Committed(gen.NewMulti()) {
		t.Fatal("p2 sees a commit nobody made")
	}
	// p2 resolving table a must not touch p1's records or file.
	p2.ResolveTable("a", nil)
	p2.ResolveTable("b", nil)
	if n, _ := p1.Pending(); n != 4 {
		t.Fatalf("p1 entries: %d, want 4", n)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("log files: %v", logs)
	}
	// p1 dies: the next log adopts its file and cleans it once resolved.
	p1.Close()
	p3 := open()
	if n, files := p3.Pending(); n != 4 || files != 1 {
		t.Fatalf("adopted: %d entries in %d files, want 4 in 1", n, files)
	}
	p3.ResolveTable("a", nil)
	p3.ResolveTable("b", nil)
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("files left after every record resolved: %v", names)
	}
	p2.Close()
	p3.Close()
}

// TestTxLogGroupCommit: concurrent multi-table commits share the log's
// fdatasyncs (as the WAL's writers do), and every record is durable.
func TestTxLogGroupCommit(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenTxLog(dir, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	gen := manifest.NewTxIDGen()
	const writers, each = 16, 40
	ids := make([][]TxPart, writers*each)
	for i := range ids {
		ids[i] = []TxPart{{Prefix: "a", TxID: gen.NewMulti()}, {Prefix: "b", TxID: gen.NewMulti()}}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				if err := l.Commit(ids[w*each+k], true); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	syncs := l.syncs.Load()
	l.Close()
	t.Logf("%d commits, %d fdatasyncs", len(ids), syncs)
	if syncs >= int64(len(ids)) {
		t.Errorf("%d fdatasyncs for %d concurrent commits: no group commit", syncs, len(ids))
	}
	l, err = OpenTxLog(dir, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, parts := range ids {
		for _, p := range parts {
			if !l.Committed(p.TxID) {
				t.Fatalf("%s lost", p.TxID)
			}
		}
	}
}
