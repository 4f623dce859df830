package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// A full disk, as PostgreSQL reports it: SQLSTATE 53100 (disk_full), the
// file that could not grow named relative to the data directory, and the
// system's text of the error, e.g.
//
//	ERROR:  could not extend file "warehouse/postgres/public/t/_wal/log_...arrow": No space left on device
//	HINT:  Check free disk space.
//
// (PostgreSQL: could not extend file "base/16384/16385": ...). A server
// path never reaches the client: paths outside the data directory, the
// warehouse and the WAL directory are reduced to their base name.
// Nothing acknowledged is lost: a write that fails this way was not
// acknowledged, and commits to Parquet that fail are retried while their
// rows stay in the WAL.

// codeDiskFull is SQLSTATE disk_full.
const codeDiskFull = "53100"

// diskFullError returns the 53100 error for err, or nil if err is not a
// full disk (ENOSPC, or EDQUOT, which PostgreSQL reports alike).
func (b *Backend) diskFullError(err error) *pgerr.Error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, syscall.ENOSPC):
		errno = syscall.ENOSPC
	case errors.Is(err, syscall.EDQUOT):
		errno = syscall.EDQUOT
	default:
		return b.duckDiskFull(err)
	}
	sys := systemText(errno)
	var pe *fs.PathError
	var le *os.LinkError
	var msg string
	switch {
	case errors.As(err, &pe):
		msg = pathMessage(pe.Op, b.clientPath(pe.Path)) + ": " + sys
	case errors.As(err, &le):
		verb := "link"
		if le.Op == "rename" {
			verb = "rename"
		}
		msg = `could not ` + verb + ` file "` + b.clientPath(le.Old) + `" to "` + b.clientPath(le.New) + `": ` + sys
	default:
		msg = "could not write to file: " + sys
	}
	return &pgerr.Error{Code: codeDiskFull, Message: msg, Hint: "Check free disk space.", Err: err}
}

// pathMessage is PostgreSQL's wording for a failed operation on a file.
func pathMessage(op, path string) string {
	switch op {
	case "write", "writeat", "pwrite", "fallocate", "allocate", "truncate", "write-zeros", "copy_file_range", "sendfile":
		return `could not extend file "` + path + `"`
	case "open", "create":
		return `could not create file "` + path + `"`
	case "mkdir", "mkdirall":
		return `could not create directory "` + path + `"`
	case "sync", "fsync", "fdatasync", "syncdata", "syncdir":
		return `could not fsync file "` + path + `"`
	}
	return `could not write to file "` + path + `"`
}

// systemText is the C library's text of errno, as PostgreSQL's %m prints it.
func systemText(errno syscall.Errno) string {
	switch errno {
	case syscall.ENOSPC:
		return "No space left on device"
	case syscall.EDQUOT:
		return "Disk quota exceeded"
	}
	s := errno.Error()
	return strings.ToUpper(s[:1]) + s[1:]
}

// duckPath is a quoted path in a DuckDB error ("Could not write file
// "/x/y": No space left on device").
var duckPath = regexp.MustCompile(`"(/[^"]*)"`)

// duckDiskFull recognises DuckDB's own report of a full disk (spilling a
// large query to its temporary directory, say), which comes as text.
func (b *Backend) duckDiskFull(err error) *pgerr.Error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if !strings.Contains(strings.ToLower(text), "no space left on device") {
		return nil
	}
	path := "temporary file"
	if m := duckPath.FindStringSubmatch(text); m != nil {
		path = b.clientPath(m[1])
	}
	return &pgerr.Error{Code: codeDiskFull, Message: `could not write to file "` + path + `": No space left on device`,
		Hint: "Check free disk space.", Err: err}
}

// clientPath is p as the client may see it: relative to the data
// directory, the warehouse or the WAL directory, or only its base name.
func (b *Backend) clientPath(p string) string {
	if p == "" {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if b.Eng != nil {
		cfg := b.Eng.Config()
		for _, root := range []string{cfg.DataDir, cfg.Warehouse, cfg.WALDir} {
			if root == "" || strings.Contains(root, "://") {
				continue
			}
			abs, err := filepath.Abs(root)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(abs, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.Base(p)
}
