package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/planner"
)

// TestDMLMatchesPostgres runs random sequences of INSERT, UPDATE, DELETE
// (with FROM/USING, subqueries, RETURNING), transactions that commit or
// roll back, and TRUNCATE against bsdb-pg and the reference PostgreSQL,
// and after every statement compares its command tag (or SQLSTATE), its
// RETURNING rows and the whole table. The engine flushes every 30 ms, so
// the statements meet rows in data files, with deletes, and in the buffer.
// BSDB_DML_STEPS sets the steps per seed (default 300); BSDB_DML_SEED adds
// a seed.
func TestDMLMatchesPostgres(t *testing.T) {
	runDMLDiff(t, "BSDB_DML", 300, 7, []string{
		"DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS u",
		"CREATE TABLE t (id int, k int, v text, n numeric(10,2))",
		"CREATE TABLE u (id int, w int)",
		"INSERT INTO u SELECT g, g % 7 FROM generate_series(1, 40) g",
	}, func(d *dmlDiff) func(int) { return d.step })
}

// runDMLDiff is the frame of the random differential tests: seeds 1-3
// (and $<env>_SEED), $<env>_STEPS steps per seed (default steps), an
// engine that flushes every 30 ms, one fresh database of the reference
// PostgreSQL, setup run on both, then step(i) for every step while the
// test has not failed; the block left open is rolled back.
func runDMLDiff(t *testing.T, env string, steps int, stream uint64, setup []string, gen func(*dmlDiff) func(int)) {
	if v, err := strconv.Atoi(os.Getenv(env + "_STEPS")); err == nil && v > 0 {
		steps = v
	}
	seeds := []uint64{1, 2, 3}
	if v, err := strconv.ParseUint(os.Getenv(env+"_SEED"), 10, 64); err == nil {
		seeds = append(seeds, v)
	}
	ts := startServerConfig(t, planner.Config{FlushInterval: 30 * time.Millisecond}, func(*Backend) {})
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	ctx := context.Background()
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			ours, err := pgx.Connect(ctx, ts.url())
			if err != nil {
				t.Fatal(err)
			}
			defer ours.Close(ctx)
			ref, err := pgx.Connect(ctx, refURL)
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close(ctx)
			d := &dmlDiff{t: t, ours: ours, ref: ref, rng: rand.New(rand.NewPCG(seed, stream))}
			for _, q := range setup {
				d.both(q, false)
			}
			step := gen(d)
			for i := 0; i < steps && !t.Failed(); i++ {
				step(i)
			}
			d.both("ROLLBACK", false)
		})
	}
}

type dmlDiff struct {
	t          *testing.T
	ours, ref  *pgx.Conn
	rng        *rand.Rand
	nextID     int
	inTx       bool
	savepoints int // defined in the block, s0..s{n-1}
	log        []string
}

func (d *dmlDiff) pick(xs ...string) string { return xs[d.rng.IntN(len(xs))] }

func (d *dmlDiff) where() string {
	k := d.rng.IntN(10)
	switch d.rng.IntN(8) {
	case 0:
		return fmt.Sprintf("WHERE id = %d", d.rng.IntN(d.nextID+1))
	case 6:
		// A range of ids: consecutive positions of a bulk-inserted file.
		lo := d.rng.IntN(d.nextID + 1)
		return fmt.Sprintf("WHERE id BETWEEN %d AND %d", lo, lo+5+d.rng.IntN(60))
	case 1:
		return fmt.Sprintf("WHERE k BETWEEN %d AND %d", k, k+d.rng.IntN(3))
	case 2:
		return fmt.Sprintf("WHERE k = %d OR v = 'v%d'", k, d.rng.IntN(10))
	case 3:
		return fmt.Sprintf("WHERE id IN (SELECT id FROM u WHERE w = %d)", d.rng.IntN(7))
	case 4:
		return fmt.Sprintf("WHERE n > %d.5 AND k <> %d", d.rng.IntN(50), k)
	case 5:
		return "WHERE v IS NULL"
	}
	return fmt.Sprintf("WHERE id %% %d = 0", 2+d.rng.IntN(5))
}

func (d *dmlDiff) value() string {
	switch d.rng.IntN(6) {
	case 0:
		return "NULL"
	case 1:
		return fmt.Sprintf("'v%d'", d.rng.IntN(10))
	}
	return fmt.Sprintf("'v%d'", d.rng.IntN(10))
}

