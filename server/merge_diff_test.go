package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestMergeMatchesPostgres runs random MERGE statements (every clause
// kind, conditions, sources that are tables, subqueries and VALUES, joins
// that match a target row more than once) between the steps of
// TestDMLMatchesPostgres's generator (INSERT, UPDATE, DELETE,
// transactions, savepoints, TRUNCATE) against bsdb-pg and the reference PostgreSQL,
// comparing each statement's tag or SQLSTATE and the table after it.
// BSDB_MERGE_STEPS sets the steps per seed (default 150); BSDB_MERGE_SEED
// adds a seed.
func TestMergeMatchesPostgres(t *testing.T) {
	runDMLDiff(t, "BSDB_MERGE", 150, 11, []string{
		"DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS u",
		"CREATE TABLE t (id int, k int, v text, n numeric(10,2))",
		"CREATE TABLE u (id int, w int)",
		"INSERT INTO u SELECT g, g % 7 FROM generate_series(1, 40) g",
		"INSERT INTO t SELECT g, g % 10, 'v' || (g % 10), (g % 97) + 0.25 FROM generate_series(1, 30) g",
	}, func(d *dmlDiff) func(int) {
		d.nextID = 30
		m := &mergeGen{d: d}
		d.t.Cleanup(func() { d.t.Logf("MERGE outcomes: %v", m.outcomes) })
		return func(i int) {
			switch r := d.rng.IntN(10); {
			case r < 6:
				m.both(m.merge())
				if !d.inTx || d.rng.IntN(3) == 0 {
					d.compareTable(i)
				}
			case r < 7:
				d.both(fmt.Sprintf("UPDATE u SET w = (w + %d) %% 7 WHERE id %% 5 = %d", 1+d.rng.IntN(5), d.rng.IntN(5)), true)
			default:
				d.step(i)
			}
		}
	})
}

type mergeGen struct {
	d        *dmlDiff
	outcomes map[string]int // tag or SQLSTATE -> statements
}

// both is dmlDiff.both for a MERGE, counting the outcomes.
func (m *mergeGen) both(q string) {
	d := m.d
	d.t.Helper()
	d.log = append(d.log, q)
	a, aerr := runCapture(d.ours, q)
	b, berr := runCapture(d.ref, q)
	if aerr != berr || a != b {
		d.fail(fmt.Sprintf("%s:\n bsdb-pg:    %s%s\n PostgreSQL: %s%s", q, a, aerr, b, berr))
		return
	}
	if m.outcomes == nil {
		m.outcomes = map[string]int{}
	}
	switch {
	case aerr != "":
		m.outcomes[strings.Join(strings.Fields(aerr)[:2], " ")]++
	case strings.HasPrefix(a, "MERGE 0"):
		m.outcomes["MERGE 0"]++
	default:
		m.outcomes["MERGE n>0"]++
	}
	if aerr != "" && d.inTx {
		// The block failed on both: back to a savepoint, or end it (as
		// dmlDiff.both).
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

func (m *mergeGen) merge() string {
	d := m.d
	a := d.pick("t", "tgt")
	target := "t"
	if a != "t" {
		target = "t AS tgt"
	}
	src := d.pick(
		"u s",
		"u AS s",
		fmt.Sprintf("(SELECT id, w FROM u WHERE w <> %d) AS s", d.rng.IntN(7)),
		fmt.Sprintf("(VALUES (1, 2), (5, 3), (%d, %d), (%d, NULL)) AS s(id, w)", d.rng.IntN(d.nextID+2), d.rng.IntN(7), d.nextID+1+d.rng.IntN(3)),
		"(SELECT id % 10 AS id, w FROM u) s", // several source rows per id
		"(SELECT id + 25 AS id, w FROM u) s",
	)
	on := d.pick(a+".id = s.id", a+".id = s.id", fmt.Sprintf("%s.id = s.id AND s.w > %d", a, d.rng.IntN(4)), a+".k = s.w")
	cond := func(matched bool) string {
		if matched {
			return d.pick(
				fmt.Sprintf("s.w > %d", d.rng.IntN(7)),
				fmt.Sprintf("%s.k < %d", a, d.rng.IntN(10)),
				a+".v IS NULL",
				"s.w % 2 = 0",
				fmt.Sprintf("%s.n > s.w * %d", a, 1+d.rng.IntN(10)),
			)
		}
		return d.pick(fmt.Sprintf("s.w > %d", d.rng.IntN(7)), "s.w IS NULL", "s.id % 2 = 1", "w < 3")
	}
	var clauses []string
	haveUncond := [2]bool{}
	for n := 1 + d.rng.IntN(3); len(clauses) < n; {
		matched := d.rng.IntN(2) == 0
		kind := 1
		if matched {
			kind = 0
		}
		if haveUncond[kind] && d.rng.IntN(20) != 0 {
			// A clause after an unconditional one of its kind is an
			// error (unreachable); rarely.
			if haveUncond[1-kind] {
				break
			}
			matched, kind = !matched, 1-kind
		}
		c := "WHEN NOT MATCHED"
		if matched {
			c = "WHEN MATCHED"
		}
		if d.rng.IntN(2) == 0 {
			c += " AND " + cond(matched)
		} else {
			haveUncond[kind] = true
		}
		if matched {
			switch d.rng.IntN(5) {
			case 0, 1:
				c += " THEN UPDATE SET " + d.pick(
					fmt.Sprintf("k = %s.k + s.w", a),
					"v = 'u' || s.w",
					"n = DEFAULT, v = NULL",
					fmt.Sprintf("(k, v) = (s.w, %s.v || 'm')", a),
					fmt.Sprintf("n = %s.n * 2, k = -%s.k", a, a),
					fmt.Sprintf("id = %s.id + 1000", a),
				)
			case 2, 3:
				c += " THEN DELETE"
			default:
				c += " THEN DO NOTHING"
			}
		} else {
			switch d.rng.IntN(6) {
			case 0, 1:
				c += " THEN INSERT VALUES (s.id, s.w, 'm' || s.w, s.w * 1.5)"
			case 2:
				c += " THEN INSERT (id, v) VALUES (s.id + 500, 'new')"
			case 3:
				c += " THEN INSERT (v, id, k) VALUES ('q', id, DEFAULT)"
			case 4:
				c += " THEN INSERT DEFAULT VALUES"
			default:
				c += " THEN DO NOTHING"
			}
		}
		clauses = append(clauses, c)
	}
	return fmt.Sprintf("MERGE INTO %s USING %s ON %s %s", target, src, on, strings.Join(clauses, " "))
}
