package clients

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvNodeModules names the node_modules directory holding pg and
// pg-copy-streams (.ci/run installs them there). Default:
// $HOME/.cache/bsdb-clients/node/node_modules.
const EnvNodeModules = "BSDB_NODE_MODULES"

func nodeModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(EnvNodeModules)
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "bsdb-clients", "node", "node_modules")
	}
	for _, m := range []string{"pg", "pg-copy-streams"} {
		if _, err := os.Stat(filepath.Join(dir, m, "package.json")); err != nil {
			missing(t, "npm package "+m+" (in "+dir+"; npm install pg pg-copy-streams there)", err)
		}
	}
	return dir
}

// TestNodePostgres: node-postgres parameterized queries (unnamed and named
// statements), type round trips with NULL and the type OIDs it sees, and
// COPY both ways through pg-copy-streams.
func TestNodePostgres(t *testing.T) {
	node := need(t, "node")
	mods := nodeModules(t)
	s := startServer(t)
	execSQL(t, s.url("postgres"), fixture[:len(fixture)-1]...)
	if _, err := exec.LookPath(node); err != nil {
		t.Fatal(err)
	}
	got := runCmd(t, []string{"NODE_PATH=" + mods}, "", node, "testdata/node_check.js", s.url("postgres"))
	want := `row: {"id":"1","label":"héllo","flag":true,"d":"2024-02-29","f8":2.5,"i2":-3,"c":"ab ","b":[0,255],"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","j":{"k":[1,2]}}
row: {"id":"2","label":null,"flag":null,"d":null,"f8":null,"i2":null,"c":null,"b":null,"u":null,"j":null}
types: id=20 label=25 flag=16 d=25 f8=701 i2=21 c=1042 b=17 u=2950 j=3802
count: 1 1
copy: "50\tnode\t5.50\n51\tnull v\t\\N\n"
`
	if got != want {
		t.Errorf("node-postgres:\n%s", lineDiff(got, want))
	}
}
