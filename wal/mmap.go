package wal

import (
	"reflect"
	"runtime"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// Recovery maps segments instead of reading them where it can (files of
// the OS filesystem on unix): the pages are the page cache's, so replaying
// a segment touches no fresh memory, and the decoded batches are slices of
// the mapping (zero-copy). Reading a segment into the heap costs a first
// touch of every page, which dominates replay on virtual machines (about
// 8 µs per 4 KiB page measured on the 2-core bench VM, i.e. ~130 MB/s).
//
// Lifetime. The GC does not see pointers into a mapping, and Arrow's
// reference counts do not bound the use of an array: a typed array keeps
// raw slices of its buffers (array.Int64's values, every array's null
// bitmap) that stay readable after its last Release, and Release drops the
// array's path to the buffers (array.Data.Release nils its buffers,
// memory.Buffer.Release nils the parent of a slice). With heap memory a
// read after Release is a stale read; with a mapping it would be a fault
// that kills the process. So a segment stays mapped while any of these is
// reachable (GC reachability, not reference counts):
//
//   - the mapping object, which is the allocator of every body buffer the
//     segment's batches are sliced from: reachable while any recovered
//     buffer is unreleased (Buffer.mem, SliceBuffer parents), and during
//     the decode (frameMessages);
//   - every array object of a recovered batch, recursively (extension
//     storage, list values, map keys and items, struct fields, dictionary
//     indices and values, run ends and values, union children). Not the
//     batch object: its last Release drops its arrays, it keeps no raw
//     slice.
//
// Each of those holds one count of the segment's region, dropped by a GC
// cleanup; the last one unmaps. Nothing reachable from a region points to
// an array or to the mapping object (AddCleanup's rule: the cleanup
// argument must not keep the object alive).
//
// Not covered (the GC cannot see them): raw values taken out of a
// recovered array and kept after the array is unreachable — a []int64 from
// Int64Values, a string from String.Value (zero-copy into the segment), a
// []byte from Binary.Value — and arrays derived from a recovered array
// (array.NewSlice, array.MakeFromData) read after their own last Release:
// while unreleased, their buffers keep the mapping object. Callers that
// keep such values beyond the batch copy them (strings.Clone).
//
// Tracking costs a GC cleanup per array (about a microsecond each, plus GC
// work while the arrays live), a fixed cost per batch; copying costs per
// byte. So the body of a message smaller than minMappedBody is copied to
// the heap (the GC owns it; nothing to track): the 1-row batches of
// single-row INSERTs are copied, COPY batches are mapped.
//
// Segments are never truncated or rewritten in place (compaction writes a
// new segment and removes or renames the old one; a mapping survives that).

// minMappedBody is the smallest message body decoded in place (see above).
// A variable for tests.
var minMappedBody int64 = 4 << 10

// region is a mapped segment and the count of objects keeping it mapped.
// It points to nothing but the mapped bytes.
type region struct {
	data []byte
	refs atomic.Int64
}

// drop releases one count; the last one unmaps. Runs on cleanup goroutines
// concurrently with anything.
func (r *region) drop() {
	if n := r.refs.Add(-1); n == 0 {
		unmap(r.data)
		mapped.Add(-1)
	} else if n < 0 {
		panic("wal: segment mapping released too many times")
	}
}

// mapped counts live segment mappings (for tests).
var mapped atomic.Int64

// mapping is the memory.Allocator of the body buffers of a mapped segment
// (see above); Free does nothing: the GC cleanups unmap.
type mapping struct {
	r *region
}

var _ memory.Allocator = (*mapping)(nil)

func (*mapping) Allocate(int) []byte           { panic("wal: allocate from a segment mapping") }
func (*mapping) Reallocate(int, []byte) []byte { panic("wal: reallocate from a segment mapping") }
func (*mapping) Free([]byte)                   {}

// newMapping takes ownership of mapped bytes: they are unmapped once the
// returned mapping object and every object later passed to track are
// unreachable.
func newMapping(data []byte) *mapping {
	r := &region{data: data}
	r.refs.Store(1)
	mapped.Add(1)
	m := &mapping{r: r}
	runtime.AddCleanup(m, (*region).drop, r)
	return m
}

// trackBatch keeps m's segment mapped while rec or any of its arrays is
// reachable. REQUIRES: m is reachable (it holds a count while the caller
// adds more).
func (m *mapping) trackBatch(rec arrow.RecordBatch) {
	// Not rec itself: its last Release drops its arrays, and before that
	// they keep the mapping.
	for _, c := range rec.Columns() {
		m.trackArray(c)
	}
}

func (m *mapping) trackArray(a arrow.Array) {
	if a == nil {
		return
	}
	m.track(a)
	switch a := a.(type) {
	case array.ExtensionArray:
		m.trackArray(a.Storage())
	case *array.Map: // keys and items are arrays of their own
		m.trackArray(a.ListValues())
		m.trackArray(a.Keys())
		m.trackArray(a.Items())
	case array.ListLike: // List, LargeList, ListView, LargeListView, FixedSizeList
		m.trackArray(a.ListValues())
	case *array.Struct:
		for i := range a.NumField() {
			m.trackArray(a.Field(i))
		}
	case array.Union:
		for i := range a.NumFields() {
			m.trackArray(a.Field(i))
		}
	case *array.Dictionary:
		m.trackArray(a.Indices())
		m.trackArray(a.Dictionary())
	case *array.RunEndEncoded:
		m.trackArray(a.RunEndsArr())
		m.trackArray(a.Values())
	}
}

// track adds a count of m's region, dropped when the object behind v (a
// pointer in an interface) is unreachable.
func (m *mapping) track(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return
	}
	m.r.refs.Add(1)
	runtime.AddCleanup((*byte)(rv.UnsafePointer()), (*region).drop, m.r)
}

// fder is implemented by files of the OS filesystem.
type fder interface{ Fd() uintptr }

// loadSegment returns the bytes of a segment: mapped (m != nil) when the
// file can be mapped, read into the heap otherwise.
func loadSegment(f vfs.File, noMmap bool) (data []byte, m *mapping, err error) {
	if !noMmap {
		if data, m, ok := mapFile(f); ok {
			return data, m, nil
		}
	}
	data, err = readFile(f)
	return data, nil, err
}
