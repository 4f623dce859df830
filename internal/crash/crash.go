// Package crash holds the named crash points of bsdb-pg.
//
// A crash point is a place in the write or commit path where a test may ask the
// process to die abruptly, exactly there, to prove that recovery from that state
// is correct. Points are compiled into every build and are inert unless armed:
//
//	BSDB_CRASH_AT=<point>[:<nth>]
//
// arms one point; the process dies (SIGKILL, no deferred functions, no flush)
// the nth time (default 1) execution reaches it. The environment is read once,
// at process start. Tests inside one process use Arm/Disarm instead; a crash
// armed that way panics with *Crash rather than killing the test binary when a
// Handler is set (see SetHandler).
//
// The catalogue of points lives in points.go; every point a package calls must
// be listed there so that the crash tests can iterate over all of them.
package crash

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	mu      sync.Mutex
	armed   string // point name, "" when disarmed
	nth     int64  // abort on this hit (1-based)
	hits    atomic.Int64
	active  atomic.Bool
	handler func(point string)
)

func init() {
	if v := os.Getenv("BSDB_CRASH_AT"); v != "" {
		name, n, err := Parse(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bsdb-pg: ignoring BSDB_CRASH_AT: %v\n", err)
			return
		}
		Arm(name, n)
	}
}

// Parse parses "<point>[:<nth>]".
func Parse(v string) (name string, n int, err error) {
	name, rest, found := strings.Cut(v, ":")
	n = 1
	if found {
		n, err = strconv.Atoi(rest)
		if err != nil || n < 1 {
			return "", 0, fmt.Errorf("bad hit count in %q", v)
		}
	}
	if !Known(name) {
		return "", 0, fmt.Errorf("unknown crash point %q", name)
	}
	return name, n, nil
}

// Arm arms the named point to fire on its nth hit.
func Arm(name string, n int) {
	mu.Lock()
	defer mu.Unlock()
	armed, nth = name, int64(n)
	hits.Store(0)
	active.Store(true)
}

// Disarm disarms every point.
func Disarm() {
	mu.Lock()
	defer mu.Unlock()
	armed = ""
	active.Store(false)
}

// SetHandler replaces the abort with fn (for in-process tests); nil restores
// the abort. fn typically panics with a sentinel the test recovers.
func SetHandler(fn func(point string)) {
	mu.Lock()
	defer mu.Unlock()
	handler = fn
}

// Point marks a crash point. It costs one atomic load when nothing is armed.
func Point(name string) {
	if !active.Load() {
		return
	}
	mu.Lock()
	if armed != name {
		mu.Unlock()
		return
	}
	if hits.Add(1) != nth {
		mu.Unlock()
		return
	}
	active.Store(false)
	h := handler
	mu.Unlock()
	if h != nil {
		h(name)
		return
	}
	abort(name)
}

func abort(name string) {
	fmt.Fprintf(os.Stderr, "bsdb-pg: crash point %s reached: aborting\n", name)
	// SIGKILL: the process dies at once, as a power cut or the OOM killer
	// ends it, with no handler, no deferred call and no flush. (SIGABRT
	// went through the Go runtime's crash handler, which with cgo threads
	// sometimes ended the process by SIGSEGV instead.)
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	// The signal is delivered asynchronously; never return into the caller.
	time.Sleep(time.Minute)
	os.Exit(137)
}
