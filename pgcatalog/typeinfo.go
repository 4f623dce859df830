package pgcatalog

import (
	"fmt"
	"sync"
)

// Types as PostgreSQL's parse analysis looks them up (parse_type.c,
// parse_coerce.c, lsyscache.c): the built-in types of pg_catalog, from
// static_gen.go and extra_gen.go, indexed once on first use.

// Type is one built-in pg_type row.
type Type struct {
	OID        uint32
	Name       string // typname
	Namespace  uint32
	Len        int16
	ByVal      bool
	TypType    byte // typtype: 'b' base, 'p' pseudo, 'r' range, 'm' multirange ('d' domain, 'c' composite, 'e' enum: none built in pg_catalog)
	Category   byte // typcategory: 'A' array, 'B' boolean, 'N' numeric, 'S' string, 'U' user, 'X' unknown, ...
	Preferred  bool // typispreferred
	Delim      byte
	RelID      uint32
	Elem       uint32 // typelem; also set for fixed-length types subscripted as arrays (name, point): see ElementType
	Array      uint32 // typarray: the array type of this type, 0 if none
	Subscript  string // typsubscript: "array_subscript_handler" for a true array, "-" for none
	Input      string // typinput ... typanalyze: the functions' regproc names
	Output     string
	Receive    string
	Send       string
	ModIn      string
	ModOut     string
	Analyze    string
	Align      byte
	Storage    byte
	BaseType   uint32 // typbasetype: the base type of a domain, else 0
	TypMod     int32  // typtypmod: a domain's typmod, else -1
	NDims      int32
	Collation  uint32
	FormatType string // format_type(oid, NULL)
}

// Well-known type OIDs of parse analysis (pg_type_d.h).
const (
	OIDBool                    = 16
	OIDText                    = 25
	OIDUnknown                 = 705
	OIDRecord                  = 2249
	OIDRecordArray             = 2287
	OIDAny                     = 2276
	OIDAnyArray                = 2277
	OIDAnyElement              = 2283
	OIDAnyNonArray             = 2776
	OIDAnyEnum                 = 3500
	OIDAnyRange                = 3831
	OIDAnyMultirange           = 4537
	OIDAnyCompatible           = 5077
	OIDAnyCompatibleArray      = 5078
	OIDAnyCompatibleNonArray   = 5079
	OIDAnyCompatibleRange      = 5080
	OIDAnyCompatibleMultirange = 4538
)

var (
	typesOnce    sync.Once
	typeList     []*Type
	typesByOID   map[uint32]*Type
	typesByName  map[string]*Type
	rangeList    []*Range
	rangesByType map[uint32]*Range
	rangesByMR   map[uint32]*Range
)

func loadTypes() {
	typesOnce.Do(func() {
		extra := parseLines(typeExtraLines, 3)
		if len(extra) != len(builtinTypes) {
			panic(fmt.Sprintf("BUG: pgcatalog: %d typeExtraLines for %d types", len(extra), len(builtinTypes)))
		}
		typesByOID = make(map[uint32]*Type, len(builtinTypes))
		typesByName = make(map[string]*Type, len(builtinTypes))
		for i, r := range builtinTypes {
			if fieldU32(extra[i][0]) != uint32(r.oid) {
				panic(fmt.Sprintf("BUG: pgcatalog: typeExtraLines[%d] is type %s, want %d", i, extra[i][0], r.oid))
			}
			t := &Type{OID: uint32(r.oid), Name: r.name, Namespace: uint32(r.namespace), Len: int16(r.len), ByVal: r.byval,
				TypType: fieldByte(r.typtype), Category: fieldByte(r.category), Preferred: r.preferred, Delim: fieldByte(r.delim),
				RelID: uint32(r.relid), Elem: uint32(r.elem), Array: uint32(r.array), Subscript: extra[i][1],
				Input: r.input, Output: r.output, Receive: r.receive, Send: r.send, ModIn: r.modin, ModOut: r.modout,
				Analyze: extra[i][2], Align: fieldByte(r.align), Storage: fieldByte(r.storage), BaseType: uint32(r.basetype),
				TypMod: r.typmod, NDims: r.ndims, Collation: uint32(r.collation), FormatType: r.formatted}
			typeList = append(typeList, t)
			typesByOID[t.OID] = t
			typesByName[t.Name] = t
		}
		rangesByType, rangesByMR = map[uint32]*Range{}, map[uint32]*Range{}
		for _, f := range parseLines(rangeLines, 7) {
			r := &Range{Type: fieldU32(f[0]), Subtype: fieldU32(f[1]), Multirange: fieldU32(f[2]), Collation: fieldU32(f[3]),
				SubOpClass: fieldU32(f[4]), Canonical: fieldU32(f[5]), SubDiff: fieldU32(f[6])}
			rangeList = append(rangeList, r)
			rangesByType[r.Type] = r
			rangesByMR[r.Multirange] = r
		}
	})
}