func (d *dmlDiff) step(i int) {
	var q string
	returning := d.rng.IntN(6) == 0
	switch r := d.rng.IntN(20); {
	case r < 6:
		n := 1 + d.rng.IntN(4)
		if d.rng.IntN(8) == 0 {
			n = 50 + d.rng.IntN(200)
			q = fmt.Sprintf("INSERT INTO t SELECT %d + g, g %% 10, 'v' || (g %% 10), (g %% 97) + 0.25 FROM generate_series(1, %d) g", d.nextID, n)
		} else {
			var rows []string
			for j := 0; j < n; j++ {
				rows = append(rows, fmt.Sprintf("(%d, %d, %s, %d.%02d)", d.nextID+j+1, d.rng.IntN(10), d.value(), d.rng.IntN(100), d.rng.IntN(100)))
			}
			q = "INSERT INTO t VALUES " + strings.Join(rows, ", ")
		}
		d.nextID += n
	case r < 10:
		set := d.pick("k = k + 1", "v = "+d.value(), "n = n * 2", "k = -k, v = upper(v)", "(k, v) = (k * 3, v || 'x')",
			"n = DEFAULT", "v = (SELECT max(w)::text FROM u)", fmt.Sprintf("id = id + %d", 1000))
		q = fmt.Sprintf("UPDATE t SET %s %s", set, d.where())
	case r < 12:
		q = fmt.Sprintf("UPDATE t SET k = u.w, v = 'from' || u.id FROM u WHERE u.id = t.id AND u.w %s %d", d.pick("=", "<", ">"), d.rng.IntN(7))
	case r < 15:
		q = fmt.Sprintf("DELETE FROM t %s", d.where())
	case r < 16:
		q = fmt.Sprintf("DELETE FROM t USING u WHERE u.id = t.id AND u.w = %d", d.rng.IntN(7))
	case r < 18:
		switch {
		case !d.inTx:
			q, d.inTx, d.savepoints = "BEGIN", true, 0
		case d.rng.IntN(2) == 0:
			q = fmt.Sprintf("SAVEPOINT s%d", d.savepoints)
			d.savepoints++
		case d.savepoints > 0 && d.rng.IntN(2) == 0:
			sp := d.rng.IntN(d.savepoints)
			if d.rng.IntN(3) == 0 {
				q = fmt.Sprintf("RELEASE SAVEPOINT s%d", sp)
				d.savepoints = sp
			} else {
				q = fmt.Sprintf("ROLLBACK TO SAVEPOINT s%d", sp)
				d.savepoints = sp + 1
			}
		case d.rng.IntN(3) == 0:
			q, d.inTx = "ROLLBACK", false
		default:
			q, d.inTx = "COMMIT", false
		}
		returning = false
	case r < 19:
		q = d.pick("TRUNCATE t", "SELECT count(*) FROM t", "SELECT count(*) FROM t")
		returning = false
	default:
		q = fmt.Sprintf("DELETE FROM t WHERE k = (SELECT min(k) FROM t) AND id %% 3 = %d", d.rng.IntN(3))
	}
	if returning && (strings.HasPrefix(q, "UPDATE") || strings.HasPrefix(q, "DELETE") || strings.HasPrefix(q, "INSERT")) {
		q += " RETURNING t.id, t.k, t.v, t.n::text"
	}
	d.both(q, true)
	if !d.inTx || d.rng.IntN(3) == 0 {
		d.compareTable(i)
	}
}

// both runs q on both servers and compares the outcome.
func (d *dmlDiff) both(q string, compare bool) {
	d.t.Helper()
	d.log = append(d.log, q)
	a, aerr := runCapture(d.ours, q)
	b, berr := runCapture(d.ref, q)
	if !compare {
		if (aerr == "") != (berr == "") {
			d.t.Fatalf("%s: bsdb-pg %q, PostgreSQL %q", q, aerr, berr)
		}
		return
	}
	if aerr != berr {
		d.fail(fmt.Sprintf("%s:\n bsdb-pg:    %s\n PostgreSQL: %s", q, aerr, berr))
		return
	}
	if a != b {
		d.fail(fmt.Sprintf("%s:\n bsdb-pg:    %s\n PostgreSQL: %s", q, a, b))
	}
	if aerr != "" && d.inTx {
		// The block failed on both: back to a savepoint, or end it.
		if d.savepoints > 0 && d.rng.IntN(2) == 0 {
			sp := d.rng.IntN(d.savepoints)
			d.both(fmt.Sprintf("ROLLBACK TO SAVEPOINT s%d", sp), false)
			d.savepoints = sp + 1
			return
		}
		d.both("ROLLBACK", false)
		d.inTx = false
	}
}

func (d *dmlDiff) compareTable(step int) {
	d.t.Helper()
	const q = "SELECT id, k, v, n::text FROM t ORDER BY id, k, v, n"
	a, aerr := runCapture(d.ours, q)
	b, berr := runCapture(d.ref, q)
	if aerr != berr || a != b {
		d.fail(fmt.Sprintf("step %d: table differs:\n bsdb-pg:    %s %s\n PostgreSQL: %s %s", step, aerr, a, berr, b))
	}
}

func (d *dmlDiff) fail(msg string) {
	d.t.Helper()
	if f := os.Getenv("BSDB_DML_LOG"); f != "" {
		// Every statement, to replay by hand.
		_ = os.WriteFile(f, []byte(strings.Join(d.log, ";\n")+";\n"), 0o644)
	}
	start := max(0, len(d.log)-15)
	d.t.Fatalf("%s\nlast statements:\n  %s", msg, strings.Join(d.log[start:], "\n  "))
}

// runCapture runs q and returns its command tag and rows (RETURNING rows
// sorted: their order is unspecified) or its SQLSTATE.
func runCapture(c *pgx.Conn, q string) (string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", errCode(err)
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return "", errCode(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(cells, "|"))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", errCode(err)
	}
	if !strings.HasPrefix(q, "SELECT") {
		sortStrings(out)
	}
	return rows.CommandTag().String() + " " + strings.Join(out, "; "), ""
}

func errCode(err error) string {
	if pe := pgErr(err); pe != nil {
		return "ERROR " + pe.Code + " " + pe.Message
	}
	return "ERROR " + err.Error()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
