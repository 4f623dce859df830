package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/google/uuid"
)

// ipcEncoder writes the WAL's Arrow IPC stream messages: byte for byte
// what arrow-go's ipc.Writer (v18, uncompressed, no dictionaries) writes
// for the same batch with the WAL metadata attached, which
// TestEncoderMatchesIPCWriter checks over every column layout the WAL
// accepts, sliced and unsliced. The format is unchanged; what changes is
// the cost: ipc.Writer builds each message with a fresh flatbuffers
// builder grown from zero bytes, an arrow.Metadata of five formatted
// strings, a tagged record and a payload of retained buffers, about 50
// allocations for a one-row batch. The encoder keeps its builder and
// output buffer between appends (it is owned by the WAL and used under
// WAL.mu only) and reads the batch's buffers in place.
//
// It mirrors arrow/ipc's recordEncoder.visit for the layouts the checksum
// defines (checksum.go): null, boolean, fixed width, binary and string
// (32- and 64-bit offsets), and extension types over them. Buffers are
// sent as the writer sends them: a validity bitmap is dropped when there
// are no nulls and zero-filled when all are null; a buffer of an unsliced
// array is sent whole when it is no longer than its 64-byte padded
// length, else cut; offsets are rebased to 0.
type ipcEncoder struct {
	fb     *flatbuffers.Builder
	out    []byte
	bufs   []bodyBuf
	nodes  []fieldNode
	offs   []int64
	vals   []byte // the metadata values, formatted
	schema []byte // the schema message of the stream (nil until first use)
}

type fieldNode struct{ length, nulls int64 }

// bodyBuf is one buffer of a message body: n bytes made from src.
type bodyBuf struct {
	kind  uint8
	src   []byte
	off   int   // bufBits: first bit; bufRebase: first offset index
	count int   // bufBits: bits; bufRebase: offsets
	width int   // bufRebase: 4 or 8
	first int64 // bufRebase: value subtracted
	n     int
}

const (
	bufRaw    = iota // src as is (n = len(src), 0 for a nil buffer)
	bufZero          // n zero bytes
	bufBits          // bits [off, off+count) of src repacked from bit 0, zero-padded to n bytes
	bufRebase        // count offsets of width bytes from index off of src, minus first
)

// Arrow IPC constants (arrow/ipc: kArrowAlignment, currentMetadataVersion,
// flatbuf.MessageHeaderRecordBatch); the layout they produce is part of
// the on-disk format.
const (
	arrowBufferAlign    = 64
	metadataVersionV5   = 4
	maxRetainedEncoding = 1 << 20 // a larger output buffer is not kept for the next append
)

// schemaMessage returns the stream's schema message, as ipc.Writer starts
// a stream (computed once).
func (e *ipcEncoder) schemaMessage(sc *arrow.Schema) ([]byte, error) {
	if e.schema != nil {
		return e.schema, nil
	}
	var buf bytes.Buffer
	wr := ipc.NewWriter(&buf, ipc.WithSchema(sc), ipc.WithAllocator(memory.DefaultAllocator))
	if err := wr.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) < len(eosMarker) || !bytes.Equal(b[len(b)-len(eosMarker):], eosMarker) {
		return nil, errors.New("BUG: wal: schema stream does not end with end-of-stream")
	}
	e.schema = bytes.Clone(b[:len(b)-len(eosMarker)])
	return e.schema, nil
}

// reset starts a new output (an append or a seal).
func (e *ipcEncoder) reset() {
	if e.fb == nil || cap(e.fb.Bytes) > maxRetainedEncoding {
		// A large auxiliary payload grows the builder: not kept either.
		e.fb = flatbuffers.NewBuilder(1024)
	}
	if cap(e.out) > maxRetainedEncoding {
		e.out = nil
	}
	e.out = e.out[:0]
}

