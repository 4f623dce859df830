package server

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

const (
	unixDaysAt2000   = 10957
	unixMicrosAt2000 = 946684800000000
)

// batchBuilder accumulates rows of a table into Arrow record batches of
// the table's schema. Values are pgtypes' canonical Go values (nil = NULL).
type batchBuilder struct {
	sch   *schema.Schema
	arrow *arrow.Schema
	rb    *array.RecordBuilder
	rows  int
	out   []arrow.RecordBatch
	limit int
}

// defaultBatchRows is the rows per batch of a batchBuilder by default.
const defaultBatchRows = planner.BatchRows

func newBatchBuilder(sch *schema.Schema, as *arrow.Schema, limit int) *batchBuilder {
	if limit <= 0 {
		limit = defaultBatchRows
	}
	return &batchBuilder{sch: sch, arrow: as, rb: array.NewRecordBuilder(memory.DefaultAllocator, as), limit: limit}
}

// appendRow appends one row in table column order.
func (bb *batchBuilder) appendRow(vals []any) error {
	for i := range bb.sch.Columns {
		if err := appendValue(bb.rb.Field(i), &bb.sch.Columns[i], vals[i]); err != nil {
			return err
		}
	}
	bb.rows++
	if bb.rows >= bb.limit {
		bb.cut()
	}
	return nil
}

func (bb *batchBuilder) cut() {
	if bb.rows == 0 {
		return
	}
	bb.out = append(bb.out, bb.rb.NewRecordBatch())
	bb.rows = 0
}

// finish returns the batches (caller releases).
func (bb *batchBuilder) finish() []arrow.RecordBatch {
	bb.cut()
	out := bb.out
	bb.out = nil
	bb.rb.Release()
	return out
}

// abort releases everything (the builder may hold a half-appended row,
// so no batch is built from it).
func (bb *batchBuilder) abort() {
	releaseAll(bb.out)
	bb.out = nil
	bb.rb.Release()
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// appendValue appends a canonical value to a builder of column c.
func appendValue(b array.Builder, c *schema.Column, v any) error {
	if v == nil {
		if c.NotNull {
			return &pgerr.Error{Code: pgerr.NotNullViolation, Message: fmt.Sprintf("null value in column \"%s\" violates not-null constraint", c.Name)}
		}
		b.AppendNull()
		return nil
	}
	switch c.Kind {
	case schema.KindBool:
		x, ok := v.(bool)
		if !ok {
			return convErr(c, v)
		}
		b.(*array.BooleanBuilder).Append(x)
	case schema.KindInt16:
		i, ok := anyInt(v)
		if !ok {
			return convErr(c, v)
		}
		if i < math.MinInt16 || i > math.MaxInt16 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "smallint out of range")
		}
		b.(*array.Int16Builder).Append(int16(i))
	case schema.KindInt32:
		i, ok := anyInt(v)
		if !ok {
			return convErr(c, v)
		}
		if i < math.MinInt32 || i > math.MaxInt32 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
		}
		b.(*array.Int32Builder).Append(int32(i))
	case schema.KindInt64:
		i, ok := anyInt(v)
		if !ok {
			return convErr(c, v)
		}
		b.(*array.Int64Builder).Append(i)
	case schema.KindFloat32:
		switch x := v.(type) {
		case float32:
			b.(*array.Float32Builder).Append(x)
		case float64:
			b.(*array.Float32Builder).Append(float32(x))
		default:
			return convErr(c, v)
		}
	case schema.KindFloat64:
		switch x := v.(type) {
		case float64:
			b.(*array.Float64Builder).Append(x)
		case float32:
			b.(*array.Float64Builder).Append(float64(x))
		default:
			return convErr(c, v)
		}
	case schema.KindDecimal:
		n, ok := v.(pgtypes.Numeric)
		if !ok {
			if i, ok2 := anyInt(v); ok2 {
				n, ok = pgtypes.NumericFromInt64(i), true
			}
		}
		if !ok {
			return convErr(c, v)
		}
		if n.NaN || n.Inf != 0 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", c.Precision, c.Scale)
		}
		d, err := rescale(n, c)
		if err != nil {
			return err
		}
		b.(*array.Decimal128Builder).Append(d)
	case schema.KindString, schema.KindJSON:
		s, ok := v.(string)
		if !ok {
			switch x := v.(type) {
			case []byte:
				s, ok = string(x), true
			case pgtypes.Numeric: // numeric without precision: exact text
				s, ok = x.String(), true
			}
		}
		if !ok {
			return convErr(c, v)
		}
		s, err := fitString(c, s)
		if err != nil {
			return err
		}
		if c.Kind == schema.KindJSON && c.Annotation == "jsonb" {
			// jsonb stores its normalized form (key order, spacing).
			if s, err = pgtypes.NormalizeJSONB([]byte(s)); err != nil {
				return err
			}
		}
		b.(*array.StringBuilder).Append(s)
	case schema.KindBinary:
		bs, ok := v.([]byte)
		if !ok {
			if s, ok2 := v.(string); ok2 {
				bs, ok = []byte(s), true
			}
		}
		if !ok {
			return convErr(c, v)
		}
		b.(*array.BinaryBuilder).Append(bs)
	case schema.KindDate:
		d, ok := v.(pgtypes.Date)
		if !ok {
			return convErr(c, v)
		}
		b.(*array.Date32Builder).Append(arrowDate(d))
	case schema.KindTime:
		t, ok := v.(pgtypes.Time)
		if !ok {
			return convErr(c, v)
		}
		b.(*array.Time64Builder).Append(arrow.Time64(t))
	case schema.KindTimestamp, schema.KindTimestampTZ:
		us, ok := arrowTimestamp(v)
		if !ok {
			return convErr(c, v)
		}
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(us))
	case schema.KindInterval:
		iv, ok := v.(pgtypes.Interval)
		if !ok {
			return convErr(c, v)
		}
		b.(*array.MonthDayNanoIntervalBuilder).Append(arrow.MonthDayNanoInterval{Months: iv.Months, Days: iv.Days, Nanoseconds: iv.Micros * 1000})
	case schema.KindUUID:
		switch x := v.(type) {
		case [16]byte:
			b.(*extensions.UUIDBuilder).AppendBytes(x)
		case string:
			if err := b.(*extensions.UUIDBuilder).AppendValueFromString(x); err != nil {
				return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type uuid: \"%s\"", x)
			}
		default:
			return convErr(c, v)
		}
	default:
		return fmt.Errorf("BUG: no Arrow appender for kind %v", c.Kind)
	}
	return nil
}

