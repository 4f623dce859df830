package manifest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/google/uuid"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

func testSchema() schema.Schema {
	return schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "id", Kind: schema.KindInt64, NotNull: true},
		{ID: 2, Name: "name", Kind: schema.KindString},
	}}
}

func v1() *manifest.Manifest {
	return &manifest.Manifest{
		FormatVersion: manifest.FormatVersion, TableUUID: "0d5f1c9e-5a57-4a44-9d8e-3c3b8b0f7c11",
		Version: 1, TimestampMS: 1700000000000, Schema: testSchema(),
	}
}

// next builds v{N+1} adding one file and one WAL tx id.
func next(m *manifest.Manifest) *manifest.Manifest {
	n := m.Next()
	n.TimestampMS++
	n.Files = append(n.Files, manifest.DataFile{
		Path: fmt.Sprintf("data/f%d.parquet", n.Version), Rows: 10, Bytes: 100, AddedVersion: n.Version,
		Columns: []manifest.ColumnStats{{ID: 1, Min: json.RawMessage("1"), Max: json.RawMessage("10")}},
	})
	n.AddCommittedWALTx(manifest.MakeTxID(0xabc, uint64(n.Version)))
	return n
}

func TestWireFormat(t *testing.T) {
	m := next(v1())
	m.Properties = map[string]string{"k": "v"}
	data, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"format_version", "table_uuid", "version", "parent", "timestamp_ms", "schema", "files", "committed_wal", "committed_wal_tx", "properties"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("on-disk JSON lacks %q:\n%s", k, data)
		}
	}
	f := raw["files"].([]any)[0].(map[string]any)
	for _, k := range []string{"path", "rows", "bytes", "columns", "added_version"} {
		if _, ok := f[k]; !ok {
			t.Errorf("file entry lacks %q", k)
		}
	}
	back, err := manifest.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := manifest.Marshal(back)
	if string(again) != string(data) {
		t.Fatalf("round trip changed the encoding:\n%s\n%s", data, again)
	}
	// v1 with no files still encodes the lists as [] (not null).
	d1, _ := manifest.Marshal(v1())
	if !strings.Contains(string(d1), `"files": []`) || !strings.Contains(string(d1), `"committed_wal_tx": []`) {
		t.Fatalf("empty lists must encode as []:\n%s", d1)
	}
}

func TestValidateRejects(t *testing.T) {
	cases := map[string]func(m *manifest.Manifest){
		"format": func(m *manifest.Manifest) { m.FormatVersion = 3 },
		"unsorted ranges": func(m *manifest.Manifest) {
			m.CommittedWAL[0].Ranges = [][2]uint64{{5, 6}, {1, 2}}
		},
		"adjacent ranges": func(m *manifest.Manifest) {
			m.CommittedWAL[0].Ranges = [][2]uint64{{1, 2}, {3, 4}}
		},
		"writer from the future": func(m *manifest.Manifest) { m.CommittedWAL[0].Version = 99 },
		"parent":                 func(m *manifest.Manifest) { m.Parent = 5 },
		"dup path":               func(m *manifest.Manifest) { m.Files = append(m.Files, m.Files[0]) },
		"future":                 func(m *manifest.Manifest) { m.Files[0].AddedVersion = 99 },
		"no schema":              func(m *manifest.Manifest) { m.Schema = schema.Schema{} },
	}
	for name, mut := range cases {
		m := next(v1())
		mut(m)
		if _, err := manifest.Marshal(m); err == nil {
			t.Errorf("%s: Marshal accepted an invalid manifest", name)
		}
	}
	if _, err := manifest.Unmarshal([]byte(`{"format_version":1,`)); err == nil {
		t.Error("Unmarshal accepted truncated JSON")
	}
}

