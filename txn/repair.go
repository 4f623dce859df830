package txn

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/parquet"
)

// Text that is not valid UTF-8, or holds a NUL, is refused at every input
// (pgwire, pgtypes, server). Versions before that check stored it, and the
// query engine refuses to read it back: DuckDB fails the whole table
// ("Invalid unicode" in the buffered rows, "Invalid string encoding found
// in Parquet file"). Such text is repaired where it is read from storage:
//
//   - WAL recovery (Open) repairs every recovered batch before it is
//     buffered, so the rows replayed after a restart are readable, and the
//     next flush writes them repaired into Parquet.
//   - RepairText (the server's VACUUM FULL) rewrites the data files that
//     hold such text.
//
// Repairing replaces each run of invalid bytes, and each NUL, by U+FFFD
// (the replacement character), as strings.ToValidUTF8 does.

// repairRune is what invalid bytes and NULs become.
const repairRune = "\uFFFD"

// repairString returns s with each run of invalid UTF-8 and each NUL
// replaced by U+FFFD.
func repairString(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, repairRune), "\x00", repairRune)
}

// textColumnValid reports whether every value of a string column is valid
// text, at the cost of one pass over its data (vectorized) plus one check
// per value: the data as a whole is valid, and no value starts inside a
// multi-byte character (so each value is whole characters).
func textColumnValid(a *array.String) bool {
	if a.Len() == 0 {
		return true
	}
	offs := a.ValueOffsets()
	base := int(offs[0])
	data := a.ValueBytes()
	if !pgerr.ValidText(data) {
		return false
	}
	for _, o := range offs[1 : len(offs)-1] {
		if i := int(o) - base; i < len(data) && data[i]&0xc0 == 0x80 {
			return false
		}
	}
	return true
}

