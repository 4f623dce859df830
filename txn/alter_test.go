package txn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/wal"
)

// alterTo returns an Alter applying fn to a copy of the head's schema.
func alterTo(fn func(s *schema.Schema)) Alter {
	return func(head *manifest.Manifest) (*schema.Schema, error) {
		s := head.Schema.Clone()
		fn(s)
		return s, nil
	}
}

// icebergRows scans the table's published Iceberg snapshot with
// iceberg-go (an independent reader, which maps Parquet columns by field
// id) and returns its rows as text, sorted, with the column names.
func icebergRows(t *testing.T, e *env, tb *Table) ([]string, []string) {
	t.Helper()
	ctx := context.Background()
	_, key, err := iceberg.NewPublisher(e.local, tb.Prefix()).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loc := e.local.URI(key)
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"db", "t"}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		t.Fatal(err)
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	var names []string
	for i := 0; i < int(at.NumCols()); i++ {
		names = append(names, at.Schema().Field(i).Name)
	}
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	var rows []string
	for tr.Next() {
		r := tr.RecordBatch()
		for i := 0; i < int(r.NumRows()); i++ {
			var vals []string
			for c := 0; c < int(r.NumCols()); c++ {
				vals = append(vals, r.Column(c).ValueStr(i))
			}
			rows = append(rows, fmt.Sprint(vals))
		}
	}
	slices.Sort(rows)
	return names, rows
}

// TestAlterSchemaEvolution: a rename, an added and a dropped column are
// one manifest version each, with the field ids kept; the files written
// before stay valid, and iceberg-go (reading by field id) sees the
// renamed column's old values under its new name, NULL in the added
// column for old rows, and no dropped column.
func TestAlterSchemaEvolution(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create()
	if err := write(tb, 1, 2); err != nil {
		t.Fatal(err)
	}
	// Buffered, not committed: Alter commits it (in the old schema) first.
	m, err := tb.Alter(ctx, alterTo(func(s *schema.Schema) {
		s.Columns[1].Name = "label"
		s.AddColumn(schema.Column{Name: "extra", Kind: schema.KindInt32})
	}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema.Version != 1 || m.Schema.LastColumnID != 3 || m.Schema.Columns[2].ID != 3 {
		t.Fatalf("schema after ALTER: version %d, last id %d, columns %+v", m.Schema.Version, m.Schema.LastColumnID, m.Schema.Columns)
	}
	if len(m.Files) != 1 || m.Files[0].Rows != 2 {
		t.Fatalf("the buffered rows were not committed before the schema change: files %+v", m.Files)
	}
	if err := write(tb, 3); !errors.Is(err, ErrClosed) {
		t.Fatalf("write through the retired handle: %v, want ErrClosed", err)
	}

	tb = e.open()
	if got := tb.Schema().Columns[1].Name; got != "label" {
		t.Fatalf("reopened schema: column 2 is %q", got)
	}
	r := newRow(tb, 3, "new", 7)
	if _, err := tb.Write(ctx, []arrow.RecordBatch{r}, WriteOptions{Durability: wal.DurabilitySync}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if err := tb.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	names, rows := icebergRows(t, e, tb)
	want := []string{"[1 row-1 (null)]", "[2 row-2 (null)]", "[3 new 7]"}
	if !slices.Equal(names, []string{"id", "label", "extra"}) || !slices.Equal(rows, want) {
		t.Fatalf("iceberg-go after rename + add: %v %v, want [id label extra] %v", names, rows, want)
	}

	// Drop the added column (the highest id): gone for readers, and its
	// id never reused, so a new column of the same name does not bring
	// the old values back.
	m, err = tb.Alter(ctx, alterTo(func(s *schema.Schema) { s.DropColumn("extra") }))
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema.Version != 2 || m.Schema.LastColumnID != 3 {
		t.Fatalf("schema after DROP: version %d, last id %d", m.Schema.Version, m.Schema.LastColumnID)
	}
	tb = e.open()
	names, rows = icebergRows(t, e, tb)
	if !slices.Equal(names, []string{"id", "label"}) || !slices.Equal(rows, []string{"[1 row-1]", "[2 row-2]", "[3 new]"}) {
		t.Fatalf("iceberg-go after drop: %v %v", names, rows)
	}
	m, err = tb.Alter(ctx, alterTo(func(s *schema.Schema) { s.AddColumn(schema.Column{Name: "extra", Kind: schema.KindInt32}) }))
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Schema.Columns[2]; c.ID != 4 {
		t.Fatalf("a column added after a drop got id %d, want 4 (ids are never reused)", c.ID)
	}
	tb = e.open()
	if _, rows = icebergRows(t, e, tb); !slices.Equal(rows, []string{"[1 row-1 (null)]", "[2 row-2 (null)]", "[3 new (null)]"}) {
		t.Fatalf("iceberg-go after re-adding a dropped name: %v (the old column's values came back?)", rows)
	}
	_ = tb.Close(ctx)
}

// newRow is one row (id, text, int32) of the altered test table.
func newRow(tb *Table, id int64, v string, extra int32) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, tb.ArrowSchema())
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(id)
	b.Field(1).(*array.StringBuilder).Append(v)
	b.Field(2).(*array.Int32Builder).Append(extra)
	return b.NewRecordBatch()
}

// TestAlterRecoveryNeverReplaysOldSchema: writes acknowledged before an
// ALTER are committed by it, so a restart right after finds no WAL record
// of the old schema to replay (each row exactly once), and the refused
// schema change leaves the table as it was.
func TestAlterRecoveryNeverReplaysOldSchema(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create()
	for i := int64(0); i < 20; i++ {
		if err := write(tb, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.Alter(ctx, alterTo(func(s *schema.Schema) { s.AddColumn(schema.Column{Name: "extra", Kind: schema.KindInt32}) })); err != nil {
		t.Fatal(err)
	}
	tb = e.open() // recovery: the WAL's old segments hold committed transactions only
	exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 20))

	refused := errors.New("refused")
	if _, err := tb.Alter(ctx, func(*manifest.Manifest) (*schema.Schema, error) { return nil, refused }); !errors.Is(err, refused) {
		t.Fatalf("Alter: %v, want the schema function's error", err)
	}
	tb = e.open()
	if n := len(tb.Schema().Columns); n != 3 || tb.Schema().Version != 1 {
		t.Fatalf("a refused ALTER changed the schema: %d columns, version %d", n, tb.Schema().Version)
	}
	exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 20))
	_ = tb.Close(ctx)
}

// TestAlterNeverReusesIDs: dropping the last column of a table as
// created (no id ever recorded beyond its columns) and adding another
// gives a new id: the dropped column's values, still in the old files,
// must not appear in the new column.
func TestAlterNeverReusesIDs(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create()
	if err := write(tb, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, alterTo(func(s *schema.Schema) { s.DropColumn("v") })); err != nil {
		t.Fatal(err)
	}
	tb = e.open()
	m, err := tb.Alter(ctx, alterTo(func(s *schema.Schema) { s.AddColumn(schema.Column{Name: "w", Kind: schema.KindString}) }))
	if err != nil {
		t.Fatal(err)
	}
	if id := m.Schema.Columns[1].ID; id != 3 {
		t.Fatalf("new column id %d, want 3", id)
	}
	tb = e.open()
	if _, rows := icebergRows(t, e, tb); !slices.Equal(rows, []string{"[1 (null)]"}) {
		t.Fatalf("iceberg-go: %v, want [[1 (null)]] (a dropped column's values reappeared)", rows)
	}
	_ = tb.Close(ctx)
}