// Types returns the built-in types ordered by OID (shared: do not modify).
func Types() []*Type {
	loadTypes()
	return typeList
}

// TypeByOID is the built-in type of this OID, nil if none: what
// SearchSysCache(TYPEOID) gives typeidType, get_typtype, get_typlenbyval,
// format_type and the other lsyscache.c lookups.
func TypeByOID(oid uint32) *Type {
	loadTypes()
	return typesByOID[oid]
}

// TypeByName is the built-in type named name (its pg_type name: int4,
// _int4, bpchar; the grammar's aliases int, integer, character varying
// are the caller's), nil if none: LookupTypeName / TypenameGetTypid for a
// name resolved in pg_catalog.
func TypeByName(name string) *Type {
	loadTypes()
	return typesByName[name]
}

// TypeCategory is parse_coerce.c's TypeCategory: the typcategory of a
// type (0, TYPCATEGORY_INVALID, for an unknown OID, where PostgreSQL
// reports a cache lookup failure). func_select_candidate and
// select_common_type group candidates by it.
func TypeCategory(oid uint32) byte {
	if t := TypeByOID(oid); t != nil {
		return t.Category
	}
	return 0
}

// IsPreferredType is parse_coerce.c's IsPreferredType: whether the type is
// a preferred type of category (any category when category is 0).
func IsPreferredType(category byte, oid uint32) bool {
	t := TypeByOID(oid)
	if t == nil {
		return false
	}
	return (category == 0 || category == t.Category) && t.Preferred
}

// ElementType is lsyscache.c's get_element_type: the element type of a
// true array type (typelem set and subscripted by array_subscript_handler;
// not name or point, whose typelem only serves raw subscripting), else 0.
// type_is_array is ElementType(t) != 0.
func ElementType(oid uint32) uint32 {
	if t := TypeByOID(oid); t != nil && t.Elem != 0 && t.Subscript == "array_subscript_handler" {
		return t.Elem
	}
	return 0
}

// ArrayType is lsyscache.c's get_array_type: the array type whose
// elements are of this type, 0 if none.
func ArrayType(oid uint32) uint32 {
	if t := TypeByOID(oid); t != nil {
		return t.Array
	}
	return 0
}

// BaseType is lsyscache.c's getBaseTypeAndTypmod: a domain's base type
// (through domains over domains) and typmod; any other type is its own
// base, with typmod unchanged.
func BaseType(oid uint32, typmod int32) (uint32, int32) {
	for {
		t := TypeByOID(oid)
		if t == nil || t.TypType != 'd' {
			return oid, typmod
		}
		oid, typmod = t.BaseType, t.TypMod
	}
}

// Range is one pg_range row: a built-in range type and its multirange.
type Range struct {
	Type       uint32 // rngtypid
	Subtype    uint32 // rngsubtype
	Multirange uint32 // rngmultitypid
	Collation  uint32
	SubOpClass uint32 // rngsubopc
	Canonical  uint32 // rngcanonical (function OID, 0 = none)
	SubDiff    uint32 // rngsubdiff (function OID, 0 = none)
}

// Ranges returns pg_range's rows ordered by range type OID.
func Ranges() []*Range {
	loadTypes()
	return rangeList
}

// RangeByType is the pg_range row of a range type, nil if it is none:
// get_range_subtype (.Subtype), get_range_multirange (.Multirange),
// get_range_collation; polymorphic resolution of anyrange arguments.
func RangeByType(oid uint32) *Range {
	loadTypes()
	return rangesByType[oid]
}

// RangeByMultirange is the pg_range row of a multirange type's range, nil
// if it is none: get_multirange_range (.Type).
func RangeByMultirange(oid uint32) *Range {
	loadTypes()
	return rangesByMR[oid]
}

func init() {
	register("pg_catalog", "pg_range", true, `rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid
		rngcanonical:regproc rngsubdiff:regproc`, func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, r := range Ranges() {
			rows = append(rows, []any{int64(r.Type), int64(r.Subtype), int64(r.Multirange), int64(r.Collation), int64(r.SubOpClass),
				RegprocOut(r.Canonical), RegprocOut(r.SubDiff)})
		}
		return rows
	})
}
