package pgtypes

import (
	"strings"

	"github.com/bsdb/bsdb-pg/storage/schema"
)

// TypeInfo is the pg_type metadata of a built-in type that clients see
// (RowDescription, pg_catalog queries, format_type).
type TypeInfo struct {
	OID      uint32
	Name     string // pg_type.typname, e.g. "int4", "_int4"
	SQLName  string // format_type(oid, NULL), e.g. "integer", "integer[]"
	Len      int16  // pg_type.typlen: >0 fixed, -1 varlena, -2 cstring
	ByVal    bool   // pg_type.typbyval
	Category byte   // pg_type.typcategory: 'N' numeric, 'S' string, 'D' datetime, 'A' array ...
	Type     byte   // pg_type.typtype: 'b' base, 'p' pseudo
	ArrayOID uint32 // pg_type.typarray, 0 if none
	ElemOID  uint32 // pg_type.typelem (arrays, name, int2vector, oidvector, point)
	Kind     schema.Kind
}

// IsArray reports whether t is an array type (typcategory 'A' with an element
// whose array type is t).
func (t TypeInfo) IsArray() bool { return t.Category == 'A' && t.ElemOID != 0 && t.Name[0] == '_' }

var (
	byOID  = map[uint32]*TypeInfo{}
	byName = map[string]*TypeInfo{}
)

func init() {
	for i := range builtinTypes {
		t := &builtinTypes[i]
		byOID[t.OID] = t
		byName[t.Name] = t
	}
}

// TypeByOID returns the metadata of a built-in type.
func TypeByOID(oid uint32) (TypeInfo, bool) {
	t, ok := byOID[oid]
	if !ok {
		return TypeInfo{}, false
	}
	return *t, true
}

// Types returns all known types ordered by OID (for pg_type emulation).
func Types() []TypeInfo { return append([]TypeInfo(nil), builtinTypes[:]...) }

// aliases maps SQL spellings accepted by the grammar (and the
// format_type spellings) to pg_type names. Keys are lower case with single
// spaces.
var aliases = map[string]string{
	"int": "int4", "integer": "int4", "smallint": "int2", "bigint": "int8",
	"real": "float4", "float": "float8", "double precision": "float8",
	"decimal": "numeric", "dec": "numeric",
	"boolean":           "bool",
	"character varying": "varchar", "char varying": "varchar",
	"character": "bpchar", "char": "bpchar", "national character": "bpchar",
	"national character varying": "varchar", "nchar": "bpchar",
	"timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
	"time without time zone": "time", "time with time zone": "timetz",
	`"char"`: "char",
	"any":    "any", `"any"`: "any",
}

// TypeByName looks up a type by pg_type name or SQL alias ("integer",
// "double precision", "character varying", "timestamp with time zone").
// A trailing "[]" selects the array type. Case-insensitive; note that a bare
// "char" is the SQL character(n) type (bpchar) while `"char"` is the
// one-byte internal type, as in PostgreSQL.
func TypeByName(name string) (TypeInfo, bool) {
	n := strings.Join(strings.Fields(strings.ToLower(name)), " ")
	if strings.HasSuffix(n, "[]") {
		et, ok := TypeByName(strings.TrimSuffix(n, "[]"))
		if !ok || et.ArrayOID == 0 {
			return TypeInfo{}, false
		}
		return TypeByOID(et.ArrayOID)
	}
	n = strings.TrimPrefix(n, "pg_catalog.")
	if a, ok := aliases[n]; ok {
		n = a
	}
	t, ok := byName[n]
	if !ok {
		return TypeInfo{}, false
	}
	return *t, true
}

// ArrayOf returns the array type of elem, if it has one.
func ArrayOf(elem uint32) (TypeInfo, bool) {
	t, ok := byOID[elem]
	if !ok || t.ArrayOID == 0 {
		return TypeInfo{}, false
	}
	return TypeByOID(t.ArrayOID)
}

// TypeLen returns the typlen of oid as RowDescription reports it (-1 when
// unknown).
func TypeLen(oid uint32) int16 {
	if t, ok := byOID[oid]; ok {
		return t.Len
	}
	return -1
}
