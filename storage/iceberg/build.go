package iceberg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/manifest"
)

// build writes the Avro manifest and manifest list of a new snapshot
// publishing m on top of head h, and returns the encoded metadata v{h.k+1}.
// The Avro files get fresh unique names, so a build for a lost race leaves
// only orphans (never overwrites anything a published snapshot references).
//
// It also returns the manifest lists of the snapshots it expired: their
// files are deleted once the metadata is published (a snapshot's
// manifests are its own: this publisher never reuses one).
func (p *Publisher) build(ctx context.Context, h head, m *manifest.Manifest) (_ []byte, expired []string, _ error) {
	tableUUID, err := uuid.Parse(m.TableUUID)
	if err != nil {
		return nil, nil, fmt.Errorf("iceberg: manifest v%d: table uuid %q: %w", m.Version, m.TableUUID, err)
	}
	sc, err := IcebergSchema(&m.Schema, 0)
	if err != nil {
		return nil, nil, err
	}
	base := h.meta
	if base != nil && base.TableUUID() != tableUUID {
		return nil, nil, fmt.Errorf("iceberg: %s belongs to table %s, manifest is of table %s",
			p.MetadataKey(h.k), base.TableUUID(), tableUUID)
	}
	if base != nil && base.Location() != p.store.URI(p.prefix) {
		// The warehouse moved (a data directory restored or copied
		// elsewhere, a bucket renamed): the head's snapshots name files
		// at its old location, which this store cannot read and other
		// engines cannot either. v{k+1} starts a new history at the new
		// location (the manifest, with relative paths, is unaffected).
		base = nil
	}
	b, err := p.builder(base, h.k, tableUUID, sc)
	if err != nil {
		return nil, nil, err
	}
	cur := b.CurrentSchema()

	var parent *int64
	var seq int64 = 1
	if h.meta != nil {
		seq = h.meta.LastSequenceNumber() + 1 // sequence numbers never go back, even across a move
	}
	var prev liveFiles // live entries of the parent snapshot, by path
	if base != nil {
		if ps := base.CurrentSnapshot(); ps != nil {
			id := ps.SnapshotID
			parent = &id
			if prev, err = p.liveEntries(ctx, ps); err != nil {
				return nil, nil, err
			}
		}
	}
	snapID := newSnapshotID(base)
	nonce := uuid.NewString()

	var manifests []ice.ManifestFile
	var st snapshotStats
	if len(m.Files) > 0 {
		mf, err := p.writeManifest(ctx, fmt.Sprintf("%s/metadata/%s-m0.avro", p.prefix, nonce),
			ice.ManifestContentData, cur, snapID, func(w *ice.ManifestWriter) error {
				for i := range m.Files {
					f := &m.Files[i]
					uri := p.store.URI(p.prefix + "/" + f.Path)
					st.totalRows += f.Rows
					st.totalBytes += f.Bytes
					if e, ok := prev.data[uri]; ok {
						if err := w.Existing(e); err != nil {
							return fmt.Errorf("iceberg: manifest entry %s: %w", f.Path, err)
						}
						continue
					}
					df, err := dataFile(&m.Schema, f, uri)
					if err != nil {
						return err
					}
					if err := w.Add(ice.NewManifestEntry(ice.EntryStatusADDED, &snapID, nil, nil, df)); err != nil {
						return fmt.Errorf("iceberg: manifest entry %s: %w", f.Path, err)
					}
					st.addedData++
					st.addedRows += f.Rows
					st.addedBytes += f.Bytes
				}
				return nil
			})
		if err != nil {
			return nil, nil, err
		}
		manifests = append(manifests, mf)
	}
	if len(m.Deletes) > 0 {
		// Delete files new in this snapshot are ADDED entries without a
		// sequence number: they inherit the snapshot's, and so apply to
		// every data file whose data sequence number is not greater
		// (Iceberg's rule for position deletes). Carried files keep theirs.
		mf, err := p.writeManifest(ctx, fmt.Sprintf("%s/metadata/%s-m1.avro", p.prefix, nonce),
			ice.ManifestContentDeletes, cur, snapID, func(w *ice.ManifestWriter) error {
				for i := range m.Deletes {
					d := &m.Deletes[i]
					uri := p.store.URI(p.prefix + "/" + d.Path)
					st.totalPosDeletes += d.Rows
					st.totalBytes += d.Bytes
					if e, ok := prev.deletes[uri]; ok {
						if err := w.Existing(e); err != nil {
							return fmt.Errorf("iceberg: manifest entry %s: %w", d.Path, err)
						}
						continue
					}
					df, err := p.deleteFile(d, uri)
					if err != nil {
						return err
					}
					if err := w.Add(ice.NewManifestEntry(ice.EntryStatusADDED, &snapID, nil, nil, df)); err != nil {
						return fmt.Errorf("iceberg: manifest entry %s: %w", d.Path, err)
					}
					st.addedDeleteFiles++
					st.addedPosDeletes += d.Rows
					st.addedBytes += d.Bytes
				}
				return nil
			})
		if err != nil {
			return nil, nil, err
		}
		manifests = append(manifests, mf)
	}

	listKey := fmt.Sprintf("%s/metadata/snap-%d-1-%s.avro", p.prefix, snapID, nonce)
	var lbuf bytes.Buffer
	lw, err := ice.NewManifestListWriterV2(&lbuf, snapID, seq, parent)
	if err != nil {
		return nil, nil, fmt.Errorf("iceberg: manifest list: %w", err)
	}
	if err := lw.AddManifests(manifests); err != nil {
		return nil, nil, fmt.Errorf("iceberg: manifest list: %w", err)
	}
	if err := lw.Close(); err != nil {
		return nil, nil, fmt.Errorf("iceberg: manifest list: %w", err)
	}
	if err := p.store.Put(ctx, listKey, lbuf.Bytes()); err != nil {
		return nil, nil, fmt.Errorf("iceberg: write manifest list: %w", err)
	}

	// Files of the parent absent from m were removed by this snapshot.
	live := make(map[string]bool, len(m.Files)+len(m.Deletes))
	for i := range m.Files {
		live[p.store.URI(p.prefix+"/"+m.Files[i].Path)] = true
	}
	for i := range m.Deletes {
		live[p.store.URI(p.prefix+"/"+m.Deletes[i].Path)] = true
	}
	for path, e := range prev.data {
		if !live[path] {
			st.removedData++
			st.removedRows += e.DataFile().Count()
		}
	}
	for path, e := range prev.deletes {
		if !live[path] {
			st.removedDeleteFiles++
			st.removedPosDeletes += e.DataFile().Count()
		}
	}
	schemaID := cur.ID
	props := st.summary(int64(len(m.Files)), int64(len(m.Deletes)))
	props[SummaryManifestVersion] = strconv.FormatInt(m.Version, 10)
	snap := &table.Snapshot{
		SnapshotID: snapID, ParentSnapshotID: parent, SequenceNumber: seq,
		TimestampMs: time.Now().UnixMilli(), ManifestList: p.store.URI(listKey), SchemaID: &schemaID,
		Summary: &table.Summary{Operation: st.operation(), Properties: props},
	}
	if err := b.AddSnapshot(snap); err != nil {
		return nil, nil, fmt.Errorf("iceberg: add snapshot: %w", err)
	}
	if err := b.SetSnapshotRef(table.MainBranch, snapID, table.BranchRef); err != nil {
		return nil, nil, fmt.Errorf("iceberg: set main: %w", err)
	}
	if base != nil {
		// Expire all but the newest p.keep snapshots (the new one among
		// them): the metadata file's size stays bounded. Their manifests
		// and data files are not deleted here.
		var all []int64
		for _, s := range base.Snapshots() {
			all = append(all, s.SnapshotID)
		}
		all = append(all, snapID)
		if n := len(all) - p.keep; n > 0 {
			if err := b.RemoveSnapshots(all[:n], false); err != nil {
				return nil, nil, fmt.Errorf("iceberg: expire snapshots: %w", err)
			}
			for _, id := range all[:n] {
				if s := base.SnapshotByID(id); s != nil && s.ManifestList != "" {
					expired = append(expired, s.ManifestList)
				}
			}
		}
	}
	meta, err := b.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("iceberg: build metadata: %w", err)
	}
	data, err := json.Marshal(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("iceberg: encode metadata: %w", err)
	}
	return data, expired, nil
}

