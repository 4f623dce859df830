package planner

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/storage/parquet"
)

// scalarUDF is a one-argument DuckDB scalar function written in Go.
type scalarUDF struct {
	in, out duckdb.Type
	fn      func(v driver.Value) (any, error)
}

func (u scalarUDF) Config() duckdb.ScalarFuncConfig {
	in, _ := duckdb.NewTypeInfo(u.in)
	out, _ := duckdb.NewTypeInfo(u.out)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{in}, ResultTypeInfo: out}
}

func (u scalarUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) { return u.fn(values[0]) }}
}

// needsQuotes reports whether PostgreSQL's grammar takes s as a keyword
// that an identifier must quote (any but an unreserved one).
func needsQuotes(s string) bool {
	r, err := pg_query.Scan(s)
	if err != nil || len(r.Tokens) != 1 {
		return true
	}
	k := r.Tokens[0].KeywordKind
	return k != pg_query.KeywordKind_NO_KEYWORD && k != pg_query.KeywordKind_UNRESERVED_KEYWORD
}

// udfs are the Go functions every DuckDB connection of the engine sees.
var udfs = map[string]scalarUDF{
	// bsdb_interval decodes an interval stored in Parquet (16 bytes:
	// months, days, nanoseconds, little-endian; parquet.EncodeInterval).
	"bsdb_interval": {duckdb.TYPE_BLOB, duckdb.TYPE_INTERVAL, func(v driver.Value) (any, error) {
		b, ok := v.([]byte)
		if !ok {
			return nil, fmt.Errorf("bsdb_interval: %T", v)
		}
		iv, err := parquet.DecodeInterval(b)
		if err != nil {
			return nil, err
		}
		return duckdb.Interval{Months: iv.Months, Days: iv.Days, Micros: iv.Nanoseconds / 1000}, nil
	}},
	// __bsdb_interval_text is PostgreSQL's interval output (IntervalStyle
	// postgres) for interval -> text casts inside queries (sql/expr.go).
	"__bsdb_interval_text": {duckdb.TYPE_INTERVAL, duckdb.TYPE_VARCHAR, func(v driver.Value) (any, error) {
		iv, ok := v.(duckdb.Interval)
		if !ok {
			return nil, fmt.Errorf("__bsdb_interval_text: %T", v)
		}
		b, err := pgtypes.AppendText(nil, pgtypes.OIDInterval, -1, pgtypes.Interval{Months: iv.Months, Days: iv.Days, Micros: iv.Micros}, nil)
		return string(b), err
	}},
}

