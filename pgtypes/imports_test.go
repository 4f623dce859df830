package pgtypes

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps pgtypes a leaf: the standard library, pgerr and
// storage/schema only (tests may use more).
func TestImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	allowed := map[string]bool{
		"github.com/bsdb/bsdb-pg/pgerr":          true,
		"github.com/bsdb/bsdb-pg/storage/schema": true,
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && !allowed[p] {
				t.Errorf("%s imports %s: pgtypes must stay a leaf package", f, p)
			}
		}
	}
}
