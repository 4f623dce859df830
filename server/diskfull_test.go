package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bsdb/bsdb-pg/planner"
)

// A full disk is PostgreSQL's 53100 with its wording, the file named
// relative to the data directory (or the WAL directory, or by its base
// name), never by a server path, whatever wraps the system error.
func TestDiskFullErrorText(t *testing.T) {
	ts := startServerConfig(t, planner.Config{WALDir: filepath.Join(t.TempDir(), "walroot")}, func(*Backend) {})
	data, walDir := ts.eng.Config().DataDir, ts.eng.Config().WALDir
	wrap := func(err error) error {
		return fmt.Errorf("txn: write to postgres/public/t: %w", fmt.Errorf("wal: segment failed: %w", err))
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{wrap(&fs.PathError{Op: "write", Path: filepath.Join(data, "warehouse/postgres/public/t/_wal/log_1.arrow"), Err: syscall.ENOSPC}),
			`could not extend file "warehouse/postgres/public/t/_wal/log_1.arrow": No space left on device`},
		{wrap(&fs.PathError{Op: "fallocate", Path: filepath.Join(walDir, "postgres/public/t/log_2.arrow"), Err: syscall.ENOSPC}),
			`could not extend file "postgres/public/t/log_2.arrow": No space left on device`},
		{wrap(&fs.PathError{Op: "open", Path: "/elsewhere/secret/dir/x.parquet", Err: syscall.ENOSPC}),
			`could not create file "x.parquet": No space left on device`},
		{wrap(&fs.PathError{Op: "mkdir", Path: filepath.Join(data, "warehouse/db"), Err: syscall.EDQUOT}),
			`could not create directory "warehouse/db": Disk quota exceeded`},
		{wrap(&os.LinkError{Op: "rename", Old: filepath.Join(data, "a"), New: filepath.Join(data, "b"), Err: syscall.ENOSPC}),
			`could not rename file "a" to "b": No space left on device`},
		{errors.New(`IO Error: Could not write file "` + filepath.Join(data, "duckdb_tmp/spill_1.tmp") + `": No space left on device`),
			`could not write to file "duckdb_tmp/spill_1.tmp": No space left on device`},
	} {
		e := ts.b.diskFullError(c.err)
		if e == nil {
			t.Errorf("%v: not a full disk", c.err)
			continue
		}
		if e.Code != "53100" || e.Message != c.want || e.Hint != "Check free disk space." {
			t.Errorf("%v:\n got %s %q (hint %q)\nwant 53100 %q", c.err, e.Code, e.Message, e.Hint, c.want)
		}
	}
	if e := ts.b.diskFullError(wrap(&fs.PathError{Op: "write", Path: "/x", Err: syscall.EIO})); e != nil {
		t.Errorf("EIO reported as a full disk: %v", e)
	}
}