// builder starts metadata v{k+1}: from scratch when there is no base (the
// first version, or a moved warehouse), else from the base, metadata vk
// (which records vk's file in the metadata log). A changed schema becomes
// the new current schema.
func (p *Publisher) builder(base table.Metadata, k int, tableUUID uuid.UUID, sc *ice.Schema) (*table.MetadataBuilder, error) {
	wrap := func(err error) error { return fmt.Errorf("iceberg: metadata builder: %w", err) }
	if base == nil {
		b, err := table.NewMetadataBuilder(2)
		if err != nil {
			return nil, wrap(err)
		}
		// The builder mutates what it is given: pass copies, never the
		// package-level defaults.
		sortOrder := table.UnsortedSortOrder
		spec := *ice.UnpartitionedSpec
		steps := []func() error{
			func() error { return b.SetUUID(tableUUID) },
			func() error { return b.AddSchema(sc) },
			func() error { return b.SetCurrentSchemaID(-1) },
			func() error { return b.AddSortOrder(&sortOrder) },
			func() error { return b.SetDefaultSortOrderID(-1) },
			func() error { return b.AddPartitionSpec(&spec, true) },
			func() error { return b.SetDefaultSpecID(-1) },
			func() error { return b.SetLoc(p.store.URI(p.prefix)) },
			func() error {
				return b.SetProperties(ice.Properties{"write.parquet.compression-codec": "zstd",
					table.MetadataPreviousVersionsMaxKey: strconv.Itoa(p.keep), table.MetadataDeleteAfterCommitEnabledKey: "true"})
			},
		}
		for _, s := range steps {
			if err := s(); err != nil {
				return nil, wrap(err)
			}
		}
		return b, nil
	}
	b, err := table.MetadataBuilderFromBase(base, p.store.URI(p.MetadataKey(k)))
	if err != nil {
		return nil, wrap(err)
	}
	if keep := strconv.Itoa(p.keep); base.Properties()[table.MetadataPreviousVersionsMaxKey] != keep {
		// A table published before the bound (or with another one).
		if err := b.SetProperties(ice.Properties{table.MetadataPreviousVersionsMaxKey: keep,
			table.MetadataDeleteAfterCommitEnabledKey: "true"}); err != nil {
			return nil, wrap(err)
		}
	}
	if cur := b.CurrentSchema(); cur == nil || !sameFields(cur, sc) {
		if err := b.AddSchema(sc); err != nil {
			return nil, wrap(err)
		}
		if err := b.SetCurrentSchemaID(-1); err != nil {
			return nil, wrap(err)
		}
	}
	return b, nil
}

