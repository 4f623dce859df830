//go:build unix

package wal

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// childEnv makes the test binary run the risky half of a test in this
// process: a read of an unmapped segment is a SIGSEGV, which kills the
// whole test binary, so the parent runs it in a subprocess.
const childEnv = "BSDB_WAL_MMAP_CHILD"

// runChild runs test name of this test binary in a subprocess with
// childEnv set and fails unless it passed.
func runChild(t *testing.T, name string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("subprocess: %v\n%s", err, firstLines(string(out), 20))
	}
}

func firstLines(s string, n int) string {
	l := strings.Split(s, "\n")
	return strings.Join(l[:min(n, len(l))], "\n")
}

// TestMappedArraysSurviveRelease: a typed array of a recovered batch keeps
// raw slices of the segment mapping; reading it after the batch's last
// Release is legal Go (a stale read with heap memory) and must not fault
// while the array is reachable, however the reference counts went. The
// arrays are read after every other object keeping the mapping (the
// mapping object, the batches, the other arrays) was collected.
func TestMappedArraysSurviveRelease(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		runChild(t, t.Name())
		return
	}
	readAfterRelease(t, 500, true)
}

// TestCopiedArraysSurviveUnmap: the small bodies of 1-row batches are
// copied to the heap, not tracked: the segment is unmapped as soon as the
// batches are released, and their arrays stay readable.
func TestCopiedArraysSurviveUnmap(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		runChild(t, t.Name())
		return
	}
	readAfterRelease(t, 1, false)
}

// readAfterRelease recovers a mapped segment of 40 batches of rows rows,
// keeps the typed id and value arrays of every third batch, releases every
// batch, waits until the rest was collected (tracked: the arrays keep the
// mapping; not tracked: the segment is unmapped) and reads the arrays.
func readAfterRelease(t *testing.T, rows int, tracked bool) {
	const txs = 20
	dir := t.TempDir()
	w, _ := mustOpen(t, Options{Dir: dir, Schema: testSchema, UnsafeNoSync: true}, nil)
	for i := 0; i < txs; i++ {
		if _, err := appendTx(t, w, uuid.New(), int64(i*1000), 2, rows, DurabilityAsync); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seg string
	for _, n := range names {
		if isSegment(n.Name()) {
			seg = n.Name()
		}
	}
	f, err := vfs.Default.Open(filepath.Join(dir, seg))
	if err != nil {
		t.Fatal(err)
	}
	data, m, ok := mapFile(f)
	f.Close()
	if !ok {
		t.Fatal("segment not mapped")
	}
	r := m.r // points to nothing but the mapped bytes
	c, err := readSegmentFrom(seg, data, m)
	if err != nil {
		t.Fatal(err)
	}
	// m and data are dead from here: only the batches keep the mapping.
	if len(c.batches) != 2*txs {
		t.Fatalf("%d batches", len(c.batches))
	}
	// Keep the id and value columns of every third batch, as their typed
	// arrays; release everything fully.
	type kept struct {
		first  int64
		n      int
		ids    *array.Int64
		values *array.Float64
	}
	var keep []kept
	for k, b := range c.batches {
		if k%3 != 0 {
			continue
		}
		keep = append(keep, kept{
			first:  int64(k/2*1000 + k%2*rows),
			n:      int(b.rec.NumRows()),
			ids:    b.rec.Column(0).(*array.Int64),
			values: b.rec.Column(2).(*array.Float64),
		})
	}
	c.release()
	c = nil
	// Wait for the cleanups: every tracked object but the kept arrays is
	// unreachable, so the count falls to 2*len(keep) (without the arrays'
	// counts: to 0, and the segment is unmapped).
	want := int64(2 * len(keep))
	if !tracked {
		want = 0
	}
	deadline := time.Now().Add(20 * time.Second)
	for n := r.refs.Load(); n != want && n != 0; n = r.refs.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("cleanups did not run: %d counts for %d arrays", n, want)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := r.refs.Load(); got != want {
		t.Errorf("%d counts left for %d kept arrays, want %d; reading them", got, 2*len(keep), want)
	}
	for _, k := range keep {
		for j := 0; j < k.n; j++ {
			id := k.first + int64(j)
			if got := k.ids.Value(j); got != id {
				t.Fatalf("batch at %d row %d: id %d", k.first, j, got)
			}
			if got := k.values.Value(j); got != float64(id)*1.5 {
				t.Fatalf("batch at %d row %d: value %v", k.first, j, got)
			}
		}
		if len(k.ids.Int64Values()) != k.n {
			t.Fatalf("batch at %d: %d values", k.first, len(k.ids.Int64Values()))
		}
	}
	// Once the arrays go, so does the mapping.
	keep = nil
	for r.refs.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("segment still mapped (%d counts) after every array was collected", r.refs.Load())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestMappingTracksChildArrays: every array object reachable from a
// recovered column is tracked: extension storage, list values, struct
// fields, dictionary indices and values, map keys and items.
func TestMappingTracksChildArrays(t *testing.T) {
	mem := memory.DefaultAllocator
	lb := array.NewListBuilder(mem, arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String}))
	defer lb.Release()
	sb := lb.ValueBuilder().(*array.StructBuilder)
	lb.Append(true)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int64Builder).Append(1)
	sb.FieldBuilder(1).(*array.StringBuilder).Append("x")
	list := lb.NewArray()
	defer list.Release()

	ub := extensions.NewUUIDBuilder(mem)
	defer ub.Release()
	ub.Append(uuid.New())
	ext := ub.NewArray()
	defer ext.Release()

	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String})
	defer db.Release()
	if err := db.(*array.BinaryDictionaryBuilder).AppendString("y"); err != nil {
		t.Fatal(err)
	}
	dict := db.NewArray()
	defer dict.Release()

	mb := array.NewMapBuilder(mem, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, false)
	defer mb.Release()
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append("k")
	mb.ItemBuilder().(*array.Int64Builder).Append(1)
	mp := mb.NewArray()
	defer mp.Release()

	// A real (anonymous) mapping: the region unmaps it when done.
	anon, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	m := newMapping(anon)
	r := m.r
	for _, c := range []struct {
		a    arrow.Array
		want int64
	}{
		{list, 4}, // list, struct, int64, string
		{ext, 2},  // uuid, fixed_size_binary storage
		{dict, 3}, // dictionary, int8 indices, string values
		{mp, 6},   // map, entries struct, its key and item fields, keys, items
	} {
		before := r.refs.Load()
		m.trackArray(c.a)
		if got := r.refs.Load() - before; got != c.want {
			t.Errorf("%s: %d objects tracked, want %d", c.a.DataType(), got, c.want)
		}
	}
	runtime.KeepAlive(m)
}
