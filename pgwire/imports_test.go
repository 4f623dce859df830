package pgwire

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps dependencies pointing down: pgwire may import the
// standard library (and golang.org/x/sys/unix, for poll), the pgproto3
// codec and the pgerr leaf package, never sql, planner, txn, wal or storage.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
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
			path, _ := strconv.Unquote(imp.Path.Value)
			first := strings.Split(path, "/")[0]
			switch {
			case !strings.Contains(first, "."): // standard library
			case path == "github.com/jackc/pgx/v5/pgproto3", path == "golang.org/x/sys/unix":
			case path == "github.com/bsdb/bsdb-pg/pgerr":
			default:
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}