func sameFields(a, b *ice.Schema) bool {
	fa, fb := a.Fields(), b.Fields()
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i].ID != fb[i].ID || fa[i].Name != fb[i].Name || fa[i].Required != fb[i].Required || !fa[i].Type.Equals(fb[i].Type) {
			return false
		}
	}
	return true
}

// liveFiles are the live entries (ADDED or EXISTING) of a snapshot, by
// file path: data files, and position delete files.
type liveFiles struct {
	data, deletes map[string]ice.ManifestEntry
}

// liveEntries reads the live entries of snapshot s, from its data and its
// delete manifests.
func (p *Publisher) liveEntries(ctx context.Context, s *table.Snapshot) (liveFiles, error) {
	out := liveFiles{data: map[string]ice.ManifestEntry{}, deletes: map[string]ice.ManifestEntry{}}
	data, err := p.getURI(ctx, s.ManifestList)
	if err != nil {
		return out, err
	}
	mfs, err := ice.ReadManifestList(bytes.NewReader(data))
	if err != nil {
		return out, fmt.Errorf("iceberg: read manifest list %s: %w", s.ManifestList, err)
	}
	for _, mf := range mfs {
		md, err := p.getURI(ctx, mf.FilePath())
		if err != nil {
			return out, err
		}
		entries, err := ice.ReadManifest(mf, bytes.NewReader(md), true)
		if err != nil {
			return out, fmt.Errorf("iceberg: read manifest %s: %w", mf.FilePath(), err)
		}
		for _, e := range entries {
			switch e.DataFile().ContentType() {
			case ice.EntryContentData:
				out.data[e.DataFile().FilePath()] = e
			case ice.EntryContentPosDeletes:
				out.deletes[e.DataFile().FilePath()] = e
			default:
				// We write no equality deletes; another writer's would not
				// be carried into our snapshots.
			}
		}
	}
	return out, nil
}

// writeManifest writes one Avro manifest of content kind at key, its
// entries added by fill, and returns it for the manifest list.
func (p *Publisher) writeManifest(ctx context.Context, key string, content ice.ManifestContent, sc *ice.Schema,
	snapID int64, fill func(*ice.ManifestWriter) error,
) (ice.ManifestFile, error) {
	var buf bytes.Buffer
	w, err := ice.NewManifestWriter(2, &buf, *ice.UnpartitionedSpec, sc, snapID, ice.WithManifestWriterContent(content))
	if err != nil {
		return nil, fmt.Errorf("iceberg: manifest writer: %w", err)
	}
	if err := fill(w); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("iceberg: manifest: %w", err)
	}
	mf, err := w.ToManifestFile(p.store.URI(key), int64(buf.Len()))
	if err != nil {
		return nil, fmt.Errorf("iceberg: manifest: %w", err)
	}
	if err := p.store.Put(ctx, key, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("iceberg: write manifest: %w", err)
	}
	return mf, nil
}

