package server

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// smallSchema has a column of every kind buildSmallBatch handles, and
// some it leaves to appendValue.
var smallSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "b", Kind: schema.KindBool},
	{ID: 2, Name: "i16", Kind: schema.KindInt16},
	{ID: 3, Name: "i32", Kind: schema.KindInt32},
	{ID: 4, Name: "i64", Kind: schema.KindInt64, NotNull: true},
	{ID: 5, Name: "f32", Kind: schema.KindFloat32},
	{ID: 6, Name: "f64", Kind: schema.KindFloat64},
	{ID: 7, Name: "s", Kind: schema.KindString},
	{ID: 8, Name: "bin", Kind: schema.KindBinary},
	{ID: 9, Name: "d", Kind: schema.KindDate},
	{ID: 10, Name: "t", Kind: schema.KindTime},
	{ID: 11, Name: "ts", Kind: schema.KindTimestamp},
	{ID: 12, Name: "tstz", Kind: schema.KindTimestampTZ},
	{ID: 13, Name: "iv", Kind: schema.KindInterval},
	{ID: 14, Name: "u", Kind: schema.KindUUID},
}}

// randomSmallValue returns a canonical value for column c (nil: NULL).
func randomSmallValue(rng *rand.Rand, c *schema.Column) any {
	if !c.NotNull && rng.IntN(4) == 0 {
		return nil
	}
	str := func() string {
		p := make([]byte, rng.IntN(20))
		for i := range p {
			p[i] = byte(rng.Int())
		}
		return string(p)
	}
	switch c.Kind {
	case schema.KindBool:
		return rng.IntN(2) == 0
	case schema.KindInt16:
		return []any{int16(rng.Int()), int64(rng.IntN(65536) - 32768), int32(-5)}[rng.IntN(3)]
	case schema.KindInt32:
		return []any{rng.Int32(), int64(rng.Int32()), int16(7)}[rng.IntN(3)]
	case schema.KindInt64:
		return []any{rng.Int64(), rng.Int32(), int16(-1)}[rng.IntN(3)]
	case schema.KindFloat32:
		return []any{rng.Float32(), rng.NormFloat64()}[rng.IntN(2)]
	case schema.KindFloat64:
		return []any{rng.NormFloat64(), rng.Float32(), math.Inf(-1)}[rng.IntN(3)]
	case schema.KindString:
		return str()
	case schema.KindBinary:
		return []any{[]byte(str()), str()}[rng.IntN(2)]
	case schema.KindDate:
		return []any{pgtypes.Date(rng.Int32N(100000) - 50000), pgtypes.DateInfinity, pgtypes.DateNegInfinity}[rng.IntN(3)]
	case schema.KindTime:
		return pgtypes.Time(rng.Int64N(86400e6))
	case schema.KindTimestamp, schema.KindTimestampTZ:
		return []any{pgtypes.Timestamp(rng.Int64N(1 << 50)), pgtypes.TimestampTZ(-rng.Int64N(1 << 50)), pgtypes.TimestampInfinity, pgtypes.TimestampTZNegInf}[rng.IntN(4)]
	case schema.KindInterval:
		return pgtypes.Interval{Months: rng.Int32(), Days: rng.Int32(), Micros: rng.Int64N(1 << 40)}
	case schema.KindUUID:
		var u [16]byte
		for i := range u {
			u[i] = byte(rng.Int())
		}
		return u
	}
	panic("no generator")
}

// builderBatch is the batch appendValue's builders make of vals.
func builderBatch(t *testing.T, sch *schema.Schema, as *arrow.Schema, vals []any, rows int) arrow.RecordBatch {
	t.Helper()
	bb := newBatchBuilder(sch, as, 0)
	n := len(sch.Columns)
	for r := 0; r < rows; r++ {
		if err := bb.appendRow(vals[r*n : (r+1)*n]); err != nil {
			bb.abort()
			t.Fatal(err)
		}
	}
	out := bb.finish()
	if len(out) != 1 {
		t.Fatalf("%d batches", len(out))
	}
	return out[0]
}

// TestSmallBatchMatchesBuilders: buildSmallBatch makes the batch the Arrow
// builders make (same schema, values, nulls) for every kind it handles.
func TestSmallBatchMatchesBuilders(t *testing.T) {
	as := smallSchema.Arrow()
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(smallSchema.Columns)
	for round := 0; round < 2000; round++ {
		rows := 1 + rng.IntN(smallBatchRows)
		vals := make([]any, rows*n)
		for r := 0; r < rows; r++ {
			for i := range smallSchema.Columns {
				vals[r*n+i] = randomSmallValue(rng, &smallSchema.Columns[i])
			}
		}
		got, ok := buildSmallBatch(smallSchema, as, vals, rows)
		if !ok {
			t.Fatalf("round %d: not built: %v", round, vals)
		}
		want := builderBatch(t, smallSchema, as, vals, rows)
		if got.Schema() != as || got.NumRows() != want.NumRows() {
			t.Fatalf("round %d: schema or rows differ", round)
		}
		for i := range want.Columns() {
			g, w := got.Column(i), want.Column(i)
			if !arrow.TypeEqual(g.DataType(), w.DataType()) || g.NullN() != w.NullN() || !array.Equal(g, w) {
				t.Fatalf("round %d column %s: got %v, want %v", round, smallSchema.Columns[i].Name, g, w)
			}
		}
		got.Release()
		want.Release()
	}
}

// TestSmallBatchLeavesTheRest: what appendValue converts differently, or
// refuses, is left to it.
func TestSmallBatchLeavesTheRest(t *testing.T) {
	one := func(c schema.Column, v any) bool {
		sch := &schema.Schema{Columns: []schema.Column{c}}
		rec, ok := buildSmallBatch(sch, sch.Arrow(), []any{v}, 1)
		if ok {
			rec.Release()
		}
		return ok
	}
	for _, tc := range []struct {
		c schema.Column
		v any
	}{
		{schema.Column{Name: "x", Kind: schema.KindInt16}, int64(40000)},         // out of range
		{schema.Column{Name: "x", Kind: schema.KindInt32}, int64(math.MaxInt64)}, // out of range
		{schema.Column{Name: "x", Kind: schema.KindInt64}, "12"},                 // a string
		{schema.Column{Name: "x", Kind: schema.KindInt64, NotNull: true}, nil},   // NOT NULL
		{schema.Column{Name: "x", Kind: schema.KindString, Length: 3}, "abcd"},   // varchar(3)
		{schema.Column{Name: "x", Kind: schema.KindString}, []byte("a")},         // bytes into text
		{schema.Column{Name: "x", Kind: schema.KindJSON}, `{"a":1}`},             // json(b) normalization
		{schema.Column{Name: "x", Kind: schema.KindDecimal, Precision: 10, Scale: 2}, pgtypes.NumericFromInt64(1)},
		{schema.Column{Name: "x", Kind: schema.KindUUID}, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}, // text uuid
		{schema.Column{Name: "x", Kind: schema.KindFloat64}, int64(1)},
		{schema.Column{Name: "x", Kind: schema.KindTimestamp}, pgtypes.Date(1)},
	} {
		if one(tc.c, tc.v) {
			t.Errorf("%v %T %v: built, want it left to appendValue", tc.c.Kind, tc.v, tc.v)
		}
	}
	if !one(schema.Column{Name: "x", Kind: schema.KindInt64}, int64(1)) {
		t.Error("a bigint was not built")
	}
}
