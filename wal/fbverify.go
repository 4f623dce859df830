package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The Arrow IPC decoder trusts its flatbuffers: a damaged vector length
// becomes make([]T, n) with a huge n, which is a fatal out-of-memory error,
// not a recoverable panic. verifyMessage walks every vector the decoder
// sizes allocations by (custom metadata, schema fields and children, union
// type ids, batch nodes/buffers/variadic counts) and checks that it fits in
// the buffer and in sane limits, before any message reaches the decoder.
// It also rejects body compression (never written by this package; its
// stored uncompressed lengths would be another allocation bomb).

const (
	maxFields        = 1 << 16 // columns, nested fields included
	maxKeyValues     = 1 << 16 // custom metadata entries per vector
	maxFieldDepth    = 64
	arrowTypeUnion   = 14 // Type union tag of Union in Schema.fbs
	vectorOfTableEnt = 4
)

var errFlatbuffer = errors.New("malformed flatbuffer")

type fbTable struct {
	b             []byte
	pos, vt       int
	vtLen, tblLen int
}

func fbTableAt(b []byte, pos int) (fbTable, error) {
	le := binary.LittleEndian
	if pos < 0 || pos > len(b)-4 {
		return fbTable{}, errFlatbuffer
	}
	vt := pos - int(int32(le.Uint32(b[pos:])))
	if vt < 0 || vt > len(b)-4 {
		return fbTable{}, errFlatbuffer
	}
	t := fbTable{b: b, pos: pos, vt: vt, vtLen: int(le.Uint16(b[vt:])), tblLen: int(le.Uint16(b[vt+2:]))}
	if t.vtLen < 4 || t.vtLen%2 != 0 || vt+t.vtLen > len(b) || t.tblLen < 4 || pos+t.tblLen > len(b) {
		return fbTable{}, errFlatbuffer
	}
	return t, nil
}

// field returns the absolute position of slot, 0 if absent.
func (t fbTable) field(slot, size int) (int, error) {
	o := 4 + 2*slot
	if o+2 > t.vtLen {
		return 0, nil
	}
	v := int(binary.LittleEndian.Uint16(t.b[t.vt+o:]))
	if v == 0 {
		return 0, nil
	}
	if v+size > t.tblLen {
		return 0, errFlatbuffer
	}
	return t.pos + v, nil
}

// ref follows the uoffset in slot; 0 if absent.
func (t fbTable) ref(slot int) (int, error) {
	p, err := t.field(slot, 4)
	if err != nil || p == 0 {
		return 0, err
	}
	target := p + int(binary.LittleEndian.Uint32(t.b[p:]))
	if target < 0 || target > len(t.b)-4 {
		return 0, errFlatbuffer
	}
	return target, nil
}

func (t fbTable) u8(slot int) (byte, error) {
	p, err := t.field(slot, 1)
	if err != nil || p == 0 {
		return 0, err
	}
	return t.b[p], nil
}

// vector returns the start and length of the vector in slot.
func (t fbTable) vector(slot, elem, limit int) (start, n int, err error) {
	p, err := t.ref(slot)
	if err != nil || p == 0 {
		return 0, 0, err
	}
	n = int(binary.LittleEndian.Uint32(t.b[p:]))
	start = p + 4
	if n < 0 || n > limit || n > (len(t.b)-start)/elem {
		return 0, 0, fmt.Errorf("%w: vector of %d elements", errFlatbuffer, n)
	}
	return start, n, nil
}

func (t fbTable) sub(slot int) (fbTable, bool, error) {
	p, err := t.ref(slot)
	if err != nil || p == 0 {
		return fbTable{}, false, err
	}
	s, err := fbTableAt(t.b, p)
	return s, err == nil, err
}

func (t fbTable) vecTable(start, i int) (fbTable, error) {
	p := start + vectorOfTableEnt*i
	return fbTableAt(t.b, p+int(binary.LittleEndian.Uint32(t.b[p:])))
}

func (t fbTable) str(slot int) error {
	_, _, err := t.vector(slot, 1, len(t.b))
	return err
}

func (t fbTable) keyValues(slot int) error {
	start, n, err := t.vector(slot, vectorOfTableEnt, maxKeyValues)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		kv, err := t.vecTable(start, i)
		if err != nil {
			return err
		}
		if err := kv.str(0); err != nil {
			return err
		}
		if err := kv.str(1); err != nil {
			return err
		}
	}
	return nil
}

// verifyMessage checks an Arrow Message flatbuffer (see above).
func verifyMessage(meta []byte) error {
	if len(meta) < 4 {
		return errFlatbuffer
	}
	msg, err := fbTableAt(meta, int(binary.LittleEndian.Uint32(meta)))
	if err != nil {
		return err
	}
	if err := msg.keyValues(4); err != nil {
		return fmt.Errorf("message metadata: %w", err)
	}
	typ, err := msg.u8(1)
	if err != nil {
		return err
	}
	hdr, ok, err := msg.sub(2)
	if err != nil || !ok {
		return errFlatbuffer
	}
	switch typ {
	case msgSchema:
		return verifySchema(hdr)
	case msgRecordBatch:
		return verifyRecordBatch(hdr)
	case msgDictionaryBatch:
		rb, ok, err := hdr.sub(1)
		if err != nil || !ok {
			return errFlatbuffer
		}
		return verifyRecordBatch(rb)
	}
	return fmt.Errorf("%w: message type %d", errFlatbuffer, typ)
}

func verifySchema(s fbTable) error {
	if err := s.keyValues(2); err != nil {
		return err
	}
	if _, _, err := s.vector(3, 8, maxKeyValues); err != nil {
		return err
	}
	budget := maxFields
	return verifyFields(s, 1, 0, &budget)
}

func verifyFields(t fbTable, slot, depth int, budget *int) error {
	if depth > maxFieldDepth {
		return fmt.Errorf("%w: fields nested deeper than %d", errFlatbuffer, maxFieldDepth)
	}
	start, n, err := t.vector(slot, vectorOfTableEnt, *budget)
	if err != nil {
		return err
	}
	*budget -= n
	for i := 0; i < n; i++ {
		f, err := t.vecTable(start, i)
		if err != nil {
			return err
		}
		if err := f.str(0); err != nil {
			return err
		}
		if err := f.keyValues(6); err != nil {
			return err
		}
		tt, err := f.u8(2)
		if err != nil {
			return err
		}
		if ty, ok, err := f.sub(3); err != nil {
			return err
		} else if ok && tt == arrowTypeUnion {
			if _, _, err := ty.vector(1, 4, maxFields); err != nil {
				return err
			}
		}
		if err := verifyFields(f, 5, depth+1, budget); err != nil {
			return err
		}
	}
	return nil
}

func verifyRecordBatch(rb fbTable) error {
	if _, _, err := rb.vector(1, 16, maxFields*4); err != nil { // FieldNode structs
		return err
	}
	if _, _, err := rb.vector(2, 16, maxFields*8); err != nil { // Buffer structs
		return err
	}
	if p, err := rb.ref(3); err != nil {
		return err
	} else if p != 0 {
		return errors.New("compressed bodies are not supported")
	}
	_, _, err := rb.vector(4, 8, maxFields)
	return err
}
