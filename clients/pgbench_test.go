package clients

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPgbench: pgbench -n -f (a custom INSERT + SELECT script), 8 clients,
// BSDB_PGBENCH_SECONDS (default 3; the soak is 10), simple protocol
// and then prepared (-M prepared): no failed transaction, and every
// committed transaction's row is in the table afterwards.
func TestPgbench(t *testing.T) {
	bin := need(t, "pgbench")
	secs := 3
	if v, err := strconv.Atoi(os.Getenv("BSDB_PGBENCH_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	s := startServer(t)
	execSQL(t, s.url("postgres"), "CREATE TABLE bench (id integer, v text)")
	script := filepath.Join(t.TempDir(), "bench.sql")
	body := "\\set id random(1, 1000000000)\nINSERT INTO bench (id, v) VALUES (:id, 'x');\nSELECT count(*) FROM bench WHERE id = :id;\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, mode := range []string{"simple", "prepared"} {
		out := runCmd(t, []string{"PGUSER=postgres", "PGHOST=127.0.0.1", "PGPORT=" + s.port}, "", bin,
			"-n", "-f", script, "-c", "8", "-j", "2", "-T", strconv.Itoa(secs), "-M", mode, "postgres")
		m := regexp.MustCompile(`number of transactions actually processed: (\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("pgbench -M %s: no transaction count in output:\n%s", mode, out)
		}
		n, _ := strconv.Atoi(m[1])
		if n == 0 {
			t.Errorf("pgbench -M %s processed no transaction:\n%s", mode, out)
		}
		if f := regexp.MustCompile(`number of failed transactions: (\d+)`).FindStringSubmatch(out); f == nil || f[1] != "0" {
			t.Errorf("pgbench -M %s: failed transactions:\n%s", mode, out)
		}
		t.Logf("pgbench -M %s -c 8 -T %d: %d transactions", mode, secs, n)
		total += n
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM bench").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != total {
		t.Errorf("bench has %d rows, pgbench committed %d transactions", rows, total)
	}
}
