package wal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"
)

// auxTx is a transaction of test batches with their payloads.
type auxTx struct {
	id    uuid.UUID
	first int64    // first row id
	rows  []int    // rows per batch (0: a zero-row batch, the shape of a delete record)
	aux   [][]byte // nil or parallel to rows
}

// auxPayload is a recognizable payload of n bytes holding NUL, invalid
// UTF-8 and continuation-marker bytes.
func auxPayload(tag byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		switch i % 5 {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xFF
		case 2:
			b[i] = 0xC3 // a UTF-8 lead byte without its continuation
		default:
			b[i] = tag + byte(i)
		}
	}
	return b
}

func auxTxs() []auxTx {
	return []auxTx{
		{id: uuid.New(), first: 0, rows: []int{5}},                                                             // Append: no payload
		{id: uuid.New(), first: 100, rows: []int{3, 0}, aux: [][]byte{nil, auxPayload(1, 77)}},                 // an UPDATE: inserts + delete record
		{id: uuid.New(), first: 200, rows: []int{0}, aux: [][]byte{{}}},                                        // empty, non-nil
		{id: uuid.New(), first: 300, rows: []int{2, 2, 0}, aux: [][]byte{nil, nil, nil}},                       // aux given, all nil
		{id: uuid.New(), first: 400, rows: []int{1, 0}, aux: [][]byte{auxPayload(2, 3), auxPayload(3, 1<<20)}}, // large
		{id: uuid.New(), first: 500, rows: []int{0}, aux: [][]byte{[]byte("\x00")}},
		{id: uuid.New(), first: 600, rows: []int{4}, aux: [][]byte{auxPayload(4, 64)}},
	}
}

