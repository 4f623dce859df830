package server

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestProjectionAndSelfJoinOverBuffersAndFiles checks the answers when a
// query reads some columns of a table, in another order, twice in one
// statement, with rows both in Parquet files and still in the buffer
// (duckdb-go issue 24 is about partially projected Arrow views: we never
// expose one).
func TestProjectionAndSelfJoinOverBuffersAndFiles(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE w (a int, b text, c double precision, d bigint, e text)")
	for i := 0; i < 50; i++ {
		mustExec(t, c, "INSERT INTO w VALUES ($1, $2, $3, $4, $5)", i, fmt.Sprintf("b%d", i), float64(i)/2, int64(i)*1000, fmt.Sprintf("e%d", i%5))
		if i == 24 {
			// Half the rows committed to Parquet, half in the buffer.
			if err := ts.eng.FlushAll(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	checks := []struct{ sql, want string }{
		{"SELECT sum(d)::bigint FROM w", "[1225000]"},
		{"SELECT count(*), sum(a) FROM w", "[50|1225]"},
		{"SELECT e, count(*) FROM w GROUP BY e ORDER BY e", "[e0|10 e1|10 e2|10 e3|10 e4|10]"},
		{"SELECT d, a FROM w WHERE a IN (3, 30) ORDER BY a", "[3000|3 30000|30]"},
		{"SELECT c, b FROM w WHERE a = 41", "[20.5|b41]"},
		{"SELECT count(*) FROM w x JOIN w y ON x.a = y.a + 25", "[25]"},
		{"SELECT x.b, y.e FROM w x JOIN w y ON x.d = y.d * 2 WHERE y.a = 12", "[b24|e2]"},
		{"SELECT max(a) - min(a) FROM (SELECT a FROM w WHERE b LIKE 'b4%') s", "[45]"},
	}
	run := func(stage string) {
		for _, ch := range checks {
			if got := fmt.Sprint(queryStrings(t, c, ch.sql)); got != ch.want {
				t.Errorf("%s: %s = %s, want %s", stage, ch.sql, got, ch.want)
			}
		}
	}
	run("half flushed")
	if err := ts.eng.FlushAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	run("all flushed")
	// Mirror collection happens in the background; answers stay exact.
	time.Sleep(200 * time.Millisecond)
	run("after collection")
}
