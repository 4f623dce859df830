package regress

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The PostgreSQL 15 runner's own mechanisms, without a server.

// lcsBrute is the textbook full-table LCS length.
func lcsBrute(a, b []int32) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				t[i][j] = t[i-1][j-1] + 1
			} else {
				t[i][j] = max(t[i-1][j], t[i][j-1])
			}
		}
	}
	return t[len(a)][len(b)]
}

func TestLCSAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func() []int32 {
		s := make([]int32, rng.Intn(30))
		for i := range s {
			s[i] = int32(rng.Intn(4))
		}
		return s
	}
	for i := 0; i < 3000; i++ {
		a, b := gen(), gen()
		want := lcsBrute(a, b)
		if got := lcsLen(a, b); got != want {
			t.Fatalf("lcsLen(%v, %v) = %d, want %d", a, b, got, want)
		}
		used := lcsMatchB(a, b)
		var sub []int32
		for j, u := range used {
			if u {
				sub = append(sub, b[j])
			}
		}
		if len(sub) != want {
			t.Fatalf("lcsMatchB(%v, %v) marks %d elements, want %d", a, b, len(sub), want)
		}
		// The marked elements of b must be a subsequence of a.
		k := 0
		for _, x := range a {
			if k < len(sub) && sub[k] == x {
				k++
			}
		}
		if k != len(sub) {
			t.Fatalf("lcsMatchB(%v, %v) marks %v, not a subsequence of a", a, b, sub)
		}
	}
}

