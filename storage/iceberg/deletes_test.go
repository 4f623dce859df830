package iceberg_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
)

// deletesTable drives a table through manifest versions with data and
// position delete files, publishing each, and reads it as Iceberg readers
// do.
type deletesTable struct {
	t     *testing.T
	ctx   context.Context
	store objstore.Store
	mgr   *manifest.Manager
	pub   *iceberg.Publisher
	m     *manifest.Manifest
}

func newDeletesTable(t *testing.T) *deletesTable {
	ctx := context.Background()
	store, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := &deletesTable{t: t, ctx: ctx, store: store, mgr: manifest.NewManager(store, prefix),
		pub: iceberg.NewPublisher(store, prefix), m: v1()}
	d.commit(d.m)
	return d
}

func (d *deletesTable) commit(m *manifest.Manifest) {
	d.t.Helper()
	if err := d.mgr.Create(d.ctx, m); err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.pub.Publish(d.ctx, m); err != nil {
		d.t.Fatal(err)
	}
	d.m = m
}

func (d *deletesTable) uri(rel string) string { return d.store.URI(prefix + "/" + rel) }

// dataFile writes a data file holding ids (row i holds ids[i]).
func (d *deletesTable) dataFile(version int64, ids []int64) manifest.DataFile {
	d.t.Helper()
	sch := d.m.Schema
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch.Arrow())
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("n", id))
		for c := 2; c < 5; c++ {
			b.Field(c).AppendNull()
		}
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	var buf bytes.Buffer
	df, err := parquet.WriteFile(&buf, &sch, []arrow.RecordBatch{rec}, parquet.WriteOptions{})
	if err != nil {
		d.t.Fatal(err)
	}
	df.Path = "data/" + uuid.NewString() + ".parquet"
	df.AddedVersion = version
	if err := d.store.Put(d.ctx, prefix+"/"+df.Path, buf.Bytes()); err != nil {
		d.t.Fatal(err)
	}
	return df
}

// deleteFile writes a position delete file deleting positions of data
// files (by relative path).
func (d *deletesTable) deleteFile(version int64, positions map[string][]int64) manifest.DeleteFile {
	d.t.Helper()
	var dels []parquet.PositionDelete
	var names []string
	for rel, ps := range positions {
		names = append(names, rel)
		for _, p := range ps {
			dels = append(dels, parquet.PositionDelete{Path: d.uri(rel), Pos: p})
		}
	}
	slices.Sort(names)
	var buf bytes.Buffer
	n, rows, err := parquet.WritePositionDeletes(&buf, dels)
	if err != nil {
		d.t.Fatal(err)
	}
	df := manifest.DeleteFile{Path: "data/" + uuid.NewString() + "-deletes.parquet", Rows: rows, Bytes: n,
		Data: names, AddedVersion: version}
	if err := d.store.Put(d.ctx, prefix+"/"+df.Path, buf.Bytes()); err != nil {
		d.t.Fatal(err)
	}
	return df
}

func (d *deletesTable) table() *table.Table {
	d.t.Helper()
	_, key, err := d.pub.Latest(d.ctx)
	if err != nil {
		d.t.Fatal(err)
	}
	loc := d.store.URI(key)
	tbl, err := table.NewFromLocation(d.ctx, table.Identifier{"db", "t"}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		d.t.Fatal(err)
	}
	return tbl
}

// scanIDs: the ids iceberg-go's own scan returns, sorted.
func (d *deletesTable) scanIDs() []int64 {
	d.t.Helper()
	at, err := d.table().Scan().ToArrowTable(d.ctx)
	if err != nil {
		d.t.Fatal(err)
	}
	defer at.Release()
	var ids []int64
	for _, ch := range at.Column(0).Data().Chunks() {
		ids = append(ids, ch.(*array.Int64).Int64Values()...)
	}
	slices.Sort(ids)
	return ids
}

// entries reads the current snapshot's manifests: the live entries of each
// content kind, by path.
func (d *deletesTable) entries() (snap *table.Snapshot, data, deletes map[string]ice.ManifestEntry) {
	d.t.Helper()
	tbl := d.table()
	fsys, err := tbl.FS(d.ctx)
	if err != nil {
		d.t.Fatal(err)
	}
	snap = tbl.Metadata().CurrentSnapshot()
	mfs, err := snap.Manifests(fsys)
	if err != nil {
		d.t.Fatal(err)
	}
	data, deletes = map[string]ice.ManifestEntry{}, map[string]ice.ManifestEntry{}
	for _, mf := range mfs {
		es, err := mf.FetchEntries(fsys, true)
		if err != nil {
			d.t.Fatal(err)
		}
		for _, e := range es {
			content := e.DataFile().ContentType()
			switch {
			case mf.ManifestContent() == ice.ManifestContentData && content == ice.EntryContentData:
				data[e.DataFile().FilePath()] = e
			case mf.ManifestContent() == ice.ManifestContentDeletes && content == ice.EntryContentPosDeletes:
				deletes[e.DataFile().FilePath()] = e
			default:
				d.t.Fatalf("%s: entry content %v in a %v manifest", e.DataFile().FilePath(), content, mf.ManifestContent())
			}
		}
	}
	return snap, data, deletes
}

