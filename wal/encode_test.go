package wal

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

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
			var aux []byte
			if tx.aux != nil {
				aux = tx.aux[i]
			}
			keys := []string{keyTxID, keySeq, keyIndex, keyCount, keyCRC32C}
			vals := []string{tx.id.String(), strconv.FormatUint(tx.seq, 10), strconv.FormatUint(uint64(i), 10),
				strconv.FormatUint(uint64(count), 10), formatCRC(finishCRC(c, tx.id, tx.seq, uint32(i), count, aux))}
			if aux != nil {
				keys, vals = append(keys, keyAux), append(vals, string(aux))
			}
			md := arrow.NewMetadata(keys, vals)
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
			var aux []byte
			if tx.aux != nil {
				aux = tx.aux[i]
			}
			if err := e.appendBatch(b, tx.id, tx.seq, uint32(i), count, finishCRC(c, tx.id, tx.seq, uint32(i), count, aux), aux); err != nil {
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
// rebase), with oversized buffers, with and without auxiliary payloads
// (arbitrary bytes, empty, large), and one encoder reused for all of it.
func TestEncoderMatchesIPCWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	auxRng := rand.New(rand.NewPCG(13, 17)) // separate: the batches stay those of before payloads
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
			if auxRng.IntN(3) == 0 {
				tx.aux = make([][]byte, len(tx.batches))
				for i := range tx.aux {
					tx.aux[i] = randomAux(auxRng)
				}
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

	checkRecovered(t, dir, txs)
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

// checkRecovered opens the WAL in dir (schema allTypesSchema) and requires
// it to recover exactly txs: ids, sequence numbers and every row.
func checkRecovered(t *testing.T, dir string, txs []encTx) {
	t.Helper()
	w, recs, err := Open(Options{Dir: dir, Schema: allTypesSchema, UnsafeNoSync: true, Logger: testLogger(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer releaseAll(recs)
	if len(recs) != len(txs) {
		t.Fatalf("recovered %d transactions, want %d", len(recs), len(txs))
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
		checkAux(t, i, r.Aux, tx.aux)
	}
}

// checkAux requires recovered payloads got to be want, nil-ness included
// (a record whose batches have no payload has Aux nil).
func checkAux(t *testing.T, tx int, got, want [][]byte) {
	t.Helper()
	some := false
	for _, a := range want {
		if a != nil {
			some = true
		}
	}
	if !some {
		if got != nil {
			t.Fatalf("tx %d: Aux %q, want nil", tx, got)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("tx %d: %d payloads, want %d", tx, len(got), len(want))
	}
	for j := range want {
		if (got[j] == nil) != (want[j] == nil) || !bytes.Equal(got[j], want[j]) {
			t.Fatalf("tx %d batch %d: payload %q (nil %v), want %q (nil %v)", tx, j, trunc(got[j]), got[j] == nil, trunc(want[j]), want[j] == nil)
		}
	}
}

func trunc(b []byte) []byte { return b[:min(len(b), 40)] }

// randomAux returns a payload: nil, empty, or bytes of any value (NUL,
// invalid UTF-8, 0xFF runs like a continuation marker), sometimes large.
func randomAux(rng *rand.Rand) []byte {
	var n int
	switch rng.IntN(6) {
	case 0:
		return nil
	case 1:
		return []byte{}
	case 2:
		n = 1 + rng.IntN(3)
	case 3:
		n = 100_000 + rng.IntN(100_000)
	default:
		n = rng.IntN(300)
	}
	b := make([]byte, n)
	for i := range b {
		switch rng.IntN(4) {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xFF
		default:
			b[i] = byte(rng.Int())
		}
	}
	return b
}
