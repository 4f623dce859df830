package planner

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/txn"
)

// TestSplitBatches checks the grouping of ensureMirrored's concurrent
// INSERTs: every batch exactly once, in order, at most n groups, none
// smaller than the minimum unless there is only one.
func TestSplitBatches(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	mk := func(rows ...int) []txn.Batch {
		var out []txn.Batch
		for i, n := range rows {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for k := 0; k < n; k++ {
				b.Append(int64(k))
			}
			col := b.NewArray()
			out = append(out, txn.Batch{ID: uint64(i + 1), Rec: array.NewRecordBatch(sch, []arrow.Array{col}, int64(n))})
		}
		return out
	}
	cases := []struct {
		rows    []int
		n       int
		min     int64
		wantLen int
	}{
		{[]int{10, 10, 10, 10}, 2, 100, 1}, // too small to split
		{[]int{100, 100, 100, 100}, 2, 100, 2},
		{[]int{100, 100, 100, 100}, 8, 100, 4},
		{[]int{400}, 4, 100, 1},          // one batch is one INSERT
		{[]int{1, 1, 1, 397}, 2, 100, 1}, // batches are never cut
		{[]int{397, 1, 1, 1}, 2, 100, 2},
	}
	for _, c := range cases {
		bs := mk(c.rows...)
		got := splitBatches(bs, c.n, c.min)
		if len(got) != c.wantLen {
			t.Errorf("%v n=%d: %d groups, want %d", c.rows, c.n, len(got), c.wantLen)
		}
		var ids []uint64
		for _, g := range got {
			if len(g) == 0 {
				t.Errorf("%v: empty group", c.rows)
			}
			for _, b := range g {
				ids = append(ids, b.ID)
			}
		}
		if len(ids) != len(bs) {
			t.Fatalf("%v: %d batches in groups, want %d", c.rows, len(ids), len(bs))
		}
		for i, id := range ids {
			if id != uint64(i+1) {
				t.Errorf("%v: batch order %v", c.rows, ids)
				break
			}
		}
	}
}
