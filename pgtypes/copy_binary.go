package pgtypes

import (
	"encoding/binary"
	"io"
	"slices"
)

// COPY BINARY layout (PostgreSQL "Binary Format" of COPY):
//
//	header:  "PGCOPY\n\377\r\n\0" (11 bytes), int32 flags (bit 16 = OIDs,
//	         rejected; bits 0-15 must be 0), int32 extension length N, N bytes
//	tuple:   int16 field count, then per field int32 length (-1 = NULL) and
//	         that many bytes (the type's binary send format)
//	trailer: int16 -1
//
// All integers are big-endian.

func appendBinaryRow(dst []byte, fields [][]byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(fields)))
	for _, f := range fields {
		if f == nil {
			dst = append(dst, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// readFull reads n <= 4 bytes into the reader's scratch array.
func (cr *CopyReader) readFull(n int) ([]byte, error) {
	b := cr.hdr[:n]
	if _, err := io.ReadFull(cr.r, b); err != nil {
		return nil, cr.eofErr(err)
	}
	return b, nil
}

func (cr *CopyReader) eofErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return cr.opts.newCopyError(cr.line, -1, nil, "unexpected EOF in COPY data")
	}
	return err
}

func (cr *CopyReader) binaryHeader() error {
	sig := make([]byte, len(binarySignature))
	if _, err := io.ReadFull(cr.r, sig); err != nil || string(sig) != binarySignature {
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		return cr.opts.newCopyError(0, -1, nil, "COPY file signature not recognized")
	}
	b, err := cr.readFull(4)
	if err != nil {
		return cr.opts.newCopyError(0, -1, nil, "invalid COPY file header (missing flags)")
	}
	flags := binary.BigEndian.Uint32(b)
	if flags&(1<<16) != 0 {
		return cr.opts.newCopyError(0, -1, nil, "invalid COPY file header (WITH OIDS)")
	}
	if flags&0xffff0000&^(1<<16) != 0 {
		return cr.opts.newCopyError(0, -1, nil, "unrecognized critical flags in COPY file header")
	}
	b, err = cr.readFull(4)
	if err != nil {
		return cr.opts.newCopyError(0, -1, nil, "invalid COPY file header (missing length)")
	}
	ext := int64(binary.BigEndian.Uint32(b))
	if int32(ext) < 0 {
		return cr.opts.newCopyError(0, -1, nil, "invalid COPY file header (missing length)")
	}
	if n, err := io.CopyN(io.Discard, cr.r, ext); err != nil || n != ext {
		return cr.opts.newCopyError(0, -1, nil, "invalid COPY file header (wrong length)")
	}
	cr.headerDone = true
	return nil
}

func (cr *CopyReader) nextBinary() ([][]byte, error) {
	if !cr.headerDone {
		if err := cr.binaryHeader(); err != nil {
			return nil, err
		}
	}
	cr.line++
	if fields, ok := cr.nextBinaryBuffered(); ok {
		return fields, nil
	}
	// End of input exactly at a tuple boundary ends the data even without
	// the -1 trailer, as in PostgreSQL (CopyGetInt16 returning false).
	b := cr.hdr[:2]
	if k, err := io.ReadFull(cr.r, b); err != nil {
		if err == io.EOF && k == 0 {
			cr.done = true
			return nil, io.EOF
		}
		return nil, cr.eofErr(err)
	}
	n := int16(binary.BigEndian.Uint16(b))
	if n == -1 {
		cr.done = true
		return nil, io.EOF
	}
	if cr.ncols > 0 && int(n) != cr.ncols {
		return nil, cr.opts.newCopyError(cr.line, -1, nil, "row field count is %d, expected %d", n, cr.ncols)
	}
	if n < 0 {
		return nil, cr.opts.newCopyError(cr.line, -1, nil, "row field count is %d, expected %d", n, cr.ncols)
	}
	fields := cr.fields[:0]
	cr.attr = cr.attr[:0]
	// Offsets first: cr.attr may grow while reading.
	spans := cr.spans[:0]
	for i := 0; i < int(n); i++ {
		b, err := cr.readFull(4)
		if err != nil {
			return nil, err
		}
		l := int32(binary.BigEndian.Uint32(b))
		if l == -1 {
			spans = append(spans, copySpan{-1, 0})
			continue
		}
		if l < 0 {
			return nil, cr.opts.newCopyError(cr.line, i, nil, "invalid field size")
		}
		if l >= maxCopyFieldBytes {
			return nil, cr.bufferLimitError(cr.line, i, 0, int(l))
		}
		// The field's buffer grows with the bytes that arrive, not with
		// the length the client announced.
		off := len(cr.attr)
		for rem := int(l); rem > 0; {
			k := min(rem, copyFieldChunk)
			n0 := len(cr.attr)
			cr.attr = slices.Grow(cr.attr, k)[:n0+k]
			if _, err := io.ReadFull(cr.r, cr.attr[n0:]); err != nil {
				return nil, cr.eofErr(err)
			}
			rem -= k
		}
		spans = append(spans, copySpan{off, int(l)})
	}
	for _, s := range spans {
		if s.off < 0 {
			fields = append(fields, nil)
		} else {
			fields = append(fields, cr.attr[s.off:s.off+s.n:s.off+s.n])
		}
	}
	cr.fields, cr.spans = fields, spans
	return fields, nil
}

type copySpan struct{ off, n int }

const (
	// maxCopyFieldBytes is the largest binary COPY field PostgreSQL accepts
	// (MaxAllocSize, 1 GB - 1).
	maxCopyFieldBytes = 0x3fffffff
	// copyFieldChunk is how much a field spanning reads grows at a time.
	copyFieldChunk = 1 << 20
)

// nextBinaryBuffered decodes the next tuple in place when the read buffer
// holds all of it and it is well-formed (the common case): the fields
// alias the buffer, valid until the next read, as Next promises. Anything
// else (a tuple spanning buffer refills, the trailer, a malformed tuple)
// reports ok=false without consuming input, for the general path and its
// exact errors.
func (cr *CopyReader) nextBinaryBuffered() ([][]byte, bool) {
	buf, _ := cr.r.Peek(cr.r.Buffered())
	if len(buf) < 2 {
		return nil, false
	}
	n := int(int16(binary.BigEndian.Uint16(buf)))
	if n < 0 || (cr.ncols > 0 && n != cr.ncols) {
		return nil, false
	}
	fields := cr.fields[:0]
	p := 2
	for i := 0; i < n; i++ {
		if len(buf)-p < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(buf[p:])))
		p += 4
		if l == -1 {
			fields = append(fields, nil)
			continue
		}
		if l < 0 || len(buf)-p < l {
			return nil, false
		}
		fields = append(fields, buf[p:p+l:p+l])
		p += l
	}
	if _, err := cr.r.Discard(p); err != nil {
		return nil, false // cannot happen: p <= Buffered()
	}
	cr.fields = fields
	return fields, true
}

// BufferedBinary returns the read buffer's bytes from the next tuple on, for
// a caller that decodes whole tuples in place and then drops them with
// ConsumeBinary: a COPY's decoder skips the per-row Next calls this way. It
// is nil outside the tuple section of the binary format (before the first
// Next has read the header, after the trailer) and may hold a partial last
// tuple, which the caller leaves for Next. Valid until the next read.
func (cr *CopyReader) BufferedBinary() []byte {
	if cr.opts.Format != CopyBinary || !cr.headerDone || cr.done {
		return nil
	}
	buf, _ := cr.r.Peek(cr.r.Buffered())
	return buf
}

// ConsumeBinary drops the first n bytes of BufferedBinary, which held k
// whole tuples the caller decoded; Line then reports the last of them.
func (cr *CopyReader) ConsumeBinary(n, k int) {
	if _, err := cr.r.Discard(n); err != nil {
		panic("pgtypes: ConsumeBinary beyond the buffered bytes") // a caller bug, not bad input
	}
	cr.line += int64(k)
}