func (d *deletesTable) checkSummary(snap *table.Snapshot, op table.Operation, want map[string]int64) {
	d.t.Helper()
	if snap.Summary.Operation != op {
		d.t.Errorf("manifest v%d: operation %s, want %s", d.m.Version, snap.Summary.Operation, op)
	}
	for k, n := range want {
		if got := snap.Summary.Properties[k]; got != strconv.FormatInt(n, 10) {
			d.t.Errorf("manifest v%d: summary %s = %q, want %d", d.m.Version, k, got, n)
		}
	}
}

func rangeIDs(lo, hi int64) []int64 {
	var ids []int64
	for i := lo; i < hi; i++ {
		ids = append(ids, i)
	}
	return ids
}

// without returns ids minus the ids at positions pos (ids[i] is at i).
func without(ids []int64, pos ...int64) []int64 {
	out := []int64{}
	for i, id := range ids {
		if !slices.Contains(pos, int64(i)) {
			out = append(out, id)
		}
	}
	return out
}

// Position delete files published in Iceberg snapshots are applied by
// iceberg-go's own scan: exactly the undeleted rows come back, across
// snapshots that add deletes, drop a data file with its delete file, and
// carry delete files over (EXISTING, their sequence number kept).
func TestIcebergGoAppliesPositionDeletes(t *testing.T) {
	d := newDeletesTable(t)

	// v2: two data files.
	idsA, idsB := rangeIDs(0, 100), rangeIDs(1000, 1100)
	m := d.m.Next()
	fa, fb := d.dataFile(m.Version, idsA), d.dataFile(m.Version, idsB)
	m.Files = append(m.Files, fa, fb)
	d.commit(m)
	if got, want := d.scanIDs(), append(slices.Clone(idsA), idsB...); !slices.Equal(got, want) {
		t.Fatalf("v2 scan: %d rows, want %d", len(got), len(want))
	}
	snap2, _, _ := d.entries()
	d.checkSummary(snap2, table.OpAppend, map[string]int64{"added-data-files": 2, "total-delete-files": 0,
		"total-position-deletes": 0, "added-position-delete-files": 0})

	// v3: one delete file deleting rows of both.
	m = d.m.Next()
	d1 := d.deleteFile(m.Version, map[string][]int64{fa.Path: {0, 5, 99}, fb.Path: {10, 11, 50}})
	m.Deletes = append(m.Deletes, d1)
	d.commit(m)
	want := append(without(idsA, 0, 5, 99), without(idsB, 10, 11, 50)...)
	if got := d.scanIDs(); !slices.Equal(got, want) {
		t.Fatalf("v3 scan: %d rows %v..., want %d rows", len(got), got[:min(8, len(got))], len(want))
	}
	snap3, data3, dels3 := d.entries()
	d.checkSummary(snap3, table.OpDelete, map[string]int64{
		"added-data-files": 0, "added-delete-files": 1, "added-position-delete-files": 1,
		"added-position-deletes": 6, "removed-position-delete-files": 0, "removed-position-deletes": 0,
		"total-delete-files": 1, "total-position-deletes": 6, "total-records": 200, "total-data-files": 2,
		"total-files-size": fa.Bytes + fb.Bytes + d1.Bytes,
	})
	e1, ok := dels3[d.uri(d1.Path)]
	if !ok || len(dels3) != 1 {
		t.Fatalf("v3 delete entries %v, want %s", dels3, d1.Path)
	}
	if e1.Status() != ice.EntryStatusADDED || e1.SequenceNum() != snap3.SequenceNumber || e1.SnapshotID() != snap3.SnapshotID {
		t.Errorf("v3 delete entry: status %v seq %d snapshot %d, want ADDED seq %d snapshot %d",
			e1.Status(), e1.SequenceNum(), e1.SnapshotID(), snap3.SequenceNumber, snap3.SnapshotID)
	}
	if df := e1.DataFile(); df.Count() != 6 || df.FileSizeBytes() != d1.Bytes || df.FileFormat() != ice.ParquetFile ||
		df.ReferencedDataFile() != nil {
		t.Errorf("v3 delete file: count %d size %d format %s referenced %v", df.Count(), df.FileSizeBytes(),
			df.FileFormat(), df.ReferencedDataFile())
	}
	lo, hi := min(d.uri(fa.Path), d.uri(fb.Path)), max(d.uri(fa.Path), d.uri(fb.Path))
	if df := e1.DataFile(); string(df.LowerBoundValues()[parquet.PosDeleteFilePathID]) != lo ||
		string(df.UpperBoundValues()[parquet.PosDeleteFilePathID]) != hi {
		t.Errorf("v3 delete file: file_path bounds %q..%q, want %q..%q", df.LowerBoundValues()[parquet.PosDeleteFilePathID],
			df.UpperBoundValues()[parquet.PosDeleteFilePathID], lo, hi)
	}
	for path, e := range data3 {
		if e.Status() != ice.EntryStatusEXISTING || e.SequenceNum() >= e1.SequenceNum() {
			t.Errorf("v3 data entry %s: status %v seq %d (delete seq %d)", path, e.Status(), e.SequenceNum(), e1.SequenceNum())
		}
	}
	tasks, err := d.table().Scan().PlanFiles(d.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if len(task.DeleteFiles) != 1 || task.DeleteFiles[0].FilePath() != d.uri(d1.Path) {
			t.Errorf("v3 plan: %s has delete files %v", task.File.FilePath(), task.DeleteFiles)
		}
	}

	// v4: data file B is dropped; its delete file goes with it, and A's
	// deletes (one more) are rewritten into a new delete file naming A only.
	m = d.m.Next()
	m.Files = []manifest.DataFile{fa}
	d2 := d.deleteFile(m.Version, map[string][]int64{fa.Path: {0, 5, 99, 42}})
	m.Deletes = []manifest.DeleteFile{d2}
	d.commit(m)
	want = without(idsA, 0, 5, 42, 99)
	if got := d.scanIDs(); !slices.Equal(got, want) {
		t.Fatalf("v4 scan: %d rows, want %d", len(got), len(want))
	}
	snap4, _, dels4 := d.entries()
	d.checkSummary(snap4, table.OpDelete, map[string]int64{
		"deleted-data-files": 1, "deleted-records": 100, "added-position-delete-files": 1, "added-position-deletes": 4,
		"removed-delete-files": 1, "removed-position-delete-files": 1, "removed-position-deletes": 6,
		"total-delete-files": 1, "total-position-deletes": 4, "total-records": 100, "total-data-files": 1,
	})
	e2 := dels4[d.uri(d2.Path)]
	if e2 == nil || len(dels4) != 1 {
		t.Fatalf("v4 delete entries %v, want only %s", dels4, d2.Path)
	}
	// A delete file of one data file: file_path bounds equal to its
	// location, what readers take for referenced_data_file (which iceberg-go
	// v0.7.0's v2 manifests have no field for).
	if df := e2.DataFile(); string(df.LowerBoundValues()[parquet.PosDeleteFilePathID]) != d.uri(fa.Path) ||
		string(df.UpperBoundValues()[parquet.PosDeleteFilePathID]) != d.uri(fa.Path) {
		t.Errorf("v4 delete file: file_path bounds %q..%q, want both %s", df.LowerBoundValues()[parquet.PosDeleteFilePathID],
			df.UpperBoundValues()[parquet.PosDeleteFilePathID], d.uri(fa.Path))
	}

	// v5: a new data file C with its own deletes; A's delete file is
	// carried over (EXISTING, its sequence number kept).
	m = d.m.Next()
	idsC := rangeIDs(2000, 2010)
	fc := d.dataFile(m.Version, idsC)
	d3 := d.deleteFile(m.Version, map[string][]int64{fc.Path: {9}})
	m.Files = append(m.Files, fc)
	m.Deletes = append(m.Deletes, d3)
	d.commit(m)
	want = append(without(idsA, 0, 5, 42, 99), without(idsC, 9)...)
	if got := d.scanIDs(); !slices.Equal(got, want) {
		t.Fatalf("v5 scan: %d rows, want %d", len(got), len(want))
	}
	snap5, _, dels5 := d.entries()
	d.checkSummary(snap5, table.OpOverwrite, map[string]int64{
		"added-data-files": 1, "added-position-delete-files": 1, "added-position-deletes": 1,
		"removed-position-delete-files": 0, "total-delete-files": 2, "total-position-deletes": 5,
	})
	if e := dels5[d.uri(d2.Path)]; e == nil || e.Status() != ice.EntryStatusEXISTING ||
		e.SequenceNum() != snap4.SequenceNumber || e.SnapshotID() != snap4.SnapshotID {
		t.Errorf("v5: carried delete file entry %+v, want EXISTING with v4's sequence %d", e, snap4.SequenceNumber)
	}
	if e := dels5[d.uri(d3.Path)]; e == nil || e.Status() != ice.EntryStatusADDED || e.SequenceNum() != snap5.SequenceNumber {
		t.Errorf("v5: new delete file entry %+v, want ADDED with sequence %d", e, snap5.SequenceNumber)
	}
	checkHistory(t, d.table().Metadata())
}