func TestSplitLines(t *testing.T) {
	for in, want := range map[string][]string{
		"":         nil,
		"\n":       {""},
		"a":        {"a"},
		"a\n":      {"a"},
		"a\n\nb\n": {"a", "", "b"},
	} {
		if got := splitLines([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("splitLines(%q) = %q, want %q", in, got, want)
		}
	}
}

// A psql -a transcript: the echo (blank input lines are not echoed) is
// told apart from results, errors and notices.
func TestWithoutEcho(t *testing.T) {
	input := "-- a comment\nSELECT 1 AS x;\n\nSELECT 1/0;\nCOPY t FROM stdin;\n1\n2\n\\.\n"
	output := "-- a comment\nSELECT 1 AS x;\n x \n---\n 1\n(1 row)\n\nSELECT 1/0;\nERROR:  division by zero\nCOPY t FROM stdin;\n"
	dict := map[string]int32{"": 0}
	res := withoutEcho(lineTokens(splitLines([]byte(input)), dict), lineTokens(splitLines([]byte(output)), dict), 0)
	names := map[int32]string{}
	for s, id := range dict {
		names[id] = s
	}
	var got []string
	for _, id := range res {
		got = append(got, names[id])
	}
	want := []string{" x ", "---", " 1", "(1 row)", "", "ERROR:  division by zero"}
	if !slices.Equal(got, want) {
		t.Fatalf("result lines %q, want %q", got, want)
	}
}

func TestMeasurePG15(t *testing.T) {
	in := []byte("SELECT 'a';\nSELECT 'b';\n")
	exp := []byte("SELECT 'a';\n ?column? \n----------\n a\n(1 row)\n\nSELECT 'b';\n ?column? \n----------\n b\n(1 row)\n\n")
	alt := bytes.Replace(exp, []byte(" b\n"), []byte(" B\n"), 1)
	f := &pg15File{Name: "x", Input: in, Expected: map[string][]byte{"x.out": exp, "x_1.out": alt}}

	f.Output = alt
	if m := measurePG15(f); !m.Exact || m.Expected != "x_1.out" || m.Matched != 12 || m.Lines != 12 || m.ResultLines != 10 {
		t.Errorf("output equal to the alternative: %+v", m)
	}
	f.Output = bytes.Replace(exp, []byte(" a\n"), []byte(" z\n"), 1)
	if m := measurePG15(f); m.Exact || m.Expected != "x.out" || m.Matched != 11 || m.ResultMatched != 9 {
		t.Errorf("one line off: %+v", m)
	}
	// A server that answers nothing still gets psql's echo: the result
	// lines say what it produced.
	f.Output = []byte("SELECT 'a';\nERROR:  boom\nSELECT 'b';\nERROR:  boom\n")
	if m := measurePG15(f); m.Matched != 2 || m.ResultMatched != 0 {
		t.Errorf("errors only: %+v", m)
	}
}

func TestFirstChange(t *testing.T) {
	for _, c := range []struct{ hunk, want string }{
		{"@@ -32,6 +32,7 @@\n a\n b\n+ERROR:  boom\n c", "line 34: +ERROR:  boom"},
		{"@@ -1 +1 @@\n-x\n+y", "line 1: -x"},
		{"@@ -7,2 +7,2 @@\n ab\n-0123456789012345678901234", "line 8: -0123456789012345678..."},
		{"", ""},
	} {
		if got := firstChange(c.hunk, 20); got != c.want {
			t.Errorf("firstChange(%q) = %q, want %q", c.hunk, got, c.want)
		}
	}
}

func TestFirstHunk(t *testing.T) {
	d := "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n+z\n@@ -9 +9 @@\n-q\n"
	if got := firstHunk(d, 16); got != "@@ -1,3 +1,3 @@\n x\n-y\n+z" {
		t.Errorf("firstHunk = %q", got)
	}
	if got := firstHunk(d, 2); got != "@@ -1,3 +1,3 @@\n x\n-y" {
		t.Errorf("firstHunk shortened = %q", got)
	}
}

// The schedule has every file in PostgreSQL's order, and the vendored copy
// holds exactly what these files need.
func TestPG15ScheduleAndFiles(t *testing.T) {
	order, err := pg15Schedule()
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != len(pg15Core)+len(pg15Setup) {
		t.Fatalf("schedule %v: want the %d core and %d setup files", order, len(pg15Core), len(pg15Setup))
	}
	pos := map[string]int{}
	for i, n := range order {
		pos[n] = i
	}
	for _, before := range [][2]string{
		{"test_setup", "boolean"}, {"create_misc", "join"}, {"create_index", "select"},
		{"create_aggregate", "aggregates"}, {"select", "join"}, {"window", "with"},
	} {
		if pos[before[0]] > pos[before[1]] {
			t.Errorf("%s runs after %s", before[0], before[1])
		}
	}
	sqls, _ := filepath.Glob(filepath.Join(pg15Dir, "sql", "*.sql"))
	var inputs []byte
	for _, p := range sqls {
		n := strings.TrimSuffix(filepath.Base(p), ".sql")
		if _, ok := pos[n]; !ok {
			t.Errorf("%s is vendored but not run", p)
		}
		b, _ := os.ReadFile(p)
		inputs = append(inputs, b...)
	}
	if len(sqls) != len(order) {
		t.Errorf("%d sql files for %d scheduled files", len(sqls), len(order))
	}
	outs, _ := filepath.Glob(filepath.Join(pg15Dir, "expected", "*.out"))
	alt := regexp.MustCompile(`^(.*?)(_[0-9])?\.out$`)
	for _, p := range outs {
		n := alt.FindStringSubmatch(filepath.Base(p))[1]
		if _, ok := pos[n]; !ok {
			t.Errorf("%s belongs to no scheduled file", p)
		}
	}
	datas, _ := filepath.Glob(filepath.Join(pg15Dir, "data", "*"))
	for _, p := range datas {
		if !bytes.Contains(inputs, []byte("/data/"+filepath.Base(p))) {
			t.Errorf("%s is read by no file", p)
		}
	}
	for _, p := range []string{"COPYRIGHT", "README.md", "parallel_schedule", "passing.txt", "floor.txt"} {
		if _, err := os.Stat(filepath.Join(pg15Dir, p)); err != nil {
			t.Error(err)
		}
	}
}

// Core files run byte for byte as vendored; every adaptation applies
// exactly once, and leaves no server-side COPY or C function in the setup.
func TestPG15Adaptations(t *testing.T) {
	for _, n := range pg15Core {
		f, err := loadPG15File(n, "/src")
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(filepath.Join(pg15Dir, "sql", n+".sql"))
		if !bytes.Equal(f.Input, orig) {
			t.Errorf("core file %s is modified", n)
		}
	}
	for n := range pg15Setup {
		f, err := loadPG15File(n, "/src")
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"FROM :'filename'", "LANGUAGE C"} {
			if bytes.Contains(f.Input, []byte(bad)) || bytes.Contains(f.Expected[n+".out"], []byte(bad)) {
				t.Errorf("%s still has %q after its adaptations", n, bad)
			}
		}
	}
	f, err := loadPG15File("test_setup", "/src")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(f.Input, []byte("\n\\copy onek FROM '/src/data/onek.data'\n")) {
		t.Error("test_setup: onek is not loaded with \\copy from abs_srcdir")
	}
	a := pg15Adaptations[0]
	if _, _, err := adaptPG15(a.File, "/src", []byte("nothing"), []byte(a.From)); err == nil {
		t.Error("an adaptation that does not apply to the input is not an error")
	}
	twice := []byte(a.From + "\n" + a.From)
	if _, _, err := adaptPG15(a.File, "/src", []byte(a.From), twice); err == nil {
		t.Error("an adaptation that applies twice to the expected output is not an error")
	}
}

