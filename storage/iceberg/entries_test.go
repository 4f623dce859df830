package iceberg_test

import (
	"context"
	"testing"

	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// Files carried over from the parent snapshot are EXISTING entries that keep
// the snapshot id and sequence number that added them; only new files are
// ADDED (incremental readers must not see old files again).
func TestEntriesKeepLineage(t *testing.T) {
	ctx := context.Background()
	store, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := iceberg.NewPublisher(store, prefix)
	ms := chain(4) // v2, v3, v4 each add one file
	for _, m := range ms {
		if _, err := p.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	_, key, _ := p.Latest(ctx)
	meta := loadMeta(t, store, key)
	addedBy := map[string]int64{} // file -> snapshot that published the manifest adding it
	for _, s := range meta.Snapshots() {
		addedBy[store.URI(prefix+"/data/f"+s.Summary.Properties[iceberg.SummaryManifestVersion]+".parquet")] = s.SnapshotID
	}
	fsys, err := iceio.LoadFS(ctx, nil, store.URI(key))
	if err != nil {
		t.Fatal(err)
	}
	cur := meta.CurrentSnapshot()
	mfs, err := cur.Manifests(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var added, existing int
	for _, mf := range mfs {
		entries, err := mf.FetchEntries(fsys, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			path := e.DataFile().FilePath()
			switch e.Status() {
			case ice.EntryStatusADDED:
				added++
				if e.SnapshotID() != cur.SnapshotID {
					t.Errorf("%s: ADDED by snapshot %d, current is %d", path, e.SnapshotID(), cur.SnapshotID)
				}
			case ice.EntryStatusEXISTING:
				existing++
				if e.SnapshotID() != addedBy[path] {
					t.Errorf("%s: EXISTING with snapshot %d, want the adding snapshot %d", path, e.SnapshotID(), addedBy[path])
				}
				if e.SequenceNum() >= cur.SequenceNumber {
					t.Errorf("%s: EXISTING with sequence %d, not older than %d", path, e.SequenceNum(), cur.SequenceNumber)
				}
			}
		}
	}
	if added != 1 || existing != 2 {
		t.Fatalf("current snapshot: %d ADDED, %d EXISTING; want 1 and 2", added, existing)
	}
}
