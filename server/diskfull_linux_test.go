package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"

	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// mountTmpfs mounts a tmpfs of size bytes for the test, or skips it
// where mounting is not allowed.
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): the full-disk test needs one", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fillTo takes the tmpfs's free space down to about leave bytes with a
// filler file; free releases it.
type filler struct {
	t    *testing.T
	path string
}

func fillTo(t *testing.T, dir string, leave int64) *filler {
	t.Helper()
	f := &filler{t: t, path: filepath.Join(dir, "filler")}
	fd, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	avail, _, err := vfs.DiskSpace(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := fd.Stat()
	if grow := avail - leave; grow > 0 {
		if err := unix.Fallocate(int(fd.Fd()), 0, fi.Size(), grow); err != nil && !errors.Is(err, syscall.ENOSPC) {
			t.Fatal(err)
		}
	}
	return f
}

func (f *filler) free() {
	if err := os.Remove(f.path); err != nil {
		f.t.Fatal(err)
	}
}

// A real full disk (a small tmpfs): an INSERT that needs more than the
// free space fails with 53100 and PostgreSQL's text, naming no server
// path; a small INSERT with a few MB free works although a WAL segment's
// reservation (16 MB) does not fit; nothing acknowledged is lost; the
// server starts on a disk that is completely full and serves every row.
func TestDiskFullTmpfs(t *testing.T) {
	dir := mountTmpfs(t, 64<<20)
	data := filepath.Join(dir, "data")
	cfg := planner.Config{DataDir: data, FlushInterval: -1, NativeCacheBytes: 1 << 30, NativeCacheReserveBytes: 40 << 20}
	ts := startServerConfig(t, cfg, func(*Backend) {})
	ctx := context.Background()
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'one')")
	acked := 1
	// Committed: the next INSERT starts a new WAL segment.
	if err := ts.eng.FlushAll(ctx); err != nil {
		t.Fatal(err)
	}

	fill := fillTo(t, dir, 6<<20)
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (2, 'two')"); err != nil {
		t.Fatalf("one-row INSERT with 6 MB free: %v", err)
	}
	acked++
	fill.free()

	fill = fillTo(t, dir, 0)
	_, err := c.Exec(ctx, "INSERT INTO t SELECT i, repeat('x', 1000) FROM generate_series(3, 5000) i")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53100" {
		t.Fatalf("INSERT on a full disk: %v, want 53100", err)
	}
	if !strings.HasPrefix(pe.Message, `could not extend file "`) || !strings.HasSuffix(pe.Message, `": No space left on device`) ||
		strings.Contains(pe.Message, dir) || pe.Hint != "Check free disk space." {
		t.Fatalf("INSERT on a full disk: %q (hint %q), want PostgreSQL's text without a server path", pe.Message, pe.Hint)
	}
	t.Logf("full disk: ERROR %s: %s", pe.Code, pe.Message)
	count := func() int {
		t.Helper()
		got := queryStrings(t, c, "SELECT count(*) FROM t")
		n, _ := strconv.Atoi(got[0])
		return n
	}
	// A commit to Parquet on the full disk fails and loses nothing: the
	// rows stay buffered, and in the WAL.
	if err := ts.eng.FlushAll(ctx); err == nil {
		t.Log("the commit to Parquet fitted in the full disk")
	}
	if n := count(); n != acked {
		t.Fatalf("%d rows after a commit on the full disk, want the %d acknowledged", n, acked)
	}
	fill.free()
	mustExec(t, c, "INSERT INTO t SELECT i, repeat('x', 1000) FROM generate_series(3, 5000) i")
	acked += 4998
	if n := count(); n != acked {
		t.Fatalf("%d rows after the full disk, want the %d acknowledged", n, acked)
	}

	// A restart on a disk with no byte free: recovery writes nothing that
	// exists already, the server starts and answers.
	c.Close(ctx)
	ts.stop()
	fill = fillTo(t, dir, 0)
	ts2 := startServerConfig(t, cfg, func(*Backend) {})
	c = ts2.conn(t)
	if n := count(); n != acked {
		t.Fatalf("after a restart on a full disk: %d rows, want %d", n, acked)
	}
	fill.free()
	mustExec(t, c, "INSERT INTO t VALUES (0, 'after')")
	if n := count(); n != acked+1 {
		t.Fatalf("after space came back: %d rows, want %d", n, acked+1)
	}
}