func init() {
	text := func(name string, f func(string) string) {
		udfs[name] = scalarUDF{duckdb.TYPE_VARCHAR, duckdb.TYPE_VARCHAR, func(v driver.Value) (any, error) {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s: %T", name, v)
			}
			return f(s), nil
		}}
	}
	text("__bsdb_initcap", pgtypes.Initcap)
	text("__bsdb_quote_ident", func(s string) string { return pgtypes.QuoteIdent(s, needsQuotes) })
	text("__bsdb_quote_literal", pgtypes.QuoteLiteral)
	// A value assigned to a name column: namein's cut to 63 bytes at a
	// character boundary (sql/insert.go).
	text("__bsdb_name", func(s string) string {
		v, _ := pgtypes.ParseText(pgtypes.OIDName, -1, []byte(s), nil)
		str, _ := v.(string)
		return str
	})
	// JSON constructors (sql/json.go): a text as a JSON string, and a
	// jsonb value's text as jsonb_out prints it.
	text("__bsdb_json_quote", pgtypes.JSONQuote)
	text("__bsdb_jsonb_text", func(s string) string {
		if out, err := pgtypes.NormalizeJSONB([]byte(s)); err == nil {
			return out
		}
		return s
	})
	interval := func(name string, f func(pgtypes.Interval) pgtypes.Interval) {
		udfs[name] = scalarUDF{duckdb.TYPE_INTERVAL, duckdb.TYPE_INTERVAL, func(v driver.Value) (any, error) {
			iv, ok := v.(duckdb.Interval)
			if !ok {
				return nil, fmt.Errorf("%s: %T", name, v)
			}
			r := f(pgtypes.Interval{Months: iv.Months, Days: iv.Days, Micros: iv.Micros})
			return duckdb.Interval{Months: r.Months, Days: r.Days, Micros: r.Micros}, nil
		}}
	}
	interval("__bsdb_justify_hours", pgtypes.JustifyHours)
	interval("__bsdb_justify_days", pgtypes.JustifyDays)
	interval("__bsdb_justify_interval", pgtypes.JustifyInterval)
	// float -> text casts inside queries (sql/expr.go): PostgreSQL's
	// float4out/float8out (shortest exact digits, NaN, Infinity).
	udfs["__bsdb_float8_text"] = scalarUDF{duckdb.TYPE_DOUBLE, duckdb.TYPE_VARCHAR, func(v driver.Value) (any, error) {
		f, ok := v.(float64)
		if !ok {
			return nil, fmt.Errorf("__bsdb_float8_text: %T", v)
		}
		b, err := pgtypes.AppendText(nil, pgtypes.OIDFloat8, -1, f, nil)
		return string(b), err
	}}
	udfs["__bsdb_float4_text"] = scalarUDF{duckdb.TYPE_FLOAT, duckdb.TYPE_VARCHAR, func(v driver.Value) (any, error) {
		f, ok := v.(float32)
		if !ok {
			return nil, fmt.Errorf("__bsdb_float4_text: %T", v)
		}
		b, err := pgtypes.AppendText(nil, pgtypes.OIDFloat4, -1, f, nil)
		return string(b), err
	}}
}

// toCharUDF is PostgreSQL's to_char of a timestamp (zoned: a timestamptz
// and the key of the session's time zone), see sql's rewriteToChar.
type toCharUDF struct{ zoned bool }

func (u toCharUDF) Config() duckdb.ScalarFuncConfig {
	ts, _ := duckdb.NewTypeInfo(duckdb.TYPE_TIMESTAMP)
	if u.zoned {
		ts, _ = duckdb.NewTypeInfo(duckdb.TYPE_TIMESTAMP_TZ)
	}
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	in := []duckdb.TypeInfo{ts, text}
	if u.zoned {
		in = append(in, text)
	}
	return duckdb.ScalarFuncConfig{InputTypeInfos: in, ResultTypeInfo: text}
}

func (u toCharUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		t, ok := values[0].(time.Time)
		if !ok {
			return nil, fmt.Errorf("to_char: %T", values[0])
		}
		format, _ := values[1].(string)
		if u.zoned {
			key, _ := values[2].(string)
			t = t.In(pgtypes.ZoneByKey(key))
		}
		return pgtypes.ToCharTime(t, format, u.zoned)
	}}
}

// toTimestampUDF parses text with a template (to_date and to_timestamp of
// text, text): the wall-clock time, which the caller casts.
type toTimestampUDF struct{}

func (toTimestampUDF) Config() duckdb.ScalarFuncConfig {
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	ts, _ := duckdb.NewTypeInfo(duckdb.TYPE_TIMESTAMP)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{text, text}, ResultTypeInfo: ts}
}

func (toTimestampUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		in, _ := values[0].(string)
		format, _ := values[1].(string)
		t, err := pgtypes.ToTimestamp(in, format)
		return t, withSQLState(err)
	}}
}

// formatUDF is PostgreSQL's format(text, variadic text): the translator
// casts every argument to text first (PostgreSQL's output functions).
type formatUDF struct{}

func (formatUDF) Config() duckdb.ScalarFuncConfig {
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{text}, VariadicTypeInfo: text,
		ResultTypeInfo: text, SpecialNullHandling: true}
}