// appendBatch appends the RecordBatch message of b tagged with the WAL
// metadata (and aux, if not nil, as its auxiliary payload) to e.out.
func (e *ipcEncoder) appendBatch(b arrow.RecordBatch, tx uuid.UUID, seq uint64, index, count, crc uint32, aux []byte) error {
	e.bufs, e.nodes = e.bufs[:0], e.nodes[:0]
	for i, col := range b.Columns() {
		if err := e.visit(col); err != nil {
			return fmt.Errorf("wal: encode column %d (%q): %w", i, b.ColumnName(i), err)
		}
	}
	var bodyLen int64
	for _, bb := range e.bufs {
		bodyLen += bitutil.CeilByte64(int64(bb.n))
	}
	meta := e.message(b.NumRows(), bodyLen, tx, seq, index, count, crc, aux)

	// Stream framing (arrow/ipc writeMessage): continuation, the padded
	// flatbuffer length, the flatbuffer, zeros to 8 bytes.
	padded := (len(meta) + 8 + frameAlign - 1) / frameAlign * frameAlign
	if padded-8 > maxMetadataLen {
		return fmt.Errorf("message metadata of %d bytes exceeds the limit of %d", padded-8, maxMetadataLen)
	}
	if bodyLen > maxBodyLen {
		return fmt.Errorf("message body of %d bytes exceeds the limit of %d", bodyLen, maxBodyLen)
	}
	out := binary.LittleEndian.AppendUint32(e.out, continuationMarker)
	out = binary.LittleEndian.AppendUint32(out, uint32(padded-8))
	out = append(out, meta...)
	out = appendZeros(out, padded-8-len(meta))
	for _, bb := range e.bufs {
		start := len(out)
		switch bb.kind {
		case bufRaw:
			out = append(out, bb.src...)
		case bufZero:
			out = appendZeros(out, bb.n)
		case bufBits:
			out = appendZeros(out, bb.n)
			bitutil.CopyBitmap(bb.src, bb.off, bb.count, out[start:], 0)
		case bufRebase:
			for i := 0; i < bb.count; i++ {
				p := (bb.off + i) * bb.width
				if bb.width == 8 {
					out = binary.LittleEndian.AppendUint64(out, uint64(int64(binary.LittleEndian.Uint64(bb.src[p:]))-bb.first))
				} else {
					out = binary.LittleEndian.AppendUint32(out, uint32(int64(int32(binary.LittleEndian.Uint32(bb.src[p:])))-bb.first))
				}
			}
		}
		if len(out)-start != bb.n {
			return fmt.Errorf("BUG: wal: encoded buffer of %d bytes, expected %d", len(out)-start, bb.n)
		}
		out = appendZeros(out, int(bitutil.CeilByte64(int64(bb.n)))-bb.n)
	}
	e.out = out
	return nil
}

var zeros [arrowBufferAlign]byte

func appendZeros(b []byte, n int) []byte {
	for n > len(zeros) {
		b = append(b, zeros[:]...)
		n -= len(zeros)
	}
	return append(b, zeros[:n]...)
}

func paddedLength(n, align int64) int64 { return (n + align - 1) / align * align }

func bufferOf(d arrow.ArrayData, i int) *memory.Buffer {
	bufs := d.Buffers()
	if i >= len(bufs) {
		return nil
	}
	return bufs[i]
}

