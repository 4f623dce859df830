package regress

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The runner's own mechanisms, without any server.

func TestDiffExpectedReportsMismatch(t *testing.T) {
	exp, err := os.ReadFile(filepath.Join("expected", "nulls.out"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if d, err := diffExpected(dir, "nulls", exp); err != nil || d != "" {
		t.Fatalf("identical output reported as different: %q %v", d, err)
	}
	bad := bytes.Replace(exp, []byte("(4 rows)"), []byte("(5 rows)"), 1)
	d, err := diffExpected(dir, "nulls", bad)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d, "-(4 rows)") || !strings.Contains(d, "+(5 rows)") {
		t.Fatalf("diff does not show the changed line:\n%s", d)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "nulls.out"))
	if err != nil || !bytes.Equal(saved, bad) {
		t.Fatalf("actual output not saved to the results dir: %v", err)
	}
}

func TestPsqlEnvIsPinned(t *testing.T) {
	t.Setenv("PGDATABASE", "elsewhere")
	t.Setenv("PGOPTIONS", "-c extra_float_digits=0")
	t.Setenv("PGCLIENTENCODING", "LATIN1")
	t.Setenv("PGTZ", "Asia/Tokyo")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("LANG", "de_DE.UTF-8")
	env := psqlEnv()
	for _, kv := range env {
		for _, leak := range []string{"PGDATABASE=", "PGOPTIONS=", "PGTZ=", "LANG=", "PGCLIENTENCODING=LATIN1", "LC_ALL=de_DE"} {
			if strings.HasPrefix(kv, leak) {
				t.Errorf("psql environment inherits %s", kv)
			}
		}
	}
	for _, want := range []string{"PGAPPNAME=pg_regress", "PGCLIENTENCODING=UTF8", "LC_ALL=C.UTF-8"} {
		if !slices.Contains(env, want) {
			t.Errorf("psql environment lacks %s", want)
		}
	}
}

// Every script has an expected file and vice versa, and every script pins
// the settings that change output.
func TestScriptsAreComplete(t *testing.T) {
	names := scripts(t)
	outs, _ := filepath.Glob(filepath.Join("expected", "*.out"))
	if len(outs) != len(names) {
		t.Errorf("%d scripts but %d expected files", len(names), len(outs))
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join("expected", name+".out")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		src, err := os.ReadFile(filepath.Join("sql", name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		for _, must := range []string{"SET client_min_messages = warning;", "SET TimeZone = 'UTC';", "SET DateStyle = 'ISO, MDY';", "SET extra_float_digits = 1;"} {
			if !bytes.Contains(src, []byte(must)) {
				t.Errorf("%s.sql does not pin %q", name, must)
			}
		}
		for _, banned := range []string{"now()", "random()", "current_timestamp", "clock_timestamp"} {
			if bytes.Contains(bytes.ToLower(src), []byte(banned)) {
				t.Errorf("%s.sql uses %s: output would not be deterministic", name, banned)
			}
		}
	}
}
