package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Query is one analytical query of figure 3, the same text on every system.
type Query struct {
	Name string
	SQL  string
}

// analyticQueries are figure 3's queries over events rows [0, n).
func analyticQueries(n int64) []Query {
	lo, hi := EventTS(n*4/10), EventTS(n*5/10) // a 10% time range
	mid := n/2 + 1
	ts := func(t time.Time) string { return "'" + t.Format("2006-01-02 15:04:05.000Z07:00") + "'" }
	return []Query{
		{"count", "SELECT count(*) FROM events"},
		{"groupby-kind", "SELECT kind, count(*), avg(value) FROM events GROUP BY kind ORDER BY kind"},
		{"range-top-users", "SELECT user_id, sum(value) AS s FROM events WHERE ts >= " + ts(lo) + " AND ts < " + ts(hi) +
			" GROUP BY user_id ORDER BY s DESC, user_id LIMIT 10"},
		{"distinct-users", "SELECT count(DISTINCT user_id) FROM events"},
		{"point-id", fmt.Sprintf("SELECT * FROM events WHERE id = %d", mid)},
		{"range-id", fmt.Sprintf("SELECT count(*), sum(value) FROM events WHERE id BETWEEN %d AND %d", mid, mid+9999)},
		{"join-country", "SELECT u.country, count(*), sum(e.value) FROM events e JOIN users u ON u.user_id = e.user_id GROUP BY u.country ORDER BY u.country"},
	}
}

// querier runs a query to completion and returns the first column of the
// first row as text (for the cross-system check) and the row count.
type querier interface {
	run(ctx context.Context, q string) (first string, rows int, err error)
}

type pgxQuerier struct{ c *pgx.Conn }

func (p pgxQuerier) run(ctx context.Context, q string) (string, int, error) {
	rows, err := p.c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	first, n := "", 0
	for rows.Next() {
		if n == 0 {
			if raw := rows.RawValues(); len(raw) > 0 {
				first = string(raw[0])
			}
		}
		n++
	}
	return first, n, rows.Err()
}

type sqlQuerier struct{ db *sql.DB }

func (d sqlQuerier) run(ctx context.Context, q string) (string, int, error) {
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	first, n := "", 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", 0, err
		}
		if n == 0 && len(vals) > 0 {
			first = fmt.Sprint(vals[0])
		}
		n++
	}
	return first, n, rows.Err()
}

// runQueries measures every query on every system: one warm-up, then reps
// timed runs alternating between systems (A B C, B C A, ...). It records
// figure "3-<query>-<phase>" in seconds and the geometric mean of the
// medians as "3-geomean-<phase>", and checks that all systems agree on the
// row count of each query and on count(*) == n (buffered rows included).
func runQueries(ctx context.Context, res *Results, phase string, n int64, reps int, systems []string, qs map[string]querier) error {
	queries := analyticQueries(n)
	for _, q := range queries {
		res.Define(Figure{Name: "3-" + q.Name + "-" + phase, Unit: "s"})
	}
	for _, q := range queries {
		name := "3-" + q.Name + "-" + phase
		rowCounts := map[string]int{}
		for _, sys := range systems {
			first, rows, err := qs[sys].run(ctx, q.SQL)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", q.Name, sys, err)
			}
			rowCounts[sys] = rows
			if q.Name == "count" && first != fmt.Sprint(n) {
				return fmt.Errorf("%s on %s: count(*) = %s, want %d (every acknowledged row must be visible)", q.Name, sys, first, n)
			}
		}
		for _, sys := range systems {
			if rowCounts[sys] != rowCounts[systems[0]] {
				return fmt.Errorf("%s: %s returned %d rows, %s %d", q.Name, sys, rowCounts[sys], systems[0], rowCounts[systems[0]])
			}
		}
		for r := 0; r < reps; r++ {
			// The order turns with each repetition (A B C, B C A, C A B):
			// a query measured right after another system's pays for what
			// that one leaves behind (DuckDB in this process, PostgreSQL's
			// background work): measured here, a 0.6 ms query of ours took
			// 1.1-1.3 ms right after an in-process DuckDB query.
			for k := range systems {
				sys := systems[(r+k)%len(systems)]
				t0 := time.Now()
				if _, _, err := qs[sys].run(ctx, q.SQL); err != nil {
					return fmt.Errorf("%s on %s: %w", q.Name, sys, err)
				}
				res.Add(name, sys, time.Since(t0).Seconds())
			}
		}
	}
	gm := res.Define(Figure{Name: "3-geomean-" + phase, Unit: "s", MinVsPG: 10, MaxVsDuck: 1.3})
	for _, sys := range systems {
		var meds []float64
		for _, q := range queries {
			if v, ok := res.figs["3-"+q.Name+"-"+phase].Median(sys); ok {
				meds = append(meds, v)
			}
		}
		gm.samples[sys] = append(gm.samples[sys], geomean(meds))
	}
	return nil
}