// visit is arrow/ipc recordEncoder.visit for the layouts the WAL accepts.
func (e *ipcEncoder) visit(arr arrow.Array) error {
	d := arr.Data() // an extension array's data is its storage's, typed as the extension
	dt := d.DataType()
	for {
		ext, ok := dt.(arrow.ExtensionType)
		if !ok {
			break
		}
		dt = ext.StorageType()
	}
	off, n := d.Offset(), d.Len()
	if off < 0 || n < 0 {
		return errors.New("negative offset or length")
	}
	nulls := arr.NullN() // counted if unknown, as the IPC writer does
	e.nodes = append(e.nodes, fieldNode{length: int64(n), nulls: int64(nulls)})
	if dt.ID() == arrow.NULL {
		return nil
	}
	switch dt.(type) {
	case *arrow.BooleanType, *arrow.BinaryType, *arrow.StringType, *arrow.LargeBinaryType, *arrow.LargeStringType:
	case arrow.FixedWidthDataType:
		if dt.ID() == arrow.DICTIONARY {
			return errUnsupportedType
		}
	default:
		return fmt.Errorf("%w: %s", errUnsupportedType, dt)
	}

	// Validity.
	switch {
	case nulls == 0:
		e.bufs = append(e.bufs, bodyBuf{kind: bufRaw})
	case nulls == n:
		e.bufs = append(e.bufs, bodyBuf{kind: bufZero, n: int(paddedLength(bitutil.BytesForBits(int64(n)), arrowBufferAlign))})
	default:
		if err := e.truncatedBitmap(bufferOf(d, 0), off, n); err != nil {
			return fmt.Errorf("validity: %w", err)
		}
	}

	switch dt := dt.(type) {
	case *arrow.BooleanType:
		if n == 0 {
			e.bufs = append(e.bufs, bodyBuf{kind: bufRaw})
			return nil
		}
		return e.truncatedBitmap(bufferOf(d, 1), off, n)
	case *arrow.BinaryType, *arrow.StringType:
		return e.varBinary(d, off, n, 4)
	case *arrow.LargeBinaryType, *arrow.LargeStringType:
		return e.varBinary(d, off, n, 8)
	case arrow.FixedWidthDataType:
		w := dt.BitWidth() / 8
		values := bufferOf(d, 1)
		if values == nil {
			e.bufs = append(e.bufs, bodyBuf{kind: bufRaw})
			return nil
		}
		vb := values.Bytes()
		if off != 0 || paddedLength(int64(n*w), arrowBufferAlign) < int64(len(vb)) {
			start := off * w
			l := min(int(bitutil.CeilByte64(int64(n*w))), len(vb)-start)
			if start > len(vb) || l < 0 {
				return errors.New("value buffer shorter than the array")
			}
			vb = vb[start : start+l]
		}
		e.bufs = append(e.bufs, bodyBuf{kind: bufRaw, src: vb, n: len(vb)})
	}
	return nil
}

// truncatedBitmap is arrow/ipc newTruncatedBitmap.
func (e *ipcEncoder) truncatedBitmap(buf *memory.Buffer, off, n int) error {
	if buf == nil {
		e.bufs = append(e.bufs, bodyBuf{kind: bufRaw})
		return nil
	}
	b := buf.Bytes()
	minLen := int(paddedLength(bitutil.BytesForBits(int64(n)), arrowBufferAlign))
	if off == 0 && minLen >= len(b) {
		e.bufs = append(e.bufs, bodyBuf{kind: bufRaw, src: b, n: len(b)})
		return nil
	}
	if (off+n+7)/8 > len(b) {
		return errors.New("bitmap shorter than the array")
	}
	e.bufs = append(e.bufs, bodyBuf{kind: bufBits, src: b, off: off, count: n, n: minLen})
	return nil
}

// varBinary is arrow/ipc's handling of binary and string arrays: the
// offsets rebased to 0 (getZeroBasedValueOffsets), then the data.
func (e *ipcEncoder) varBinary(d arrow.ArrayData, off, n, width int) error {
	ob := bufferOf(d, 1)
	values := bufferOf(d, 2)
	get := func(b []byte, i int) int64 {
		if width == 8 {
			return int64(binary.LittleEndian.Uint64(b[i*8:]))
		}
		return int64(int32(binary.LittleEndian.Uint32(b[i*4:])))
	}
	var first, total int64
	if ob == nil || ob.Len() == 0 {
		e.bufs = append(e.bufs, bodyBuf{kind: bufRaw})
	} else {
		b := ob.Bytes()
		need := (n + 1) * width
		if (off+n+1)*width > len(b) {
			return errors.New("offsets buffer shorter than the array")
		}
		first = get(b, off)
		switch {
		case first != 0:
			e.bufs = append(e.bufs, bodyBuf{kind: bufRebase, src: b, off: off, count: n + 1, width: width, first: first, n: need})
		case off != 0 || need < len(b):
			e.bufs = append(e.bufs, bodyBuf{kind: bufRaw, src: b[off*width : off*width+need], n: need})
		default:
			e.bufs = append(e.bufs, bodyBuf{kind: bufRaw, src: b, n: len(b)})
		}
		if values != nil {
			total = get(b, off+n) - first
		}
	}
	if values == nil {
		e.bufs = append(e.bufs, bodyBuf{kind: bufRaw})
		return nil
	}
	vb := values.Bytes()
	if off != 0 || total < int64(len(vb)) {
		var beg int64
		if n > 0 {
			beg = first
		}
		if beg < 0 || total < 0 || beg+total > int64(len(vb)) {
			return errors.New("offsets out of range")
		}
		vb = vb[beg : beg+total]
	}
	e.bufs = append(e.bufs, bodyBuf{kind: bufRaw, src: vb, n: len(vb)})
	return nil
}

