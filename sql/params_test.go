package sql

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// TestParamsDifferential prepares each query on PostgreSQL (its
// ParameterDescription is the oracle for our inferred ParamOIDs), executes
// it with text arguments on both sides and compares the results.
func TestParamsDifferential(t *testing.T) {
	pg := newPG(t)
	duck := newDuck(t)
	cases := []struct {
		q    string
		args []string
	}{
		{"SELECT id FROM nums WHERE i > $1 ORDER BY id", []string{"0"}},
		{"SELECT id FROM nums WHERE $1 = t", []string{"apple"}},
		{"SELECT id FROM nums WHERE b = $1", []string{"10000000000"}},
		{"SELECT id FROM nums WHERE n < $1 ORDER BY id", []string{"1.5"}},
		{"SELECT id FROM nums WHERE d >= $1 ORDER BY id", []string{"2024-02-01"}},
		{"SELECT id FROM nums ORDER BY id LIMIT $1 OFFSET $2", []string{"2", "1"}},
		{"SELECT id FROM nums WHERE id IN ($1, $2) ORDER BY id", []string{"2", "3"}},
		{"SELECT $1::int + 1 AS x", []string{"41"}},
		{"SELECT i + $1 AS x FROM nums WHERE id = 1", []string{"5"}},
		{"SELECT $1 || 'x' AS s", []string{"a"}},
		{"SELECT coalesce(i, $1) AS c FROM nums ORDER BY id", []string{"-1"}},
		{"SELECT id FROM nums WHERE ok = $1 ORDER BY id", []string{"true"}},
		{"SELECT count(*) FROM tags WHERE tag = $1 AND id < $2", []string{"red", "10"}},
		{"SELECT id FROM nums WHERE i > $1 ORDER BY id", []string{"abc"}}, // 22P02 on both sides
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			sd, err := pg.Prepare(ctx, "", c.q, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := mustParse1(t, c.q)
			q, err := TranslateQuery(st.Tree, duck.cat, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(q.ParamOIDs, sd.ParamOIDs) {
				t.Errorf("param types: pg %v / ours %v (sql %s)", sd.ParamOIDs, q.ParamOIDs, q.SQL)
			}
			// PostgreSQL result.
			var pargs [][]byte
			for _, a := range c.args {
				pargs = append(pargs, []byte(a))
			}
			rr := pg.ExecParams(ctx, c.q, pargs, nil, nil, nil)
			p := collectPG(rr)
			// Ours.
			var dargs []any
			for _, a := range c.args {
				dargs = append(dargs, a)
			}
			d := runSQLArgs(t, duck, q, c.q, dargs)
			if msg := compare(p, d, false); msg != "" {
				t.Errorf("case %d %s\n  sql: %s\n  pg:   %v\n  duck: %v", i, msg, q.SQL, p, d)
			}
		})
	}
}
