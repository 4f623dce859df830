package txn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/wal"
)

var testSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "id", Kind: schema.KindInt64, NotNull: true},
	{ID: 2, Name: "v", Kind: schema.KindString},
}}

// env is a table on a local store wrapped by a fault injector.
type env struct {
	t      *testing.T
	root   string
	local  *objstore.Local
	faulty *objstore.Faulty
	walDir string
	opts   Options
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	local, err := objstore.NewLocal(filepath.Join(root, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, root: root, local: local, faulty: objstore.NewFaulty(local), walDir: filepath.Join(root, "wal")}
	e.opts = Options{Store: e.faulty, Prefix: "db/public/t", WALDir: e.walDir, FlushInterval: -1, UnsafeNoSync: false}
	return e
}

func (e *env) create() *Table {
	e.t.Helper()
	tb, err := Create(context.Background(), e.opts, testSchema)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = tb.Abandon() })
	return tb
}

func (e *env) open() *Table {
	e.t.Helper()
	tb, err := Open(context.Background(), e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = tb.Abandon() })
	return tb
}

func batch(tb *Table, ids ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, tb.ArrowSchema())
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row-%d", id))
	}
	return b.NewRecordBatch()
}

// write writes ids as one transaction and returns the error.
func write(tb *Table, ids ...int64) error {
	r := batch(tb, ids...)
	defer r.Release()
	_, err := tb.Write(context.Background(), []arrow.RecordBatch{r}, WriteOptions{Durability: wal.DurabilitySync})
	return err
}

// idsOf returns the ids a snapshot holds, in order (files, then batches).
func (e *env) idsOf(tb *Table, s *Snapshot) []int64 {
	e.t.Helper()
	var out []int64
	for _, f := range s.Manifest.Files {
		recs, err := parquet.ReadFile(e.local.LocalPath(tb.Prefix() + "/" + f.Path))
		if err != nil {
			e.t.Fatalf("read %s: %v", f.Path, err)
		}
		for _, r := range recs {
			col := r.Column(0).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				out = append(out, col.Value(i))
			}
			r.Release()
		}
	}
	for _, b := range s.Batches {
		col := b.Rec.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			out = append(out, col.Value(i))
		}
	}
	return out
}

