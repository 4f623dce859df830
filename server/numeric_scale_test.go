package server

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestNumericScaleBinary reads numeric values without a precision in
// binary (pgx's default for numeric) and in text: each carries its own
// display scale as PostgreSQL's numeric_send does (1.50 has dscale 2), for
// a stored column, an arithmetic result and an aggregate, before and
// after the rows are flushed to Parquet.
func TestNumericScaleBinary(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE nsb (id int, x numeric)")
	mustExec(t, c, "INSERT INTO nsb VALUES (1, 1.5), (2, 1.50), (3, 100), (4, -0.000123)")
	check := func(stage string) {
		t.Helper()
		type row struct {
			q    string
			want []string // Int/Exp of pgtype.Numeric, as pgx decodes PostgreSQL's own
			text []string
		}
		for _, r := range []row{
			{"SELECT x FROM nsb ORDER BY id", []string{"15e-1", "150e-2", "1e2", "-123e-6"}, []string{"1.5", "1.50", "100", "-0.000123"}},
			{"SELECT x * 2 FROM nsb ORDER BY id", []string{"30e-1", "300e-2", "2e2", "-246e-6"}, []string{"3.0", "3.00", "200", "-0.000246"}},
			{"SELECT sum(x) FROM nsb WHERE id < 4", []string{"10300e-2"}, []string{"103.00"}},
		} {
			rows, err := c.Query(context.Background(), r.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var n pgtype.Numeric
				if err := rows.Scan(&n); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%se%d", n.Int, n.Exp))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(r.want) {
				t.Errorf("%s: %s binary: got %v, want %v", stage, r.q, got, r.want)
			}
			rows, err = c.Query(context.Background(), r.q, pgx.QueryResultFormats{pgx.TextFormatCode})
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				text = append(text, s)
			}
			if fmt.Sprint(text) != fmt.Sprint(r.text) {
				t.Errorf("%s: %s text: got %v, want %v", stage, r.q, text, r.text)
			}
		}
	}
	arrays := func(stage string) {
		t.Helper()
		var ns []pgtype.Numeric
		if err := c.QueryRow(context.Background(), "SELECT array_agg(x ORDER BY id) FROM nsb").Scan(&ns); err != nil {
			t.Fatalf("%s: array_agg: %v", stage, err)
		}
		var got []string
		for _, n := range ns {
			got = append(got, fmt.Sprintf("%se%d", n.Int, n.Exp))
		}
		if want := "[15e-1 150e-2 1e2 -123e-6]"; fmt.Sprint(got) != want {
			t.Errorf("%s: array_agg binary: got %v, want %s", stage, got, want)
		}
	}
	check("buffered")
	arrays("buffered")
	if err := ts.eng.FlushAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("flushed")
	arrays("flushed")
	// Parameters compare and compute with the value (1.5 = 1.50).
	one5 := pgtype.Numeric{Int: big.NewInt(15), Exp: -1, Valid: true}
	var ids []int32
	rows, err := c.Query(context.Background(), "SELECT id FROM nsb WHERE x = $1 ORDER BY id", one5)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int32
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if fmt.Sprint(ids) != "[1 2]" {
		t.Errorf("x = $1 (1.5): ids %v, want [1 2]", ids)
	}
	var sum string
	if err := c.QueryRow(context.Background(), "SELECT x + $1 FROM nsb WHERE id = 2", pgx.QueryResultFormats{pgx.TextFormatCode}, int64(1)).Scan(&sum); err != nil || sum != "2.50" {
		t.Errorf("x + $1: %q, %v; want 2.50", sum, err)
	}
}

// BenchmarkNumericColumnScan sums, filters and groups 200,000 values of a
// numeric column without a precision (kept as text, computed as
// DECIMAL(38,10) through __bsdb_dec), flushed to Parquet.
//
//	go test ./server -run '^$' -bench NumericColumnScan
func BenchmarkNumericColumnScan(b *testing.B) {
	ts := startServerWith(b, "", -1, func(*Backend) {})
	c := ts.conn(b)
	ctx := context.Background()
	mustExec(b, c, "CREATE TABLE nb (id int, g int, x numeric)")
	mustExec(b, c, "INSERT INTO nb SELECT i, i % 100, (i % 10000)::numeric / 100 FROM generate_series(1, 200000) i")
	if err := ts.eng.FlushAll(ctx); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		"SELECT sum(x), max(x) FROM nb",
		"SELECT count(*) FROM nb WHERE x > 50",
		"SELECT g, sum(x) FROM nb GROUP BY g",
	} {
		b.Run(q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rows, err := c.Query(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
