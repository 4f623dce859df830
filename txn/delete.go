package txn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/parquet"
)

// ErrSerialization is returned when a transaction deletes (or updates) a
// row that another transaction deleted or updated after the first one read
// it, or that another open transaction has already claimed: the caller
// reports PostgreSQL's 40001 and the client retries.
var ErrSerialization = errors.New("txn: could not serialize access due to concurrent update")

// Deletes are the rows one transaction deletes from the table's committed
// data files: per file (relative path), the 0-based row positions.
// Normalize sorts files and positions and removes duplicates.
type Deletes struct {
	Files []FileDeletes
}

// FileDeletes are the deleted positions of one data file.
type FileDeletes struct {
	File string // relative path, as in manifest.DataFile.Path
	Pos  []int64
}

// Rows returns the number of deleted positions.
func (d *Deletes) Rows() int64 {
	if d == nil {
		return 0
	}
	var n int64
	for _, f := range d.Files {
		n += int64(len(f.Pos))
	}
	return n
}

// Empty reports whether d deletes nothing.
func (d *Deletes) Empty() bool { return d.Rows() == 0 }

// Add adds positions of a file (call Normalize before use).
func (d *Deletes) Add(file string, pos ...int64) {
	for i := range d.Files {
		if d.Files[i].File == file {
			d.Files[i].Pos = append(d.Files[i].Pos, pos...)
			return
		}
	}
	d.Files = append(d.Files, FileDeletes{File: file, Pos: append([]int64(nil), pos...)})
}

// Merge adds every position of o.
func (d *Deletes) Merge(o *Deletes) {
	if o == nil {
		return
	}
	for _, f := range o.Files {
		d.Add(f.File, f.Pos...)
	}
}

