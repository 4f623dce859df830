package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"
)

// The batch checksum is part of the on-disk format:
//
//	crc32c( canonical(batch) || txid[16] || seq u64le || index u32le || count u32le [|| aux] )
//
// aux = len(payload) u64le || payload, only for a batch with an auxiliary
// payload (key bsdb.wal.aux, AppendAux; a zero-length payload is a payload
// and folds in its 8-byte length); a batch without one has exactly the
// checksum it had before payloads existed.
//
// canonical(batch) = numRows u64le, numCols u32le, then per column i:
//
//	len(name) u32le, name, nullable u8, len(fp) u32le, fp (the Arrow type
//	fingerprint), then canonical(array)
//
// canonical(array) = length u64le, nullCount u64le,
//
//	validity: if nullCount > 0, bits [offset, offset+length) of the bitmap
//	          repacked LSB-first from bit 0 (ceil(length/8) bytes, unused
//	          high bits zero); nothing if nullCount == 0;
//	bool:     the value bits, repacked the same way;
//	fixed width (ints, floats, decimal, date, time, timestamp, interval,
//	          fixed-size binary/UUID): bytes [offset*w, (offset+length)*w);
//	binary/string (large too): offsets rebased to start at 0 (length+1
//	          values, 4 or 8 bytes), then data bytes [off[0], off[length]);
//	extension: canonical(storage array); null: nothing.
//
// This is what an IPC round trip preserves: buffers are sliced to the
// array's offset/length and offsets rebased by the writer, so the checksum
// is independent of slicing, capacity and padding. Bytes in padding cannot
// change a value and are not covered. The data part is computed outside the
// WAL lock; the 32-byte trailer is folded in once the sequence number is
// known (CRC32 state is resumable with crc32.Update).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errUnsupportedType is returned for column types the checksum does not
// define (nested and dictionary types: no column kind maps to them).
var errUnsupportedType = errors.New("wal: column type not supported in the WAL")

// dataCRC returns the CRC32C of canonical(batch). It validates buffer sizes
// against lengths and never panics on malformed arrays.
func dataCRC(rec arrow.RecordBatch) (uint32, error) {
	h := crcWriters.Get().(*crcWriter)
	defer h.release()
	h.u64(uint64(rec.NumRows()))
	h.u32(uint32(rec.NumCols()))
	sc := rec.Schema()
	for i, col := range rec.Columns() {
		f := sc.Field(i)
		h.str(f.Name)
		if f.Nullable {
			h.byte(1)
		} else {
			h.byte(0)
		}
		h.str(typeFingerprint(col.DataType()))
		if int64(col.Len()) != rec.NumRows() {
			return 0, fmt.Errorf("column %q: %d rows, batch has %d", f.Name, col.Len(), rec.NumRows())
		}
		if err := canonicalArray(h, col.Data()); err != nil {
			return 0, fmt.Errorf("column %q: %w", f.Name, err)
		}
	}
	return h.sum(), nil
}

// finishCRC folds the transaction trailer, and the auxiliary payload if aux
// is not nil, into a data CRC.
func finishCRC(data uint32, tx uuid.UUID, seq uint64, index, count uint32, aux []byte) uint32 {
	h := crcWriters.Get().(*crcWriter)
	defer h.release()
	h.crc = data
	h.buf = append(h.buf, tx[:]...)
	h.u64(seq)
	h.u32(index)
	h.u32(count)
	if aux != nil {
		h.u64(uint64(len(aux)))
		h.bytes(aux)
	}
	return h.sum()
}

func typeFingerprint(dt arrow.DataType) string {
	if fp := dt.Fingerprint(); fp != "" {
		return fp
	}
	return dt.String()
}

// crcWriter computes a CRC32C over a sequence of fields. Small fields are
// gathered in buf and folded in with one crc32.Update (the CRC of a
// concatenation does not depend on how it is cut): every slice given to
// crc32.Update escapes, so hashing each length and flag on its own cost an
// allocation. Writers are pooled; buf is reused.
type crcWriter struct {
	crc uint32
	buf []byte // bytes not yet folded into crc
}

// crcGather: fields up to this size are gathered, and buf is folded in
// once it holds this much.
const crcGather = 256

var crcWriters = sync.Pool{New: func() any { return &crcWriter{buf: make([]byte, 0, 2*crcGather)} }}

func (h *crcWriter) release() {
	h.crc, h.buf = 0, h.buf[:0]
	crcWriters.Put(h)
}

func (h *crcWriter) flush() {
	if len(h.buf) > 0 {
		h.crc = crc32.Update(h.crc, castagnoli, h.buf)
		h.buf = h.buf[:0]
	}
}

// sum returns the CRC of everything written.
func (h *crcWriter) sum() uint32 {
	h.flush()
	return h.crc
}

func (h *crcWriter) gathered() {
	if len(h.buf) >= crcGather {
		h.flush()
	}
}

func (h *crcWriter) bytes(p []byte) {
	if len(p) <= crcGather {
		h.buf = append(h.buf, p...)
		h.gathered()
		return
	}
	h.flush()
	h.crc = crc32.Update(h.crc, castagnoli, p)
}

func (h *crcWriter) byte(b byte) {
	h.buf = append(h.buf, b)
	h.gathered()
}