// RepairRecord returns rec with every string value repaired (see
// repairString) and how many values changed: rec itself, retained, when
// none did. The caller releases the result.
func RepairRecord(rec arrow.RecordBatch) (arrow.RecordBatch, int) {
	var cols []arrow.Array
	fixed := 0
	for i := 0; i < int(rec.NumCols()); i++ {
		a, ok := rec.Column(i).(*array.String)
		if !ok || textColumnValid(a) {
			continue
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Reserve(a.Len())
		for j := 0; j < a.Len(); j++ {
			if a.IsNull(j) {
				b.AppendNull()
				continue
			}
			v := a.Value(j)
			if r := repairString(v); r != v {
				v = r
				fixed++
			}
			b.Append(v)
		}
		if cols == nil {
			cols = make([]arrow.Array, rec.NumCols())
			copy(cols, rec.Columns())
		}
		cols[i] = b.NewArray()
		b.Release()
		defer cols[i].Release()
	}
	if cols == nil {
		rec.Retain()
		return rec, 0
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), fixed
}

// repairRecovered repairs the batches WAL recovery returned, in place.
func (t *Table) repairRecovered(recs []arrow.RecordBatch) {
	fixed := 0
	for i, b := range recs {
		r, n := RepairRecord(b)
		b.Release()
		recs[i] = r
		fixed += n
	}
	if fixed > 0 {
		t.opts.Logger.Warn("WAL recovery: text that was not valid UTF-8 replaced by U+FFFD", "table", t.opts.Prefix, "values", fixed)
	}
}

// RepairResult is what RepairText did.
type RepairResult struct {
	Files  int // data files rewritten
	Values int // text values repaired
}

// RepairText rewrites every data file of the table that holds text that is
// not valid UTF-8 (or a NUL) with that text repaired (see repairString),
// in one manifest commit that swaps the files; the old files are then
// deleted. Rows written since the last flush are flushed first (they were
// repaired when recovered). Like TRUNCATE it excludes writes and commits
// while it runs, and reads every data file: a maintenance statement.
func (t *Table) RepairText(ctx context.Context) (RepairResult, error) {
	if err := t.Flush(ctx); err != nil {
		return RepairResult{}, err
	}
	t.maint.Lock()
	defer t.maint.Unlock()
	if t.closed.Load() {
		return RepairResult{}, ErrClosed
	}
	t.commitMu.Lock()
	defer t.commitMu.Unlock()
	if err := t.finishTailLocked(ctx); err != nil {
		return RepairResult{}, err
	}
	hasText := false
	for _, f := range t.arrow.Fields() {
		hasText = hasText || f.Type.ID() == arrow.STRING
	}
	var res RepairResult
	if !hasText {
		return res, nil
	}
	head, err := t.manifests.LoadLatest(ctx, true)
	if err != nil {
		return res, fmt.Errorf("repair %s: %w", t.opts.Prefix, err)
	}
	// Old path -> its repaired file.
	swaps := map[string]manifest.DataFile{}
	var written []manifest.DataFile
	fail := func(err error) (RepairResult, error) {
		t.deleteFiles(written)
		return RepairResult{}, fmt.Errorf("repair %s: %w", t.opts.Prefix, err)
	}
	named := map[string]bool{} // data files a delete file names
	for _, d := range head.Deletes {
		for _, f := range d.Data {
			named[f] = true
		}
	}
	for _, f := range head.Files {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if named[f.Path] {
			// Its delete files name it by location: a copy would lose them.
			// Such a file was written after the input checks (rows can
			// only be deleted since), so it needs no repair.
			continue
		}
		df, n, err := t.repairFile(ctx, f)
		if err != nil {
			return fail(err)
		}
		if n == 0 {
			continue
		}
		swaps[f.Path] = df
		written = append(written, df)
		res.Files++
		res.Values += n
	}
	if len(swaps) == 0 {
		return res, nil
	}
	var next *manifest.Manifest
	var old []manifest.DataFile
	for attempt := 0; ; attempt++ {
		// Commits of other processes may have added files meanwhile: the
		// swap applies to the head, whatever else it lists.
		next = head.Next()
		old = old[:0]
		for i, f := range next.Files {
			if df, ok := swaps[f.Path]; ok {
				df.AddedVersion = next.Version
				next.Files[i] = df
				old = append(old, f)
			}
		}
		err = t.manifests.Create(ctx, next)
		if err == nil {
			break
		}
		if attempt >= maxCommitAttempts || !isConflict(err) {
			return fail(err)
		}
		if head, err = t.manifests.LoadLatest(ctx, true); err != nil {
			return fail(err)
		}
	}
	key, err := t.publisher.Publish(ctx, next)
	if err != nil {
		t.opts.Logger.Warn("repair: Iceberg publish failed; converges at the next commit", "table", t.opts.Prefix, "err", err)
	}
	t.notify(CommitEvent{ManifestVersion: next.Version, MetadataKey: key})
	t.deleteFiles(old)
	t.opts.Logger.Warn("repaired text that was not valid UTF-8 (replaced by U+FFFD)", "table", t.opts.Prefix,
		"files", res.Files, "values", res.Values, "manifest", next.Version)
	return res, nil
}

// repairFile reads data file f and, when it holds text to repair, writes
// the repaired rows as a new file: its entry and the values repaired (0 and
// no file when there was nothing to do).
func (t *Table) repairFile(ctx context.Context, f manifest.DataFile) (manifest.DataFile, int, error) {
	data, _, err := t.opts.Store.Get(ctx, t.key(f.Path))
	if err != nil {
		return manifest.DataFile{}, 0, fmt.Errorf("read %s: %w", f.Path, err)
	}
	recs, err := parquet.Read(bytes.NewReader(data))
	if err != nil {
		return manifest.DataFile{}, 0, fmt.Errorf("read %s: %w", f.Path, err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	fixed := 0
	for i, r := range recs {
		rr, n := RepairRecord(r)
		r.Release()
		recs[i] = rr
		fixed += n
	}
	if fixed == 0 {
		return manifest.DataFile{}, 0, nil
	}
	df, err := t.writeDataFile(ctx, recs)
	if err != nil {
		return manifest.DataFile{}, 0, err
	}
	return df, fixed, nil
}
