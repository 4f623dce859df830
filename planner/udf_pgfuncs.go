package planner

import (
	"crypto/sha256"
	"crypto/sha512"
	"database/sql/driver"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// goFunc is a DuckDB scalar function of several arguments written in Go:
// PostgreSQL's functions that DuckDB lacks or spells differently
// (sql/pgfuncs.go renames the calls). A panic becomes an internal error
// of the statement, never of the server; errors keep their SQLSTATE
// (withSQLState).
type goFunc struct {
	in       []duckdb.Type
	out      duckdb.Type
	nullable bool // called with NULL arguments (else NULL in, NULL out)
	lists    int  // the result is a list of out (1) or a list of lists (2)
	fn       func(v []driver.Value) (any, error)
}

func (g goFunc) Config() duckdb.ScalarFuncConfig {
	in := make([]duckdb.TypeInfo, len(g.in))
	for i, t := range g.in {
		in[i], _ = duckdb.NewTypeInfo(t)
	}
	out, _ := duckdb.NewTypeInfo(g.out)
	for i := 0; i < g.lists; i++ {
		out, _ = duckdb.NewListInfo(out)
	}
	return duckdb.ScalarFuncConfig{InputTypeInfos: in, ResultTypeInfo: out, SpecialNullHandling: g.nullable}
}

func (g goFunc) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (res any, err error) {
		defer func() {
			if r := recover(); r != nil {
				res, err = nil, withSQLState(pgerr.New("XX000", "internal error in a function: %v", r))
			}
		}()
		res, err = g.fn(values)
		if err != nil {
			return nil, withSQLState(err)
		}
		return res, nil
	}}
}

const (
	tText   = duckdb.TYPE_VARCHAR
	tInt8   = duckdb.TYPE_BIGINT
	tInt4   = duckdb.TYPE_INTEGER
	tFloat8 = duckdb.TYPE_DOUBLE
	tBool   = duckdb.TYPE_BOOLEAN
	tBytea  = duckdb.TYPE_BLOB
	tFloat4 = duckdb.TYPE_FLOAT
)

func argString(v driver.Value) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return fmt.Sprint(v)
}

func argInt(v driver.Value) int64 {
	switch i := v.(type) {
	case int64:
		return i
	case int32:
		return int64(i)
	case int16:
		return int64(i)
	case int8:
		return int64(i)
	}
	return 0
}

func argFloat(v driver.Value) float64 {
	switch f := v.(type) {
	case float64:
		return f
	case float32:
		return float64(f)
	}
	return 0
}

func argBool(v driver.Value) bool { b, _ := v.(bool); return b }

// pgFuncs are registered next to udfs.
var pgFuncs = map[string]goFunc{
	// to_char of numbers (pgtypes/numfmt.go); numeric arrives as its text.
	"__bsdb_to_char_numeric": {in: []duckdb.Type{tText, tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.ToCharNumeric(argString(v[0]), argString(v[1]))
	}},
	"__bsdb_to_char_int": {in: []duckdb.Type{tInt8, tText, tBool}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.ToCharInt(argInt(v[0]), argBool(v[2]), argString(v[1]))
	}},
	"__bsdb_to_char_float": {in: []duckdb.Type{tFloat8, tText, tBool}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.ToCharFloat(argFloat(v[0]), argBool(v[2]), argString(v[1]))
	}},
	"__bsdb_to_number": {in: []duckdb.Type{tText, tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		s, ok, err := pgtypes.ToNumber(argString(v[0]), argString(v[1]))
		if err != nil || !ok {
			return nil, err
		}
		return s, nil
	}},
}

// strList is a text[] as DuckDB's list (NULL elements as nil).
func strList(a []*string) []any {
	out := make([]any, len(a))
	for i, s := range a {
		if s != nil {
			out[i] = *s
		}
	}
	return out
}

