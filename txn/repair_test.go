package txn

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/wal"
)

// badText are values that versions before the input checks could store:
// invalid UTF-8 and NUL, and their repaired forms.
var badText = []struct{ in, want string }{
	{"ok", "ok"},
	{"bad\xff\xfe", "bad\uFFFD"},
	{"n\x00l", "n\uFFFDl"},
	{"x\xc3\x28", "x\uFFFD("},
	{"déjà vu", "déjà vu"},
}

// textBatch is a batch of tb's schema with ids 1.. and the given texts
// (the second row NULL when null is set).
func textBatch(tb *Table, texts ...string) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, tb.ArrowSchema())
	defer b.Release()
	for i, s := range texts {
		b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		b.Field(1).(*array.StringBuilder).Append(s)
	}
	b.Field(0).(*array.Int64Builder).Append(int64(len(texts) + 1))
	b.Field(1).AppendNull()
	return b.NewRecordBatch()
}

func badInputs() []string {
	var out []string
	for _, c := range badText {
		out = append(out, c.in)
	}
	return out
}

// checkRepaired fails unless recs hold exactly badText's repaired values
// (and the trailing NULL), all valid text.
func checkRepaired(t *testing.T, recs []arrow.RecordBatch) {
	t.Helper()
	var got []string
	nulls := 0
	for _, r := range recs {
		col := r.Column(1).(*array.String)
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				nulls++
				continue
			}
			got = append(got, col.Value(i))
		}
	}
	if len(got) != len(badText) || nulls != 1 {
		t.Fatalf("got %q and %d NULLs, want %d values and 1 NULL", got, nulls, len(badText))
	}
	for i, c := range badText {
		if got[i] != c.want || !pgerr.ValidTextString(got[i]) {
			t.Errorf("value %d: %q, want %q", i, got[i], c.want)
		}
	}
}

func TestRepairRecord(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	rec := textBatch(tb, badInputs()...)
	defer rec.Release()
	out, n := RepairRecord(rec)
	defer out.Release()
	if n != 3 {
		t.Errorf("repaired %d values, want 3", n)
	}
	checkRepaired(t, []arrow.RecordBatch{out})
	// Valid data is returned as it is.
	good := textBatch(tb, "a", "é", "✓")
	defer good.Release()
	if same, n := RepairRecord(good); same != good || n != 0 {
		t.Errorf("valid batch: %v, %d", same, n)
	} else {
		same.Release()
	}
	// Values whose bytes are valid only together: each value on its own
	// is not, and is repaired.
	split := textBatch(tb, "a\xc3", "\xa9b")
	defer split.Release()
	fixed, n := RepairRecord(split)
	defer fixed.Release()
	col := fixed.Column(1).(*array.String)
	if n != 2 || col.Value(0) != "a\uFFFD" || col.Value(1) != "\uFFFDb" {
		t.Errorf("split character: %d %q %q", n, col.Value(0), col.Value(1))
	}
}

// TestRecoveryRepairsText: rows an older version wrote to the WAL with
// invalid text are repaired when the WAL is replayed, so they can be
// mirrored, read and flushed into valid Parquet.
func TestRecoveryRepairsText(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	rec := textBatch(tb, badInputs()...)
	defer rec.Release()
	// The txn layer takes what it is given: the checks are at the inputs.
	if _, err := tb.Write(context.Background(), []arrow.RecordBatch{rec}, WriteOptions{Durability: wal.DurabilitySync}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Abandon(); err != nil {
		t.Fatal(err)
	}
	tb2 := e.open()
	s, err := tb2.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for _, b := range s.Batches {
		recs = append(recs, b.Rec)
	}
	checkRepaired(t, recs)
	s.Release()
	if err := tb2.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, e, tb2)
}