// snapshotStats counts what a snapshot adds and removes, for its summary.
type snapshotStats struct {
	addedData, addedRows, removedData, removedRows     int64
	addedDeleteFiles, addedPosDeletes                  int64
	removedDeleteFiles, removedPosDeletes              int64
	addedBytes, totalRows, totalBytes, totalPosDeletes int64
}

// operation: append when the snapshot only adds data files; delete when it
// only removes data files or adds delete files; overwrite when it does both.
func (st *snapshotStats) operation() table.Operation {
	deletes := st.removedData > 0 || st.addedDeleteFiles > 0
	switch {
	case deletes && st.addedData > 0:
		return table.OpOverwrite
	case deletes:
		return table.OpDelete
	}
	return table.OpAppend
}

// summary: Iceberg's snapshot summary properties. total-records is the sum
// of the data files' rows (deleted positions not subtracted), and
// total-files-size counts delete files too, as Iceberg defines them.
func (st *snapshotStats) summary(dataFiles, deleteFiles int64) ice.Properties {
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	props := ice.Properties{
		"added-data-files":       i64(st.addedData),
		"added-records":          i64(st.addedRows),
		"deleted-data-files":     i64(st.removedData),
		"total-data-files":       i64(dataFiles),
		"total-records":          i64(st.totalRows),
		"total-files-size":       i64(st.totalBytes),
		"total-delete-files":     i64(deleteFiles),
		"total-position-deletes": i64(st.totalPosDeletes),
		"total-equality-deletes": "0",
	}
	for k, n := range map[string]int64{
		"deleted-records":               st.removedRows,
		"added-files-size":              st.addedBytes,
		"added-delete-files":            st.addedDeleteFiles,
		"added-position-delete-files":   st.addedDeleteFiles,
		"added-position-deletes":        st.addedPosDeletes,
		"removed-delete-files":          st.removedDeleteFiles,
		"removed-position-delete-files": st.removedDeleteFiles,
		"removed-position-deletes":      st.removedPosDeletes,
	} {
		props[k] = i64(n)
	}
	return props
}

// deleteSnapshotFiles deletes expired snapshots' manifest lists and the
// manifests they list (best effort: what is left stays an orphan).
func (p *Publisher) deleteSnapshotFiles(ctx context.Context, lists []string) {
	for _, list := range lists {
		data, err := p.getURI(ctx, list)
		if err != nil {
			continue // gone already, or unreadable: nothing to follow
		}
		mfs, err := ice.ReadManifestList(bytes.NewReader(data))
		if err != nil {
			continue
		}
		for _, mf := range mfs {
			if key, ok := p.keyOf(mf.FilePath()); ok {
				_ = p.store.Delete(ctx, key)
			}
		}
		if key, ok := p.keyOf(list); ok {
			_ = p.store.Delete(ctx, key)
		}
	}
}

// keyOf is the store key of a file of this table's metadata directory.
func (p *Publisher) keyOf(uri string) (string, bool) {
	root := strings.TrimSuffix(p.store.URI(""), "/") + "/"
	key, ok := strings.CutPrefix(uri, root)
	if !ok || !strings.HasPrefix(key, p.prefix+"/metadata/") {
		return "", false
	}
	return key, true
}

// getURI reads an object by the absolute URI this store gave it.
func (p *Publisher) getURI(ctx context.Context, uri string) ([]byte, error) {
	root := strings.TrimSuffix(p.store.URI(""), "/") + "/"
	key, ok := strings.CutPrefix(uri, root)
	if !ok {
		return nil, fmt.Errorf("iceberg: %s is outside the store %s", uri, root)
	}
	data, _, err := p.store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("iceberg: read %s: %w", uri, err)
	}
	return data, nil
}

// newSnapshotID returns a random positive id unused in meta.
func newSnapshotID(meta table.Metadata) int64 {
	for {
		id := rand.Int64N(1<<62) + 1
		if meta == nil || meta.SnapshotByID(id) == nil {
			return id
		}
	}
}
