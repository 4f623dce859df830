package wal

import (
	"errors"
	"fmt"
)

// CorruptionError reports damage in a segment that recovery refuses to
// repair on its own: anything but a torn tail. Nothing on disk is changed
// when Open returns it; an operator decides.
type CorruptionError struct {
	Segment string // segment file name (base name)
	Offset  int64  // byte offset of the damaged frame in the segment
	Err     error
}

func (e *CorruptionError) Error() string {
	return fmt.Sprintf("wal: corrupt segment %s at offset %d: %v", e.Segment, e.Offset, e.Err)
}

func (e *CorruptionError) Unwrap() error { return e.Err }

// Classes of corruption, wrapped in CorruptionError.Err (test with errors.Is).
var (
	ErrBadMagic       = errors.New("bad continuation marker")
	ErrBadLength      = errors.New("length out of range")
	ErrBadFrame       = errors.New("undecodable frame")
	ErrChecksum       = errors.New("checksum mismatch")
	ErrBadTransaction = errors.New("transaction framing broken")
)

// Errors returned by the WAL.
var (
	ErrClosed = errors.New("wal: closed")
	// ErrSegmentFailed wraps the error that made the active segment
	// unusable (a failed write or sync); the WAL moves to a new segment.
	ErrSegmentFailed = errors.New("wal: segment failed")
)
