package wal

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// Durability says when Append returns.
type Durability uint8

const (
	// DurabilitySync returns after an fdatasync covering the appended bytes.
	DurabilitySync Durability = iota
	// DurabilityAsync returns after the write; a background worker syncs.
	DurabilityAsync
)

func (d Durability) String() string {
	switch d {
	case DurabilitySync:
		return "sync"
	case DurabilityAsync:
		return "async"
	}
	return fmt.Sprintf("Durability(%d)", uint8(d))
}

// ParseDurability parses "sync" or "async" (case-insensitive).
func ParseDurability(s string) (Durability, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "sync":
		return DurabilitySync, nil
	case "async":
		return DurabilityAsync, nil
	}
	return 0, fmt.Errorf("wal: unknown durability %q (want sync or async)", s)
}

// Defaults.
const (
	DefaultSyncBatchSize = 10
	DefaultSyncInterval  = 100 * time.Millisecond
	DefaultCompactBytes  = 64 << 20
	DefaultPreallocate   = 16 << 20
	// slowSync is the fdatasync latency above which a warning is logged.
	slowSync = time.Second
)

// Options configure a WAL.
type Options struct {
	Dir    string        // segment directory, created if missing
	FS     vfs.FS        // nil = vfs.Default
	Schema *arrow.Schema // the table schema of appended batches (required)

	// DurabilityAsync: sync every SyncBatchSize batches or SyncInterval.
	SyncBatchSize int
	SyncInterval  time.Duration
	// CompactBytes: a recovered segment larger than this is rewritten with
	// only its uncommitted transactions.
	CompactBytes int64
	// Preallocate reserves this many bytes (fallocate) when a segment is
	// created and again whenever appends reach the end of the reservation,
	// so that appends overwrite allocated space and the fdatasync of a
	// commit carries no file-size change (a metadata journal commit): the
	// same reason PostgreSQL preallocates its 16 MB WAL segments. Sealing
	// truncates a segment to its stream. 0 = DefaultPreallocate, negative
	// = off. Recovery reads the zeros after the last frame as the end of
	// the segment (see reader.go for torn writes into allocated space). On
	// a disk without room for the reservation, appends go on without one
	// (nospace.go).
	Preallocate int64
	// UnsafeNoSync skips every fdatasync and directory sync: acknowledged
	// data can be lost by a crash. For tests only.
	UnsafeNoSync bool
	// NoMmap makes recovery read segments into the heap instead of mapping
	// them (see mmap.go).
	NoMmap bool
	Logger *slog.Logger // nil = discard
}

func (o Options) withDefaults() (Options, error) {
	if o.Dir == "" {
		return o, errors.New("wal: Options.Dir is empty")
	}
	if o.Schema == nil {
		return o, errors.New("wal: Options.Schema is nil")
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.Preallocate == 0 {
		o.Preallocate = DefaultPreallocate
	}
	if o.SyncBatchSize <= 0 {
		o.SyncBatchSize = DefaultSyncBatchSize
	}
	if o.SyncInterval <= 0 {
		o.SyncInterval = DefaultSyncInterval
	}
	if o.CompactBytes <= 0 {
		o.CompactBytes = DefaultCompactBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o, nil
}
