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
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.int(int64(a.Value(i)))
			}
		}
	case *array.Int32:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.int(int64(a.Value(i)))
			}
		}
	case *array.Int64:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.int(a.Value(i))
			}
		}
	case *array.Date32:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.int(int64(a.Value(i)))
			}
		}
	case *array.Time64:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.int(int64(a.Value(i)))
			}
		}
	case *array.Timestamp:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.int(int64(a.Value(i)))
			}
		}
	case *array.Float32:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.float(float64(a.Value(i)))
			}
		}
	case *array.Float64:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.float(a.Value(i))
			}
		}
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
		// Slices of the values buffer, no copy per value (bytes clones
		// what it keeps).
		data, offs := a.ValueBytes(), a.ValueOffsets()
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.bytes(data[offs[i]-offs[0] : offs[i+1]-offs[0]])
			}
		}
	case *array.Binary:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				cs.bytes(a.Value(i))
			}
		}
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
