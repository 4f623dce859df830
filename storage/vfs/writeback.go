package vfs

import "os"

// WritebackEvery is how many bytes a WritebackWriter lets accumulate before
// it starts their writeback.
const WritebackEvery = 4 << 20

// WritebackWriter writes sequentially to a file that will be fsynced when
// complete (a data file staged for the object store) and starts the
// writeback of every WritebackEvery bytes as they are written, so that the
// final fsync waits for the last few megabytes instead of the whole file
// (RocksDB's bytes_per_sync, PostgreSQL's backend_flush_after). It changes
// no durability guarantee: nothing is durable before the fsync.
type WritebackWriter struct {
	f       *os.File
	off     int64 // bytes written
	started int64 // bytes whose writeback was started
	failed  bool  // writeback hints failed once: stop asking
	hint    func(f *os.File, off, n int64) error
}

// NewWritebackWriter returns a writer of f, a new (empty) file.
func NewWritebackWriter(f *os.File) *WritebackWriter {
	return &WritebackWriter{f: f, hint: startWriteback}
}

// Write implements io.Writer.
func (w *WritebackWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.off += int64(n)
	if !w.failed && w.off-w.started >= WritebackEvery {
		// A hint only: on failure the fsync does all the work, as without it.
		if w.hint(w.f, w.started, w.off-w.started) != nil {
			w.failed = true
		}
		w.started = w.off
	}
	return n, err
}
