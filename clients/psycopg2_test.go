package clients

import (
	"os"
	"os/exec"
	"testing"
)

// python3 is the Debian interpreter (python3-psycopg2 is installed for it,
// not for a pyenv or venv python earlier in $PATH).
func debianPython(t *testing.T, module string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		py = need(t, "python3")
	}
	if out, err := exec.Command(py, "-c", "import "+module).CombinedOutput(); err != nil {
		missing(t, "python module "+module, &exec.Error{Name: string(out), Err: err})
	}
	return py
}

// TestPsycopg2: parameters, executemany, copy_expert both ways, type round
// trips (every common type and NULL, with the type OIDs psycopg2 sees) and
// rollback.
func TestPsycopg2(t *testing.T) {
	py := debianPython(t, "psycopg2")
	s := startServer(t)
	execSQL(t, s.url("postgres"), fixture[:len(fixture)-1]...) // without t's rows
	dsn := "host=127.0.0.1 port=" + s.port + " user=postgres dbname=postgres"
	got := runCmd(t, nil, "", py, "testdata/psycopg2_check.py", dsn)
	want := `row: [1, "it's", True, datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 12, 34, 56, 789000), 1.25, 0.5, -7, 'ab ', b'\x00\xff', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', {'k': [1, 2]}]
row: [2, None, None, None, None, None, None, None, None, None, None, None]
description: [('id', 20), ('label', 25), ('flag', 16), ('d', 1082), ('ts', 1114), ('f8', 701), ('f4', 700), ('i2', 21), ('c', 1042), ('b', 17), ('u', 2950), ('j', 3802)]
executemany: [(10, 'a', Decimal('1.25')), (11, 'b', None), (12, 'c', Decimal('99.99'))]
copy out: '20\tcopied\t2.50\n21\tnull v\t\\N\n'
after rollback: 0
`
	if got != want {
		t.Errorf("psycopg2:\n%s", lineDiff(got, want))
	}
	t.Run("named cursor", func(t *testing.T) {
		s := startServer(t)
		execSQL(t, s.url("postgres"), fixture[:len(fixture)-1]...)
		dsn := "host=127.0.0.1 port=" + s.port + " user=postgres dbname=postgres"
		out := runCmd(t, nil, "", py, "testdata/psycopg2_check.py", dsn, "named")
		for _, want := range []string{"named: [10, 11, 12, 20, 21]", "named hold: [20, 21]", "named scroll: [11, 20, 21]"} {
			if !contains(out, want) {
				t.Errorf("named cursor: got\n%s\nwant a line %q", out, want)
			}
		}
	})
}