func init() {
	pgFuncs["__bsdb_regexp_like"] = goFunc{in: []duckdb.Type{tText, tText, tText}, out: tBool, fn: func(v []driver.Value) (any, error) {
		return pgtypes.RegexpLike(argString(v[0]), argString(v[1]), argString(v[2]))
	}}
	pgFuncs["__bsdb_regexp_match"] = goFunc{in: []duckdb.Type{tText, tText, tText}, out: tText, lists: 1, fn: func(v []driver.Value) (any, error) {
		m, err := pgtypes.RegexpMatch(argString(v[0]), argString(v[1]), argString(v[2]))
		if err != nil || m == nil {
			return nil, err
		}
		return strList(m), nil
	}}
	pgFuncs["__bsdb_regexp_matches"] = goFunc{in: []duckdb.Type{tText, tText, tText}, out: tText, lists: 2, fn: func(v []driver.Value) (any, error) {
		ms, err := pgtypes.RegexpMatches(argString(v[0]), argString(v[1]), argString(v[2]))
		if err != nil {
			return nil, err
		}
		out := make([]any, len(ms))
		for i, m := range ms {
			out[i] = strList(m)
		}
		return out, nil
	}}
	pgFuncs["__bsdb_regexp_split"] = goFunc{in: []duckdb.Type{tText, tText, tText, tText}, out: tText, lists: 1, fn: func(v []driver.Value) (any, error) {
		parts, err := pgtypes.RegexpSplit(argString(v[0]), argString(v[1]), argString(v[2]), argString(v[3]))
		if err != nil {
			return nil, err
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	}}
	pgFuncs["__bsdb_regexp_count"] = goFunc{in: []duckdb.Type{tText, tText, tInt8, tText}, out: tInt4, fn: func(v []driver.Value) (any, error) {
		return pgtypes.RegexpCount(argString(v[0]), argString(v[1]), argInt(v[2]), argString(v[3]))
	}}
	pgFuncs["__bsdb_regexp_instr"] = goFunc{in: []duckdb.Type{tText, tText, tInt8, tInt8, tInt8, tText, tInt8}, out: tInt4, fn: func(v []driver.Value) (any, error) {
		return pgtypes.RegexpInstr(argString(v[0]), argString(v[1]), argInt(v[2]), argInt(v[3]), argInt(v[4]), argString(v[5]), argInt(v[6]))
	}}
	pgFuncs["__bsdb_regexp_substr"] = goFunc{in: []duckdb.Type{tText, tText, tInt8, tInt8, tText, tInt8}, out: tText, fn: func(v []driver.Value) (any, error) {
		s, ok, err := pgtypes.RegexpSubstr(argString(v[0]), argString(v[1]), argInt(v[2]), argInt(v[3]), argString(v[4]), argInt(v[5]))
		if err != nil || !ok {
			return nil, err
		}
		return s, nil
	}}
	// (source, pattern, replacement, start, n, has n, flags, flags were
	// the fourth argument as text)
	pgFuncs["__bsdb_regexp_replace"] = goFunc{in: []duckdb.Type{tText, tText, tText, tInt8, tInt8, tBool, tText, tBool}, out: tText, fn: func(v []driver.Value) (any, error) {
		if argBool(v[7]) {
			if err := pgtypes.RegexpReplaceFlagsCheck(argString(v[6])); err != nil {
				return nil, err
			}
		}
		return pgtypes.RegexpReplace(argString(v[0]), argString(v[1]), argString(v[2]), argInt(v[3]), argInt(v[4]), argBool(v[5]), argString(v[6]))
	}}
}

func init() {
	nullableInt := func(v int32, ok bool, err error) (any, error) {
		if err != nil || !ok {
			return nil, err
		}
		return v, nil
	}
	pgFuncs["__bsdb_numeric_scale"] = goFunc{in: []duckdb.Type{tText}, out: tInt4, fn: func(v []driver.Value) (any, error) {
		return nullableInt(pgtypes.NumericScaleOf(argString(v[0])))
	}}
	pgFuncs["__bsdb_numeric_min_scale"] = goFunc{in: []duckdb.Type{tText}, out: tInt4, fn: func(v []driver.Value) (any, error) {
		return nullableInt(pgtypes.NumericMinScaleOf(argString(v[0])))
	}}
	pgFuncs["__bsdb_trim_scale"] = goFunc{in: []duckdb.Type{tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.NumericTrimScale(argString(v[0]))
	}}
	pgFuncs["__bsdb_numeric_div"] = goFunc{in: []duckdb.Type{tText, tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.NumericDiv(argString(v[0]), argString(v[1]))
	}}
	pgFuncs["__bsdb_unistr"] = goFunc{in: []duckdb.Type{tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.Unistr(argString(v[0]))
	}}
	pgFuncs["__bsdb_float4send"] = goFunc{in: []duckdb.Type{tFloat4}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		return pgtypes.Float4Send(float32(argFloat(v[0]))), nil
	}}
	pgFuncs["__bsdb_float8send"] = goFunc{in: []duckdb.Type{tFloat8}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		return pgtypes.Float8Send(argFloat(v[0])), nil
	}}
	pgFuncs["__bsdb_get_byte"] = goFunc{in: []duckdb.Type{tBytea, tInt8}, out: tInt4, fn: func(v []driver.Value) (any, error) {
		return pgtypes.GetByte(argBytes(v[0]), argInt(v[1]))
	}}
	pgFuncs["__bsdb_set_byte"] = goFunc{in: []duckdb.Type{tBytea, tInt8, tInt8}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		return pgtypes.SetByte(argBytes(v[0]), argInt(v[1]), argInt(v[2]))
	}}
	pgFuncs["__bsdb_overlay"] = goFunc{in: []duckdb.Type{tText, tText, tInt8, tInt8, tBool}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.Overlay(argString(v[0]), argString(v[1]), argInt(v[2]), argInt(v[3]), argBool(v[4]), false)
	}}
	pgFuncs["__bsdb_overlay_bytea"] = goFunc{in: []duckdb.Type{tBytea, tBytea, tInt8, tInt8, tBool}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		s, err := pgtypes.Overlay(string(argBytes(v[0])), string(argBytes(v[1])), argInt(v[2]), argInt(v[3]), argBool(v[4]), true)
		if err != nil {
			return nil, err
		}
		return []byte(s), nil
	}}
}

