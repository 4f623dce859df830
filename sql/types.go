package sql

import (
	"fmt"
	"github.com/bsdb/bsdb-pg/pgcatalog"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// PostgreSQL type OIDs used by the translator. pgtypes owns the complete
// vocabulary; these are kept local so sql does not wait on it (to be unified).
const (
	OIDBool        uint32 = 16
	OIDBytea       uint32 = 17
	OIDChar        uint32 = 18
	OIDName        uint32 = 19
	OIDInt8        uint32 = 20
	OIDInt2        uint32 = 21
	OIDInt4        uint32 = 23
	OIDText        uint32 = 25
	OIDOid         uint32 = 26
	OIDRegproc     uint32 = 24
	OIDJSON        uint32 = 114
	OIDFloat4      uint32 = 700
	OIDFloat8      uint32 = 701
	OIDUnknown     uint32 = 705
	OIDBpchar      uint32 = 1042
	OIDVarchar     uint32 = 1043
	OIDDate        uint32 = 1082
	OIDTime        uint32 = 1083
	OIDTimestamp   uint32 = 1114
	OIDTimestamptz uint32 = 1184
	OIDInterval    uint32 = 1186
	OIDTimetz      uint32 = 1266
	OIDNumeric     uint32 = 1700
	OIDUUID        uint32 = 2950
	OIDJSONB       uint32 = 3802
	OIDRegType     uint32 = 2206
)

// arrayOf maps an element type OID to its array type OID.
var arrayOf = map[uint32]uint32{
	OIDBool: 1000, OIDBytea: 1001, OIDInt2: 1005, OIDInt4: 1007, OIDText: 1009,
	OIDBpchar: 1014, OIDVarchar: 1015, OIDInt8: 1016, OIDFloat4: 1021, OIDFloat8: 1022,
	OIDTimestamp: 1115, OIDDate: 1182, OIDTime: 1183, OIDTimestamptz: 1185,
	OIDInterval: 1187, OIDNumeric: 1231, OIDUUID: 2951, OIDJSON: 199, OIDJSONB: 3807,
	// Catalog queries (asyncpg's type introspection, pgcli's completion)
	// bind oid[] and name[] parameters: t.oid = ANY($1), nspname = ANY($1).
	OIDOid: 1028, OIDName: 1003, OIDChar: 1002,
}

// elemOf is the inverse of arrayOf.
var elemOf = func() map[uint32]uint32 {
	m := make(map[uint32]uint32, len(arrayOf))
	for e, a := range arrayOf {
		m[a] = e
	}
	return m
}()

// ArrayOID returns the array type of elem, or 0.
func ArrayOID(elem uint32) uint32 { return arrayOf[elem] }

// ElemOID returns the element type of an array type, or 0.
func ElemOID(arr uint32) uint32 { return elemOf[arr] }

// typeNames maps PostgreSQL type names (as the grammar produces them, after
// pg_catalog. is dropped) to OIDs.
var typeNames = map[string]uint32{
	"bool": OIDBool, "boolean": OIDBool,
	"bytea": OIDBytea,
	"char":  OIDChar, "name": OIDName,
	"int8": OIDInt8, "bigint": OIDInt8,
	"int2": OIDInt2, "smallint": OIDInt2,
	"int4": OIDInt4, "int": OIDInt4, "integer": OIDInt4,
	"text": OIDText, "oid": OIDOid,
	"json":   OIDJSON,
	"float4": OIDFloat4, "real": OIDFloat4,
	"float8": OIDFloat8, "float": OIDFloat8, "double precision": OIDFloat8,
	"bpchar": OIDBpchar, "character": OIDBpchar,
	"varchar": OIDVarchar, "character varying": OIDVarchar,
	"date":        OIDDate,
	"time":        OIDTime,
	"timetz":      OIDTimetz,
	"timestamp":   OIDTimestamp,
	"timestamptz": OIDTimestamptz,
	"interval":    OIDInterval,
	"numeric":     OIDNumeric, "decimal": OIDNumeric,
	"uuid":  OIDUUID,
	"jsonb": OIDJSONB,
}

// TypeModNumeric encodes numeric(p,s) as PostgreSQL's atttypmod.
func TypeModNumeric(p, s int) int32 { return int32(p<<16|s&0xffff) + 4 }

// NumericPrecisionScale decodes a numeric typmod; ok=false for -1 (unconstrained).
func NumericPrecisionScale(typmod int32) (p, s int, ok bool) {
	if typmod < 4 {
		return 0, 0, false
	}
	t := typmod - 4
	return int(t >> 16 & 0xffff), int(t & 0xffff), true
}

// ResolveTypeName resolves a parse-tree type name to an OID and typmod
// (-1 = none). This is the single place where SQL type names are mapped;
// it will delegate to pgtypes once that package exists.
func ResolveTypeName(tn *pg_query.TypeName) (oid uint32, typmod int32, err error) {
	if tn == nil {
		return 0, -1, fmt.Errorf("BUG: sql: nil type name")
	}
	name := typeNameString(tn)
	oid, ok := typeNames[name]
	if !ok {
		return 0, -1, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", name).WithPosition(int(tn.Location) + 1)
	}
	mods := make([]int, 0, len(tn.Typmods))
	for _, m := range tn.Typmods {
		c, ok := m.GetNode().(*pg_query.Node_AConst)
		if !ok {
			return 0, -1, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
		iv, ok := c.AConst.Val.(*pg_query.A_Const_Ival)
		if !ok {
			return 0, -1, pgerr.New(pgerr.InvalidParameterValue, "type modifiers must be integers")
		}
		mods = append(mods, int(iv.Ival.Ival))
	}
	typmod = -1
	switch oid {
	case OIDNumeric:
		switch len(mods) {
		case 0:
		case 1, 2:
			p, s := mods[0], 0
			if len(mods) == 2 {
				s = mods[1]
			}
			if p < 1 || p > 1000 {
				return 0, -1, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
			}
			if s < 0 || s > p {
				return 0, -1, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", s, p)
			}
			typmod = TypeModNumeric(p, s)
		default:
			return 0, -1, pgerr.New(pgerr.SyntaxError, "invalid NUMERIC type modifier")
		}
	case OIDVarchar, OIDBpchar:
		if len(mods) == 1 {
			if mods[0] < 1 {
				return 0, -1, pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", name)
			}
			typmod = int32(mods[0] + 4)
		} else if len(mods) > 1 {
			return 0, -1, pgerr.New(pgerr.SyntaxError, "invalid type modifier")
		} else if oid == OIDBpchar && name == "bpchar" {
			typmod = -1
		} else if oid == OIDBpchar {
			typmod = 5 // char == char(1)
		}
	case OIDTimestamp, OIDTimestamptz, OIDTime, OIDTimetz, OIDInterval:
		if len(mods) == 1 && oid != OIDInterval {
			typmod = int32(mods[0])
		}
	}
	if len(tn.ArrayBounds) > 0 {
		a := arrayOf[oid]
		if a == 0 {
			return 0, -1, pgerr.New(pgerr.FeatureNotSupported, "arrays of type %s are not supported", name)
		}
		oid = a
	}
	return oid, typmod, nil
}

// typeNameString returns the lower-case last component of a type name,
// dropping a pg_catalog qualification.
// isPostgresTypeName reports whether a type name names one of PostgreSQL
// 15's types (by its pg_type name or an SQL spelling ResolveTypeName
// knows), unqualified or in pg_catalog.
func isPostgresTypeName(tn *pg_query.TypeName) bool {
	if len(tn.Names) > 2 || len(tn.Names) == 2 && tn.Names[0].GetString_().GetSval() != "pg_catalog" {
		return false
	}
	name := typeNameString(tn)
	if _, ok := typeNames[name]; ok {
		return true
	}
	return pgcatalog.IsBuiltinType(name)
}

func typeNameString(tn *pg_query.TypeName) string {
	parts := make([]string, 0, len(tn.Names))
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	return strings.Join(parts, ".")
}

// DuckDBType returns the DuckDB type for a PostgreSQL type.
//
// numeric without a typmod has no DuckDB equivalent (DuckDB's DECIMAL is at
// most 38 digits with a fixed scale): it maps to DECIMAL(38,10), a known gap.
func DuckDBType(oid uint32, typmod int32) (string, error) {
	if e := elemOf[oid]; e != 0 {
		t, err := DuckDBType(e, typmod)
		if err != nil {
			return "", err
		}
		return t + "[]", nil
	}
	switch oid {
	case OIDBool:
		return "BOOLEAN", nil
	case OIDBytea:
		return "BLOB", nil
	case OIDInt2:
		return "SMALLINT", nil
	case OIDInt4:
		return "INTEGER", nil
	case OIDInt8:
		return "BIGINT", nil
	case OIDOid:
		return "UINTEGER", nil
	case OIDFloat4:
		return "FLOAT", nil
	case OIDFloat8:
		return "DOUBLE", nil
	case OIDText, OIDVarchar, OIDBpchar, OIDChar, OIDName, OIDUnknown:
		return "VARCHAR", nil
	case OIDJSON:
		// json keeps its input text exactly (DuckDB's JSON type would
		// re-serialize it); DuckDB's json functions take VARCHAR too.
		return "VARCHAR", nil
	case OIDJSONB:
		return "JSON", nil
	case OIDDate:
		return "DATE", nil
	case OIDTime:
		return "TIME", nil
	case OIDTimetz:
		return "TIMETZ", nil
	case OIDTimestamp:
		return "TIMESTAMP", nil
	case OIDTimestamptz:
		return "TIMESTAMPTZ", nil
	case OIDInterval:
		return "INTERVAL", nil
	case OIDUUID:
		return "UUID", nil
	case OIDNumeric:
		if p, s, ok := NumericPrecisionScale(typmod); ok {
			if p > 38 {
				return "", pgerr.New(pgerr.FeatureNotSupported, "numeric precision %d above 38 is not supported", p)
			}
			return fmt.Sprintf("DECIMAL(%d,%d)", p, s), nil
		}
		return "DECIMAL(38,10)", nil
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "type with OID %d is not supported", oid)
}

// PGTypeOfDuckDB maps a DuckDB result column type name (database/sql
// ColumnType.DatabaseTypeName) to a PostgreSQL type OID and typmod.
// Unknown or composite types (STRUCT, MAP, UNION, ENUM) map to text.
func PGTypeOfDuckDB(name string) (oid uint32, typmod int32) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if strings.HasSuffix(n, "[]") {
		e, _ := PGTypeOfDuckDB(strings.TrimSuffix(n, "[]"))
		if ElemOID(e) != 0 {
			return e, -1 // a list of lists: PostgreSQL's multidimensional arrays have their elements' array type
		}
		if a := arrayOf[e]; a != 0 {
			return a, -1
		}
		return OIDText, -1
	}
	if strings.HasPrefix(n, "DECIMAL") || strings.HasPrefix(n, "NUMERIC") {
		if i := strings.IndexByte(n, '('); i >= 0 && strings.HasSuffix(n, ")") {
			ps := strings.Split(n[i+1:len(n)-1], ",")
			if len(ps) == 2 {
				p, err1 := strconv.Atoi(strings.TrimSpace(ps[0]))
				s, err2 := strconv.Atoi(strings.TrimSpace(ps[1]))
				if err1 == nil && err2 == nil {
					return OIDNumeric, TypeModNumeric(p, s)
				}
			}
		}
		return OIDNumeric, -1
	}
	switch n {
	case "BOOLEAN", "BOOL":
		return OIDBool, -1
	case "TINYINT", "UTINYINT", "SMALLINT", "INT2":
		return OIDInt2, -1
	case "USMALLINT", "INTEGER", "INT", "INT4":
		return OIDInt4, -1
	case "UINTEGER", "BIGINT", "INT8":
		return OIDInt8, -1
	case "UBIGINT", "HUGEINT", "UHUGEINT":
		return OIDNumeric, -1
	case "FLOAT", "REAL", "FLOAT4":
		return OIDFloat4, -1
	case "DOUBLE", "FLOAT8":
		return OIDFloat8, -1
	case "VARCHAR", "TEXT", "STRING", "NULL", "\"NULL\"", "ENUM":
		return OIDText, -1
	case "BLOB", "BYTEA", "BIT":
		return OIDBytea, -1
	case "DATE":
		return OIDDate, -1
	case "TIME":
		return OIDTime, -1
	case "TIME WITH TIME ZONE", "TIMETZ":
		return OIDTimetz, -1
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "DATETIME":
		return OIDTimestamp, -1
	case "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ":
		return OIDTimestamptz, -1
	case "INTERVAL":
		return OIDInterval, -1
	case "UUID":
		return OIDUUID, -1
	case "JSON":
		return OIDJSON, -1
	}
	return OIDText, -1
}

// typeNameNode builds a parse-tree TypeName that pg_query.Deparse prints as
// the given DuckDB type (lower-case so that it is not quoted).
func duckTypeName(oid uint32, typmod int32) (*pg_query.TypeName, error) {
	t, err := DuckDBType(oid, typmod)
	if err != nil {
		return nil, err
	}
	tn := &pg_query.TypeName{Typemod: -1}
	base := t
	if strings.HasSuffix(base, "[]") {
		base = strings.TrimSuffix(base, "[]")
		tn.ArrayBounds = []*pg_query.Node{pg_query.MakeIntNode(-1)}
	}
	if i := strings.IndexByte(base, '('); i >= 0 {
		for _, m := range strings.Split(base[i+1:len(base)-1], ",") {
			v, _ := strconv.Atoi(m)
			tn.Typmods = append(tn.Typmods, pg_query.MakeAConstIntNode(int64(v), -1))
		}
		base = base[:i]
	}
	tn.Names = []*pg_query.Node{pg_query.MakeStrNode(strings.ToLower(base))}
	return tn, nil
}