// appendAuxTxs appends txs to w and returns their sequence numbers.
func appendAuxTxs(t testing.TB, w *WAL, txs []auxTx) []uint64 {
	t.Helper()
	var seqs []uint64
	for _, tx := range txs {
		bs := make([]arrow.RecordBatch, len(tx.rows))
		id := tx.first
		for i, n := range tx.rows {
			bs[i] = makeBatch(id, n)
			id += int64(n)
		}
		var seq uint64
		var err error
		if tx.aux == nil {
			seq, err = w.Append(context.Background(), tx.id, bs, DurabilitySync)
		} else {
			seq, err = w.AppendAux(context.Background(), tx.id, bs, tx.aux, DurabilitySync)
		}
		for _, b := range bs {
			b.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	return seqs
}

// checkAuxRecords requires recs to be txs (ids, rows, payloads).
func checkAuxRecords(t *testing.T, recs []Record, txs []auxTx) {
	t.Helper()
	if len(recs) != len(txs) {
		t.Fatalf("recovered %d transactions, want %d", len(recs), len(txs))
	}
	for i, r := range recs {
		tx := txs[i]
		if r.TxID != tx.id || len(r.Batches) != len(tx.rows) {
			t.Fatalf("record %d: tx %s with %d batches, want %s with %d", i, r.TxID, len(r.Batches), tx.id, len(tx.rows))
		}
		id := tx.first
		for j, b := range r.Batches {
			if b.NumRows() != int64(tx.rows[j]) || (b.NumRows() > 0 && firstID(b) != id) {
				t.Fatalf("record %d batch %d: %d rows", i, j, b.NumRows())
			}
			if b.Schema().HasMetadata() {
				t.Fatalf("record %d batch %d: metadata not stripped", i, j)
			}
			id += b.NumRows()
		}
		checkAux(t, i, r.Aux, tx.aux)
	}
}

// TestAuxRoundTrip: payloads (none, nil, empty, NUL and invalid UTF-8,
// 1 MiB, on zero-row batches and on batches with rows) come back from
// recovery exactly, nil-ness included, after a clean close and after a
// compaction rewrote them.
func TestAuxRoundTrip(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}
	w, _ := mustOpen(t, opts, nil)
	txs := auxTxs()
	appendAuxTxs(t, w, txs[:4])
	if err := w.Rotate(); err != nil {
		t.Fatal(err)
	}
	appendAuxTxs(t, w, txs[4:])
	orig := map[string]bool{}
	for _, s := range w.Segments() {
		orig[s.Name] = true
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w, recs := mustOpen(t, opts, nil)
	checkAuxRecords(t, recs, txs)
	releaseAll(recs)
	w.Close()

	// Compaction rewrites the uncommitted transactions of a segment that
	// holds committed ones: their payloads must be rewritten with them.
	opts.CompactBytes = 1
	committed := func(id uuid.UUID) bool { return id == txs[0].id || id == txs[4].id }
	w, recs = mustOpen(t, opts, committed)
	var want []auxTx
	for _, tx := range txs {
		if !committed(tx.id) {
			want = append(want, tx)
		}
	}
	checkAuxRecords(t, recs, want)
	releaseAll(recs)
	w.Close()
	opts.CompactBytes = 0
	w, recs = mustOpen(t, opts, committed)
	defer w.Close()
	defer releaseAll(recs)
	checkAuxRecords(t, recs, want)
	for _, s := range w.Segments() {
		if orig[s.Name] {
			t.Fatalf("segment %s was not compacted", s.Name)
		}
	}
}

// TestAuxRejected: a payload over MaxAuxBytes, or a payload slice not
// parallel to the batches, is refused before anything is written (no
// segment, no sequence number used); one of exactly MaxAuxBytes is stored.
func TestAuxRejected(t *testing.T) {
	dir := t.TempDir()
	w, _ := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	b := makeBatch(0, 1)
	defer b.Release()
	bs := []arrow.RecordBatch{b, b}
	ctx := context.Background()
	if _, err := w.AppendAux(ctx, uuid.New(), bs, [][]byte{nil, make([]byte, MaxAuxBytes+1)}, DurabilitySync); err == nil || !strings.Contains(err.Error(), "exceeds the limit") {
		t.Fatalf("oversize payload: %v", err)
	}
	if _, err := w.AppendAux(ctx, uuid.New(), bs, [][]byte{nil}, DurabilitySync); err == nil {
		t.Fatal("payloads not parallel to batches accepted")
	}
	if segs := w.Segments(); len(segs) != 0 {
		t.Fatalf("a rejected append created %d segments", len(segs))
	}
	big := auxPayload(9, MaxAuxBytes)
	tx := uuid.New()
	seq, err := w.AppendAux(ctx, tx, bs, [][]byte{big, nil}, DurabilitySync)
	if err != nil || seq != 1 {
		t.Fatalf("append of a MaxAuxBytes payload: seq %d, %v", seq, err)
	}
	w.Close()
	w, recs := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	defer w.Close()
	defer releaseAll(recs)
	if len(recs) != 1 || recs[0].TxID != tx || len(recs[0].Aux) != 2 || !bytes.Equal(recs[0].Aux[0], big) || recs[0].Aux[1] != nil {
		t.Fatalf("recovered %d records", len(recs))
	}
}

// auxFixture is a sealed segment of auxTxs()[:2] and a final transaction
// of one batch with a 64-byte payload; frames: schema, 1, 2a, 2b, 3.
func auxFixture(t *testing.T) (fx fixture, txs []auxTx) {
	t.Helper()
	dir := t.TempDir()
	w, _ := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	all := auxTxs()
	txs = []auxTx{all[0], all[1], all[6]}
	appendAuxTxs(t, w, txs)
	segs := w.Segments()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fx.name = segs[0].Name
	for _, tx := range txs {
		fx.txs = append(fx.txs, tx.id)
	}
	var err error
	if fx.data, err = os.ReadFile(filepath.Join(dir, fx.name)); err != nil {
		t.Fatal(err)
	}
	frames, tail, tailOff, _, cerr := scanFrames(fx.name, fx.data)
	if cerr != nil || tail != tailEOS || len(frames) != 5 {
		t.Fatalf("fixture: %d frames, tail %v, err %v", len(frames), tail, cerr)
	}
	fx.frames, fx.eos = frames, tailOff
	return fx, txs
}

// payloadAt returns the offset of payload p in the frame fr of data.
func payloadAt(t *testing.T, data []byte, fr frame, p []byte) int64 {
	t.Helper()
	i := bytes.Index(data[fr.off:fr.end], p)
	if i < 0 || bytes.Contains(data[fr.off+int64(i)+1:fr.end], p) {
		t.Fatal("payload not found once in its frame")
	}
	return fr.off + int64(i)
}

// TestAuxCorruptionFlipPayload: a flip of any byte of a payload, in a
// batch in the middle of the segment or in the last one, is a checksum
// error at that batch's frame.
func TestAuxCorruptionFlipPayload(t *testing.T) {
	fx, txs := auxFixture(t)
	for _, c := range []struct {
		frame   int
		payload []byte
	}{{3, txs[1].aux[1]}, {4, txs[2].aux[0]}} {
		fr := fx.frames[c.frame]
		at := payloadAt(t, fx.data, fr, c.payload)
		for i := int64(0); i < int64(len(c.payload)); i++ {
			b := append([]byte(nil), fx.data...)
			b[at+i] ^= 0x20
			recs, err := openBytes(t, fx.name, b)
			if err == nil {
				releaseAll(recs)
				t.Fatalf("frame %d: flip of payload byte %d not detected", c.frame, i)
			}
			expectCorruption(t, err, fx.name, fr.off, ErrChecksum)
		}
	}
}

// TestAuxCorruptionEveryByteFlip is TestCorruptionEveryByteFlip over a
// segment with payloads: every flip is detected or returns the same
// batches and payloads.
func TestAuxCorruptionEveryByteFlip(t *testing.T) {
	fx, _ := auxFixture(t)
	base, err := readSegment(fx.name, fx.data)
	if err != nil {
		t.Fatal(err)
	}
	defer base.release()
	for off := fx.frames[0].off; off < fx.eos; off++ {
		b := append([]byte(nil), fx.data...)
		b[off] ^= 0x04
		c, err := readSegment(fx.name, b)
		if err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				t.Fatalf("flip at %d: error %v is not a CorruptionError", off, err)
			}
			continue
		}
		if !sameBatches(base, c) {
			t.Fatalf("flip at %d: data changed silently", off)
		}
		c.release()
	}
}

