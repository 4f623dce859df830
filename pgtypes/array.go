package pgtypes

import (
	"encoding/binary"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Arrays are represented as []any of canonical element values (nil = NULL),
// one-dimensional with lower bound 1 — what the SQL layer produces for
// catalog queries (oidvector, text[] ...). Multi-dimensional arrays and
// non-default bounds are decoded by ParseBinary into Array.

// Array is the general (multi-dimensional) form ParseBinary returns when an
// array is not one-dimensional with lower bound 1.
type Array struct {
	Dims   []int32
	LBound []int32
	Elems  []any // row-major
}

func arrayElem(oid uint32) (uint32, bool) {
	t, ok := byOID[oid]
	if !ok || !t.IsArray() {
		return 0, false
	}
	return t.ElemOID, true
}

// appendArrayText is array_out for a one-dimensional array.
func appendArrayText(buf []byte, elem uint32, typmod int32, v any, s *Settings) ([]byte, error) {
	var elems []any
	var dims []int32
	switch x := v.(type) {
	case []any:
		elems, dims = x, []int32{int32(len(x))}
	case Array:
		elems, dims = x.Elems, x.Dims
		if len(x.LBound) == len(x.Dims) {
			nonDefault := false
			for _, lb := range x.LBound {
				nonDefault = nonDefault || lb != 1
			}
			if nonDefault {
				for i, lb := range x.LBound {
					buf = append(buf, '[')
					buf = appendInt(buf, int64(lb))
					buf = append(buf, ':')
					buf = appendInt(buf, int64(lb+x.Dims[i]-1))
					buf = append(buf, ']')
				}
				buf = append(buf, '=')
			}
		}
	default:
		return buf, badValue(elem, v)
	}
	if len(elems) == 0 {
		return append(buf, '{', '}'), nil
	}
	delim := byte(',')
	var tmp []byte
	var err error
	idx := 0
	var rec func(d int) error
	rec = func(d int) error {
		buf = append(buf, '{')
		for i := int32(0); i < dims[d]; i++ {
			if i > 0 {
				buf = append(buf, delim)
			}
			if d+1 < len(dims) {
				if err := rec(d + 1); err != nil {
					return err
				}
				continue
			}
			e := elems[idx]
			idx++
			if e == nil {
				buf = append(buf, "NULL"...)
				continue
			}
			tmp, err = AppendText(tmp[:0], elem, typmod, e, s)
			if err != nil {
				return err
			}
			buf = appendArrayElem(buf, tmp, delim)
		}
		buf = append(buf, '}')
		return nil
	}
	if err := rec(0); err != nil {
		return buf, err
	}
	return buf, nil
}

func appendInt(buf []byte, v int64) []byte {
	if v < 0 {
		buf = append(buf, '-')
		v = -v
	}
	return appendPad(buf, int(v), 1)
}

// appendArrayElem quotes an element like array_out: empty, "NULL"
// (any case), or containing braces, quotes, backslashes, the delimiter or
// whitespace.
func appendArrayElem(buf, e []byte, delim byte) []byte {
	quote := len(e) == 0 || (len(e) == 4 && (e[0]|32) == 'n' && (e[1]|32) == 'u' && (e[2]|32) == 'l' && (e[3]|32) == 'l')
	for _, c := range e {
		if c == '{' || c == '}' || c == '"' || c == '\\' || c == delim || isSpace(c) {
			quote = true
			break
		}
	}
	if !quote {
		return append(buf, e...)
	}
	buf = append(buf, '"')
	for _, c := range e {
		if c == '"' || c == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, c)
	}
	return append(buf, '"')
}

// appendArrayBinary is array_send: int32 ndim, int32 has-nulls flag, int32
// element OID, per dimension int32 length and int32 lower bound, then each
// element as int32 length (-1 NULL) and its binary form.
func appendArrayBinary(buf []byte, elem uint32, typmod int32, v any) ([]byte, error) {
	var a Array
	switch x := v.(type) {
	case []any:
		a = Array{Dims: []int32{int32(len(x))}, LBound: []int32{1}, Elems: x}
	case Array:
		a = x
	default:
		return buf, badValue(elem, v)
	}
	be := binary.BigEndian
	if len(a.Elems) == 0 {
		buf = be.AppendUint32(buf, 0)
		buf = be.AppendUint32(buf, 0)
		return be.AppendUint32(buf, elem), nil
	}
	hasNull := uint32(0)
	for _, e := range a.Elems {
		if e == nil {
			hasNull = 1
		}
	}
	buf = be.AppendUint32(buf, uint32(len(a.Dims)))
	buf = be.AppendUint32(buf, hasNull)
	buf = be.AppendUint32(buf, elem)
	for i, d := range a.Dims {
		lb := int32(1)
		if i < len(a.LBound) {
			lb = a.LBound[i]
		}
		buf = be.AppendUint32(buf, uint32(d))
		buf = be.AppendUint32(buf, uint32(lb))
	}
	for _, e := range a.Elems {
		if e == nil {
			buf = be.AppendUint32(buf, 0xffffffff)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = AppendBinary(buf, elem, typmod, e); err != nil {
			return buf, err
		}
		be.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// parseArrayBinary is array_recv.
func parseArrayBinary(oid, elem uint32, typmod int32, data []byte) (any, error) {
	bad := func() (any, error) { return nil, binErr(oid) }
	be := binary.BigEndian
	if len(data) < 12 {
		return bad()
	}
	ndim := int32(be.Uint32(data))
	if ndim < 0 {
		return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid number of dimensions: %d", ndim)
	}
	if ndim > MaxArrayDims {
		return nil, TooManyArrayDims(int(ndim))
	}
	if got := be.Uint32(data[8:]); got != elem {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)", got, FormatType(got, -1), elem, FormatType(elem, -1))
	}
	data = data[12:]
	if ndim == 0 {
		return []any{}, nil
	}
	if len(data) < int(ndim)*8 {
		return bad()
	}
	a := Array{}
	n := int64(1)
	for i := int32(0); i < ndim; i++ {
		d := int32(be.Uint32(data))
		lb := int32(be.Uint32(data[4:]))
		if d < 0 {
			return bad()
		}
		a.Dims = append(a.Dims, d)
		a.LBound = append(a.LBound, lb)
		n *= int64(d)
		data = data[8:]
	}
	if n > int64(len(data))/4 {
		return bad()
	}
	a.Elems = make([]any, 0, n)
	for i := int64(0); i < n; i++ {
		if len(data) < 4 {
			return bad()
		}
		l := int32(be.Uint32(data))
		data = data[4:]
		if l == -1 {
			a.Elems = append(a.Elems, nil)
			continue
		}
		if l < 0 || int(l) > len(data) {
			return bad()
		}
		v, err := ParseBinary(elem, typmod, data[:l])
		if err != nil {
			return nil, err
		}
		a.Elems = append(a.Elems, v)
		data = data[l:]
	}
	if len(data) != 0 {
		return bad()
	}
	if ndim == 1 && a.LBound[0] == 1 {
		return a.Elems, nil
	}
	return a, nil
}