func (e *env) snapshotIDs(tb *Table) []int64 {
	e.t.Helper()
	s, err := tb.Snapshot(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	defer s.Release()
	return e.idsOf(tb, s)
}

// exactlyOnce checks that got holds each of want exactly once and nothing else.
func exactlyOnce(t *testing.T, got []int64, want map[int64]bool) {
	t.Helper()
	seen := map[int64]int{}
	for _, id := range got {
		seen[id]++
	}
	var dup, missing, extra []int64
	for id, n := range seen {
		if n > 1 {
			dup = append(dup, id)
		}
		if !want[id] {
			extra = append(extra, id)
		}
	}
	for id := range want {
		if seen[id] == 0 {
			missing = append(missing, id)
		}
	}
	if len(dup)+len(missing)+len(extra) > 0 {
		sort.Slice(dup, func(i, j int) bool { return dup[i] < dup[j] })
		sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
		t.Fatalf("rows: %d duplicated %v, %d missing %v, %d never written %v", len(dup), head(dup), len(missing), head(missing), len(extra), head(extra))
	}
}

func head(s []int64) []int64 {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func set(ids ...int64) map[int64]bool {
	m := map[int64]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func rangeSet(lo, hi int64) map[int64]bool {
	m := map[int64]bool{}
	for i := lo; i < hi; i++ {
		m[i] = true
	}
	return m
}

func TestWriteFlushReopen(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	for i := int64(0); i < 10; i++ {
		if err := write(tb, i*2, i*2+1); err != nil {
			t.Fatal(err)
		}
	}
	exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 20))
	if err := tb.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, _ := tb.Snapshot(context.Background())
	if len(s.Batches) != 0 || len(s.Manifest.Files) != 1 || s.Manifest.Version != 2 {
		t.Fatalf("after flush: batches=%d files=%d version=%d", len(s.Batches), len(s.Manifest.Files), s.Manifest.Version)
	}
	s.Release()
	// The commit pruned every sealed segment.
	for _, seg := range tb.WAL().Segments() {
		if seg.Sealed {
			t.Fatalf("sealed segment %s survived the commit", seg.Name)
		}
	}
	for i := int64(20); i < 25; i++ {
		if err := write(tb, i); err != nil {
			t.Fatal(err)
		}
	}
	// Unflushed writes survive a reopen (replayed from the WAL).
	if err := tb.Abandon(); err != nil {
		t.Fatal(err)
	}
	tb2 := e.open()
	exactlyOnce(t, e.snapshotIDs(tb2), rangeSet(0, 25))
	if err := tb2.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	tb3 := e.open()
	exactlyOnce(t, e.snapshotIDs(tb3), rangeSet(0, 25))
	if tb3.BufferedBytes() != 0 {
		t.Fatalf("clean close left %d buffered bytes to replay", tb3.BufferedBytes())
	}
}

// TestManyTransactionsPerCommit: one commit of far more single-row
// transactions than any fixed id window (pgbench at 64 connections commits
// thousands per flush). The commit must prune every sealed segment, and a
// crash right after the manifest commit (before the prune) must not replay
// a committed transaction: the manifest's record of committed WAL
// transactions covers every transaction of every commit.
func TestManyTransactionsPerCommit(t *testing.T) {
	const n = 1000
	for _, crashBeforePrune := range []bool{false, true} {
		t.Run(fmt.Sprintf("crashBeforePrune=%v", crashBeforePrune), func(t *testing.T) {
			e := newEnv(t)
			tb := e.create()
			for i := int64(0); i < n; i++ {
				if err := write(tb, i); err != nil {
					t.Fatal(err)
				}
			}
			if crashBeforePrune {
				// The prune's directory removal fails after the manifest is
				// durable: the segments survive, as after a crash there.
				e.opts.WALFS = nil
				tb.wal.Rotate()
				if !tb.beginStaging() {
					t.Fatal("nothing staged")
				}
				if err := tb.stageAndCommitManifest(context.Background()); err != nil {
					t.Fatal(err)
				}
				_ = tb.Abandon()
			} else {
				if err := tb.Flush(context.Background()); err != nil {
					t.Fatal(err)
				}
				for _, seg := range tb.WAL().Segments() {
					if seg.Sealed {
						t.Fatalf("sealed segment %s survived the commit of all its %d transactions", seg.Name, n)
					}
				}
				_ = tb.Abandon()
			}
			tb2 := e.open()
			if b := tb2.BufferedBytes(); b != 0 {
				t.Errorf("reopen replayed %d bytes of committed transactions", b)
			}
			exactlyOnce(t, e.snapshotIDs(tb2), rangeSet(0, n))
		})
	}
}

// faultCase fails one persistence boundary of the commit.
type faultCase struct {
	name  string
	rules func() []*objstore.Rule
	// phaseAfter is the PendingCommit phase the failed flush leaves.
	phaseAfter Phase
}

func keyHas(sub string) func(string) bool {
	return func(k string) bool { return strings.Contains(k, sub) }
}

func rules(r ...*objstore.Rule) []*objstore.Rule { return r }

var faultCases = []faultCase{
	{"before-parquet", func() []*objstore.Rule { return rules(objstore.FailBefore(keyHas("/data/"), objstore.OpPutFile)) }, 0},
	{"after-parquet", func() []*objstore.Rule {
		return rules(objstore.FailBefore(keyHas("/_manifest/"), objstore.OpPutIfAbsent))
	}, 0},
	// The manifest create succeeds but reports an error, and the read-back
	// that would resolve it fails too: the commit is ambiguous to the
	// committer; the retry must converge on the tx ids, not write twice.
	{"ambiguous-manifest", func() []*objstore.Rule {
		readback := objstore.FailBefore(keyHas("/_manifest/v2.json"), objstore.OpGet)
		readback.Nth = 1
		return rules(objstore.FailAfter(keyHas("/_manifest/"), objstore.OpPutIfAbsent), readback)
	}, 0},
	{"after-manifest", func() []*objstore.Rule {
		return rules(objstore.FailBefore(keyHas(".metadata.json"), objstore.OpPutIfAbsent))
	}, PhaseManifestCommitted},
	{"after-metadata", func() []*objstore.Rule {
		return rules(objstore.FailBefore(keyHas("version-hint"), objstore.OpPutIfAbsent, objstore.OpPutIfMatch, objstore.OpPut))
	}, PhaseManifestCommitted},
}

// TestFaultAtEveryBoundary: a failure at each persistence boundary, then a
// retry in process and a reopen: every acknowledged row exactly once.
func TestFaultAtEveryBoundary(t *testing.T) {
	for _, fc := range faultCases {
		for _, mode := range []string{"retry", "reopen"} {
			t.Run(fc.name+"/"+mode, func(t *testing.T) {
				e := newEnv(t)
				tb := e.create()
				for i := int64(0); i < 5; i++ {
					if err := write(tb, i); err != nil {
						t.Fatal(err)
					}
				}
				for _, r := range fc.rules() {
					e.faulty.AddRule(r)
				}
				err := tb.Flush(context.Background())
				if err == nil {
					t.Fatalf("flush succeeded despite the fault")
				}
				if got := tb.Phase(); got != fc.phaseAfter {
					t.Fatalf("phase after failed flush = %v, want %v\n%s", got, fc.phaseAfter, tb.Describe())
				}
				// Readers see every acknowledged row exactly once meanwhile.
				exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 5))
				// A write arriving after the failure.
				if err := write(tb, 5); err != nil {
					t.Fatal(err)
				}
				e.faulty.ClearRules()
				if mode == "retry" {
					if err := tb.Flush(context.Background()); err != nil {
						t.Fatalf("retry: %v", err)
					}
				} else {
					_ = tb.Abandon()
					tb = e.open()
					if err := tb.Flush(context.Background()); err != nil {
						t.Fatalf("flush after reopen: %v", err)
					}
				}
				exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 6))
				if tb.Phase() != 0 {
					t.Fatalf("commit still pending: %s", tb.Describe())
				}
				_ = tb.Abandon()
				tb = e.open()
				exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 6))
			})
		}
	}
}