// shiftTS maps a PostgreSQL timestamp (microseconds since 2000) to Arrow's
// (since 1970), the infinities to DuckDB's: ±(2^63-1). DuckDB reads any
// other extreme value as a finite instant (it printed -infinity as a year
// 294247 and sorted it apart from DuckDB's own).
func shiftTS(pg int64) int64 {
	switch pg {
	case math.MaxInt64:
		return math.MaxInt64
	case math.MinInt64:
		return -math.MaxInt64
	}
	return pg + unixMicrosAt2000
}

// arrowTimestamp is a timestamp or timestamptz value (either is accepted
// for either column kind) as Arrow microseconds since 1970.
func arrowTimestamp(v any) (int64, bool) {
	switch x := v.(type) {
	case pgtypes.Timestamp:
		return shiftTS(int64(x)), true
	case pgtypes.TimestampTZ:
		return shiftTS(int64(x)), true
	}
	return 0, false
}

func anyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case int:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	}
	return 0, false
}

func convErr(c *schema.Column, v any) error {
	return pgerr.New(pgerr.DatatypeMismatch, "column \"%s\" is of type %s but expression is of type %T", c.Name, columnTypeName(c), v)
}

func columnTypeName(c *schema.Column) string {
	if oid, mod, err := pgtypes.TypeOfColumn(*c); err == nil {
		return pgtypes.FormatType(oid, mod)
	}
	return c.Kind.String()
}

// rescale converts a numeric to the column's scale (rounding half away from
// zero, as PostgreSQL does) and checks the precision.
func rescale(n pgtypes.Numeric, c *schema.Column) (decimal128.Num, error) {
	v := new(big.Int)
	if n.Int != nil {
		v.Set(n.Int)
	}
	diff := int(c.Scale) - int(n.Scale)
	switch {
	case diff > 0:
		v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(diff)), nil))
	case diff < 0:
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-diff)), nil)
		q, r := new(big.Int).QuoRem(v, div, new(big.Int))
		r2 := new(big.Int).Abs(r)
		r2.Mul(r2, big.NewInt(2))
		if r2.Cmp(div) >= 0 {
			if v.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		v = q
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.Precision)), nil)
	if new(big.Int).Abs(v).Cmp(limit) >= 0 {
		return decimal128.Num{}, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").WithDetail(
			"A field with precision %d, scale %d must round to an absolute value less than %s.", c.Precision, c.Scale, powerText(c.Precision-c.Scale))
	}
	return decimal128.FromBigInt(v), nil
}

func powerText(n int) string {
	if n <= 0 {
		return "1"
	}
	return "10^" + fmt.Sprint(n)
}

// fitString applies varchar(n)/char(n) semantics.
func fitString(c *schema.Column, s string) (string, error) {
	if c.Length <= 0 {
		return s, nil
	}
	n := utf8.RuneCountInString(s)
	oid, _, _ := pgtypes.TypeOfColumn(*c)
	isChar := oid == pgtypes.OIDBPChar
	if n > c.Length {
		// Excess characters that are all spaces are silently truncated.
		cut := s
		for utf8.RuneCountInString(cut) > c.Length {
			_, size := utf8.DecodeLastRuneInString(cut)
			if cut[len(cut)-size] != ' ' {
				tn := "character varying"
				if isChar {
					tn = "character"
				}
				return "", pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s(%d)", tn, c.Length)
			}
			cut = cut[:len(cut)-size]
		}
		s = cut
		n = c.Length
	}
	if isChar && n < c.Length {
		s += strings.Repeat(" ", c.Length-n)
	}
	return s, nil
}
