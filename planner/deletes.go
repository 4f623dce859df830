package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/txn"
)

// Deleted rows (UPDATE and DELETE).
//
// A table's deletes reach DuckDB like its buffered batches: a native table
// "__bsdb_del_<oid>" (the delete mirror) holds (set id, data file relative
// path, position) rows, filled lazily by the first statement whose snapshot
// holds a set. A set is a buffered delete record (its id is the batch id of
// the record), a committed delete file (an id allocated when it is first
// loaded), or a transaction's own uncommitted deletes (an id allocated by
// the session). A statement's relation reads the data files that have
// deletes with DuckDB's file_index and file_row_number virtual columns and
// anti-joins them with the sets of its snapshot; files without deletes
// are read as before (and from the native cache). The collector removes a
// buffered record's rows once a commit moved it into a delete file.

// indexColumn is the mirror's column holding a row's index in its batch.
const indexColumn = "__bsdb_idx"

func (t *Table) delMirror() string { return quoteIdent(fmt.Sprintf("__bsdb_del_%d", t.Entry.OID)) }

func (t *Table) createDelMirror(ctx context.Context) error {
	_, err := t.eng.db.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE %s (__bsdb_dset UBIGINT, __bsdb_path VARCHAR, __bsdb_pos BIGINT, __bsdb_batch UBIGINT)", t.delMirror()))
	return err
}

// DeleteSet is a transaction's own deletes, visible to its statements
// only: ID (from AllocDeleteID) names them in the delete mirror.
type DeleteSet struct {
	ID  uint64
	Del *txn.Deletes
}

// AllocDeleteID returns an id for a DeleteSet.
func (t *Table) AllocDeleteID() uint64 { return t.T.AllocBatchIDs(1)[0] }

// deleteView is what a statement's snapshot deletes: the sets, and the
// data files (relative paths) they delete from.
type deleteView struct {
	sets    []uint64
	files   map[string]bool
	batches map[uint64]bool     // buffered batches with deleted rows
	runs    map[string][]posRun // deleted positions per data file, as runs (unsorted)
	rows    int64               // deleted rows in all sets
	bufRows int64               // of which rows of buffered batches
}

func (v *deleteView) empty() bool { return len(v.files) == 0 }

// ensureDeletes puts the snapshot's deletes (committed files, buffered
// records, the transaction's own) into the delete mirror and returns them.
//
// present are the batches the statement reads: deleted rows of other
// batches (a transaction's own rows written before its TRUNCATE) are not
// counted.
func (t *Table) ensureDeletes(ctx context.Context, snap *txn.Snapshot, own []DeleteSet, present map[uint64]bool) (*deleteView, error) {
	v := &deleteView{files: map[string]bool{}, batches: map[uint64]bool{}, runs: map[string][]posRun{}}
	if len(snap.Manifest.Deletes) == 0 && len(snap.Deletes) == 0 && len(own) == 0 {
		return v, nil
	}
	t.delMu.Lock()
	defer t.delMu.Unlock()
	for _, df := range snap.Manifest.Deletes {
		id, ok := t.delFileIDs[df.Path]
		if !ok {
			var err error
			if id, err = t.loadDeleteFile(ctx, df); err != nil {
				return nil, err
			}
			t.delFileIDs[df.Path] = id
		}
		v.sets = append(v.sets, id)
		v.rows += df.Rows
		for _, f := range df.Data {
			v.files[f] = true
		}
		d, ok := t.delFilePos[df.Path]
		if !ok {
			var err error
			if d, err = t.T.ReadDeleteFile(ctx, snap.Manifest, df); err != nil {
				return nil, err
			}
			t.delFilePos[df.Path] = d
		}
		for f, rs := range t.runsOf(id, d) {
			v.runs[f] = append(v.runs[f], rs...)
		}
	}
	add := func(id uint64, d *txn.Deletes) error {
		if _, ok := t.delMirrored[id]; !ok {
			if err := t.insertDeleteRows(ctx, id, d); err != nil {
				return err
			}
			t.delMirrored[id] = struct{}{}
		}
		v.sets = append(v.sets, id)
		v.rows += d.Rows()
		for _, f := range d.Files {
			v.files[f.File] = true
		}
		for f, rs := range t.runsOf(id, d) {
			v.runs[f] = append(v.runs[f], rs...)
		}
		for _, u := range d.Bufs {
			v.batches[u.BatchID] = true
			if present[u.BatchID] {
				v.bufRows += int64(len(u.Rows))
			} else {
				v.rows -= int64(len(u.Rows))
			}
		}
		return nil
	}
	for _, b := range snap.Deletes {
		if err := add(b.ID, b.Del); err != nil {
			return nil, err
		}
	}
	for _, s := range own {
		if err := add(s.ID, s.Del); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// loadDeleteFile copies a committed delete file into the delete mirror
// under a new set id.
func (t *Table) loadDeleteFile(ctx context.Context, df manifest.DeleteFile) (uint64, error) {
	key := t.Entry.Prefix + "/" + df.Path
	var local string
	if t.eng.local != nil {
		local = t.eng.local.LocalPath(key)
	} else {
		local = filepath.Join(t.eng.cache, filepath.FromSlash(key))
		if err := t.eng.fetch(ctx, key, local); err != nil {
			return 0, err
		}
	}
	id := t.AllocDeleteID()
	// The file names data files by their full locations; the mirror keeps
	// their relative paths (data/<name>).
	q := fmt.Sprintf("INSERT INTO %s SELECT %d, regexp_extract(file_path, 'data/[^/]*$'), pos, NULL FROM read_parquet(%s)", t.delMirror(), id, quoteLiteral(local))
	if _, err := t.eng.db.ExecContext(ctx, q); err != nil {
		return 0, fmt.Errorf("load delete file %s of %s: %w", df.Path, t.ID.Name, err)
	}
	return id, nil
}

// insertDeleteRows copies a set into the delete mirror.
func (t *Table) insertDeleteRows(ctx context.Context, id uint64, d *txn.Deletes) error {
	if d.Empty() {
		return nil
	}
	rec := deleteRecord(memory.DefaultAllocator, id, d)
	defer rec.Release()
	conn, err := t.eng.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		return execWithArrow(ctx, dc, []arrow.RecordBatch{rec}, "__bsdb_delin", func(view string) string {
			return fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", t.delMirror(), view)
		})
	})
	if err != nil {
		return fmt.Errorf("deletes of %s: %w", t.ID.Name, err)
	}
	return nil
}