// TestRestoreAheadOfNewerWrites: a pre-manifest failure puts the staged
// batches back ahead of writes that arrived during the failed commit.
func TestRestoreAheadOfNewerWrites(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	for i := int64(0); i < 3; i++ {
		if err := write(tb, i); err != nil {
			t.Fatal(err)
		}
	}
	// While the commit stages (Parquet upload), a writer adds rows 100, 101.
	var once sync.Once
	e.faulty.AddRule(objstore.HookAt(objstore.Before, keyHas("/data/"), func(ctx context.Context, op objstore.Op, key string) {
		once.Do(func() {
			if err := write(tb, 100); err != nil {
				t.Error(err)
			}
			if err := write(tb, 101); err != nil {
				t.Error(err)
			}
		})
	}, objstore.OpPutFile))
	e.faulty.AddRule(objstore.FailBefore(keyHas("/_manifest/"), objstore.OpPutIfAbsent))
	if err := tb.Flush(context.Background()); err == nil {
		t.Fatal("flush succeeded despite the fault")
	}
	got := e.snapshotIDs(tb)
	want := []int64{0, 1, 2, 100, 101}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("buffer order after restore = %v, want %v", got, want)
	}
	e.faulty.ClearRules()
	if err := tb.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.snapshotIDs(tb); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("committed order = %v, want %v", got, want)
	}
}

