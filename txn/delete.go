package txn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

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

// Deletes are the rows one transaction deletes: rows of the table's
// committed data files (per file, relative path, the 0-based row
// positions) and rows still buffered (per batch, named by its WAL
// transaction and its index in it, the row indexes). Normalize sorts and
// removes duplicates.
type Deletes struct {
	Files []FileDeletes
	Bufs  []BufDeletes
}

// BufDeletes are the deleted rows of one buffered batch.
type BufDeletes struct {
	TxID uuid.UUID
	Ord  int32 // the batch's index among its transaction's batches (Batch.Ord)
	// BatchID is the batch's id in this table handle (not persisted: the
	// readers mask the batch's rows by it).
	BatchID uint64
	Rows    []int64
}

type bufKey struct {
	tx  uuid.UUID
	ord int32
}

// AddBuf adds rows of a buffered batch.
func (d *Deletes) AddBuf(tx uuid.UUID, ord int32, batchID uint64, rows ...int64) {
	for i := range d.Bufs {
		if d.Bufs[i].TxID == tx && d.Bufs[i].Ord == ord {
			d.Bufs[i].Rows = append(d.Bufs[i].Rows, rows...)
			return
		}
	}
	d.Bufs = append(d.Bufs, BufDeletes{TxID: tx, Ord: ord, BatchID: batchID, Rows: append([]int64(nil), rows...)})
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
	for _, b := range d.Bufs {
		n += int64(len(b.Rows))
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
	for _, b := range o.Bufs {
		d.AddBuf(b.TxID, b.Ord, b.BatchID, b.Rows...)
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
	byBuf := map[bufKey]*BufDeletes{}
	var keys []bufKey
	for i := range d.Bufs {
		b := &d.Bufs[i]
		k := bufKey{b.TxID, b.Ord}
		if e, ok := byBuf[k]; ok {
			e.Rows = append(e.Rows, b.Rows...)
			continue
		}
		c := *b
		c.Rows = append([]int64(nil), b.Rows...)
		byBuf[k] = &c
		keys = append(keys, k)
	}
	bufs := make([]BufDeletes, 0, len(keys))
	for _, k := range keys {
		b := byBuf[k]
		if len(b.Rows) == 0 {
			continue
		}
		slices.Sort(b.Rows)
		b.Rows = slices.Compact(b.Rows)
		bufs = append(bufs, *b)
	}
	if len(bufs) == 0 {
		bufs = nil
	}
	d.Bufs = bufs
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
	for _, b := range d.Bufs {
		b.Rows = append([]int64(nil), b.Rows...)
		c.Bufs = append(c.Bufs, b)
	}
	return c
}

// deleteMagic starts the WAL payload of a delete record (format version 1).
const deleteMagic = "BSDBDEL1"

// encodeDeletes is the WAL payload of a delete record:
//
//	"BSDBDEL1" uvarint(files) { uvarint(len) path positions }
//	           uvarint(bufs)  { txid[16] uvarint(ord) positions }
//	positions := uvarint(n) uvarint(first) uvarint(delta)...
//
// positions sorted ascending, deltas from the previous position (> 0).
func encodeDeletes(d *Deletes) []byte {
	var b bytes.Buffer
	b.WriteString(deleteMagic)
	var tmp [binary.MaxVarintLen64]byte
	put := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	positions := func(pos []int64) {
		put(uint64(len(pos)))
		prev := int64(0)
		for i, p := range pos {
			if i == 0 {
				put(uint64(p))
			} else {
				put(uint64(p - prev))
			}
			prev = p
		}
	}
	put(uint64(len(d.Files)))
	for _, f := range d.Files {
		put(uint64(len(f.File)))
		b.WriteString(f.File)
		positions(f.Pos)
	}
	put(uint64(len(d.Bufs)))
	for _, u := range d.Bufs {
		b.Write(u.TxID[:])
		put(uint64(u.Ord))
		positions(u.Rows)
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
	positions := func() ([]int64, error) {
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
		return pos, nil
	}
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
		pos, err := positions()
		if err != nil {
			return nil, err
		}
		d.Files = append(d.Files, FileDeletes{File: string(name), Pos: pos})
	}
	nb, err := get()
	if err != nil || nb > uint64(len(p)) {
		return nil, fmt.Errorf("txn: bad delete record")
	}
	for i := uint64(0); i < nb; i++ {
		var u BufDeletes
		if n, _ := r.Read(u.TxID[:]); n != len(u.TxID) {
			return nil, fmt.Errorf("txn: bad delete record")
		}
		ord, err := get()
		if err != nil || ord > 1<<30 {
			return nil, fmt.Errorf("txn: bad delete record")
		}
		u.Ord = int32(ord)
		if u.Rows, err = positions(); err != nil {
			return nil, err
		}
		d.Bufs = append(d.Bufs, u)
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
// records and claims; and the same for the rows of buffered batches. A
// claim of a row already in it is a serialization failure. When a commit
// moves a batch into a data file, its bits move to the file's (migrate),
// and recent remembers where the batch went, so that a delete computed
// against the buffered batch still finds its rows.
type deadIndex struct {
	mu     sync.Mutex
	files  map[string][]uint64 // relative path -> bitset
	bufs   map[bufKey][]uint64 // buffered batch -> bitset of its rows
	recent map[bufKey]batchPos // batches this handle committed lately
	loaded map[string]bool     // delete files (relative paths) already in it
}

// batchPos is where a committed batch's rows went.
type batchPos struct {
	file string
	off  int64
	at   time.Time
}

// recentKeep is how long the index remembers where a committed batch went:
// a statement or transaction that read the batch while it was buffered
// and deletes from it later than that gets a serialization failure.
const recentKeep = 10 * time.Minute

func (x *deadIndex) reset() {
	x.files = map[string][]uint64{}
	x.bufs = map[bufKey][]uint64{}
	x.recent = map[bufKey]batchPos{}
	x.loaded = map[string]bool{}
}

// grow returns b with room for bit n-1.
func grow(b []uint64, n int64) []uint64 {
	if need := int((n + 63) / 64); len(b) < need {
		nb := make([]uint64, need)
		copy(nb, b)
		return nb
	}
	return b
}

func (x *deadIndex) bits(file string, rows int64) []uint64 {
	b := grow(x.files[file], rows)
	x.files[file] = b
	return b
}

func testBit(b []uint64, p int64) bool { return int(p>>6) < len(b) && b[p>>6]&(1<<(p&63)) != 0 }

// resolveLocked rewrites d's rows of buffered batches that a commit has
// moved into a data file as rows of that file. REQUIRES: x.mu held.
func (x *deadIndex) resolveLocked(d *Deletes) {
	if len(d.Bufs) == 0 {
		return
	}
	keep := d.Bufs[:0]
	moved := false
	for _, b := range d.Bufs {
		pos, ok := x.recent[bufKey{b.TxID, b.Ord}]
		if !ok {
			keep = append(keep, b)
			continue
		}
		ps := make([]int64, len(b.Rows))
		for i, r := range b.Rows {
			ps[i] = pos.off + r
		}
		d.Add(pos.file, ps...)
		moved = true
	}
	d.Bufs = keep
	if len(d.Bufs) == 0 {
		d.Bufs = nil
	}
	if moved {
		d.Normalize()
	}
}

// migrateLocked moves the bits of committed batches to their files and
// remembers where they went. REQUIRES: x.mu held.
func (x *deadIndex) migrateLocked(placed map[bufKey]batchPos) {
	now := time.Now()
	for k, p := range x.recent {
		if now.Sub(p.at) > recentKeep {
			delete(x.recent, k)
		}
	}
	for k, p := range placed {
		p.at = now
		x.recent[k] = p
		b, ok := x.bufs[k]
		if !ok {
			continue
		}
		delete(x.bufs, k)
		fb := x.files[p.file]
		for w, word := range b {
			for word != 0 {
				bit := int64(w*64) + int64(bits.TrailingZeros64(word))
				word &= word - 1
				at := p.off + bit
				fb = grow(fb, at+1)
				fb[at>>6] |= 1 << (at & 63)
			}
		}
		x.files[p.file] = fb
	}
}

// ResolveDeletes rewrites d's rows of batches committed since d was made
// as rows of their data files, and reports whether it changed anything.
func (t *Table) ResolveDeletes(d *Deletes) bool {
	if d == nil || len(d.Bufs) == 0 {
		return false
	}
	t.dead.mu.Lock()
	defer t.dead.mu.Unlock()
	n := len(d.Bufs)
	t.dead.resolveLocked(d)
	return len(d.Bufs) != n
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

// Claim marks d's rows as deleted by an open transaction. It fails with
// ErrSerialization (claiming nothing) if any of them is already deleted or
// claimed, or if a file is no longer in the table (a TRUNCATE came between
// the read and the claim). Rows of batches committed since d was made are
// rewritten in d as rows of their files. Unclaim undoes a claim whose
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
	t.dead.resolveLocked(d)
	for _, f := range d.Files {
		n, ok := rows[f.File]
		if !ok {
			return ErrSerialization
		}
		b := t.dead.files[f.File]
		for _, p := range f.Pos {
			if p < 0 || p >= n {
				return fmt.Errorf("BUG: txn: delete of row %d of %s, which has %d rows", p, f.File, n)
			}
			if testBit(b, p) {
				return ErrSerialization
			}
		}
	}
	for _, u := range d.Bufs {
		b := t.dead.bufs[bufKey{u.TxID, u.Ord}]
		for _, r := range u.Rows {
			if testBit(b, r) {
				return ErrSerialization
			}
		}
	}
	t.dead.setLocked(d, rows)
	return nil
}

// setLocked marks d's rows. REQUIRES: dead.mu held.
func (x *deadIndex) setLocked(d *Deletes, rows map[string]int64) {
	for _, f := range d.Files {
		b := x.bits(f.File, rows[f.File])
		for _, p := range f.Pos {
			b = grow(b, p+1)
			b[p>>6] |= 1 << (p & 63)
		}
		x.files[f.File] = b
	}
	for _, u := range d.Bufs {
		k := bufKey{u.TxID, u.Ord}
		b := x.bufs[k]
		for _, r := range u.Rows {
			b = grow(b, r+1)
			b[r>>6] |= 1 << (r & 63)
		}
		x.bufs[k] = b
	}
}

// Unclaim releases a claim made by Claim (its transaction rolled back or
// failed before the WAL append).
func (t *Table) Unclaim(d *Deletes) {
	if d.Empty() {
		return
	}
	t.dead.mu.Lock()
	defer t.dead.mu.Unlock()
	t.dead.resolveLocked(d)
	clearBits := func(b []uint64, ps []int64) {
		for _, p := range ps {
			if p >= 0 && int(p>>6) < len(b) {
				b[p>>6] &^= 1 << (p & 63)
			}
		}
	}
	for _, f := range d.Files {
		clearBits(t.dead.files[f.File], f.Pos)
	}
	for _, u := range d.Bufs {
		clearBits(t.dead.bufs[bufKey{u.TxID, u.Ord}], u.Rows)
	}
}

// markDead adds d's rows to the index without checking (recovery of
// acknowledged delete records).
func (t *Table) markDead(d *Deletes, rows map[string]int64) {
	t.dead.mu.Lock()
	defer t.dead.mu.Unlock()
	t.dead.setLocked(d, rows)
}

// checkDeletable verifies, at WAL-append time, that every file d deletes
// from is still a data file of the table, and that every buffered batch
// it deletes from is still in the active buffer (rows of batches committed
// meanwhile are rewritten as file rows). It returns with stageMu held
// (shared) when d has rows of buffered batches: the caller releases it
// once the delete record is in the buffer, so that the record and the
// batches it names are staged by the same commit (and replayed together
// after a crash). REQUIRES: maint held, shared.
func (t *Table) checkDeletable(ctx context.Context, d *Deletes) (unlock func(), err error) {
	if d.Empty() {
		return func() {}, nil
	}
	for attempt := 0; ; attempt++ {
		head, err := t.manifests.LoadLatest(ctx, false)
		if err != nil {
			return nil, err
		}
		t.ResolveDeletes(d)
		rows := dataRows(head)
		for _, f := range d.Files {
			if _, ok := rows[f.File]; !ok {
				return nil, ErrSerialization
			}
		}
		if len(d.Bufs) == 0 {
			return func() {}, nil
		}
		t.stageMu.RLock()
		t.ResolveDeletes(d) // a commit may have finished before the lock
		where := t.locateBufs(d)
		switch where {
		case bufsActive:
			return t.stageMu.RUnlock, nil
		case bufsCommitted:
			t.stageMu.RUnlock()
			continue // resolved as file rows next time round
		case bufsStaged:
			// A commit is moving them into a file: wait for it.
			t.stageMu.RUnlock()
			if attempt >= maxCommitAttempts {
				return nil, ErrSerialization
			}
			t.drainMu.Lock()
			ch := t.drained
			t.drainMu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		default:
			t.stageMu.RUnlock()
			return nil, ErrSerialization
		}
	}
}

const (
	bufsMissing = iota
	bufsActive
	bufsStaged
	bufsCommitted
)

// locateBufs says where the batches d deletes from are: all in the active
// buffer, some being staged, some committed (in recent), or some unknown.
func (t *Table) locateBufs(d *Deletes) int {
	want := map[bufKey]bool{}
	for _, u := range d.Bufs {
		want[bufKey{u.TxID, u.Ord}] = true
	}
	t.dead.mu.Lock()
	for k := range want {
		if _, ok := t.dead.recent[k]; ok {
			t.dead.mu.Unlock()
			return bufsCommitted
		}
	}
	t.dead.mu.Unlock()
	t.pcMu.Lock()
	defer t.pcMu.Unlock()
	if t.pc != nil && t.pc.Phase == PhaseStaging {
		for _, b := range t.pc.Batches {
			if want[bufKey{b.TxID, b.Ord}] && b.Del == nil {
				return bufsStaged
			}
		}
	}
	t.pwMu.RLock()
	defer t.pwMu.RUnlock()
	found := 0
	for _, b := range t.pw.batches {
		if b.Del == nil && want[bufKey{b.TxID, b.Ord}] {
			found++
		}
	}
	if found == len(want) {
		return bufsActive
	}
	if t.pc != nil && t.pc.Phase != PhaseStaging {
		return bufsStaged // committed, the placement not yet recorded
	}
	return bufsMissing
}

// writeDeleteFile writes the staged delete records as one position delete
// file, keeping only positions of files in head.
func (t *Table) writeDeleteFile(ctx context.Context, head *manifest.Manifest, batches []Batch, placed map[bufKey]batchPos) (*manifest.DeleteFile, error) {
	all := &Deletes{}
	for _, b := range batches {
		all.Merge(b.Del)
	}
	// Rows of batches of this commit (or of an earlier one) become rows of
	// the files they went to.
	for _, u := range all.Bufs {
		p, ok := placed[bufKey{u.TxID, u.Ord}]
		if !ok {
			t.dead.mu.Lock()
			p, ok = t.dead.recent[bufKey{u.TxID, u.Ord}]
			t.dead.mu.Unlock()
		}
		if !ok {
			return nil, fmt.Errorf("BUG: txn: commit %s: a delete record names batch %d of transaction %s, which is not in the commit", t.opts.Prefix, u.Ord, u.TxID)
		}
		ps := make([]int64, len(u.Rows))
		for i, r := range u.Rows {
			ps[i] = p.off + r
		}
		all.Add(p.file, ps...)
	}
	all.Bufs = nil
	rows := dataRows(head)
	for _, f := range placed {
		rows[f.file] = 1 // a file of this commit
	}
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
