package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/txn"
)

// BenchmarkInsertDeleteRows copies one delete set into a table's delete
// mirror (what the first statement after a DELETE does with its record):
// 100 000 positions over two data files, as a 1% range DELETE of a
// 10M-row table leaves them, and a single position (an UPDATE by key).
// Per op: one set (removed again outside the timer).
func BenchmarkInsertDeleteRows(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Config{DataDir: b.TempDir(), FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "dml"}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "id", Kind: schema.KindInt64}, {Name: "v", Kind: schema.KindInt64}}}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		b.Fatal(err)
	}
	t, err := e.Table(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			d := &txn.Deletes{}
			for i := 0; i < n; i++ {
				f := "data/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.parquet"
				if i%2 == 1 {
					f = "data/1f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.parquet"
				}
				d.Add(f, int64(200_000+i/2))
			}
			d.Normalize()
			set := uint64(1)
			for b.Loop() {
				if err := t.insertDeleteRows(ctx, set, d); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := e.db.ExecContext(ctx, "DELETE FROM "+t.delMirror()); err != nil {
					b.Fatal(err)
				}
				set++
				b.StartTimer()
			}
			var got int64
			if err := e.db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s", t.delMirror())).Scan(&got); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(n), "positions/op")
		})
	}
}

// TestInsertDeleteRows: a set reaches the delete mirror as one row per
// position, with its set id and its file's relative path (deleteRecord's
// run-end encoded columns decode to the same rows as plain ones).
func TestInsertDeleteRows(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{DataDir: t.TempDir(), FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "dml"}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "id", Kind: schema.KindInt64}}}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		t.Fatal(err)
	}
	tb, err := e.Table(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	d := &txn.Deletes{}
	d.Add("data/b.parquet", 7, 3, 5)
	d.Add("data/a.parquet", 0)
	d.Add("data/c.parquet", 4000000000)
	d.Normalize()
	if err := tb.insertDeleteRows(ctx, 42, d); err != nil {
		t.Fatal(err)
	}
	if err := tb.insertDeleteRows(ctx, 43, &txn.Deletes{}); err != nil {
		t.Fatal(err)
	}
	rows, err := e.db.QueryContext(ctx, "SELECT __bsdb_dset, __bsdb_path, __bsdb_pos FROM "+tb.delMirror()+" ORDER BY __bsdb_path, __bsdb_pos")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var set uint64
		var path string
		var pos int64
		if err := rows.Scan(&set, &path, &pos); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %d", set, path, pos))
	}
	want := []string{"42 data/a.parquet 0", "42 data/b.parquet 3", "42 data/b.parquet 5", "42 data/b.parquet 7", "42 data/c.parquet 4000000000"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("delete mirror:\n got %q\nwant %q", got, want)
	}

	// A set large enough to be run-end encoded: per file, its count and
	// the sum of its positions.
	big := &txn.Deletes{}
	for i := int64(0); i < 3*reeDeleteRows; i++ {
		big.Add(fmt.Sprintf("data/f%d.parquet", i%3), 1000+i)
	}
	big.Add("data/empty.parquet")
	big.Normalize()
	if err := tb.insertDeleteRows(ctx, 44, big); err != nil {
		t.Fatal(err)
	}
	rows2, err := e.db.QueryContext(ctx, "SELECT __bsdb_path, count(*), sum(__bsdb_pos) FROM "+tb.delMirror()+" WHERE __bsdb_dset = 44 GROUP BY ALL ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows2.Close()
	got = nil
	for rows2.Next() {
		var path string
		var n, sum int64
		if err := rows2.Scan(&path, &n, &sum); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d %d", path, n, sum))
	}
	want = nil
	for f := int64(0); f < 3; f++ {
		var sum int64
		for i := f; i < 3*reeDeleteRows; i += 3 {
			sum += 1000 + i
		}
		want = append(want, fmt.Sprintf("data/f%d.parquet %d %d", f, reeDeleteRows, sum))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("large set in the delete mirror:\n got %q\nwant %q", got, want)
	}
}