func (h *crcWriter) u32(v uint32) {
	h.buf = binary.LittleEndian.AppendUint32(h.buf, v)
	h.gathered()
}

func (h *crcWriter) u64(v uint64) {
	h.buf = binary.LittleEndian.AppendUint64(h.buf, v)
	h.gathered()
}

func (h *crcWriter) str(s string) {
	h.u32(uint32(len(s)))
	if len(s) <= crcGather {
		h.buf = append(h.buf, s...)
		h.gathered()
		return
	}
	h.bytes([]byte(s))
}

// bits hashes bits [off, off+n) of buf repacked from bit 0.
func (h *crcWriter) bits(buf []byte, off, n int) error {
	if off < 0 || n < 0 || (off+n+7)/8 > len(buf) {
		return errors.New("bitmap shorter than the array")
	}
	if off%8 == 0 {
		whole := n / 8
		h.bytes(buf[off/8 : off/8+whole])
		if rem := n % 8; rem != 0 {
			h.byte(buf[off/8+whole] & byte(1<<rem-1))
		}
		return nil
	}
	out := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		j := off + i
		if buf[j/8]&(1<<(j%8)) != 0 {
			out[i/8] |= 1 << (i % 8)
		}
	}
	h.bytes(out)
	return nil
}

func bufBytes(d arrow.ArrayData, i int) []byte {
	bufs := d.Buffers()
	if i >= len(bufs) || bufs[i] == nil {
		return nil
	}
	return bufs[i].Bytes()
}

func canonicalArray(h *crcWriter, d arrow.ArrayData) error {
	off, n := d.Offset(), d.Len()
	if off < 0 || n < 0 {
		return errors.New("negative offset or length")
	}
	nulls := d.NullN()
	if nulls < 0 || nulls > n {
		return fmt.Errorf("null count %d out of range", nulls)
	}
	h.u64(uint64(n))
	h.u64(uint64(nulls))
	dt := d.DataType()
	if dt.ID() == arrow.NULL {
		return nil
	}
	if nulls > 0 {
		if err := h.bits(bufBytes(d, 0), off, n); err != nil {
			return fmt.Errorf("validity: %w", err)
		}
	}
	if t, ok := dt.(arrow.ExtensionType); ok {
		storage := array.NewData(t.StorageType(), n, d.Buffers(), d.Children(), nulls, off)
		defer storage.Release()
		return canonicalValues(h, storage, off, n)
	}
	return canonicalValues(h, d, off, n)
}

func canonicalValues(h *crcWriter, d arrow.ArrayData, off, n int) error {
	switch dt := d.DataType().(type) {
	case *arrow.BooleanType:
		if err := h.bits(bufBytes(d, 1), off, n); err != nil {
			return fmt.Errorf("values: %w", err)
		}
		return nil
	case *arrow.BinaryType, *arrow.StringType:
		return canonicalVarBinary(h, d, off, n, 4)
	case *arrow.LargeBinaryType, *arrow.LargeStringType:
		return canonicalVarBinary(h, d, off, n, 8)
	case arrow.FixedWidthDataType:
		bw := dt.BitWidth()
		if bw <= 0 || bw%8 != 0 || d.DataType().ID() == arrow.DICTIONARY {
			return errUnsupportedType
		}
		w := bw / 8
		b := bufBytes(d, 1)
		if (off+n)*w > len(b) || (off+n)*w < 0 {
			return errors.New("value buffer shorter than the array")
		}
		h.bytes(b[off*w : (off+n)*w])
		return nil
	}
	return fmt.Errorf("%w: %s", errUnsupportedType, d.DataType())
}

func canonicalVarBinary(h *crcWriter, d arrow.ArrayData, off, n, width int) error {
	ob := bufBytes(d, 1)
	if n == 0 {
		h.u64(0)
		return nil
	}
	if (off+n+1)*width > len(ob) {
		return errors.New("offsets buffer shorter than the array")
	}
	get := func(i int) int64 {
		if width == 4 {
			return int64(int32(binary.LittleEndian.Uint32(ob[(off+i)*4:])))
		}
		return int64(binary.LittleEndian.Uint64(ob[(off+i)*8:]))
	}
	first, last := get(0), get(n)
	data := bufBytes(d, 2)
	if first < 0 || last < first || last > int64(len(data)) {
		return errors.New("offsets out of range")
	}
	// Validate, then hash the rebased offsets in one call (same bytes as
	// hashing them one by one). When first == 0 they are the raw bytes.
	prev := first
	for i := 0; i <= n; i++ {
		v := get(i)
		if v < prev || v > last {
			return errors.New("offsets not monotonic")
		}
		prev = v
	}
	raw := ob[off*width : (off+n+1)*width]
	if first == 0 {
		h.bytes(raw)
	} else {
		rebased := make([]byte, len(raw))
		for i := 0; i <= n; i++ {
			if width == 4 {
				binary.LittleEndian.PutUint32(rebased[i*4:], uint32(get(i)-first))
			} else {
				binary.LittleEndian.PutUint64(rebased[i*8:], uint64(get(i)-first))
			}
		}
		h.bytes(rebased)
	}
	h.bytes(data[first:last])
	return nil
}
