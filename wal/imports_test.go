package wal

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestImports keeps dependencies pointing down: wal knows nothing of the
// commit state machine, SQL or the wire.
func TestImports(t *testing.T) {
	forbidden := []string{"/txn", "/sql", "/pgwire", "/planner", "/cmd/"}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(p, "github.com/bsdb/bsdb-pg/") {
				continue
			}
			for _, bad := range forbidden {
				if strings.Contains(p, bad) {
					t.Errorf("%s imports %s", n, p)
				}
			}
		}
	}
}