// TestTailResumeNotifiesOnce: a commit whose Iceberg publication failed is
// resumed by the next flush; subscribers hear of it exactly once.
func TestTailResumeNotifiesOnce(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	events, cancel := tb.Subscribe()
	defer cancel()
	if err := write(tb, 1); err != nil {
		t.Fatal(err)
	}
	e.faulty.AddRule(objstore.FailBefore(keyHas(".metadata.json"), objstore.OpPutIfAbsent))
	if err := tb.Flush(context.Background()); err == nil {
		t.Fatal("flush succeeded despite the fault")
	}
	if tb.Phase() != PhaseManifestCommitted {
		t.Fatalf("phase = %v", tb.Phase())
	}
	select {
	case ev := <-events:
		t.Fatalf("notified before the tail finished: %+v", ev)
	default:
	}
	e.faulty.ClearRules()
	if err := write(tb, 2); err != nil {
		t.Fatal(err)
	}
	if err := tb.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tb.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []int64
	timeout := time.After(2 * time.Second)
	for len(got) < 2 {
		select {
		case ev := <-events:
			got = append(got, ev.ManifestVersion)
		case <-timeout:
			t.Fatalf("events %v", got)
		}
	}
	if got[0] != 2 || got[1] != 3 {
		t.Fatalf("commit events for manifest versions %v, want [2 3]", got)
	}
	select {
	case ev := <-events:
		t.Fatalf("extra notification %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
	exactlyOnce(t, e.snapshotIDs(tb), set(1, 2))
}

// TestOpenResumesIcebergPublish: a crash between the manifest commit and the
// Iceberg publication leaves the Iceberg head behind; reopening the table,
// with nothing more to write, brings it up to the manifest (Spark/Trino/DuckDB
// readers of the Iceberg metadata must see every committed row).
func TestOpenResumesIcebergPublish(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	if err := write(tb, 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	e.faulty.AddRule(objstore.FailBefore(keyHas(".metadata.json"), objstore.OpPutIfAbsent))
	if err := tb.Flush(context.Background()); err == nil {
		t.Fatal("flush succeeded despite the fault")
	}
	_ = tb.Abandon() // the crash: the tail never runs
	e.faulty.ClearRules()
	pub := iceberg.NewPublisher(e.local, tb.Prefix())
	if k, key, err := pub.Latest(context.Background()); err != nil || k != 1 {
		t.Fatalf("precondition: the Iceberg head is already at %q (err %v)", key, err)
	}
	tb = e.open()
	defer tb.Close(context.Background())
	k, key, err := pub.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if k != 2 {
		t.Fatalf("after reopen the Iceberg head is v%d (%s), want v2: the committed manifest was not published", k, key)
	}
	exactlyOnce(t, e.snapshotIDs(tb), set(1, 2, 3))
}

// TestReadersDuringFlushes: readers racing with writers and continuous
// commits always see every row acknowledged before the read started, and
// no row twice.
func TestReadersDuringFlushes(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var acked sync.Map
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				id := next.Add(1)
				if err := write(tb, id); err != nil {
					t.Error(err)
					return
				}
				acked.Store(id, true)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if err := tb.Flush(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var reads, violations atomic.Int64
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				before := map[int64]bool{}
				acked.Range(func(k, _ any) bool { before[k.(int64)] = true; return true })
				s, err := tb.Snapshot(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				ids := e.idsOf(tb, s)
				s.Release()
				seen := map[int64]bool{}
				for _, id := range ids {
					if seen[id] {
						violations.Add(1)
						t.Errorf("row %d seen twice", id)
					}
					seen[id] = true
				}
				for id := range before {
					if !seen[id] {
						violations.Add(1)
						t.Errorf("acknowledged row %d missing", id)
					}
				}
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	t.Logf("reads checked: %d, commits: %d, violations: %d", reads.Load(), tb.stats.commits.Load(), violations.Load())
	if reads.Load() == 0 || tb.stats.commits.Load() < 2 {
		t.Fatalf("the test did not exercise commits under reads: reads=%d commits=%d", reads.Load(), tb.stats.commits.Load())
	}
}

// TestTwoHandlesOneTable: two handles (as two processes would) write one
// table and commit concurrently: no duplicates, no losses, no orphans.
func TestTwoHandlesOneTable(t *testing.T) {
	e := newEnv(t)
	a := e.create()
	optsB := e.opts
	optsB.WALDir = filepath.Join(e.root, "wal-b")
	b, err := Open(context.Background(), optsB)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abandon()
	var wg sync.WaitGroup
	for w, tb := range []*Table{a, b} {
		wg.Add(1)
		go func(base int64, tb *Table) {
			defer wg.Done()
			for i := int64(0); i < 60; i++ {
				if err := write(tb, base+i); err != nil {
					t.Error(err)
					return
				}
				if i%5 == 4 {
					if err := tb.Flush(context.Background()); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}(int64(w)*1000, tb)
	}
	wg.Wait()
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := rangeSet(0, 60)
	for k := range rangeSet(1000, 1060) {
		want[k] = true
	}
	// A fresh handle (as a new process would) sees both writers' commits.
	c := e.open()
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, e.idsOf(c, s), want)
	// No data file that the head manifest does not reference.
	referenced := map[string]bool{}
	for _, f := range s.Manifest.Files {
		referenced[f.Path] = true
	}
	s.Release()
	infos, err := e.local.List(context.Background(), "db/public/t/data/")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		rel := strings.TrimPrefix(in.Key, "db/public/t/")
		if !referenced[rel] {
			t.Errorf("orphaned data file %s", rel)
		}
	}
	if a.stats.conflicts.Load()+b.stats.conflicts.Load() == 0 {
		t.Logf("note: no manifest conflict happened in this run")
	}
}

// TestTruncate empties the table durably, including buffered rows.
func TestTruncate(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	_ = write(tb, 1, 2)
	if err := tb.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = write(tb, 3)
	if err := tb.Truncate(context.Background()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, e.snapshotIDs(tb), set())
	_ = write(tb, 4)
	_ = tb.Abandon()
	tb = e.open()
	exactlyOnce(t, e.snapshotIDs(tb), set(4))
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}

var _ = errors.New

// TestSnapshotEpochCheck: a whole commit that runs between a reader's
// manifest load and its look at the buffers must not make the reader lose
// the committed rows (the old manifest lacks them, the buffer no longer
// has them): the epoch changed, so the reader retries.
func TestSnapshotEpochCheck(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	tb.opts.RefreshInterval = -1 // only the cached manifest on the first try
	for i := int64(0); i < 4; i++ {
		if err := write(tb, i); err != nil {
			t.Fatal(err)
		}
	}
	var once sync.Once
	tb.testAfterManifestLoad = func() {
		once.Do(func() {
			if err := tb.Flush(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	s, err := tb.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	exactlyOnce(t, e.idsOf(tb, s), rangeSet(0, 4))
	if s.Attempts < 2 {
		t.Fatalf("the snapshot did not retry (attempts=%d)", s.Attempts)
	}
}

// TestBackpressureBoundsBuffer: when commits are slower than writes, the
// active buffer stays bounded (writers wait) instead of growing.
func TestBackpressureBoundsBuffer(t *testing.T) {
	e := newEnv(t)
	e.opts.FlushBytes = 2000
	e.opts.FlushInterval = time.Hour // only the size trigger
	tb := e.create()
	// Slow commits: every data file upload takes 50 ms.
	e.faulty.AddRule(objstore.HookAt(objstore.Before, keyHas("/data/"), func(context.Context, objstore.Op, string) {
		time.Sleep(50 * time.Millisecond)
	}, objstore.OpPutFile))
	r := batch(tb, 1, 2, 3, 4, 5, 6, 7, 8)
	per := recordBytes(r)
	r.Release()
	var maxSeen atomic.Int64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if b := tb.BufferedBytes(); b > maxSeen.Load() {
				maxSeen.Store(b)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	want := map[int64]bool{}
	for i := int64(0); i < 60; i++ {
		ids := []int64{i * 8, i*8 + 1, i*8 + 2, i*8 + 3, i*8 + 4, i*8 + 5, i*8 + 6, i*8 + 7}
		if err := write(tb, ids...); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			want[id] = true
		}
	}
	close(done)
	limit := 2*e.opts.FlushBytes + per
	if maxSeen.Load() > limit {
		t.Fatalf("buffer grew to %d bytes, bound %d", maxSeen.Load(), limit)
	}
	// The size trigger commits on its own (the interval is an hour); the
	// last requested commit may still be running when the writes return.
	deadline := time.Now().Add(30 * time.Second)
	for tb.stats.commits.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if tb.stats.commits.Load() < 2 {
		t.Fatalf("only %d commits", tb.stats.commits.Load())
	}
	exactlyOnce(t, e.snapshotIDs(tb), want)
}
