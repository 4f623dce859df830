package wal

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

// allTypesSchema has a column of every layout the WAL accepts.
var allTypesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
	{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 38, Scale: 4}, Nullable: true},
	{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "time", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "iv", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true},
	{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
	{Name: "uuid", Type: extensions.NewUUIDType(), Nullable: true},
	{Name: "bool8", Type: extensions.NewBool8Type(), Nullable: true},
	{Name: "null", Type: arrow.Null, Nullable: true},
}, nil)

// randomBatch returns rows random rows of sc; nullMode 0: no nulls, 1:
// some, 2: every nullable column all null.
func randomBatch(rng *rand.Rand, sc *arrow.Schema, rows, nullMode int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	str := func() string {
		n := rng.IntN(12)
		if rng.IntN(8) == 0 {
			n = rng.IntN(200)
		}
		p := make([]byte, n)
		for i := range p {
			p[i] = 'a' + byte(rng.IntN(26))
		}
		return string(p)
	}
	for r := 0; r < rows; r++ {
		for i, f := range sc.Fields() {
			fb := b.Field(i)
			if f.Nullable && (nullMode == 2 || (nullMode == 1 && rng.IntN(3) == 0)) {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.Int8Builder:
				x.Append(int8(rng.Int()))
			case *array.Int16Builder:
				x.Append(int16(rng.Int()))
			case *array.Int32Builder:
				x.Append(rng.Int32())
			case *array.Int64Builder:
				x.Append(rng.Int64())
			case *array.Uint64Builder:
				x.Append(rng.Uint64())
			case *array.Float16Builder:
				x.Append(float16.New(rng.Float32()))
			case *array.Float32Builder:
				x.Append(rng.Float32())
			case *array.Float64Builder:
				x.Append(rng.NormFloat64())
			case *array.BooleanBuilder:
				x.Append(rng.IntN(2) == 0)
			case *array.StringBuilder:
				x.Append(str())
			case *array.LargeStringBuilder:
				x.Append(str())
			case *array.BinaryBuilder:
				x.Append([]byte(str()))
			case *array.Decimal128Builder:
				x.Append(decimal128.FromI64(rng.Int64()))
			case *array.Date32Builder:
				x.Append(arrow.Date32(rng.Int32N(40000)))
			case *array.Time64Builder:
				x.Append(arrow.Time64(rng.Int64N(86400e6)))
			case *array.TimestampBuilder:
				x.Append(arrow.Timestamp(rng.Int64()))
			case *array.MonthDayNanoIntervalBuilder:
				x.Append(arrow.MonthDayNanoInterval{Months: rng.Int32(), Days: rng.Int32(), Nanoseconds: rng.Int64()})
			case *array.FixedSizeBinaryBuilder:
				x.Append([]byte{byte(rng.Int()), byte(rng.Int()), byte(rng.Int())})
			case *extensions.UUIDBuilder:
				var u uuid.UUID
				for k := range u {
					u[k] = byte(rng.Int())
				}
				x.Append(u)
			case *extensions.Bool8Builder:
				x.Append(rng.IntN(2) == 0)
			case *array.NullBuilder:
				x.AppendNull()
			default:
				panic(fmt.Sprintf("no generator for %T", fb))
			}
		}
	}
	return b.NewRecordBatch()
}

// padBuffers returns rec with every buffer copied into a longer one whose
// extra bytes are garbage: what a batch read from a file or built with
// spare capacity may look like. The IPC writer cuts such buffers only
// beyond their 64-byte padded length.
func padBuffers(rng *rand.Rand, rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := c.Data()
		bufs := make([]*memory.Buffer, len(d.Buffers()))
		for j, bf := range d.Buffers() {
			if bf == nil {
				continue
			}
			p := append([]byte(nil), bf.Bytes()...)
			for k := rng.IntN(100); k > 0; k-- {
				p = append(p, byte(rng.Int()))
			}
			bufs[j] = memory.NewBufferBytes(p)
		}
		nd := array.NewData(d.DataType(), d.Len(), bufs, nil, d.NullN(), d.Offset())
		cols[i] = array.MakeFromData(nd)
		nd.Release()
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// knowNulls counts the nulls of a slice's columns (a slice does not know
// them, and the checksum refuses an unknown null count).
func knowNulls(b arrow.RecordBatch) {
	for _, c := range b.Columns() {
		c.NullN()
	}
}

type encTx struct {
	id      uuid.UUID
	seq     uint64
	batches []arrow.RecordBatch
	aux     [][]byte // nil, or parallel to batches (auxiliary payloads)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
