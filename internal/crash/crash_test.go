package crash

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestAbortDiesBySIGKILL: an armed point kills the process with SIGKILL
// (a crash test tells a crash from a clean exit by the signal).
func TestAbortDiesBySIGKILL(t *testing.T) {
	if os.Getenv("BSDB_CRASH_CHILD") == "1" {
		Point(CommitAfterManifest)
		os.Exit(0) // not reached when armed
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAbortDiesBySIGKILL$")
	cmd.Env = append(os.Environ(), "BSDB_CRASH_CHILD=1", "BSDB_CRASH_AT="+CommitAfterManifest)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child exited cleanly: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want death by SIGKILL", ee)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		n    int
		ok   bool
	}{
		{"commit-after-manifest", "commit-after-manifest", 1, true},
		{"wal-after-sync:3", "wal-after-sync", 3, true},
		{"wal-after-sync:0", "", 0, false},
		{"nope", "", 0, false},
	} {
		name, n, err := Parse(c.in)
		if (err == nil) != c.ok || name != c.name || n != c.n {
			t.Errorf("Parse(%q) = %q, %d, %v", c.in, name, n, err)
		}
	}
}
