package iceberg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

const prefix = "db/public/t"

func testSchema() schema.Schema {
	return schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "id", Kind: schema.KindInt64, NotNull: true},
		{ID: 2, Name: "name", Kind: schema.KindString},
		{ID: 3, Name: "small", Kind: schema.KindInt16},
		{ID: 4, Name: "at", Kind: schema.KindTimestampTZ},
		{ID: 5, Name: "u", Kind: schema.KindUUID},
	}}
}

func v1() *manifest.Manifest {
	return &manifest.Manifest{
		FormatVersion: manifest.FormatVersion, TableUUID: uuid.NewString(),
		Version: 1, TimestampMS: 1, Schema: testSchema(),
	}
}

// chain builds manifests v1..vN, each adding one (fake) file.
func chain(n int) []*manifest.Manifest {
	ms := []*manifest.Manifest{v1()}
	for len(ms) < n {
		m := ms[len(ms)-1].Next()
		m.Files = append(m.Files, manifest.DataFile{
			Path: fmt.Sprintf("data/f%d.parquet", m.Version), Rows: m.Version, Bytes: 100, AddedVersion: m.Version,
			Columns: []manifest.ColumnStats{{ID: 1, Min: json.RawMessage("0"), Max: json.RawMessage(strconv.Itoa(int(m.Version)))}},
		})
		ms = append(ms, m)
	}
	return ms
}

func loadMeta(t *testing.T, s objstore.Store, key string) table.Metadata {
	t.Helper()
	data, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := table.ParseMetadataBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return meta
}

func manifestVersionOf(s *table.Snapshot) int64 {
	n, _ := strconv.ParseInt(s.Summary.Properties[iceberg.SummaryManifestVersion], 10, 64)
	return n
}

// checkHistory: one snapshot per published manifest version, strictly
// increasing manifest versions and sequence numbers along the log.
func checkHistory(t *testing.T, meta table.Metadata) {
	t.Helper()
	seen := map[int64]bool{}
	var lastMV, lastSeq int64
	for _, s := range meta.Snapshots() {
		mv := manifestVersionOf(&s)
		if seen[mv] {
			t.Fatalf("duplicate snapshot for manifest v%d", mv)
		}
		seen[mv] = true
		if mv <= lastMV || s.SequenceNumber <= lastSeq {
			t.Fatalf("snapshot for manifest v%d (seq %d) after v%d (seq %d)", mv, s.SequenceNumber, lastMV, lastSeq)
		}
		lastMV, lastSeq = mv, s.SequenceNumber
	}
}

func TestPublishIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s := objstore.NewMem()
	p := iceberg.NewPublisher(s, prefix)
	if k, key, err := p.Latest(ctx); err != nil || k != 0 || key != "" {
		t.Fatalf("Latest on an empty table: %d %q %v", k, key, err)
	}
	ms := chain(3)
	for _, m := range ms {
		if _, err := p.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	k1, key1, _ := p.Latest(ctx)
	again, err := p.Publish(ctx, ms[2])
	if err != nil || again != key1 {
		t.Fatalf("re-publish: %q %v, want %q", again, err, key1)
	}
	older, err := p.Publish(ctx, ms[1])
	if err != nil || older != key1 {
		t.Fatalf("publishing an older manifest: %q %v, want the head %q", older, err, key1)
	}
	if k2, _, _ := p.Latest(ctx); k2 != k1 || k1 != 3 {
		t.Fatalf("metadata versions %d -> %d, want 3 and no new file", k1, k2)
	}
	meta := loadMeta(t, s, key1)
	checkHistory(t, meta)
	if n := len(meta.Snapshots()); n != 3 {
		t.Fatalf("%d snapshots", n)
	}
	if n := len(slicesCollect(meta.PreviousFiles())); n != 2 {
		t.Fatalf("metadata-log has %d entries, want 2", n)
	}
	if n := len(slicesCollect(meta.SnapshotLogs())); n != 3 {
		t.Fatalf("snapshot-log has %d entries, want 3", n)
	}
	if hint, _, _ := p.Hint(ctx); hint != 3 {
		t.Fatalf("hint = %d", hint)
	}
}

func slicesCollect[T any](seq func(func(T) bool)) []T {
	var out []T
	seq(func(v T) bool { out = append(out, v); return true })
	return out
}