// Normalize sorts files and positions and drops duplicates and empty files.
func (d *Deletes) Normalize() {
	byFile := map[string][]int64{}
	for _, f := range d.Files {
		byFile[f.File] = append(byFile[f.File], f.Pos...)
	}
	out := d.Files[:0]
	for file, pos := range byFile {
		if len(pos) == 0 {
			continue
		}
		slices.Sort(pos)
		pos = slices.Compact(pos)
		out = append(out, FileDeletes{File: file, Pos: pos})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	d.Files = out
}

// Clone returns a deep copy.
func (d *Deletes) Clone() *Deletes {
	if d == nil {
		return nil
	}
	c := &Deletes{Files: make([]FileDeletes, len(d.Files))}
	for i, f := range d.Files {
		c.Files[i] = FileDeletes{File: f.File, Pos: append([]int64(nil), f.Pos...)}
	}
	return c
}

// deleteMagic starts the WAL payload of a delete record (format version 1).
const deleteMagic = "BSDBDEL1"

// encodeDeletes is the WAL payload of a delete record:
//
//	"BSDBDEL1" uvarint(files) { uvarint(len) path uvarint(n) uvarint(first) uvarint(delta)... }
//
// positions sorted ascending, deltas from the previous position (> 0).
func encodeDeletes(d *Deletes) []byte {
	var b bytes.Buffer
	b.WriteString(deleteMagic)
	var tmp [binary.MaxVarintLen64]byte
	put := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	put(uint64(len(d.Files)))
	for _, f := range d.Files {
		put(uint64(len(f.File)))
		b.WriteString(f.File)
		put(uint64(len(f.Pos)))
		prev := int64(0)
		for i, p := range f.Pos {
			if i == 0 {
				put(uint64(p))
			} else {
				put(uint64(p - prev))
			}
			prev = p
		}
	}
	return b.Bytes()
}

// decodeDeletes parses encodeDeletes' format.
func decodeDeletes(p []byte) (*Deletes, error) {
	if !bytes.HasPrefix(p, []byte(deleteMagic)) {
		return nil, fmt.Errorf("txn: WAL payload is not a delete record")
	}
	r := bytes.NewReader(p[len(deleteMagic):])
	get := func() (uint64, error) { return binary.ReadUvarint(r) }
	nf, err := get()
	if err != nil || nf > uint64(len(p)) {
		return nil, fmt.Errorf("txn: bad delete record")
	}
	d := &Deletes{Files: make([]FileDeletes, 0, nf)}
	for i := uint64(0); i < nf; i++ {
		l, err := get()
		if err != nil || l > uint64(r.Len()) {
			return nil, fmt.Errorf("txn: bad delete record")
		}
		name := make([]byte, l)
		if _, err := r.Read(name); err != nil && l > 0 {
			return nil, fmt.Errorf("txn: bad delete record")
		}
		n, err := get()
		if err != nil || n > uint64(r.Len()) {
			return nil, fmt.Errorf("txn: bad delete record")
		}
		pos := make([]int64, n)
		prev := int64(0)
		for j := range pos {
			v, err := get()
			if err != nil || v > 1<<62 {
				return nil, fmt.Errorf("txn: bad delete record")
			}
			if j == 0 {
				prev = int64(v)
			} else {
				if v == 0 {
					return nil, fmt.Errorf("txn: bad delete record")
				}
				prev += int64(v)
			}
			pos[j] = prev
		}
		d.Files = append(d.Files, FileDeletes{File: string(name), Pos: pos})
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("txn: bad delete record: %d trailing bytes", r.Len())
	}
	return d, nil
}

// emptyRecord is a zero-row batch of the table's schema: the body of a
// delete record in the WAL and in the buffer.
func (t *Table) emptyRecord() arrow.RecordBatch {
	cols := make([]arrow.Array, len(t.arrow.Fields()))
	for i, f := range t.arrow.Fields() {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
	}
	rec := array.NewRecordBatch(t.arrow, cols, 0)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// deadIndex holds, per data file, the positions that are deleted or that
// an open transaction has claimed: committed delete files, buffered delete
// records and claims. A claim of a position already in it is a
// serialization failure. Bitsets are sized by the file's row count.
type deadIndex struct {
	mu     sync.Mutex
	files  map[string][]uint64 // relative path -> bitset
	loaded map[string]bool     // delete files (relative paths) already in it
}

func (x *deadIndex) reset() {
	x.files = map[string][]uint64{}
	x.loaded = map[string]bool{}
}

func (x *deadIndex) bits(file string, rows int64) []uint64 {
	b := x.files[file]
	if need := int((rows + 63) / 64); len(b) < need {
		nb := make([]uint64, need)
		copy(nb, b)
		b = nb
		x.files[file] = b
	}
	return b
}

// dataRows maps the data files of m to their row counts.
func dataRows(m *manifest.Manifest) map[string]int64 {
	out := make(map[string]int64, len(m.Files))
	for _, f := range m.Files {
		out[f.Path] = f.Rows
	}
	return out
}

// indexDeletes adds the committed delete files of m not yet indexed (read
// from the store: another process's deletes, or those found at open).
func (t *Table) indexDeletes(ctx context.Context, m *manifest.Manifest) error {
	t.dead.mu.Lock()
	var todo []manifest.DeleteFile
	for _, d := range m.Deletes {
		if !t.dead.loaded[d.Path] {
			todo = append(todo, d)
		}
	}
	t.dead.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	rows := dataRows(m)
	for _, df := range todo {
		d, err := t.ReadDeleteFile(ctx, m, df)
		if err != nil {
			return err
		}
		t.dead.mu.Lock()
		if !t.dead.loaded[df.Path] {
			for _, f := range d.Files {
				n, ok := rows[f.File]
				if !ok {
					continue
				}
				b := t.dead.bits(f.File, n)
				for _, p := range f.Pos {
					if p >= 0 && p < n {
						b[p>>6] |= 1 << (p & 63)
					}
				}
			}
			t.dead.loaded[df.Path] = true
		}
		t.dead.mu.Unlock()
	}
	return nil
}

// ReadDeleteFile reads a committed delete file of m into Deletes keyed by
// the data files' relative paths (the file holds their full locations).
func (t *Table) ReadDeleteFile(ctx context.Context, m *manifest.Manifest, df manifest.DeleteFile) (*Deletes, error) {
	data, _, err := t.opts.Store.Get(ctx, t.key(df.Path))
	if err != nil {
		return nil, fmt.Errorf("read delete file %s of %s: %w", df.Path, t.opts.Prefix, err)
	}
	rows, err := parquet.ReadPositionDeletes(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("read delete file %s of %s: %w", df.Path, t.opts.Prefix, err)
	}
	d := &Deletes{}
	byURI := map[string]string{}
	for _, rel := range df.Data {
		byURI[t.opts.Store.URI(t.key(rel))] = rel
	}
	cur := ""
	var pos []int64
	flush := func() {
		if cur != "" && len(pos) > 0 {
			d.Files = append(d.Files, FileDeletes{File: cur, Pos: pos})
		}
		pos = nil
	}
	for _, r := range rows {
		rel, ok := byURI[r.Path]
		if !ok {
			rel = relativeDataPath(r.Path)
		}
		if rel != cur {
			flush()
			cur = rel
		}
		pos = append(pos, r.Pos)
	}
	flush()
	d.Normalize()
	return d, nil
}

// relativeDataPath is the data/<name> suffix of a data file's location (a
// table whose warehouse moved keeps its relative paths).
func relativeDataPath(uri string) string {
	if i := strings.LastIndex(uri, "/data/"); i >= 0 {
		return uri[i+1:]
	}
	return uri
}

// Claim marks d's positions as deleted by an open transaction. It fails
// with ErrSerialization (claiming nothing) if any of them is already
// deleted or claimed, or if a file is no longer in the table (a TRUNCATE
// came between the read and the claim). Unclaim undoes a claim whose
// transaction did not commit.
func (t *Table) Claim(ctx context.Context, d *Deletes) error {
	if d.Empty() {
		return nil
	}
	head, err := t.manifests.LoadLatest(ctx, false)
	if err != nil {
		return err
	}
	if err := t.indexDeletes(ctx, head); err != nil {
		return err
	}
	rows := dataRows(head)
	t.dead.mu.Lock()
	defer t.dead.mu.Unlock()
	for _, f := range d.Files {
		n, ok := rows[f.File]
		if !ok {
			return ErrSerialization
		}
		b := t.dead.bits(f.File, n)
		for _, p := range f.Pos {
			if p < 0 || p >= n {
				return fmt.Errorf("BUG: txn: delete of row %d of %s, which has %d rows", p, f.File, n)
			}
			if b[p>>6]&(1<<(p&63)) != 0 {
				return ErrSerialization
			}
		}
	}
	for _, f := range d.Files {
		b := t.dead.files[f.File]
		for _, p := range f.Pos {
			b[p>>6] |= 1 << (p & 63)
		}
	}
	return nil
}

// Unclaim releases a claim made by Claim (its transaction rolled back or
// failed before the WAL append).
func (t *Table) Unclaim(d *Deletes) {
	if d.Empty() {
		return
	}
	t.dead.mu.Lock()
	defer t.dead.mu.Unlock()
	for _, f := range d.Files {
		b, ok := t.dead.files[f.File]
		if !ok {
			continue
		}
		for _, p := range f.Pos {
			if p >= 0 && int(p>>6) < len(b) {
				b[p>>6] &^= 1 << (p & 63)
			}
		}
	}
}

// markDead adds d's positions to the index without checking (recovery of
// acknowledged delete records).
func (t *Table) markDead(d *Deletes, rows map[string]int64) {
	t.dead.mu.Lock()
	defer t.dead.mu.Unlock()
	for _, f := range d.Files {
		n := rows[f.File]
		b := t.dead.bits(f.File, n)
		for _, p := range f.Pos {
			if p >= 0 && p < n {
				b[p>>6] |= 1 << (p & 63)
			}
		}
	}
}

// checkDeletable verifies, at WAL-append time, that every file d deletes
// from is still a data file of the table (REQUIRES: maint held, shared).
func (t *Table) checkDeletable(ctx context.Context, d *Deletes) error {
	if d.Empty() {
		return nil
	}
	head, err := t.manifests.LoadLatest(ctx, false)
	if err != nil {
		return err
	}
	rows := dataRows(head)
	for _, f := range d.Files {
		if _, ok := rows[f.File]; !ok {
			return ErrSerialization
		}
	}
	return nil
}

// writeDeleteFile writes the staged delete records as one position delete
// file, keeping only positions of files in head.
func (t *Table) writeDeleteFile(ctx context.Context, head *manifest.Manifest, batches []Batch) (*manifest.DeleteFile, error) {
	all := &Deletes{}
	for _, b := range batches {
		all.Merge(b.Del)
	}
	rows := dataRows(head)
	keep := all.Files[:0]
	for _, f := range all.Files {
		if _, ok := rows[f.File]; ok {
			keep = append(keep, f)
		}
	}
	all.Files = keep
	all.Normalize()
	if all.Empty() {
		return nil, nil
	}
	var dels []parquet.PositionDelete
	data := make([]string, 0, len(all.Files))
	for _, f := range all.Files {
		uri := t.opts.Store.URI(t.key(f.File))
		data = append(data, f.File)
		for _, p := range f.Pos {
			dels = append(dels, parquet.PositionDelete{Path: uri, Pos: p})
		}
	}
	var buf bytes.Buffer
	n, rowsW, err := parquet.WritePositionDeletes(&buf, dels)
	if err != nil {
		return nil, fmt.Errorf("commit %s: write delete file: %w", t.opts.Prefix, err)
	}
	key := "data/" + uuid.NewString() + "-deletes.parquet"
	if err := t.opts.Store.Put(ctx, t.key(key), buf.Bytes()); err != nil {
		return nil, fmt.Errorf("commit %s: store %s: %w", t.opts.Prefix, key, err)
	}
	sort.Strings(data)
	return &manifest.DeleteFile{Path: key, Rows: rowsW, Bytes: n, Data: data}, nil
}
