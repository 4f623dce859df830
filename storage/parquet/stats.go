package parquet

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// MaxBoundBytes bounds string and binary min/max values kept in the
// manifest: a longer minimum is truncated (a prefix is still a lower bound),
// a longer maximum is dropped (unknown).
const MaxBoundBytes = 64

// colStats accumulates one column. Exactly one family of fields is used,
// by kind.
type colStats struct {
	col   *schema.Column
	nulls int64
	has   bool // at least one non-null, non-NaN value seen
	// integers and temporals (as their physical int64), bools (0/1)
	imin, imax int64
	// floats
	fmin, fmax float64
	// decimals
	dmin, dmax decimal128.Num
	// strings, binary, uuid (bytes)
	bmin, bmax []byte
}

type statsSet struct{ cols []*colStats }

func newStatsSet(sch *schema.Schema) *statsSet {
	s := &statsSet{}
	for i := range sch.Columns {
		s.cols = append(s.cols, &colStats{col: &sch.Columns[i]})
	}
	return s
}

func (s *statsSet) update(b arrow.RecordBatch) error {
	for i, cs := range s.cols {
		if err := cs.update(b.Column(i)); err != nil {
			return fmt.Errorf("column %q: stats: %w", cs.col.Name, err)
		}
	}
	return nil
}

func (cs *colStats) int(v int64) {
	if !cs.has {
		cs.imin, cs.imax, cs.has = v, v, true
		return
	}
	cs.imin, cs.imax = min(cs.imin, v), max(cs.imax, v)
}

// foldInts folds the non-null values of a (vals are its values) into the
// integer bounds: one pass over the values slice, the validity bitmap only
// read when a has nulls (this pass is on a bulk load's critical path).
func foldInts[T int16 | int32 | int64 | arrow.Date32 | arrow.Time64 | arrow.Timestamp](cs *colStats, a arrow.Array, vals []T) {
	nulls := a.NullN() > 0
	lo, hi, has := cs.imin, cs.imax, cs.has
	for i, v := range vals {
		if nulls && a.IsNull(i) {
			continue
		}
		x := int64(v)
		if !has {
			lo, hi, has = x, x, true
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	cs.imin, cs.imax, cs.has = lo, hi, has
}

// foldFloats is foldInts for float64: NaNs are skipped and -0 is below +0
// (as math.Min and math.Max order them).
func foldFloats(cs *colStats, a arrow.Array, vals []float64) {
	nulls := a.NullN() > 0
	lo, hi, has := cs.fmin, cs.fmax, cs.has
	for i, v := range vals {
		if v != v || nulls && a.IsNull(i) {
			continue
		}
		if !has {
			lo, hi, has = v, v, true
		}
		if v < lo || v == lo && math.Signbit(v) {
			lo = v
		}
		if v > hi || v == hi && !math.Signbit(v) {
			hi = v
		}
	}
	cs.fmin, cs.fmax, cs.has = lo, hi, has
}

// foldBytes folds the non-null values of a string or binary array a (its
// values buffer and offsets) into the byte bounds. Values are slices of
// the buffer, no copy per value (a new bound is cloned), and a value whose
// first byte is above the minimum's (below the maximum's) skips that
// comparison.
func foldBytes(cs *colStats, a arrow.Array, data []byte, offs []int32) {
	if a.Len() == 0 {
		return
	}
	nulls := a.NullN() > 0
	lo, hi, has := cs.bmin, cs.bmax, cs.has
	base := offs[0]
	for i := 0; i < a.Len(); i++ {
		if nulls && a.IsNull(i) {
			continue
		}
		v := data[offs[i]-base : offs[i+1]-base]
		if !has {
			lo, hi, has = bytes.Clone(v), bytes.Clone(v), true
			continue
		}
		if (len(v) == 0 || len(lo) == 0 || v[0] <= lo[0]) && bytes.Compare(v, lo) < 0 {
			lo = bytes.Clone(v)
		}
		if (len(v) == 0 || len(hi) == 0 || v[0] >= hi[0]) && bytes.Compare(v, hi) > 0 {
			hi = bytes.Clone(v)
		}
	}
	cs.bmin, cs.bmax, cs.has = lo, hi, has
}

func (cs *colStats) float(v float64) {
	if math.IsNaN(v) {
		return
	}
	if !cs.has {
		cs.fmin, cs.fmax, cs.has = v, v, true
		return
	}
	cs.fmin, cs.fmax = math.Min(cs.fmin, v), math.Max(cs.fmax, v)
}

func (cs *colStats) bytes(v []byte) {
	if !cs.has {
		cs.bmin, cs.bmax, cs.has = bytes.Clone(v), bytes.Clone(v), true
		return
	}
	if bytes.Compare(v, cs.bmin) < 0 {
		cs.bmin = bytes.Clone(v)
	}
	if bytes.Compare(v, cs.bmax) > 0 {
		cs.bmax = bytes.Clone(v)
	}
}

func (cs *colStats) update(a arrow.Array) error {
	cs.nulls += int64(a.NullN())
	n := a.Len()
	switch a := a.(type) {
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				v := int64(0)
				if a.Value(i) {
					v = 1
				}
				cs.int(v)
			}
		}
	case *array.Int16:
		foldInts(cs, a, a.Int16Values())
	case *array.Int32:
		foldInts(cs, a, a.Int32Values())
	case *array.Int64:
		foldInts(cs, a, a.Int64Values())
	case *array.Date32:
		foldInts(cs, a, a.Date32Values())
	case *array.Time64:
		foldInts(cs, a, a.Time64Values())
	case *array.Timestamp:
		foldInts(cs, a, a.TimestampValues())
	case *array.Float32:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.float(float64(a.Value(i)))
			}
		}
	case *array.Float64:
		foldFloats(cs, a, a.Float64Values())
	case *array.Decimal128:
		for i := 0; i < n; i++ {
			if !a.IsValid(i) {
				continue
			}
			v := a.Value(i)
			if !cs.has {
				cs.dmin, cs.dmax, cs.has = v, v, true
				continue
			}
			if v.Less(cs.dmin) {
				cs.dmin = v
			}
			if cs.dmax.Less(v) {
				cs.dmax = v
			}
		}
	case *array.String:
		foldBytes(cs, a, a.ValueBytes(), a.ValueOffsets())
	case *array.Binary:
		foldBytes(cs, a, a.ValueBytes(), a.ValueOffsets())
	case *extensions.UUIDArray:
		st := a.Storage().(*array.FixedSizeBinary)
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.bytes(st.Value(i))
			}
		}
	case *array.MonthDayNanoInterval:
		// Intervals have no total order (1 month vs 30 days): no bounds.
	default:
		return fmt.Errorf("unsupported array type %s", a.DataType())
	}
	return nil
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("BUG: parquet: stats value %v does not encode: %v", v, err))
	}
	return b
}