// deleteRecord is a set's rows for the delete mirror. A large set (a
// bulk DELETE) has its set id and file path as run-end encoded columns,
// one run per file, so that no per-row string is built in Go (for 100 000
// positions that was 22 MB of builder growth); a small one (an UPDATE by
// key) has plain columns, which cross into DuckDB with fewer exported
// children.
func deleteRecord(mem memory.Allocator, id uint64, d *txn.Deletes) arrow.RecordBatch {
	n := int(d.Rows())
	pos := array.NewInt64Builder(mem)
	defer pos.Release()
	pos.Reserve(n)
	var cols []arrow.Array
	if n < reeDeleteRows || len(d.Bufs) > 0 {
		ids := array.NewUint64Builder(mem)
		defer ids.Release()
		paths := array.NewStringBuilder(mem)
		defer paths.Release()
		batch := array.NewUint64Builder(mem)
		defer batch.Release()
		ids.Reserve(n)
		paths.Reserve(n)
		batch.Reserve(n)
		for _, f := range d.Files {
			for _, p := range f.Pos {
				ids.UnsafeAppend(id)
				paths.Append(f.File)
				pos.UnsafeAppend(p)
				batch.AppendNull()
			}
		}
		for _, u := range d.Bufs {
			for _, r := range u.Rows {
				ids.UnsafeAppend(id)
				paths.Append("")
				pos.UnsafeAppend(r)
				batch.UnsafeAppend(u.BatchID)
			}
		}
		cols = []arrow.Array{ids.NewArray(), paths.NewArray(), pos.NewArray(), batch.NewArray()}
	} else {
		ends := array.NewInt32Builder(mem)
		defer ends.Release()
		paths := array.NewStringBuilder(mem)
		defer paths.Release()
		end := 0
		for _, f := range d.Files {
			if len(f.Pos) == 0 {
				continue
			}
			end += len(f.Pos)
			ends.Append(int32(end))
			paths.Append(f.File)
			pos.AppendValues(f.Pos, nil)
		}
		e, v := ends.NewArray(), paths.NewArray()
		defer e.Release()
		defer v.Release()
		cols = []arrow.Array{batchIDColumn(mem, id, n), array.NewRunEndEncodedArray(e, v, n, 0), pos.NewArray(),
			array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Uint64, n)}
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "__bsdb_dset", Type: cols[0].DataType()},
		{Name: "__bsdb_path", Type: cols[1].DataType()},
		{Name: "__bsdb_pos", Type: cols[2].DataType()},
		{Name: "__bsdb_batch", Type: cols[3].DataType()},
	}, nil)
	rec := array.NewRecordBatch(sch, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// reeDeleteRows: sets of at least this many positions are run-end encoded.
const reeDeleteRows = 1024

// collectDeletes removes sets from the delete mirror. REQUIRES: gc held
// exclusively.
func (t *Table) collectDeletes(ctx context.Context, ids []uint64) error {
	t.delMu.Lock()
	defer t.delMu.Unlock()
	var del []uint64
	for _, id := range ids {
		if _, ok := t.delMirrored[id]; ok {
			del = append(del, id)
		}
	}
	if len(del) == 0 {
		return nil
	}
	q := fmt.Sprintf("DELETE FROM %s WHERE %s", t.delMirror(), setPredicate(del))
	if _, err := t.eng.db.ExecContext(ctx, q); err != nil {
		return err
	}
	for _, id := range del {
		delete(t.delMirrored, id)
		delete(t.setRuns, id)
	}
	return nil
}

// clearDeletes empties the delete mirror (a TRUNCATE). REQUIRES: gc held
// exclusively.
func (t *Table) clearDeletes(ctx context.Context) error {
	t.delMu.Lock()
	defer t.delMu.Unlock()
	if _, err := t.eng.db.ExecContext(ctx, "DELETE FROM "+t.delMirror()); err != nil {
		return err
	}
	t.delMirrored = map[uint64]struct{}{}
	t.delFileIDs = map[string]uint64{}
	t.delFilePos = map[string]*txn.Deletes{}
	t.setRuns = map[uint64]map[string][]posRun{}
	return nil
}

// UnstageDeletes removes a transaction's own delete sets from the delete
// mirror (it committed, and its deletes are now buffered records, or it
// rolled back).
func (t *Table) UnstageDeletes(ids []uint64) {
	if len(ids) == 0 {
		return
	}
	t.gcMu.Lock()
	t.gcDel = append(t.gcDel, ids...)
	t.gcMu.Unlock()
	t.collect()
}

// setPredicate is batchPredicate over the delete mirror's set column.
func setPredicate(ids []uint64) string {
	return strings.ReplaceAll(batchPredicate(ids), batchColumn, "__bsdb_dset")
}

// presentBatches are the ids of the batches a statement reads.
func presentBatches(batches, extra []txn.Batch) map[uint64]bool {
	m := make(map[uint64]bool, len(batches)+len(extra))
	for _, b := range batches {
		m[b.ID] = true
	}
	for _, b := range extra {
		m[b.ID] = true
	}
	return m
}

// mirrorScan is the mirror's rows of the batches ids with the view's
// deletes of buffered rows applied; cols is the select list.
func (t *Table) mirrorScan(cols string, ids []uint64, v *deleteView) string {
	q := fmt.Sprintf("SELECT %s FROM %s AS __bsdb_b WHERE %s", cols, t.mirror, batchPredicate(ids))
	if len(v.batches) == 0 || len(v.sets) == 0 {
		return q
	}
	var hit []uint64
	for _, id := range ids {
		if v.batches[id] {
			hit = append(hit, id)
		}
	}
	if len(hit) == 0 {
		return q
	}
	sets := append([]uint64(nil), v.sets...)
	sort.Slice(sets, func(i, j int) bool { return sets[i] < sets[j] })
	dead := fmt.Sprintf("SELECT __bsdb_batch AS __bsdb_xb, __bsdb_pos AS __bsdb_xp FROM %s WHERE __bsdb_batch IS NOT NULL AND (%s)", t.delMirror(), setPredicate(sets))
	return fmt.Sprintf("SELECT %s FROM %s AS __bsdb_b ANTI JOIN (%s) AS __bsdb_y ON __bsdb_y.__bsdb_xb = __bsdb_b.%s AND __bsdb_y.__bsdb_xp = __bsdb_b.%s WHERE %s",
		cols, t.mirror, dead, batchColumn, indexColumn, batchPredicate(ids))
}

// deletedScan is a scan of data files with deletes applied: the files
// (local paths, rel their relative paths, in the same order) read with
// their file index and row number, anti-joined with the view's sets.
// cols is the select list; it may use file_index and file_row_number.
func (t *Table) deletedScan(cols string, local, rel []string, v *deleteView) string {
	quoted := make([]string, len(local))
	for i, f := range local {
		quoted[i] = quoteLiteral(f)
	}
	opts := t.readOptions(len(local) > 1)
	scan := fmt.Sprintf("read_parquet([%s]%s) AS __bsdb_p", strings.Join(quoted, ", "), opts)
	// A run of consecutive deleted positions (a DELETE by a range of a
	// column the file is sorted on) is a range filter on file_row_number;
	// the scattered rest is anti-joined with the delete mirror, which then
	// builds its hash table from those rows only.
	var ranges, m, covered []string
	terms := 0
	for i, r := range rel {
		if !v.files[r] {
			continue
		}
		runs := mergeRuns(v.runs[r])
		scattered := false
		var cov []string
		for _, run := range runs {
			if run.n >= minRangeRun && terms < maxRangeTerms {
				ranges = append(ranges, fmt.Sprintf("(__bsdb_p.file_index = %d AND __bsdb_p.file_row_number BETWEEN %d AND %d)", i, run.start, run.start+run.n-1))
				cov = append(cov, fmt.Sprintf("__bsdb_d.__bsdb_pos BETWEEN %d AND %d", run.start, run.start+run.n-1))
				terms++
			} else {
				scattered = true
			}
		}
		if scattered || len(runs) == 0 {
			m = append(m, fmt.Sprintf("(%s, %d)", quoteLiteral(r), i))
			if len(cov) > 0 {
				covered = append(covered, fmt.Sprintf("(__bsdb_m.i = %d AND (%s))", i, strings.Join(cov, " OR ")))
			}
		}
	}
	where := ""
	if len(ranges) > 0 {
		where = " WHERE NOT (" + strings.Join(ranges, " OR ") + ")"
	}
	if len(m) == 0 || len(v.sets) == 0 {
		return fmt.Sprintf("SELECT %s FROM %s%s", cols, scan, where)
	}
	sets := append([]uint64(nil), v.sets...)
	sort.Slice(sets, func(i, j int) bool { return sets[i] < sets[j] })
	skip := ""
	if len(covered) > 0 {
		skip = " AND NOT (" + strings.Join(covered, " OR ") + ")"
	}
	dead := fmt.Sprintf("SELECT __bsdb_m.i AS __bsdb_fi, __bsdb_d.__bsdb_pos AS __bsdb_dp FROM %s AS __bsdb_d JOIN (VALUES %s) AS __bsdb_m(p, i) ON __bsdb_d.__bsdb_path = __bsdb_m.p WHERE (%s)%s",
		t.delMirror(), strings.Join(m, ", "), setPredicate(sets), skip)
	return fmt.Sprintf("SELECT %s FROM %s ANTI JOIN (%s) AS __bsdb_x ON __bsdb_x.__bsdb_fi = __bsdb_p.file_index AND __bsdb_x.__bsdb_dp = __bsdb_p.file_row_number%s",
		cols, scan, dead, where)
}

// posRun is n consecutive deleted positions from start.
type posRun struct{ start, n int64 }

// runsOf returns a delete set's positions as runs per file, computed once
// per set (sets never change). REQUIRES: delMu held.
func (t *Table) runsOf(id uint64, d *txn.Deletes) map[string][]posRun {
	if r, ok := t.setRuns[id]; ok {
		return r
	}
	out := map[string][]posRun{}
	for _, f := range d.Files {
		pos := f.Pos
		if !slices.IsSorted(pos) {
			pos = slices.Clone(pos)
			slices.Sort(pos)
		}
		var rs []posRun
		for _, p := range pos {
			if k := len(rs) - 1; k >= 0 && rs[k].start+rs[k].n == p {
				rs[k].n++
			} else if k < 0 || p >= rs[k].start+rs[k].n {
				rs = append(rs, posRun{p, 1})
			}
		}
		out[f.File] = rs
	}
	t.setRuns[id] = out
	return out
}

// mergeRuns sorts runs and joins adjacent ones (sets are disjoint).
func mergeRuns(rs []posRun) []posRun {
	if len(rs) < 2 {
		return rs
	}
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b posRun) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.start <= last.start+last.n {
			if end := r.start + r.n; end > last.start+last.n {
				last.n = end - last.start
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// Deleted positions as range filters: runs of at least minRangeRun
// positions, at most maxRangeTerms ranges per scan.
const (
	minRangeRun   = 8
	maxRangeTerms = 256
)