// (b) 16 concurrent publishers with interleaved manifest versions: the hint
// never regresses (checked after every write to it), and the final hint
// points at the metadata of the highest manifest version.
func TestConcurrentPublishHintNeverRegresses(t *testing.T) {
	for round := 0; round < 3; round++ {
		ctx := context.Background()
		mem := objstore.NewMem()
		var mu sync.Mutex
		maxSeen := 0
		var regressions []string
		isHint := func(k string) bool { return strings.HasSuffix(k, "version-hint.text") }
		check := func(ctx context.Context, op objstore.Op, key string) {
			mu.Lock()
			defer mu.Unlock()
			data, _, err := mem.Get(ctx, key)
			if err != nil {
				return
			}
			n, _ := strconv.Atoi(string(data))
			if n < maxSeen {
				regressions = append(regressions, fmt.Sprintf("%d after %d", n, maxSeen))
			}
			maxSeen = max(maxSeen, n)
		}
		// Widen the race window: a random pause before every hint read and
		// write, then the invariant check after every hint write.
		// A publisher that stalls between its metadata write and its hint
		// advance (a slow process) is what makes a backwards hint possible.
		jitter := func(context.Context, objstore.Op, string) {
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		}
		stall := func(context.Context, objstore.Op, string) {
			time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
		}
		isMeta := func(k string) bool { return strings.HasSuffix(k, ".metadata.json") }
		f := objstore.NewFaulty(mem,
			objstore.HookAt(objstore.After, isMeta, stall, objstore.OpPutIfAbsent),
			objstore.HookAt(objstore.Before, isHint, jitter, objstore.OpGet, objstore.OpPutIfMatch),
			objstore.HookAt(objstore.After, isHint, check, objstore.OpPutIfMatch, objstore.OpPutIfAbsent),
		)
		ms := chain(16)
		order := rand.Perm(16)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for _, i := range order {
			wg.Add(1)
			go func(m *manifest.Manifest) {
				defer wg.Done()
				if _, err := iceberg.NewPublisher(f, prefix).Publish(ctx, m); err != nil {
					errs <- err
				}
			}(ms[i])
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(regressions) > 0 {
			t.Fatalf("round %d: version-hint regressed: %v", round, regressions)
		}
		p := iceberg.NewPublisher(mem, prefix)
		hint, _, _ := p.Hint(ctx)
		k, key, _ := p.Latest(ctx)
		if hint != k {
			t.Fatalf("final hint %d, latest metadata %d", hint, k)
		}
		meta := loadMeta(t, mem, key)
		if mv := manifestVersionOf(meta.CurrentSnapshot()); mv != 16 {
			t.Fatalf("final head publishes manifest v%d, want v16", mv)
		}
		checkHistory(t, meta)
	}
}

// (c) An ambiguous create of the metadata file (written, error returned)
// converges without a duplicate snapshot.
func TestAmbiguousMetadataCreateConverges(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	isMeta := func(k string) bool { return strings.HasSuffix(k, ".metadata.json") }
	r := objstore.FailAfter(isMeta, objstore.OpPutIfAbsent)
	r.Nth = 2 // the second metadata file (manifest v2)
	f := objstore.NewFaulty(mem, r)
	p := iceberg.NewPublisher(f, prefix)
	ms := chain(3)
	for _, m := range ms {
		key, err := p.Publish(ctx, m)
		if err != nil {
			t.Fatalf("publish v%d: %v", m.Version, err)
		}
		if want := p.MetadataKey(int(m.Version)); key != want {
			t.Fatalf("publish v%d returned %s, want %s", m.Version, key, want)
		}
	}
	k, key, _ := p.Latest(ctx)
	if k != 3 {
		t.Fatalf("latest metadata v%d, want v3 (no duplicate)", k)
	}
	meta := loadMeta(t, mem, key)
	checkHistory(t, meta)
	if len(meta.Snapshots()) != 3 {
		t.Fatalf("%d snapshots, want 3", len(meta.Snapshots()))
	}
	// A real failure (Before) is reported, and a retry succeeds.
	f.AddRule(&objstore.Rule{Ops: []objstore.Op{objstore.OpPutIfAbsent}, Key: isMeta, Nth: 1, Fail: true})
	m4 := ms[2].Next()
	if _, err := p.Publish(ctx, m4); err != nil {
		// Nth counts this rule's own matches: the first metadata write fails.
		if _, err := p.Publish(ctx, m4); err != nil {
			t.Fatal(err)
		}
	}
}

// (a) A table written through manifest + parquet + Publish reads back through
// iceberg-go's own scan: same rows, same files as _manifest.
func TestIcebergGoReadsWhatWePublish(t *testing.T) {
	ctx := context.Background()
	store, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mgr := manifest.NewManager(store, prefix)
	pub := iceberg.NewPublisher(store, prefix)
	m := v1()
	if err := mgr.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Publish(ctx, m); err != nil {
		t.Fatal(err)
	}
	sch := m.Schema
	var wantIDs []int64
	for commit := 0; commit < 3; commit++ {
		next := m.Next()
		next.TimestampMS++
		for file := 0; file < 2; file++ {
			b := array.NewRecordBuilder(memory.DefaultAllocator, sch.Arrow())
			for r := 0; r < 50; r++ {
				id := int64(commit*1000 + file*100 + r)
				wantIDs = append(wantIDs, id)
				b.Field(0).(*array.Int64Builder).Append(id)
				if r%5 == 0 {
					for c := 1; c < 5; c++ {
						b.Field(c).AppendNull()
					}
				} else {
					b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", id))
					b.Field(2).(*array.Int16Builder).Append(int16(r))
					b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + id))
					b.Field(4).(interface{ Append(uuid.UUID) }).Append(uuid.New())
				}
			}
			rec := b.NewRecordBatch()
			b.Release()
			var buf bytes.Buffer
			df, err := parquet.WriteFile(&buf, &sch, []arrow.RecordBatch{rec}, parquet.WriteOptions{})
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			df.Path = "data/" + uuid.NewString() + ".parquet"
			df.AddedVersion = next.Version
			if err := store.Put(ctx, prefix+"/"+df.Path, buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			next.Files = append(next.Files, df)
		}
		if err := mgr.Create(ctx, next); err != nil {
			t.Fatal(err)
		}
		if _, err := pub.Publish(ctx, next); err != nil {
			t.Fatal(err)
		}
		m = next
	}
	_, key, err := pub.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loc := store.URI(key)
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"db", "t"}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		t.Fatal(err)
	}
	scan := tbl.Scan()
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var gotFiles, wantFiles []string
	for _, task := range tasks {
		gotFiles = append(gotFiles, task.File.FilePath())
		if task.File.Count() != 50 {
			t.Errorf("%s: record count %d", task.File.FilePath(), task.File.Count())
		}
	}
	for _, f := range m.Files {
		wantFiles = append(wantFiles, store.URI(prefix+"/"+f.Path))
	}
	sort.Strings(gotFiles)
	sort.Strings(wantFiles)
	if strings.Join(gotFiles, "\n") != strings.Join(wantFiles, "\n") {
		t.Fatalf("Iceberg files:\n%s\n_manifest files:\n%s", strings.Join(gotFiles, "\n"), strings.Join(wantFiles, "\n"))
	}
	at, err := scan.ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	if at.NumRows() != int64(len(wantIDs)) {
		t.Fatalf("scan read %d rows, want %d", at.NumRows(), len(wantIDs))
	}
	var gotIDs []int64
	nulls := 0
	for _, ch := range at.Column(0).Data().Chunks() {
		gotIDs = append(gotIDs, ch.(*array.Int64).Int64Values()...)
	}
	for _, ch := range at.Column(1).Data().Chunks() {
		nulls += ch.NullN()
	}
	sort.Slice(gotIDs, func(i, j int) bool { return gotIDs[i] < gotIDs[j] })
	sort.Slice(wantIDs, func(i, j int) bool { return wantIDs[i] < wantIDs[j] })
	if fmt.Sprint(gotIDs) != fmt.Sprint(wantIDs) {
		t.Fatal("scan returned different ids")
	}
	if nulls != len(wantIDs)/5 {
		t.Fatalf("%d NULL names, want %d", nulls, len(wantIDs)/5)
	}
	// Stats pruning sees our bounds: a filter outside every file's id range
	// plans no file.
	none, err := tbl.Scan(table.WithRowFilter(idGreaterThan("id", 1_000_000))).PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(none) != 0 {
		t.Fatalf("filter id > 1e6 planned %d files: bounds not published", len(none))
	}
	checkHistory(t, tbl.Metadata())
}