func TestPG15EnvIsPinned(t *testing.T) {
	for k, v := range map[string]string{
		"PGDATABASE": "elsewhere", "PGOPTIONS": "-c extra_float_digits=0", "PGCLIENTENCODING": "LATIN1",
		"PGTZ": "Asia/Tokyo", "PGDATESTYLE": "ISO", "LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8",
		"LANGUAGE": "de", "PSQLRC": "/tmp/x", "LC_NUMERIC": "de_DE.UTF-8",
	} {
		t.Setenv(k, v)
	}
	env := pg15Env(pg15Conn{Host: "127.0.0.1", Port: "5", User: "u"}, "/s", "/b")
	for _, kv := range env {
		for _, leak := range []string{"PGDATABASE=", "PGCLIENTENCODING=", "LC_ALL=", "LANGUAGE=", "PSQLRC=", "LC_NUMERIC=", "PGTZ=Asia", "PGDATESTYLE=ISO", "PGOPTIONS=-c extra", "LANG=de"} {
			if strings.HasPrefix(kv, leak) {
				t.Errorf("psql environment inherits %s", kv)
			}
		}
	}
	for _, want := range []string{
		"PGTZ=America/Los_Angeles", "PGDATESTYLE=Postgres, MDY", "PGOPTIONS=-c intervalstyle=postgres_verbose",
		"LC_MESSAGES=C", "PGAPPNAME=pg_regress", "PG_ABS_SRCDIR=/s", "PG_ABS_BUILDDIR=/b",
		"PGHOST=127.0.0.1", "PGPORT=5", "PGUSER=u",
	} {
		if !slices.Contains(env, want) {
			t.Errorf("psql environment lacks %s", want)
		}
	}
}

func TestPG15Gate(t *testing.T) {
	dir := t.TempDir()
	passing, floor := filepath.Join(dir, "passing.txt"), filepath.Join(dir, "floor.txt")
	run := []pg15Measure{
		{Name: "a", Exact: true, Expected: "a.out", Lines: 10, Matched: 10},
		{Name: "b", Lines: 10, Matched: 7},
		{Name: "c", Lines: 10, Matched: 5},
	}
	if err := writePG15Gate(passing, floor, run); err != nil {
		t.Fatal(err)
	}
	g, err := readPG15Gate(passing, floor)
	if err != nil {
		t.Fatal(err)
	}
	if r, i := g.check(run); len(r)+len(i) != 0 {
		t.Fatalf("the run the gate was written from: regressions %q, improvements %q", r, i)
	}
	if g.Floor["b"] != 7-pg15Slack {
		t.Fatalf("floor of b is %d, want the matched lines minus %d", g.Floor["b"], pg15Slack)
	}
	// Down to the slack below the recorded run: neither a regression nor
	// an improvement; above the recorded run: an improvement.
	noise := slices.Clone(run)
	noise[1].Matched -= pg15Slack
	if r, i := g.check(noise); len(r)+len(i) != 0 {
		t.Fatalf("within the slack: regressions %q, improvements %q", r, i)
	}
	noise[2].Matched++
	if r, i := g.check(noise); len(r) != 0 || len(i) != 1 || !strings.Contains(i[0], "c: 6 matched lines, above its floor") {
		t.Fatalf("one line above the recorded run: regressions %q, improvements %q", r, i)
	}
	worse := []pg15Measure{
		{Name: "a", Expected: "a.out", Lines: 10, Matched: 10}, // no longer exact
		{Name: "b", Lines: 10, Matched: 7 - pg15Slack - 1},     // below its floor
		{Name: "c", Exact: true, Expected: "c_1.out", Lines: 10, Matched: 10},
		{Name: "d", Lines: 3, Matched: 1}, // new
	}
	r, i := g.check(worse)
	if len(r) != 2 || !strings.Contains(r[0], "a no longer matches") || !strings.Contains(r[1], fmt.Sprintf("b: %d matched lines, below its floor of %d", 7-pg15Slack-1, 7-pg15Slack)) {
		t.Errorf("regressions %q", r)
	}
	if len(i) != 3 || !strings.Contains(strings.Join(i, "\n"), "c now matches exactly") || !strings.Contains(strings.Join(i, "\n"), "d has no floor yet") {
		t.Errorf("improvements %q", i)
	}
	if r, _ := g.check(run[1:]); len(r) != 1 || !strings.Contains(r[0], "a is in passing.txt but was not run") {
		t.Errorf("a listed file that did not run: %q", r)
	}
	if err := os.WriteFile(floor, []byte("a ten\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readPG15Gate(passing, floor); err == nil {
		t.Error("a malformed floor.txt is accepted")
	}
}

func TestFrequentErrors(t *testing.T) {
	ms := []pg15Measure{
		{Name: "a", AddedErrors: addedErrors("@@ -1 +1 @@\n+ERROR:  relation \"x\" does not exist\n-ERROR:  expected\n+ERROR:  relation \"y\" does not exist\n")},
		{Name: "b", AddedErrors: []string{"ERROR:  VACUUM is not supported", `ERROR:  relation "z" does not exist`}},
	}
	got := frequentErrors(ms, 5)
	want := []string{
		"| 3 | a b | `ERROR: relation \"...\" does not exist` |",
		"| 1 | b | `ERROR: VACUUM is not supported` |",
	}
	if !slices.Equal(got, want) {
		t.Errorf("frequentErrors:\n%q\nwant\n%q", got, want)
	}
}
