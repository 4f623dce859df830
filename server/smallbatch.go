package server

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// smallBatchRows: a direct INSERT of at most this many rows builds its
// batch with buildSmallBatch.
const smallBatchRows = 16

// buildSmallBatch builds the batch of a few rows (vals holds rows*len(cols)
// canonical values, row after row) without Arrow builders. A builder
// reserves room for 32 values per buffer on the first append, so a
// one-row batch of the events table allocated some 3 KB in 14 buffers,
// and its arrays carried that capacity for as long as the row stayed
// buffered. Here every buffer has its exact size, all of them cut from
// one allocation, and a validity bitmap exists only where there are
// nulls (as in batches decoded from IPC).
//
// It converts exactly the values appendValue converts the same way, and
// reports ok = false for anything else (a value of another Go type, a
// typmod to apply, a value out of range, NOT NULL violated, a kind not
// handled here): the caller then builds the batch with appendValue, which
// produces the value or the error it always did.
func buildSmallBatch(sch *schema.Schema, as *arrow.Schema, vals []any, rows int) (arrow.RecordBatch, bool) {
	cols := sch.Columns
	ncol := len(cols)
	if rows == 0 || len(vals) != rows*ncol || len(as.Fields()) != ncol {
		return nil, false
	}
	// Pass 1: check every value and size the buffers.
	size := 0
	nbufs := 0
	for i := range cols {
		c := &cols[i]
		w, ok := smallWidth(c)
		if !ok {
			return nil, false
		}
		nulls, strBytes := 0, 0
		for r := 0; r < rows; r++ {
			v := vals[r*ncol+i]
			if v == nil {
				if c.NotNull {
					return nil, false
				}
				nulls++
				continue
			}
			n, ok := smallCheck(c, v)
			if !ok {
				return nil, false
			}
			strBytes += n
		}
		if nulls > 0 {
			size += align8((rows + 7) / 8)
			nbufs++
		}
		if w == 0 { // string or binary: offsets and data
			size += align8(4*(rows+1)) + align8(strBytes)
			nbufs += 2
		} else {
			size += align8(valuesBytes(w, rows))
			nbufs++
		}
	}

	// Pass 2: fill.
	slab := make([]byte, size)
	bufs := make([]*memory.Buffer, 0, nbufs+2*ncol) // with a nil validity per column without nulls
	arrs := make([]arrow.Array, ncol)
	take := func(n int) []byte {
		b := slab[:n:n]
		slab = slab[align8(n):]
		return b
	}
	for i := range cols {
		c := &cols[i]
		w, _ := smallWidth(c)
		start := len(bufs)
		nulls := 0
		for r := 0; r < rows; r++ {
			if vals[r*ncol+i] == nil {
				nulls++
			}
		}
		var validity []byte
		if nulls > 0 {
			validity = take((rows + 7) / 8)
			bufs = append(bufs, memory.NewBufferBytes(validity))
		} else {
			bufs = append(bufs, nil)
		}
		if w == 0 {
			strBytes := 0
			for r := 0; r < rows; r++ {
				if v := vals[r*ncol+i]; v != nil {
					strBytes += smallLen(v)
				}
			}
			offsets, data := take(4*(rows+1)), take(strBytes)
			pos := 0
			for r := 0; r < rows; r++ {
				binary.LittleEndian.PutUint32(offsets[4*r:], uint32(pos))
				switch v := vals[r*ncol+i].(type) {
				case nil:
					continue
				case string:
					pos += copy(data[pos:], v)
				case []byte:
					pos += copy(data[pos:], v)
				}
				validity = setValid(validity, r)
			}
			binary.LittleEndian.PutUint32(offsets[4*rows:], uint32(pos))
			bufs = append(bufs, memory.NewBufferBytes(offsets), memory.NewBufferBytes(data))
		} else {
			values := take(valuesBytes(w, rows))
			for r := 0; r < rows; r++ {
				v := vals[r*ncol+i]
				if v == nil {
					continue
				}
				smallPut(c, v, values, r, w)
				validity = setValid(validity, r)
			}
			bufs = append(bufs, memory.NewBufferBytes(values))
		}
		d := array.NewData(as.Field(i).Type, rows, bufs[start:len(bufs):len(bufs)], nil, nulls, 0)
		arrs[i] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecordBatch(as, arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec, true
}

func align8(n int) int { return (n + 7) &^ 7 }

// valuesBytes is the size of the values buffer of rows values of width w
// bytes (-1: bits).
func valuesBytes(w, rows int) int {
	if w < 0 {
		return (rows + 7) / 8
	}
	return w * rows
}

// setValid marks row r valid in a validity bitmap (if there is one).
func setValid(validity []byte, r int) []byte {
	if validity != nil {
		validity[r/8] |= 1 << (r % 8)
	}
	return validity
}

// smallWidth is the value width in bytes of column c's Arrow type: -1 for
// a bit, 0 for string/binary; ok = false for a kind left to appendValue.
func smallWidth(c *schema.Column) (int, bool) {
	switch c.Kind {
	case schema.KindBool:
		return -1, true
	case schema.KindInt16:
		return 2, true
	case schema.KindInt32, schema.KindFloat32, schema.KindDate:
		return 4, true
	case schema.KindInt64, schema.KindFloat64, schema.KindTime, schema.KindTimestamp, schema.KindTimestampTZ:
		return 8, true
	case schema.KindInterval, schema.KindUUID:
		return 16, true
	case schema.KindString:
		if c.Length > 0 {
			return 0, false // varchar(n)/char(n): fitString
		}
		return 0, true
	case schema.KindBinary:
		return 0, true
	}
	return 0, false // decimal (rescale), json (normalization)
}

// smallCheck reports whether appendValue would append v to column c as
// smallPut does, and the bytes of a string or binary value.
func smallCheck(c *schema.Column, v any) (int, bool) {
	switch c.Kind {
	case schema.KindBool:
		_, ok := v.(bool)
		return 0, ok
	case schema.KindInt16:
		i, ok := anyInt(v)
		return 0, ok && i >= math.MinInt16 && i <= math.MaxInt16
	case schema.KindInt32:
		i, ok := anyInt(v)
		return 0, ok && i >= math.MinInt32 && i <= math.MaxInt32
	case schema.KindInt64:
		_, ok := anyInt(v)
		return 0, ok
	case schema.KindFloat32, schema.KindFloat64:
		switch v.(type) {
		case float32, float64:
			return 0, true
		}
	case schema.KindString:
		s, ok := v.(string)
		return len(s), ok
	case schema.KindBinary:
		switch x := v.(type) {
		case []byte:
			return len(x), true
		case string:
			return len(x), true
		}
	case schema.KindDate:
		_, ok := v.(pgtypes.Date)
		return 0, ok
	case schema.KindTime:
		_, ok := v.(pgtypes.Time)
		return 0, ok
	case schema.KindTimestamp, schema.KindTimestampTZ:
		switch v.(type) {
		case pgtypes.Timestamp, pgtypes.TimestampTZ:
			return 0, true
		}
	case schema.KindInterval:
		_, ok := v.(pgtypes.Interval)
		return 0, ok
	case schema.KindUUID:
		_, ok := v.([16]byte)
		return 0, ok
	}
	return 0, false
}

func smallLen(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []byte:
		return len(x)
	}
	return 0
}

// smallPut writes value r of a fixed-width column (checked by smallCheck)
// as appendValue's builder would store it.
func smallPut(c *schema.Column, v any, values []byte, r, w int) {
	le := binary.LittleEndian
	p := values[max(w, 0)*r:]
	switch c.Kind {
	case schema.KindBool:
		if v.(bool) {
			values[r/8] |= 1 << (r % 8)
		}
	case schema.KindInt16:
		i, _ := anyInt(v)
		le.PutUint16(p, uint16(int16(i)))
	case schema.KindInt32:
		i, _ := anyInt(v)
		le.PutUint32(p, uint32(int32(i)))
	case schema.KindInt64:
		i, _ := anyInt(v)
		le.PutUint64(p, uint64(i))
	case schema.KindFloat32:
		f, ok := v.(float32)
		if !ok {
			f = float32(v.(float64))
		}
		le.PutUint32(p, math.Float32bits(f))
	case schema.KindFloat64:
		f, ok := v.(float64)
		if !ok {
			f = float64(v.(float32))
		}
		le.PutUint64(p, math.Float64bits(f))
	case schema.KindDate:
		le.PutUint32(p, uint32(arrowDate(v.(pgtypes.Date))))
	case schema.KindTime:
		le.PutUint64(p, uint64(v.(pgtypes.Time)))
	case schema.KindTimestamp, schema.KindTimestampTZ:
		us, _ := arrowTimestamp(v) // smallCheck accepted v
		le.PutUint64(p, uint64(us))
	case schema.KindInterval:
		iv := v.(pgtypes.Interval)
		le.PutUint32(p, uint32(iv.Months))
		le.PutUint32(p[4:], uint32(iv.Days))
		le.PutUint64(p[8:], uint64(iv.Micros*1000))
	case schema.KindUUID:
		u := v.([16]byte)
		copy(p, u[:])
	}
}