// TestPublishAfterTheWarehouseMoved: a local warehouse moved to another
// directory (a data directory restored elsewhere) keeps publishing. The
// old snapshots name files at the old location; the next metadata starts a
// new history at the new location that lists every file of the manifest
// there, and later commits build on it as usual.
func TestPublishAfterTheWarehouseMoved(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	oldDir, newDir := root+"/old", root+"/new"
	oldStore, err := objstore.NewLocal(oldDir)
	if err != nil {
		t.Fatal(err)
	}
	ms := chain(5)
	pub := iceberg.NewPublisher(oldStore, prefix)
	for _, m := range ms[:3] {
		if _, err := pub.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(oldDir, newDir); err != nil {
		t.Fatal(err)
	}
	store, err := objstore.NewLocal(newDir)
	if err != nil {
		t.Fatal(err)
	}
	pub = iceberg.NewPublisher(store, prefix)
	for _, m := range ms[3:] {
		if _, err := pub.Publish(ctx, m); err != nil {
			t.Fatalf("publish manifest v%d after the move: %v", m.Version, err)
		}
	}
	k, key, err := pub.Latest(ctx)
	if err != nil || k != 5 {
		t.Fatalf("Latest: v%d %v, want v5", k, err)
	}
	meta := loadMeta(t, store, key)
	if meta.Location() != store.URI(prefix) {
		t.Fatalf("location %s, want %s", meta.Location(), store.URI(prefix))
	}
	checkHistory(t, meta)
	if n := len(meta.Snapshots()); n != 2 {
		t.Fatalf("%d snapshots after the move, want 2 (manifests v4 and v5)", n)
	}
	// Every file of manifest v5, at the new location, read as Iceberg
	// readers do.
	loc := store.URI(key)
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"db", "t"}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, task := range tasks {
		got = append(got, task.File.FilePath())
	}
	for _, f := range ms[4].Files {
		want = append(want, store.URI(prefix+"/"+f.Path))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files of the current snapshot:\n%v\nwant\n%v", got, want)
	}
}

