package server

import (
	"fmt"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// The expectations are PostgreSQL 15's (pg_split_opts, ParseLongOption,
// process_postgres_switches); regress/TestStartupOptionsPsql compares the
// whole connection with a real PostgreSQL.
func TestParseStartupOptions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // fmt of the pairs, or "ERR code: message"
	}{
		{"", "[]"},
		{"   ", "[]"},
		{"-c search_path=s1", "[[search_path s1]]"},
		{"-csearch_path=s1", "[[search_path s1]]"},
		{"  -c   a.b=1\t--synchronous-commit=off ", "[[a.b 1] [synchronous_commit off]]"},
		{`-c search_path=s1,\ public`, "[[search_path s1, public]]"},
		{`-c application_name=a\\b`, `[[application_name a\b]]`},
		{"-c x=y=z", "[[x y=z]]"},
		{"-c x=", "[[x ]]"},
		{"-e -c DateStyle=German", "[[DateStyle euro] [DateStyle German]]"},
		{"-- ", "[]"},
		{"-c", "ERR 42601: invalid command-line argument for server process: -c"},
		{"foo", "ERR 42601: invalid command-line argument for server process: foo"},
		{"-x", "ERR 42601: invalid command-line argument for server process: -x"},
		{"-c a=1 -- b", "ERR 42601: invalid command-line argument for server process: b"},
		{"-c noequals", "ERR 42601: -c noequals requires a value"},
		{"--no-equals", "ERR 42601: --no-equals requires a value"},
		{"-B 100", "ERR 0A000: command-line option -B in the startup packet is not supported"},
	} {
		pairs, err := parseStartupOptions(c.in)
		got := fmt.Sprint(pairs)
		if pairs == nil && err == nil {
			got = "[]"
		}
		if err != nil {
			pe, _ := pgerr.As(err)
			got = fmt.Sprintf("ERR %s: %s", pe.Code, pe.Message)
		}
		if got != c.want {
			t.Errorf("parseStartupOptions(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// applyStartupSettings: options first, then the packet's own parameters
// (which win); errors are FATAL.
func TestApplyStartupSettings(t *testing.T) {
	set := newSettings("u", nil)
	err := applyStartupSettings(set, map[string]string{
		"user": "u", "database": "d",
		"options":          "-c application_name=opt -c synchronous_commit=off --search-path=s1",
		"application_name": "explicit",
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"application_name": "explicit", "synchronous_commit": "off", "search_path": "s1"} {
		if got, _, _ := set.get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	err = applyStartupSettings(newSettings("u", nil), map[string]string{"options": "-c nosuch=1"})
	pe, ok := pgerr.As(err)
	if !ok || pe.Severity != pgerr.SeverityFatal || pe.Code != pgerr.UndefinedObject || pe.Message != `unrecognized configuration parameter "nosuch"` {
		t.Errorf("-c nosuch=1: %#v, want FATAL 42704", err)
	}
}
