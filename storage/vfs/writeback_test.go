package vfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWritebackWriter: the file gets exactly the bytes written, and the
// writeback of every WritebackEvery bytes is started once, in order, without
// gaps or overlaps; a failing hint stops the hints, not the writes.
func TestWritebackWriter(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "staged"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWritebackWriter(f)
	type rng struct{ off, n int64 }
	var hints []rng
	w.hint = func(hf *os.File, off, n int64) error {
		if hf != f {
			t.Errorf("hint on another file")
		}
		hints = append(hints, rng{off, n})
		return startWriteback(hf, off, n) // the real call must accept the range too
	}
	var want bytes.Buffer
	chunk := make([]byte, 1<<20+123)
	for i := range 10 {
		for j := range chunk {
			chunk[j] = byte(i + j)
		}
		n, err := w.Write(chunk)
		if err != nil || n != len(chunk) {
			t.Fatalf("Write: %d, %v", n, err)
		}
		want.Write(chunk)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the file's content differs from the bytes written")
	}
	if len(hints) != 2 {
		t.Fatalf("%d writeback hints for %d bytes, want 2: %v", len(hints), want.Len(), hints)
	}
	var next int64
	for _, h := range hints {
		if h.off != next || h.n < WritebackEvery {
			t.Fatalf("hints %v: not contiguous blocks of at least %d bytes", hints, WritebackEvery)
		}
		next = h.off + h.n
	}

	w.hint = func(*os.File, int64, int64) error { hints = append(hints, rng{}); return errors.New("EIO") }
	hints = nil
	for range 10 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if len(hints) != 1 {
		t.Fatalf("%d hints after a failed one, want 1 (it stops asking)", len(hints))
	}
}