func init() {
	pgFuncs["__bsdb_bytea_substr"] = goFunc{in: []duckdb.Type{tBytea, tInt8, tInt8, tBool}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		return pgtypes.ByteaSubstr(argBytes(v[0]), argInt(v[1]), argInt(v[2]), argBool(v[3]))
	}}
	pgFuncs["__bsdb_regexp_substring"] = goFunc{in: []duckdb.Type{tText, tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		s, ok, err := pgtypes.RegexpSubstring(argString(v[0]), argString(v[1]))
		if err != nil || !ok {
			return nil, err
		}
		return s, nil
	}}
	pgFuncs["__bsdb_similar_substring"] = goFunc{in: []duckdb.Type{tText, tText, tText}, out: tText, fn: func(v []driver.Value) (any, error) {
		s, ok, err := pgtypes.SimilarSubstring(argString(v[0]), argString(v[1]), argString(v[2]), true)
		if err != nil || !ok {
			return nil, err
		}
		return s, nil
	}}
	pgFuncs["__bsdb_pad"] = goFunc{in: []duckdb.Type{tText, tInt8, tText, tBool}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.Pad(argString(v[0]), argInt(v[1]), argString(v[2]), argBool(v[3]))
	}}
	pgFuncs["__bsdb_bytea_trim"] = goFunc{in: []duckdb.Type{tBytea, tBytea, tBool, tBool}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		return pgtypes.ByteaTrim(argBytes(v[0]), argBytes(v[1]), argBool(v[2]), argBool(v[3])), nil
	}}
	pgFuncs["__bsdb_bit_count"] = goFunc{in: []duckdb.Type{tBytea}, out: tInt8, fn: func(v []driver.Value) (any, error) {
		return pgtypes.BitCount(argBytes(v[0])), nil
	}}
	pgFuncs["__bsdb_get_bit"] = goFunc{in: []duckdb.Type{tBytea, tInt8}, out: tInt4, fn: func(v []driver.Value) (any, error) {
		return pgtypes.GetBit(argBytes(v[0]), argInt(v[1]))
	}}
	pgFuncs["__bsdb_set_bit"] = goFunc{in: []duckdb.Type{tBytea, tInt8, tInt8}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		return pgtypes.SetBit(argBytes(v[0]), argInt(v[1]), argInt(v[2]))
	}}
	pgFuncs["__bsdb_sha224"] = goFunc{in: []duckdb.Type{tBytea}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		h := sha256.Sum224(argBytes(v[0]))
		return h[:], nil
	}}
	pgFuncs["__bsdb_sha384"] = goFunc{in: []duckdb.Type{tBytea}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		h := sha512.Sum384(argBytes(v[0]))
		return h[:], nil
	}}
	pgFuncs["__bsdb_sha512"] = goFunc{in: []duckdb.Type{tBytea}, out: tBytea, fn: func(v []driver.Value) (any, error) {
		h := sha512.Sum512(argBytes(v[0]))
		return h[:], nil
	}}
	pgFuncs["__bsdb_similar_escape"] = goFunc{in: []duckdb.Type{tText, tText, tBool}, out: tText, fn: func(v []driver.Value) (any, error) {
		return pgtypes.SimilarEscape(argString(v[0]), argString(v[1]), argBool(v[2]))
	}}
}

func argBytes(v driver.Value) []byte {
	switch b := v.(type) {
	case []byte:
		return b
	case string:
		return []byte(b)
	}
	return nil
}