func TestCommittedWALTx(t *testing.T) {
	// Legacy (unstructured) ids: deduplicated, the newest 256 kept.
	m := v1()
	legacy := func(i int) uuid.UUID { return uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprint(i))) }
	m.AddCommittedWALTx(legacy(1), legacy(2), legacy(1))
	m.AddCommittedWALTx(legacy(2), legacy(3))
	if len(m.CommittedWALTx) != 3 || !m.Committed().Has(legacy(3)) || m.Committed().Has(legacy(4)) {
		t.Fatalf("legacy dedup: %v", m.CommittedWALTx)
	}
	for i := 0; i < 300; i++ {
		m.AddCommittedWALTx(legacy(1000 + i))
	}
	if len(m.CommittedWALTx) != manifest.MaxTrackedWALTx || m.CommittedWALTx[255] != legacy(1299).String() {
		t.Fatalf("legacy window: len %d", len(m.CommittedWALTx))
	}

	// Structured ids: every id of every commit, however many, as ranges.
	m = v1()
	gen := manifest.NewTxIDGen()
	var ids []uuid.UUID
	for i := 0; i < 100_000; i++ {
		ids = append(ids, gen.New())
	}
	m = m.Next()
	m.AddCommittedWALTx(ids[:40_000]...)
	m = m.Next()
	// Out of order, with a gap (ids 60000..60009 never committed).
	m.AddCommittedWALTx(ids[60_010:]...)
	m.AddCommittedWALTx(ids[40_000:60_000]...)
	set := m.Committed()
	for i, id := range ids {
		if want := i < 60_000 || i >= 60_010; set.Has(id) != want {
			t.Fatalf("id %d: Has = %v, want %v", i, !want, want)
		}
	}
	if len(m.CommittedWAL) != 1 || len(m.CommittedWAL[0].Ranges) != 2 {
		t.Fatalf("ranges = %+v, want one writer with 2 ranges", m.CommittedWAL)
	}
	if set.Has(manifest.NewTxIDGen().New()) || set.Has(uuid.New()) {
		t.Fatal("another writer's id or a random id reported committed")
	}
	data, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 2000 {
		t.Fatalf("100,000 committed ids take %d bytes", len(data))
	}
	back, err := manifest.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Committed().Has(ids[99_999]) || back.Committed().Has(ids[60_005]) {
		t.Fatal("round trip lost the ranges")
	}

	// Writers beyond MaxTrackedWALWriters: the least recently committing go.
	first := ids[0]
	for i := 0; i < manifest.MaxTrackedWALWriters; i++ {
		m = m.Next()
		m.AddCommittedWALTx(manifest.NewTxIDGen().New())
	}
	if len(m.CommittedWAL) != manifest.MaxTrackedWALWriters || m.Committed().Has(first) {
		t.Fatalf("writers = %d; oldest writer kept = %v", len(m.CommittedWAL), m.Committed().Has(first))
	}
	if _, err := manifest.Marshal(m); err != nil {
		t.Fatal(err)
	}
}

// TestReadsFormat1: manifests written before committed_wal stay readable.
func TestReadsFormat1(t *testing.T) {
	m := v1()
	m.FormatVersion = 1
	id := uuid.New()
	m.CommittedWALTx = []string{id.String()}
	data, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := manifest.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Committed().Has(id) {
		t.Fatal("format-1 committed id lost")
	}
	if back.Next().FormatVersion != manifest.FormatVersion {
		t.Fatal("the next version of a format-1 manifest must be written in the current format")
	}
}

func TestNextIsDeepCopy(t *testing.T) {
	a := next(v1())
	b := a.Next()
	b.Files[0].Columns[0].NullCount = 7
	b.Files[0].Path = "x"
	b.AddCommittedWALTx(manifest.MakeTxID(0xabc, 100), uuid.New())
	b.Schema.Columns[0].Name = "changed"
	if a.Files[0].Path == "x" || a.Files[0].Columns[0].NullCount == 7 || len(a.CommittedWALTx) != 0 ||
		len(a.CommittedWAL[0].Ranges) != 1 || a.Schema.Columns[0].Name != "id" {
		t.Fatal("Next shares memory with its source")
	}
	if b.Version != 3 || b.Parent != 2 {
		t.Fatalf("Next: version %d parent %d", b.Version, b.Parent)
	}
}

func TestLatestComparesNumerically(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	g := manifest.NewManager(store, "db/public/t")
	if _, err := g.LoadLatest(ctx, true); !errors.Is(err, manifest.ErrNoTable) {
		t.Fatalf("empty table: %v", err)
	}
	m := v1()
	for {
		if err := g.Create(ctx, m); err != nil {
			t.Fatal(err)
		}
		if m.Version == 12 {
			break
		}
		m = next(m)
	}
	// Junk that must be ignored.
	_ = store.Put(ctx, "db/public/t/_manifest/v099.json", []byte("x"))
	_ = store.Put(ctx, "db/public/t/_manifest/notes.txt", []byte("x"))
	fresh := manifest.NewManager(store, "db/public/t")
	got, err := fresh.LoadLatest(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 12 || len(got.Files) != 11 {
		t.Fatalf("latest = v%d with %d files, want v12 (v9 sorts after v12 as text)", got.Version, len(got.Files))
	}
	vs, _ := fresh.Versions(ctx)
	if len(vs) != 12 || vs[0] != 1 || vs[11] != 12 {
		t.Fatalf("Versions = %v", vs)
	}
}

func TestCreateConflict(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	a := manifest.NewManager(store, "t")
	b := manifest.NewManager(store, "t")
	if err := a.Create(ctx, v1()); err != nil {
		t.Fatal(err)
	}
	other := v1()
	other.TableUUID = "someone-else"
	err := b.Create(ctx, other)
	if !errors.Is(err, manifest.ErrConflict) || !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("lost create: %v, want ErrConflict wrapping ErrExists", err)
	}
	if b.Cached() != nil {
		t.Fatal("a lost Create must not populate the cache")
	}
}