// message builds the flatbuffer Message of a RecordBatch with the WAL
// metadata, with the same builder calls as arrow/ipc writeRecordMessage
// (recordToFB, writeMessageFB, metadataToFB and the generated flatbuf
// helpers), so the same bytes. aux, if not nil, is the value of a sixth
// key, keyAux. The result is valid until the next call.
func (e *ipcEncoder) message(rows, bodyLen int64, tx uuid.UUID, seq uint64, index, count, crc uint32, aux []byte) []byte {
	b := e.fb
	b.Reset()

	// RecordBatch: nodes and buffers vectors (structs of two int64).
	b.StartVector(16, len(e.nodes), 8)
	for i := len(e.nodes) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PrependInt64(e.nodes[i].nulls)
		b.PrependInt64(e.nodes[i].length)
	}
	nodes := b.EndVector(len(e.nodes))
	b.StartVector(16, len(e.bufs), 8)
	e.offs = e.offs[:0] // the buffers' offsets in the body, front to back
	var pos int64
	for _, bb := range e.bufs {
		e.offs = append(e.offs, pos)
		pos += bitutil.CeilByte64(int64(bb.n))
	}
	for i := len(e.bufs) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PrependInt64(int64(e.bufs[i].n))
		b.PrependInt64(e.offs[i])
	}
	buffers := b.EndVector(len(e.bufs))
	b.StartObject(5)
	b.PrependInt64Slot(0, rows, 0)
	b.PrependUOffsetTSlot(1, nodes, 0)
	b.PrependUOffsetTSlot(2, buffers, 0)
	rec := b.EndObject()

	// Custom metadata, in the order encodeLocked always used.
	v := e.vals[:0]
	v = appendUUID(v, tx)
	e1 := len(v)
	v = strconv.AppendUint(v, seq, 10)
	e2 := len(v)
	v = strconv.AppendUint(v, uint64(index), 10)
	e3 := len(v)
	v = strconv.AppendUint(v, uint64(count), 10)
	e4 := len(v)
	v = appendHex32(v, crc)
	e.vals = v
	keys := [6]string{keyTxID, keySeq, keyIndex, keyCount, keyCRC32C, keyAux}
	vals := [6][]byte{v[:e1], v[e1:e2], v[e2:e3], v[e3:e4], v[e4:], aux}
	nkv := 5
	if aux != nil {
		nkv = 6 // the payload is not copied into e.vals: it may be large
	}
	var kvs [6]flatbuffers.UOffsetT
	for i := 0; i < nkv; i++ {
		k := b.CreateString(keys[i])
		val := b.CreateByteString(vals[i])
		b.StartObject(2)
		b.PrependUOffsetTSlot(0, k, 0)
		b.PrependUOffsetTSlot(1, val, 0)
		kvs[i] = b.EndObject()
	}
	b.StartVector(4, nkv, 4)
	for i := nkv - 1; i >= 0; i-- {
		b.PrependUOffsetT(kvs[i])
	}
	md := b.EndVector(nkv)

	b.StartObject(5)
	b.PrependInt16Slot(0, metadataVersionV5, 0)
	b.PrependByteSlot(1, msgRecordBatch, 0)
	b.PrependUOffsetTSlot(2, rec, 0)
	b.PrependInt64Slot(3, bodyLen, 0)
	b.PrependUOffsetTSlot(4, md, 0)
	b.Finish(b.EndObject())
	return b.FinishedBytes()
}

const hexDigits = "0123456789abcdef"

// appendUUID appends the canonical text of id (uuid.UUID.String).
func appendUUID(b []byte, id uuid.UUID) []byte {
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}

// appendHex32 appends v as 8 lowercase hex digits (formatCRC).
func appendHex32(b []byte, v uint32) []byte {
	for s := 28; s >= 0; s -= 4 {
		b = append(b, hexDigits[(v>>uint(s))&0xf])
	}
	return b
}
