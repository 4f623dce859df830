package wal

import (
	"errors"
	"log/slog"
	"syscall"
)

// A full disk. A segment's reservation (Options.Preallocate) is what makes
// its fdatasyncs cheap, not what makes it correct: when fallocate fails for
// want of space, the segment goes on with plain appends, which need only
// their own bytes, and the next segment tries to reserve again. Appends
// that do not fit fail with the error wrapped (errors.Is(err,
// syscall.ENOSPC)), so that callers can report a full disk as such.

// isNoSpace reports whether err is the file system's "no space left" (or
// "quota exceeded", which PostgreSQL reports alike).
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// noSpace notes that a reservation failed for want of space; logged once
// until a reservation succeeds again.
func (w *WAL) noSpace(segment string, err error) {
	if w.lowSpace.CompareAndSwap(false, true) {
		w.opts.Logger.Warn("wal: no space to preallocate segments; appending without a reservation until there is",
			slog.String("segment", segment), slog.Any("err", err))
	}
}

// spaceBack notes a successful reservation.
func (w *WAL) spaceBack() {
	if w.lowSpace.CompareAndSwap(true, false) {
		w.opts.Logger.Info("wal: preallocating segments again")
	}
}
