package manifest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	n.AppendCommittedWALTx(fmt.Sprintf("tx-%d", n.Version))
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
	for _, k := range []string{"format_version", "table_uuid", "version", "parent", "timestamp_ms", "schema", "files", "committed_wal_tx", "properties"} {
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
		"format":    func(m *manifest.Manifest) { m.FormatVersion = 2 },
		"parent":    func(m *manifest.Manifest) { m.Parent = 5 },
		"dup path":  func(m *manifest.Manifest) { m.Files = append(m.Files, m.Files[0]) },
		"future":    func(m *manifest.Manifest) { m.Files[0].AddedVersion = 99 },
		"no schema": func(m *manifest.Manifest) { m.Schema = schema.Schema{} },
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
	m := v1()
	m.AppendCommittedWALTx("a", "b", "a")
	m.AppendCommittedWALTx("b", "c")
	if got := strings.Join(m.CommittedWALTx, ","); got != "a,b,c" {
		t.Fatalf("dedup: %s", got)
	}
	if !m.HasAllWALTx([]string{"c", "a"}) || m.HasAllWALTx([]string{"a", "z"}) || !m.HasAllWALTx(nil) {
		t.Fatal("HasAllWALTx")
	}
	for i := 0; i < 300; i++ {
		m.AppendCommittedWALTx(fmt.Sprintf("t%03d", i))
	}
	if len(m.CommittedWALTx) != manifest.MaxTrackedWALTx {
		t.Fatalf("len %d", len(m.CommittedWALTx))
	}
	if m.CommittedWALTx[0] != "t044" || m.CommittedWALTx[255] != "t299" {
		t.Fatalf("must keep the newest, oldest first: %s .. %s", m.CommittedWALTx[0], m.CommittedWALTx[255])
	}
}

func TestNextIsDeepCopy(t *testing.T) {
	a := next(v1())
	b := a.Next()
	b.Files[0].Columns[0].NullCount = 7
	b.Files[0].Path = "x"
	b.AppendCommittedWALTx("new")
	b.Schema.Columns[0].Name = "changed"
	if a.Files[0].Path == "x" || a.Files[0].Columns[0].NullCount == 7 || len(a.CommittedWALTx) != 1 || a.Schema.Columns[0].Name != "id" {
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
	// A direct read whose listing is overtaken by our own Create of v5 must
	// neither return v4 nor move the cache back to it.
	v5 := next(m)
	fired := false
	f.AddRule(objstore.HookAt(objstore.After, nil, func(context.Context, objstore.Op, string) {
		if !fired {
			fired = true
			if err := g.Create(ctx, v5); err != nil {
				t.Error(err)
			}
		}
	}, objstore.OpList))
	got, err := g.LoadLatest(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 5 || g.Cached().Version != 5 {
		t.Fatalf("LoadLatest = v%d, cache = v%d; want v5 for both", got.Version, g.Cached().Version)
	}
}
