package crashtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/bsdb/bsdb-pg/wal"
)

// idBase makes the ids of the torn/corrupt tests easy to find in a
// segment: their little-endian bytes are distinctive.
const idBase = int64(0x5A5A3C3C00000000)

// walImage is a data directory left by a SIGKILL with five acknowledged,
// unflushed single-row INSERTs (ids idBase+1..idBase+5), each one WAL
// transaction of one frame, in one segment (preallocated: the file is
// longer than its stream). ends[i] is where the stream ended after the
// (i+1)th insert was acknowledged.
type walImage struct {
	dataDir  string
	segment  string // base name
	ends     []int64
	pristine string // a copy of dataDir as the SIGKILL left it
}

func makeWALImage(t *testing.T, ctx context.Context) walImage {
	t.Helper()
	s := testserver.Start(t, testserver.Options{Env: serverEnv(3600000)})
	c := connect(ctx, t, s.URL)
	if _, err := c.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	img := walImage{dataDir: s.DataDir}
	for i := int64(1); i <= 5; i++ {
		if _, err := c.Exec(ctx, "INSERT INTO ct VALUES ($1, 1, 'torn')", idBase+i); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
		segs := walSegments(t, tableDir(s.DataDir))
		if len(segs) != 1 {
			t.Fatalf("after insert %d: %d WAL segments, want 1: %v", i, len(segs), segs)
		}
		data, err := os.ReadFile(segs[0])
		if err != nil {
			t.Fatal(err)
		}
		// The segment is preallocated: its stream ends before the file.
		ends := wal.FrameEnds(data)
		if len(ends) != int(i)+1 {
			t.Fatalf("after insert %d: %d frames (schema + batches) in %s", i, len(ends), segs[0])
		}
		img.segment = filepath.Base(segs[0])
		img.ends = append(img.ends, ends[i])
	}
	s.Kill()
	img.pristine = filepath.Join(t.TempDir(), "pristine")
	if out, err := exec.Command("cp", "-a", img.dataDir, img.pristine).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return img
}

// restore puts the image back in place (Iceberg metadata holds absolute
// file URIs, so a table directory cannot be moved): the data directory is
// replaced by a copy of the pristine image, and its path is returned.
func (img walImage) restore(t *testing.T) string {
	t.Helper()
	if err := os.RemoveAll(img.dataDir); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", img.pristine, img.dataDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return img.dataDir
}

func (img walImage) segPath(dataDir string) string {
	return filepath.Join(tableDir(dataDir), "_wal", img.segment)
}