func (formatUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		f, ok := values[0].(string)
		if !ok {
			return nil, nil // format(NULL) is NULL
		}
		args := make([]*string, len(values)-1)
		for i, v := range values[1:] {
			if s, ok := v.(string); ok {
				args[i] = &s
			}
		}
		out, err := pgtypes.Format(f, args, func(s string) string { return pgtypes.QuoteIdent(s, needsQuotes) })
		if err != nil {
			return nil, withSQLState(err)
		}
		return out, nil
	}}
}

// chrUDF is PostgreSQL's chr(integer) (pgtypes.Chr): DuckDB's chr makes
// a NUL or a surrogate, text no table may hold.
type chrUDF struct{}

func (chrUDF) Config() duckdb.ScalarFuncConfig {
	i, _ := duckdb.NewTypeInfo(duckdb.TYPE_INTEGER)
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{i}, ResultTypeInfo: text}
}

func (chrUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		c, _ := values[0].(int32)
		s, err := pgtypes.Chr(c)
		if err != nil {
			return nil, withSQLState(err)
		}
		return s, nil
	}}
}

// convertFromUDF is convert_from(bytea, 'UTF8'): the bytes as text once
// verified, with PostgreSQL's 22021 naming the first invalid sequence
// (DuckDB's decode keeps a NUL and words its refusal otherwise).
type convertFromUDF struct{}

func (convertFromUDF) Config() duckdb.ScalarFuncConfig {
	blob, _ := duckdb.NewTypeInfo(duckdb.TYPE_BLOB)
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{blob}, ResultTypeInfo: text}
}

func (convertFromUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		b, _ := values[0].([]byte)
		if e := pgerr.CheckText(b); e != nil {
			return nil, withSQLState(e)
		}
		return string(b), nil
	}}
}

// codecUDF is PostgreSQL's encode(bytea, format) or decode(text, format).
type codecUDF struct{ encode bool }

func (u codecUDF) Config() duckdb.ScalarFuncConfig {
	blob, _ := duckdb.NewTypeInfo(duckdb.TYPE_BLOB)
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	if u.encode {
		return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{blob, text}, ResultTypeInfo: text}
	}
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{text, text}, ResultTypeInfo: blob}
}

func (u codecUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		format, _ := values[1].(string)
		if u.encode {
			b, _ := values[0].([]byte)
			s, err := pgtypes.EncodeBytes(b, format)
			return s, withSQLState(err)
		}
		s, _ := values[0].(string)
		b, err := pgtypes.DecodeBytes(s, format)
		return b, withSQLState(err)
	}}
}

// withSQLState spells a PostgreSQL error of a Go function so that it
// survives DuckDB (which keeps only the text): sql.MapError turns
// "SQLSTATE xxxxx: message<US>detail<US>hint" back into the error.
func withSQLState(err error) error {
	if pe, ok := pgerr.As(err); ok {
		return fmt.Errorf("SQLSTATE %s: %s\x1f%s\x1f%s", pe.Code, pe.Message, pe.Detail, pe.Hint)
	}
	return err
}

func (e *Engine) registerUDFs(ctx context.Context) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for name, u := range udfs {
		if err := duckdb.RegisterScalarUDF(conn, name, u); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for name, u := range pgFuncs {
		if err := duckdb.RegisterScalarUDF(conn, name, u); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for name, u := range map[string]duckdb.ScalarFunc{
		"__bsdb_to_char": toCharUDF{}, "__bsdb_to_char_tz": toCharUDF{zoned: true},
		"__bsdb_encode": codecUDF{encode: true}, "__bsdb_decode": codecUDF{},
		"__bsdb_to_timestamp": toTimestampUDF{}, "__bsdb_format": formatUDF{},
		"__bsdb_chr": chrUDF{}, "__bsdb_convert_from": convertFromUDF{},
	} {
		if err := duckdb.RegisterScalarUDF(conn, name, u); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