// checkFiles reads every data file of tb's head and checks its text.
func checkFiles(t *testing.T, e *env, tb *Table) {
	t.Helper()
	s, err := tb.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	var recs []arrow.RecordBatch
	for _, f := range s.Manifest.Files {
		rs, err := parquet.ReadFile(filepath.Join(e.root, "warehouse", tb.Prefix(), f.Path))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rs...)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	checkRepaired(t, recs)
}

// TestRepairTextRewritesFiles: a Parquet file holding invalid text (as an
// older version flushed it) is rewritten by RepairText with the text
// repaired, in a new manifest version; files without such text stay.
func TestRepairTextRewritesFiles(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	ctx := context.Background()
	// A file an older version wrote: arrow-go's Parquet writer stores the
	// bytes as they are.
	bad := textBatch(tb, badInputs()...)
	defer bad.Release()
	df, err := tb.writeDataFile(ctx, []arrow.RecordBatch{bad})
	if err != nil {
		t.Fatal(err)
	}
	head, err := tb.manifests.LoadLatest(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	next := head.Next()
	df.AddedVersion = next.Version
	next.Files = append(next.Files, df)
	if err := tb.manifests.Create(ctx, next); err != nil {
		t.Fatal(err)
	}
	if err := write(tb, 100); err != nil { // a good file, flushed by RepairText
		t.Fatal(err)
	}
	res, err := tb.RepairText(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 1 || res.Values != 3 {
		t.Errorf("RepairText = %+v, want 1 file, 3 values", res)
	}
	s, err := tb.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files := s.Manifest.Files
	s.Release()
	if len(files) != 2 || files[0].Path == df.Path {
		t.Fatalf("files after repair: %+v", files)
	}
	if _, _, err := e.local.Get(ctx, tb.key(df.Path)); err == nil {
		t.Errorf("the old file %s is still there", df.Path)
	}
	rs, err := parquet.ReadFile(filepath.Join(e.root, "warehouse", tb.Prefix(), files[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	checkRepaired(t, rs)
	for _, r := range rs {
		r.Release()
	}
	// Nothing left to do: a second run rewrites nothing.
	if res, err := tb.RepairText(ctx); err != nil || res.Files != 0 {
		t.Errorf("second RepairText = %+v, %v", res, err)
	}
	// And a reopen sees the repaired head.
	if err := tb.Close(ctx); err != nil {
		t.Fatal(err)
	}
	tb2 := e.open()
	if got := e.snapshotIDs(tb2); len(got) != len(badText)+2 {
		t.Errorf("rows after reopen: %v", got)
	}
}

// TestRepairTextWithWriters: writes and flushes go on while RepairText
// runs; every row is there exactly once afterwards, and the files hold
// only valid text.
func TestRepairTextWithWriters(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	ctx := context.Background()
	bad := textBatch(tb, "bad\xff")
	defer bad.Release()
	df, err := tb.writeDataFile(ctx, []arrow.RecordBatch{bad})
	if err != nil {
		t.Fatal(err)
	}
	head, err := tb.manifests.LoadLatest(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	next := head.Next()
	df.AddedVersion = next.Version
	next.Files = append(next.Files, df)
	if err := tb.manifests.Create(ctx, next); err != nil {
		t.Fatal(err)
	}
	want := set(1, 2) // the bad file's rows (its ids 1 and 2)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		id := int64(1000)
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := write(tb, id); err != nil {
				done <- err
				return
			}
			want[id] = true
			if id%7 == 0 {
				if err := tb.Flush(ctx); err != nil {
					done <- err
					return
				}
			}
			id++
		}
	}()
	for range 3 {
		if _, err := tb.RepairText(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, e.snapshotIDs(tb), want)
	if err := tb.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := tb.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	for _, f := range s.Manifest.Files {
		rs, err := parquet.ReadFile(filepath.Join(e.root, "warehouse", tb.Prefix(), f.Path))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			rr, n := RepairRecord(r)
			if n != 0 {
				t.Errorf("file %s still holds invalid text", f.Path)
			}
			rr.Release()
			r.Release()
		}
	}
}
