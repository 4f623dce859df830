package pgerr

import "testing"

func TestRedactPaths(t *testing.T) {
	for in, want := range map[string]string{
		`IO Error: Could not read file "/srv/bsdb-data/warehouse/postgres/public/t/data/0a1b.parquet": No such file`: `IO Error: Could not read file "0a1b.parquet": No such file`,
		"open /var/lib/bsdb/txlog.d/log: no space left on device":                                                    "open log: no space left on device",
		"No files found that match the pattern /data/warehouse/**/*.parquet":                                         "No files found that match the pattern *.parquet",
		"division by zero":                         "division by zero",
		"value 1/2 is not a path, nor is a/b/c":    "value 1/2 is not a path, nor is a/b/c",
		"/etc is one component and stays as it is": "/etc is one component and stays as it is",
	} {
		if got := RedactPaths(in); got != want {
			t.Errorf("RedactPaths(%q) = %q, want %q", in, got, want)
		}
	}
}