// TestAuxTornTail: a payload-bearing final batch cut anywhere, or with a
// sector of its payload never written in a preallocated segment, is a
// torn tail: the transactions before it are recovered with their payloads.
func TestAuxTornTail(t *testing.T) {
	fx, txs := auxFixture(t)
	last := fx.frames[4]
	for cut := last.off; cut < last.end; cut++ {
		recs, err := openBytes(t, fx.name, fx.data[:cut])
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		checkAuxRecords(t, recs, txs[:2])
		releaseAll(recs)
	}

	// A larger final payload spanning sectors; the segment unsealed and
	// followed by preallocated zeros; one sector inside the payload never
	// persisted.
	dir := t.TempDir()
	w, _ := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	big := auxTx{id: uuid.New(), first: 900, rows: []int{1, 0}, aux: [][]byte{nil, auxPayload(7, 4000)}}
	appendAuxTxs(t, w, []auxTx{txs[0], txs[1], big})
	seg := w.Segments()[0].Name
	w.Close()
	data, err := os.ReadFile(filepath.Join(dir, seg))
	if err != nil {
		t.Fatal(err)
	}
	frames, _, _, _, _ := scanFrames(seg, data)
	lastFr := frames[len(frames)-1]
	at := payloadAt(t, data, lastFr, big.aux[1])
	open := append(append([]byte(nil), data[:lastFr.end]...), make([]byte, 4096)...)
	sector := (at + 1000) &^ (sectorSize - 1)
	clear(open[sector : sector+sectorSize])
	recs, err := openBytes(t, seg, open)
	if err != nil {
		t.Fatalf("unwritten payload sector: %v", err)
	}
	checkAuxRecords(t, recs, txs[:2])
	releaseAll(recs)
}

// TestEncoderNoAllocs: once warm, the encoder allocates nothing for a
// batch, with or without a payload (the payload is not copied into the
// encoder's value buffer, and a batch without one takes the old path).
func TestEncoderNoAllocs(t *testing.T) {
	batch := makeBatch(0, 3)
	defer batch.Release()
	tx := uuid.New()
	c, err := dataCRC(batch)
	if err != nil {
		t.Fatal(err)
	}
	var e ipcEncoder
	for _, aux := range [][]byte{nil, auxPayload(1, 100)} {
		enc := func() {
			e.reset()
			if err := e.appendBatch(batch, tx, 7, 0, 1, finishCRC(c, tx, 7, 0, 1, aux), aux); err != nil {
				t.Fatal(err)
			}
		}
		enc()
		if n := testing.AllocsPerRun(100, enc); n != 0 {
			t.Errorf("payload %v: %v allocations per encoded batch", aux != nil, n)
		}
	}
}
