package crashtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/bsdb/bsdb-pg/storage/manifest"
)

// tableDir is where the server keeps table ct under dataDir.
func tableDir(dataDir string) string {
	return filepath.Join(dataDir, "warehouse", "postgres", "public", tableName)
}

// manifests loads every _manifest/v{N}.json, sorted by N.
func manifests(t testing.TB, dir string) []*manifest.Manifest {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "_manifest"))
	if err != nil {
		t.Fatalf("list manifests: %v", err)
	}
	var out []*manifest.Manifest
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "v") || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "_manifest", name))
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		m, err := manifest.Unmarshal(data)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	if len(out) == 0 {
		t.Fatalf("no manifest in %s", dir)
	}
	return out
}

// checkManifestChain: versions are v1..vN without gaps and each Parent is
// the previous version (a linear history).
func checkManifestChain(t testing.TB, ms []*manifest.Manifest) {
	t.Helper()
	for i, m := range ms {
		if m.Version != int64(i+1) {
			t.Errorf("manifest versions not contiguous: position %d holds v%d", i, m.Version)
			return
		}
		if m.Parent != m.Version-1 {
			t.Errorf("manifest v%d has parent %d, want %d", m.Version, m.Parent, m.Version-1)
		}
	}
}

// manifestFiles: the base names of m's data files and delete files.
func manifestFiles(m *manifest.Manifest) []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, filepath.Base(f.Path))
	}
	for _, f := range m.Deletes {
		out = append(out, filepath.Base(f.Path))
	}
	sort.Strings(out)
	return out
}

// icebergFiles reads version-hint.text, the metadata it names, and the data
// and delete files of its current snapshot (base names, sorted).
func icebergFiles(t testing.TB, dir string) (k int, files []string) {
	t.Helper()
	hint, err := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text"))
	if err != nil {
		t.Fatalf("read version-hint: %v", err)
	}
	k, err = strconv.Atoi(strings.TrimSpace(string(hint)))
	if err != nil {
		t.Fatalf("version-hint %q: %v", hint, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "metadata", "v"+strconv.Itoa(k)+".metadata.json"))
	if err != nil {
		t.Fatalf("read metadata v%d: %v", k, err)
	}
	meta, err := table.ParseMetadataBytes(raw)
	if err != nil {
		t.Fatalf("parse metadata v%d: %v", k, err)
	}
	snap := meta.CurrentSnapshot()
	if snap == nil {
		return k, nil
	}
	mfs, err := ice.ReadManifestList(bytes.NewReader(readURI(t, snap.ManifestList)))
	if err != nil {
		t.Fatalf("read manifest list %s: %v", snap.ManifestList, err)
	}
	for _, mf := range mfs {
		ents, err := ice.ReadManifest(mf, bytes.NewReader(readURI(t, mf.FilePath())), true)
		if err != nil {
			t.Fatalf("read manifest %s: %v", mf.FilePath(), err)
		}
		for _, e := range ents {
			files = append(files, filepath.Base(e.DataFile().FilePath()))
		}
	}
	sort.Strings(files)
	return k, files
}

func readURI(t testing.TB, uri string) []byte {
	t.Helper()
	p, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		t.Fatalf("not a local file URI: %s", uri)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return b
}

// walSegments lists the *.arrow files of the table's _wal directory.
func walSegments(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "_wal", "*.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// checkQuiescentLayout checks a table directory after a clean shutdown
// (which commits every buffer): the Iceberg head lists exactly the latest
// manifest's files, no data file is orphaned, the manifest history is
// linear, and no WAL segment is left (every transaction is committed, so
// every segment must have been pruned).
func checkQuiescentLayout(t testing.TB, dataDir string) (orphans []string) {
	t.Helper()
	dir := tableDir(dataDir)
	ms := manifests(t, dir)
	checkManifestChain(t, ms)
	latest := ms[len(ms)-1]
	want := manifestFiles(latest)
	k, got := icebergFiles(t, dir)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Iceberg metadata v%d lists %d files %v; manifest v%d lists %d files %v", k, len(got), got, latest.Version, len(want), want)
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "data", "*.parquet"))
	live := map[string]bool{}
	for _, f := range want {
		live[f] = true
	}
	for _, p := range onDisk {
		if !live[filepath.Base(p)] {
			orphans = append(orphans, filepath.Base(p))
		}
	}
	if segs := walSegments(t, dir); len(segs) > 0 {
		t.Errorf("after a clean shutdown (everything committed) %d WAL segments remain: %v", len(segs), segs)
	}
	return orphans
}

// icebergRows reads table ct as an Iceberg reader does: iceberg-go opens
// the metadata version-hint.text names and scans its current snapshot,
// applying its position delete files.
func icebergRows(ctx context.Context, t testing.TB, dataDir string) map[int64][]mrow {
	t.Helper()
	dir := tableDir(dataDir)
	hint, err := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text"))
	if err != nil {
		t.Fatalf("read version-hint: %v", err)
	}
	loc := "file://" + filepath.Join(dir, "metadata", "v"+strings.TrimSpace(string(hint))+".metadata.json")
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"postgres", tableName}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		t.Fatalf("iceberg-go: open %s: %v", loc, err)
	}
	out := map[int64][]mrow{}
	if tbl.Metadata().CurrentSnapshot() == nil {
		return out
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("iceberg-go: scan %s: %v", loc, err)
	}
	defer at.Release()
	col := func(name string) []arrow.Array {
		idx := at.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("iceberg-go scan: no column %s in %v", name, at.Schema())
		}
		return at.Column(idx[0]).Data().Chunks()
	}
	ids, ws, ps := col("id"), col("w"), col("payload")
	for k := range ids {
		id, w := ids[k].(*array.Int64), ws[k].(*array.Int32)
		for i := 0; i < id.Len(); i++ {
			var p string
			switch pc := ps[k].(type) {
			case *array.String:
				p = pc.Value(i)
			case *array.LargeString:
				p = pc.Value(i)
			default:
				t.Fatalf("iceberg-go scan: payload is %T", ps[k])
			}
			out[id.Value(i)] = append(out[id.Value(i)], mrow{w.Value(i), p})
		}
	}
	return out
}

// sameRows compares two reads of ct; it returns the first few differences.
func sameRows(a, b map[int64][]mrow) []string {
	var diff []string
	for id, va := range a {
		if vb := b[id]; fmt.Sprint(va) != fmt.Sprint(vb) {
			diff = append(diff, fmt.Sprintf("id %d: %v vs %v", id, va, vb))
		}
	}
	for id, vb := range b {
		if _, ok := a[id]; !ok {
			diff = append(diff, fmt.Sprintf("id %d: absent vs %v", id, vb))
		}
	}
	sort.Strings(diff)
	if len(diff) > 10 {
		diff = append(diff[:10], fmt.Sprintf("... %d more", len(diff)-10))
	}
	return diff
}
