package planner

import (
	"database/sql/driver"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// TestGoFuncPanicIsAnError: a panic in a Go function is the statement's
// XX000 error, never the server's crash.
func TestGoFuncPanicIsAnError(t *testing.T) {
	g := goFunc{in: []duckdb.Type{tText}, out: tText, fn: func([]driver.Value) (any, error) { panic("boom") }}
	_, err := g.Executor().RowExecutor([]driver.Value{"x"})
	if err == nil || !strings.Contains(err.Error(), "SQLSTATE XX000") {
		t.Fatalf("panic: %v", err)
	}
}

// TestPGFuncsSurviveOddInputs calls every registered function with
// combinations of odd values of its argument types: none may panic (the
// functions themselves, without the executor's recover).
func TestPGFuncsSurviveOddInputs(t *testing.T) {
	samples := map[duckdb.Type][]driver.Value{
		tText: {"", "x", "9", "99.99EEEE", "FMRN", "\\", "(", "[", "a{2,1}", "\xff", "-", "1e400", "NaN", "inf",
			"999999999999999999999999999999999999999.5", "\\u12", "\\+", "g", "((((a))))", "\"", "(?x)", "***="},
		tInt8:   {int64(0), int64(1), int64(-1), int64(1 << 40), int64(-1 << 62)},
		tInt4:   {int32(0), int32(-1)},
		tFloat8: {0.0, -1.5, 1e308, -1e-308},
		tFloat4: {float32(0), float32(3.4e38)},
		tBool:   {false, true},
		tBytea:  {[]byte{}, []byte{1, 2, 3}},
	}
	for name, g := range pgFuncs {
		var args [][]driver.Value
		args = append(args, nil)
		for _, in := range g.in {
			var next [][]driver.Value
			for _, a := range args {
				for _, v := range samples[in] {
					if len(next) > 4000 {
						break
					}
					next = append(next, append(append([]driver.Value(nil), a...), v))
				}
			}
			args = next
		}
		for _, a := range args {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s%v: panic %v", name, a, r)
					}
				}()
				_, _ = g.fn(a)
			}()
		}
	}
}