// An ambiguous create (the object was written, an error came back) is
// resolved by reading back our own bytes.
func TestCreateAmbiguousSuccess(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	f := objstore.NewFaulty(mem, objstore.FailAfter(nil, objstore.OpPutIfAbsent))
	g := manifest.NewManager(f, "t")
	if err := g.Create(ctx, v1()); err != nil {
		t.Fatalf("ambiguous create that in fact succeeded: %v", err)
	}
	if c := g.Cached(); c == nil || c.Version != 1 {
		t.Fatal("cache not advanced")
	}
	// A Before fault is a real failure.
	f2 := objstore.NewFaulty(objstore.NewMem(), objstore.FailBefore(nil, objstore.OpPutIfAbsent))
	if err := manifest.NewManager(f2, "t").Create(ctx, v1()); err == nil || errors.Is(err, manifest.ErrConflict) {
		t.Fatalf("failed create: %v", err)
	}
}

// TestDirectReadDoesNotList: once a version is known, a direct read (a
// refresh for other processes' commits) reads the next versions until one
// is missing instead of listing every version: one read per refresh, not
// a listing that grows with the table's history.
func TestDirectReadDoesNotList(t *testing.T) {
	ctx := context.Background()
	f := objstore.NewFaulty(objstore.NewMem())
	g := manifest.NewManager(f, "t")
	m := v1()
	for i := 0; i < 50; i++ {
		if err := g.Create(ctx, m); err != nil {
			t.Fatal(err)
		}
		m = m.Next()
	}
	reader := manifest.NewManager(f, "t")
	if got, err := reader.LoadLatest(ctx, true); err != nil || got.Version != 50 {
		t.Fatalf("first read: %v %v", got, err)
	}
	other := manifest.NewManager(f, "t")
	if _, err := other.LoadLatest(ctx, true); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // another process commits v51..v53
		if err := other.Create(ctx, m); err != nil {
			t.Fatal(err)
		}
		m = m.Next()
	}
	lists, gets := f.Calls(objstore.OpList), f.Calls(objstore.OpGet)
	for i := 0; i < 10; i++ {
		got, err := reader.LoadLatest(ctx, true)
		if err != nil || got.Version != 53 {
			t.Fatalf("refresh %d: %v %v, want v53", i, got, err)
		}
	}
	if n := f.Calls(objstore.OpList) - lists; n != 0 {
		t.Errorf("10 refreshes listed the store %d times", n)
	}
	if n := f.Calls(objstore.OpGet) - gets; n != 13 {
		t.Errorf("10 refreshes read %d objects, want 13 (v51..v53, then one missing v54 each)", n)
	}
}

func TestCacheNeverMovesBackwards(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	f := objstore.NewFaulty(mem)
	g := manifest.NewManager(f, "t")
	m := v1()
	for i := 0; i < 3; i++ {
		if err := g.Create(ctx, m); err != nil {
			t.Fatal(err)
		}
		m = next(m)
	}
	// A second Manager in "another process" commits v4.
	other := manifest.NewManager(mem, "t")
	if err := other.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got, _ := g.LoadLatest(ctx, false); got.Version != 3 {
		t.Fatalf("cached read = v%d, want v3 (the cache)", got.Version)
	}
	if got, _ := g.LoadLatest(ctx, true); got.Version != 4 {
		t.Fatalf("direct read = v%d, want v4", got.Version)
	}
	// A direct read whose probe for v5 is overtaken by our own Create of
	// v5 must neither return v4 nor move the cache back to it.
	v5 := next(m)
	fired := false
	f.AddRule(objstore.HookAt(objstore.Before, nil, func(context.Context, objstore.Op, string) {
		if !fired {
			fired = true
			if err := g.Create(ctx, v5); err != nil {
				t.Error(err)
			}
		}
	}, objstore.OpGet))
	got, err := g.LoadLatest(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 5 || g.Cached().Version != 5 {
		t.Fatalf("LoadLatest = v%d, cache = v%d; want v5 for both", got.Version, g.Cached().Version)
	}
}

// TestMultiTxIDs: a multi-table part's id is flagged, keeps its writer's
// counter (one range with the writer's plain ids), and is committed when
// recorded; a plain id is never taken for a flagged one.
func TestMultiTxIDs(t *testing.T) {
	gen := manifest.NewTxIDGen()
	a, b, c := gen.New(), gen.NewMulti(), gen.New()
	if manifest.IsMultiTx(a) || !manifest.IsMultiTx(b) || manifest.IsMultiTx(c) {
		t.Fatalf("IsMultiTx: %v %v %v", manifest.IsMultiTx(a), manifest.IsMultiTx(b), manifest.IsMultiTx(c))
	}
	if manifest.IsMultiTx(uuid.New()) {
		t.Fatal("a random UUID taken for a multi-table part")
	}
	m := &manifest.Manifest{}
	m.AddCommittedWALTx(a, b, c)
	if len(m.CommittedWALTx) != 0 || len(m.CommittedWAL) != 1 || len(m.CommittedWAL[0].Ranges) != 1 {
		t.Fatalf("a, b, c should be one range of one writer: %+v legacy %v", m.CommittedWAL, m.CommittedWALTx)
	}
	set := m.Committed()
	if !set.Has(a) || !set.Has(b) || !set.Has(c) || set.Has(gen.NewMulti()) {
		t.Fatal("committed set")
	}
}