// TestTornWALTail: the last segment cut anywhere inside its final frame
// still opens: the four complete transactions are there, the fifth (its
// frame torn) is not, and a warning names the torn tail. Cut exactly at the
// frame boundary, the four are there too. -alloffsets tries every byte.
func TestTornWALTail(t *testing.T) {
	ctx := testCtx(t, 4*time.Minute)
	img := makeWALImage(t, ctx)
	start, end := img.ends[3], img.ends[4]
	if end-start < 16 {
		t.Fatalf("final frame [%d,%d) too small", start, end)
	}
	offsets := []int64{start, start + 1, start + 4, start + 8, start + 9, (start + end) / 2, end - 8, end - 1}
	if *flagAllOff {
		offsets = offsets[:0]
		for o := start; o < end; o++ {
			offsets = append(offsets, o)
		}
	}
	// A cut is a truncation (a filesystem without preallocation), or, in
	// the preallocated file, the final write's sectors from a sector
	// boundary on never persisted (zeros; sector writes are atomic).
	type cut struct {
		off  int64
		zero bool
	}
	var cuts []cut
	for _, off := range offsets {
		cuts = append(cuts, cut{off: off})
	}
	cuts = append(cuts, cut{off: start, zero: true})
	for s := (start + 512) &^ 511; s < end; s += 512 {
		cuts = append(cuts, cut{off: s, zero: true})
	}
	t.Logf("segment %s, final frame at [%d,%d), %d cuts", img.segment, start, end, len(cuts))
	for _, ct := range cuts {
		off := ct.off
		dir := img.restore(t)
		if ct.zero {
			zeroFrom(t, img.segPath(dir), off)
		} else if err := os.Truncate(img.segPath(dir), off); err != nil {
			t.Fatal(err)
		}
		s := testserver.Start(t, testserver.Options{DataDir: dir, Env: serverEnv(3600000)})
		c := connect(ctx, t, s.URL)
		got, err := readIDs(ctx, c)
		if err != nil {
			t.Errorf("cut at %d: table unreadable: %v", off, err)
		} else {
			var ids []int64
			for id, n := range got {
				if n != 1 {
					t.Errorf("cut at %d: id %d present %d times", off, id, n)
				}
				ids = append(ids, id-idBase)
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
			if len(ids) != 4 || ids[0] != 1 || ids[3] != 4 {
				t.Errorf("cut at %d: rows %v, want exactly 1..4", off, ids)
			}
		}
		c.Close(ctx)
		if err := s.Stop(); err != nil {
			t.Errorf("cut at %d: stop: %v", off, err)
		}
		if off > start && !strings.Contains(s.Output(), "torn tail") {
			t.Errorf("cut at %d (zeroed %v): no torn-tail warning in the server log", off, ct.zero)
		}
	}
}

// zeroFrom overwrites the file with zeros from off to its end.
func zeroFrom(t *testing.T, path string, off int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clear(data[off:])
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptWALMiddle: a flipped byte in a value of the third of five
// frames is corruption, not a torn tail: the server refuses the table with
// an error naming the segment and the offset (to the client, through the
// wire, and in its log), and changes nothing on disk.
func TestCorruptWALMiddle(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	img := makeWALImage(t, ctx)
	dir := img.restore(t)
	seg := img.segPath(dir)
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	var needle [8]byte
	binary.LittleEndian.PutUint64(needle[:], uint64(idBase+3))
	at := bytes.Index(data, needle[:])
	if at < 0 || int64(at) < img.ends[1] || int64(at) >= img.ends[2] {
		t.Fatalf("id 3 not found inside the third frame [%d,%d) (found at %d)", img.ends[1], img.ends[2], at)
	}
	data[at] ^= 0xFF // the low byte of the id value
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := sha256.Sum256(data)
	listBefore := listDir(t, filepath.Dir(seg))

	s := testserver.Start(t, testserver.Options{DataDir: dir, Env: serverEnv(3600000)})
	c := connect(ctx, t, s.URL)
	_, err = readIDs(ctx, c)
	if err == nil {
		t.Fatalf("SELECT on a table with a corrupt WAL segment succeeded")
	}
	msg := err.Error()
	t.Logf("client sees: %s", msg)
	if !strings.Contains(msg, img.segment) || !strings.Contains(msg, "offset") {
		t.Errorf("client error does not name segment %s and an offset: %s", img.segment, msg)
	}
	// A write is refused too: nothing may be appended behind corruption.
	if _, err := c.Exec(ctx, "INSERT INTO ct VALUES (1, 1, 'x')"); err == nil {
		t.Errorf("INSERT into a table with a corrupt WAL segment succeeded")
	}
	c.Close(ctx)
	if err := s.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if out := s.Output(); !strings.Contains(out, img.segment) || !strings.Contains(out, "corrupt") {
		t.Errorf("server log does not report the corrupt segment %s", img.segment)
	}
	after, err := os.ReadFile(seg)
	if err != nil {
		t.Fatalf("segment gone after the refused open: %v", err)
	}
	if sha256.Sum256(after) != before {
		t.Errorf("the corrupt segment was rewritten")
	}
	if listAfter := listDir(t, filepath.Dir(seg)); strings.Join(listAfter, ",") != strings.Join(listBefore, ",") {
		t.Errorf("WAL directory changed: before %v, after %v", listBefore, listAfter)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".lock") { // lock files come and go with processes
			out = append(out, e.Name())
		}
	}
	return out
}

// TestWALPreallocateSetting: BSDB_WAL_PREALLOCATE_MB sets the space reserved
// ahead of the active segment's stream; 0 turns preallocation off (the file
// is exactly its stream).
func TestWALPreallocateSetting(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	for _, c := range []struct {
		mb   string
		want func(stream int64) int64
	}{
		{"2", func(int64) int64 { return 2 << 20 }},
		{"0", func(stream int64) int64 { return stream }},
	} {
		s := testserver.Start(t, testserver.Options{Env: serverEnv(3600000, "BSDB_WAL_PREALLOCATE_MB="+c.mb)})
		conn := connect(ctx, t, s.URL)
		if _, err := conn.Exec(ctx, createTable); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO ct VALUES (1, 1, 'x')"); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
		segs := walSegments(t, tableDir(s.DataDir))
		if len(segs) != 1 {
			t.Fatalf("%d WAL segments: %v", len(segs), segs)
		}
		data, err := os.ReadFile(segs[0])
		if err != nil {
			t.Fatal(err)
		}
		ends := wal.FrameEnds(data)
		stream := ends[len(ends)-1]
		if got, want := int64(len(data)), c.want(stream); got != want {
			t.Errorf("BSDB_WAL_PREALLOCATE_MB=%s: segment file %d bytes for a %d-byte stream, want %d", c.mb, got, stream, want)
		}
		s.Kill()
	}
}