func (s *statsSet) result() []manifest.ColumnStats {
	out := make([]manifest.ColumnStats, len(s.cols))
	for i, cs := range s.cols {
		out[i] = manifest.ColumnStats{ID: cs.col.ID, NullCount: cs.nulls}
		if !cs.has {
			continue
		}
		out[i].Min, out[i].Max = cs.bounds()
	}
	return out
}

// bounds encodes min and max as typed JSON (nil = unknown). The encoding of
// each kind is documented in doc.go and is part of the manifest format.
func (cs *colStats) bounds() (lo, hi json.RawMessage) {
	switch cs.col.Kind {
	case schema.KindBool:
		return rawJSON(cs.imin == 1), rawJSON(cs.imax == 1)
	case schema.KindInt16, schema.KindInt32, schema.KindInt64,
		schema.KindDate, schema.KindTime, schema.KindTimestamp, schema.KindTimestampTZ:
		return rawJSON(cs.imin), rawJSON(cs.imax)
	case schema.KindFloat32, schema.KindFloat64:
		if !math.IsInf(cs.fmin, 0) {
			lo = rawJSON(cs.fmin)
		}
		if !math.IsInf(cs.fmax, 0) {
			hi = rawJSON(cs.fmax)
		}
		return lo, hi
	case schema.KindDecimal:
		sc := int32(cs.col.Scale)
		return rawJSON(cs.dmin.ToString(sc)), rawJSON(cs.dmax.ToString(sc))
	case schema.KindString, schema.KindJSON:
		return rawJSON(string(truncUTF8(cs.bmin, MaxBoundBytes))), maybeBytes(cs.bmax, func(b []byte) any { return string(b) })
	case schema.KindBinary:
		return rawJSON(base64.StdEncoding.EncodeToString(truncBytes(cs.bmin, MaxBoundBytes))),
			maybeBytes(cs.bmax, func(b []byte) any { return base64.StdEncoding.EncodeToString(b) })
	case schema.KindUUID:
		lo, _ := uuid.FromBytes(cs.bmin)
		hi, _ := uuid.FromBytes(cs.bmax)
		return rawJSON(lo.String()), rawJSON(hi.String())
	}
	return nil, nil
}

func maybeBytes(b []byte, enc func([]byte) any) json.RawMessage {
	if len(b) > MaxBoundBytes {
		return nil
	}
	return rawJSON(enc(b))
}

func truncBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// truncUTF8 cuts b to at most n bytes on a rune boundary.
func truncUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return b
}