// TestHistoryIsBounded: however many versions are published, a metadata
// file lists at most keep snapshots and keep earlier metadata files, the
// older metadata files are deleted, and the head stays readable by
// iceberg-go with its current snapshot's files. (Before the bound, every
// metadata file held every snapshot: its size grew with each commit.)
func TestHistoryIsBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	const keep, n = 5, 23
	pub := iceberg.NewPublisher(st, "db/s/t").WithKeep(keep)
	var sizes []int
	for _, m := range chain(n) {
		key, err := pub.Publish(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		data, _, err := st.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(data))
	}
	k, key, err := pub.Latest(ctx)
	if err != nil || k != n {
		t.Fatalf("latest: v%d %v, want v%d", k, err, n)
	}
	meta := loadMeta(t, st, key)
	snaps := meta.Snapshots()
	if len(snaps) != keep {
		t.Errorf("%d snapshots in the head, want %d", len(snaps), keep)
	}
	checkHistory(t, meta)
	if cur := meta.CurrentSnapshot(); cur == nil || manifestVersionOf(cur) != n {
		t.Fatalf("current snapshot %v, want manifest v%d", cur, n)
	}
	if got := len(slicesCollect(meta.PreviousFiles())); got != keep {
		t.Errorf("metadata log of %d entries, want %d", got, keep)
	}
	for v := 1; v <= n; v++ {
		_, _, err := st.Get(ctx, pub.MetadataKey(v))
		if want := v >= n-keep; (err == nil) != want {
			t.Errorf("metadata v%d: present %v, want %v (%v)", v, err == nil, want, err)
		}
	}
	// The expired snapshots' manifest lists and manifests are deleted:
	// the kept snapshots' remain, one list and one manifest each.
	ents, err := os.ReadDir(filepath.Join(dir, "db", "s", "t", "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	lists, manifests := 0, 0
	for _, e := range ents {
		switch name := e.Name(); {
		case strings.HasPrefix(name, "snap-") && strings.HasSuffix(name, ".avro"):
			lists++
		case strings.HasSuffix(name, ".avro"):
			manifests++
		}
	}
	if lists != keep || manifests != keep {
		t.Errorf("%d manifest lists and %d manifests in metadata/, want %d of each", lists, manifests, keep)
	}
	// The size stops growing once the history is full.
	if last, full := sizes[n-1], sizes[2*keep]; last > full+full/10 {
		t.Errorf("metadata grew from %d bytes (v%d) to %d (v%d) with a bounded history", full, 2*keep+1, last, n)
	}
	// iceberg-go reads the head: the current snapshot lists every file.
	loc := st.URI(key)
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"db", "t"}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != n-1 {
		t.Errorf("scan plans %d files, want %d", len(tasks), n-1)
	}
}
