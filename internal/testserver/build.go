package testserver

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BuildTags are the build tags the server binary is compiled with.
const BuildTags = "duckdb_arrow"

// MainPackage is the import path (relative to the module root) of the server.
const MainPackage = "./cmd/bsdb-pg"

var build struct {
	once sync.Once
	path string
	dir  string // temporary directory holding the built binary; "" if prebuilt
	err  error
}

// Build compiles the server once per test binary and returns the path of the
// executable. With BSDB_TEST_BINARY set, it returns that path instead
// (after checking it exists). A build failure is t.Fatal, with the compiler
// output, for this and every later caller.
func Build(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		build.path, build.dir, build.err = buildBinary()
	})
	if build.err != nil {
		t.Fatalf("testserver: %v", build.err)
	}
	return build.path
}

func buildBinary() (path, dir string, err error) {
	if p := os.Getenv("BSDB_TEST_BINARY"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", "", fmt.Errorf("BSDB_TEST_BINARY: %w", err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", "", fmt.Errorf("BSDB_TEST_BINARY: %w", err)
		}
		return abs, "", nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", "", err
	}
	dir, err = os.MkdirTemp("", "bsdb-pg-testserver-")
	if err != nil {
		return "", "", fmt.Errorf("build dir: %w", err)
	}
	path = filepath.Join(dir, "bsdb-pg")
	cmd := exec.Command("go", "build", "-tags", BuildTags, "-o", path, MainPackage)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("go build %s in %s: %w\n%s", MainPackage, root, err, out.String())
	}
	return path, dir, nil
}

// ModuleRoot returns the directory holding the go.mod of the module the
// current directory belongs to (a test runs in its package directory).
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("go env GOMOD: not inside a module")
	}
	return filepath.Dir(gomod), nil
}

// Cleanup removes the directory Build compiled into. Call it after m.Run in
// TestMain (Main does). It is a no-op when nothing was built.
func Cleanup() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}

// Main is a TestMain body: it runs the tests, removes the built binary and
// exits with the tests' code.
//
//	func TestMain(m *testing.M) { testserver.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
