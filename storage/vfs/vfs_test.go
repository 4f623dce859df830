package vfs

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"testing"
)

func write(t *testing.T, f File, s string) {
	t.Helper()
	if _, err := f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, fsys FS, name string) string {
	t.Helper()
	f, err := fsys.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMemCrashClone: only synced data under synced directory entries
// survives a crash.
func TestMemCrashClone(t *testing.T) {
	m := NewMem()
	if err := m.MkdirAll("/d", 0o755); err != nil {
		t.Fatal(err)
	}
	a, _ := m.Create("/d/a")
	write(t, a, "hello")
	a.SyncData()
	write(t, a, " world") // not synced
	b, _ := m.Create("/d/b")
	write(t, b, "unsynced-entry")
	b.Sync()

	// Neither entry is durable before SyncDir.
	c := m.CrashClone()
	if names, _ := c.ReadDir("/d"); len(names) != 0 {
		t.Fatalf("entries before SyncDir survived: %v", names)
	}
	m.SyncDir("/d")
	c = m.CrashClone()
	if got := readAll(t, c, "/d/a"); got != "hello" {
		t.Fatalf("a after crash = %q, want only the synced prefix", got)
	}
	if got := readAll(t, c, "/d/b"); got != "unsynced-entry" {
		t.Fatalf("b = %q", got)
	}
	// Removal and rename are durable only after SyncDir.
	m.Remove("/d/b")
	m.Rename("/d/a", "/d/a2")
	c = m.CrashClone()
	if names, _ := c.ReadDir("/d"); len(names) != 2 || names[0] != "a" || names[1] != "b" {
		t.Fatalf("before SyncDir: %v", names)
	}
	m.SyncDir("/d")
	c = m.CrashClone()
	if names, _ := c.ReadDir("/d"); len(names) != 1 || names[0] != "a2" {
		t.Fatalf("after SyncDir: %v", names)
	}
	// The clone is independent of the original.
	f, _ := c.OpenReadWrite("/d/a2")
	write(t, f, "XXXXX")
	if got := readAll(t, m, "/d/a2"); got != "hello world" {
		t.Fatalf("original changed through the clone: %q", got)
	}
}

func TestCreateExclusive(t *testing.T) {
	for name, fsys := range map[string]FS{"mem": NewMem(), "os": Default} {
		dir := "/x"
		if name == "os" {
			dir = t.TempDir()
		} else {
			fsys.MkdirAll(dir, 0o755)
		}
		p := filepath.Join(dir, "f")
		f, err := fsys.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := fsys.Create(p); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("%s: second Create: %v, want ErrExist", name, err)
		}
		if _, err := fsys.Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: Open missing: %v", name, err)
		}
	}
}

// TestLock: a second Lock on the same name fails with ErrLocked until the
// first is released (flock is per open file description on the OS).
func TestLock(t *testing.T) {
	for name, fsys := range map[string]FS{"mem": NewMem(), "os": Default} {
		dir := "/"
		if name == "os" {
			dir = t.TempDir()
		}
		p := filepath.Join(dir, "l.lock")
		l1, err := fsys.Lock(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := fsys.Lock(p); !errors.Is(err, ErrLocked) {
			t.Fatalf("%s: second Lock: %v, want ErrLocked", name, err)
		}
		l1.Close()
		l2, err := fsys.Lock(p)
		if err != nil {
			t.Fatalf("%s: Lock after release: %v", name, err)
		}
		l2.Close()
	}
}

// TestFaulty: injected errors fail the chosen operation only, and a failed
// SyncData leaves the crash view unsynced.
func TestFaulty(t *testing.T) {
	m := NewMem()
	boom := errors.New("boom")
	f := NewFaulty(m, func(op Op, path string) error {
		if op == OpSyncData && filepath.Base(path) == "bad" {
			return boom
		}
		if op == OpRename {
			return boom
		}
		return nil
	})
	good, _ := f.Create("/good")
	bad, _ := f.Create("/bad")
	write(t, good, "g")
	write(t, bad, "b")
	if err := good.SyncData(); err != nil {
		t.Fatal(err)
	}
	if err := bad.SyncData(); !errors.Is(err, boom) {
		t.Fatalf("SyncData: %v", err)
	}
	if err := f.Rename("/good", "/g2"); !errors.Is(err, boom) {
		t.Fatalf("Rename: %v", err)
	}
	f.SyncDir("/")
	c := m.CrashClone()
	if got := readAll(t, c, "/good"); got != "g" {
		t.Fatalf("good = %q", got)
	}
	if got := readAll(t, c, "/bad"); got != "" {
		t.Fatalf("bad = %q after a failed sync; want nothing", got)
	}
	if OpSyncData.String() != "syncdata" || Op(200).String() != "op(200)" {
		t.Fatal("Op.String")
	}
}

func TestOSSyncData(t *testing.T) {
	dir := t.TempDir()
	f, err := Default.Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "data")
	if err := f.SyncData(); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := Default.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	names, err := Default.ReadDir(dir)
	if err != nil || len(names) != 1 || names[0] != "x" {
		t.Fatalf("ReadDir %v %v", names, err)
	}
}
