package wal

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
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
				x.Append(uuid.New())
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

// ipcRoundTrip returns b written to and read back from an IPC stream: its
// buffers are slices of the stream, padded.
func ipcRoundTrip(t testing.TB, b arrow.RecordBatch) arrow.RecordBatch {
	t.Helper()
	r, err := ipc.NewReader(bytes.NewReader(writeForeignStream(t, []arrow.RecordBatch{b})))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatalf("no batch read back: %v", r.Err())
	}
	out := r.RecordBatch()
	out.Retain()
	knowNulls(out)
	return out
}

type encTx struct {
	id      uuid.UUID
	seq     uint64
	batches []arrow.RecordBatch
}

// ipcWriterStream is the stream the WAL wrote before it had its own
// encoder: ipc.Writer with the tagged batches, then Close.
func ipcWriterStream(t testing.TB, sc *arrow.Schema, txs []encTx) []byte {
	t.Helper()
	var buf bytes.Buffer
	wr := ipc.NewWriter(&buf, ipc.WithSchema(sc), ipc.WithAllocator(memory.DefaultAllocator))
	for _, tx := range txs {
		count := uint32(len(tx.batches))
		for i, b := range tx.batches {
			c, err := dataCRC(b)
			if err != nil {
				t.Fatal(err)
			}
			md := arrow.NewMetadata(
				[]string{keyTxID, keySeq, keyIndex, keyCount, keyCRC32C},
				[]string{tx.id.String(), strconv.FormatUint(tx.seq, 10), strconv.FormatUint(uint64(i), 10),
					strconv.FormatUint(uint64(count), 10), formatCRC(finishCRC(c, tx.id, tx.seq, uint32(i), count))},
			)
			tagged := array.NewRecordBatchWithMetadata(sc, b.Columns(), b.NumRows(), md)
			err = wr.Write(tagged)
			tagged.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encoderStream encodes txs with one ipcEncoder, as the WAL does.
func encoderStream(t testing.TB, e *ipcEncoder, sc *arrow.Schema, txs []encTx) []byte {
	t.Helper()
	var out []byte
	e.reset()
	sm, err := e.schemaMessage(sc)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, sm...)
	for _, tx := range txs {
		e.reset()
		count := uint32(len(tx.batches))
		for i, b := range tx.batches {
			c, err := dataCRC(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.appendBatch(b, tx.id, tx.seq, uint32(i), count, finishCRC(c, tx.id, tx.seq, uint32(i), count)); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, e.out...)
	}
	return append(out, eosMarker...)
}

// TestEncoderMatchesIPCWriter: the WAL's encoder writes exactly the bytes
// arrow-go's ipc.Writer writes, for every column layout, with and without
// nulls, all null, empty, sliced (bitmaps at odd bit offsets, offsets to
// rebase), with oversized buffers, and one encoder reused for all of it.
func TestEncoderMatchesIPCWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var e ipcEncoder
	for round := 0; round < 300; round++ {
		var txs []encTx
		var all []arrow.RecordBatch
		for n := 1 + rng.IntN(4); n > 0; n-- {
			tx := encTx{id: uuid.New(), seq: rng.Uint64N(1 << 40)}
			for k := 1 + rng.IntN(3); k > 0; k-- {
				rows := rng.IntN(5)
				switch rng.IntN(8) {
				case 0, 1:
					rows = rng.IntN(300)
				case 2:
					rows = 500 + rng.IntN(300)
				}
				b := randomBatch(rng, allTypesSchema, rows, rng.IntN(3))
				all = append(all, b)
				if rows > 0 && rng.IntN(2) == 0 {
					i := rng.Int64N(int64(rows))
					j := i + rng.Int64N(int64(rows)-i+1)
					b = b.NewSlice(i, j)
					all = append(all, b)
					knowNulls(b)
				}
				switch rng.IntN(4) {
				case 0:
					b = padBuffers(rng, b)
					all = append(all, b)
				case 1:
					b = ipcRoundTrip(t, b) // as compaction re-encodes recovered batches
					all = append(all, b)
				}
				tx.batches = append(tx.batches, b)
			}
			txs = append(txs, tx)
		}
		want := ipcWriterStream(t, allTypesSchema, txs)
		got := encoderStream(t, &e, allTypesSchema, txs)
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: encoder wrote %d bytes, ipc.Writer %d; first difference at %d", round, len(got), len(want), firstDiff(got, want))
		}
		for _, b := range all {
			b.Release()
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestEncoderReuseRecovers appends many transactions of different sizes
// and contents through one WAL (so one reused encoder: a longer append
// before a shorter one, nulls after none, strings of every length), then
// checks that the segment is byte for byte the stream ipc.Writer writes
// and that recovery returns every row of every transaction.
func TestEncoderReuseRecovers(t *testing.T) {
	dir := t.TempDir()
	w, _, err := Open(Options{Dir: dir, Schema: allTypesSchema, UnsafeNoSync: true, Logger: testLogger(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	var txs []encTx
	for i := 0; i < 400; i++ {
		tx := encTx{id: uuid.New()}
		for k := 1 + rng.IntN(2); k > 0; k-- {
			rows := 1
			switch rng.IntN(6) {
			case 0:
				rows = rng.IntN(200)
			case 1:
				rows = 1 + rng.IntN(10)
			}
			b := randomBatch(rng, allTypesSchema, rows, rng.IntN(3))
			if rows > 1 && rng.IntN(3) == 0 {
				s := b.NewSlice(1, int64(rows))
				b.Release()
				b = s
				knowNulls(b)
			}
			tx.batches = append(tx.batches, b)
		}
		seq, err := w.Append(context.Background(), tx.id, tx.batches, DurabilityAsync)
		if err != nil {
			t.Fatal(err)
		}
		tx.seq = seq
		txs = append(txs, tx)
	}
	segs := w.Segments()
	if len(segs) != 1 {
		t.Fatalf("%d segments", len(segs))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, segs[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	if want := ipcWriterStream(t, allTypesSchema, txs); !bytes.Equal(data, want) {
		t.Fatalf("segment has %d bytes, ipc.Writer writes %d; first difference at %d", len(data), len(want), firstDiff(data, want))
	}

	w2, recs, err := Open(Options{Dir: dir, Schema: allTypesSchema, UnsafeNoSync: true, Logger: testLogger(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	defer releaseAll(recs)
	if len(recs) != len(txs) {
		t.Fatalf("recovered %d transactions, appended %d", len(recs), len(txs))
	}
	for i, r := range recs {
		tx := txs[i]
		if r.TxID != tx.id || r.Seq != tx.seq || len(r.Batches) != len(tx.batches) {
			t.Fatalf("tx %d: recovered %s seq %d with %d batches, want %s seq %d with %d", i, r.TxID, r.Seq, len(r.Batches), tx.id, tx.seq, len(tx.batches))
		}
		for j, b := range r.Batches {
			if !recordsEqual(b, tx.batches[j]) {
				t.Fatalf("tx %d batch %d: recovered rows differ", i, j)
			}
		}
	}
	for _, tx := range txs {
		for _, b := range tx.batches {
			b.Release()
		}
	}
}

// TestEncoderEmptySegmentSeal: a segment sealed before any append holds
// the schema and the end-of-stream marker, as ipc.Writer.Close wrote.
func TestEncoderEmptySegmentSeal(t *testing.T) {
	var e ipcEncoder
	e.reset()
	sm, err := e.schemaMessage(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := ipcWriterStream(t, testSchema, nil)
	if got := append(append([]byte(nil), sm...), eosMarker...); !bytes.Equal(got, want) {
		t.Fatalf("empty stream differs")
	}
}

// TestEncoderNilBuffers: an empty batch whose arrays have no buffers at
// all (as some producers make them) encodes as ipc.Writer encodes it.
func TestEncoderNilBuffers(t *testing.T) {
	cols := make([]arrow.Array, len(allTypesSchema.Fields()))
	for i, f := range allTypesSchema.Fields() {
		d := array.NewData(f.Type, 0, make([]*memory.Buffer, 3), nil, 0, 0)
		if f.Type.ID() == arrow.NULL {
			d = array.NewData(f.Type, 0, []*memory.Buffer{nil}, nil, 0, 0)
		} else if _, ok := f.Type.(arrow.FixedWidthDataType); ok {
			d = array.NewData(f.Type, 0, make([]*memory.Buffer, 2), nil, 0, 0)
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	b := array.NewRecordBatch(allTypesSchema, cols, 0)
	defer b.Release()
	txs := []encTx{{id: uuid.New(), seq: 1, batches: []arrow.RecordBatch{b}}}
	var e ipcEncoder
	if got, want := encoderStream(t, &e, allTypesSchema, txs), ipcWriterStream(t, allTypesSchema, txs); !bytes.Equal(got, want) {
		t.Fatalf("encoder wrote %d bytes, ipc.Writer %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}
