package pgcatalog

import "sync"

// Built-in casts (pg_cast, from cast_gen.go): the relation and the
// lookups of parse_coerce.c.

// Cast is one built-in pg_cast row.
type Cast struct {
	OID    uint32
	Source uint32 // castsource
	Target uint32 // casttarget
	Func   uint32 // castfunc: the conversion function, 0 if none
	// Context is castcontext: 'i' implicit, 'a' in assignment, 'e'
	// explicit only.
	Context byte
	// Method is castmethod: 'f' by Func, 'b' binary coercible (a
	// relabelling), 'i' through the types' I/O functions.
	Method byte
}

type castKey struct{ source, target uint32 }

var (
	castsOnce   sync.Once
	castList    []*Cast
	castsByPair map[castKey]*Cast
)

func loadCasts() {
	castsOnce.Do(func() {
		lines := parseLines(castLines, 6)
		castsByPair = make(map[castKey]*Cast, len(lines))
		for _, f := range lines {
			c := &Cast{OID: fieldU32(f[0]), Source: fieldU32(f[1]), Target: fieldU32(f[2]), Func: fieldU32(f[3]),
				Context: fieldByte(f[4]), Method: fieldByte(f[5])}
			castList = append(castList, c)
			castsByPair[castKey{c.Source, c.Target}] = c
		}
	})
}

// Casts returns the built-in casts ordered by OID (shared: do not modify).
func Casts() []*Cast {
	loadCasts()
	return castList
}

// CastBetween is the built-in cast from source to target, nil if none:
// SearchSysCache2(CASTSOURCETARGET), which find_coercion_pathway reads
// (after reducing domains to their base types) to choose between a
// function, a relabelling and I/O conversion in the allowed context, and
// find_typmod_coercion_function reads with source = target (the length
// coercion functions of varchar, numeric, bit, time...).
func CastBetween(source, target uint32) *Cast {
	loadCasts()
	return castsByPair[castKey{source, target}]
}

// IsBinaryCoercible is parse_coerce.c's IsBinaryCoercible: whether a value
// of type source can be relabelled as target without a conversion (same
// type, a polymorphic target it matches, or an implicit binary pg_cast).
// GetDefaultOpClass and the binder's relabelling decisions use it.
func IsBinaryCoercible(source, target uint32) bool {
	if source == target {
		return true
	}
	switch target {
	case OIDAny, OIDAnyElement, OIDAnyCompatible:
		return true
	}
	if source != 0 {
		source, _ = BaseType(source, -1)
	}
	if source == target {
		return true
	}
	switch target {
	case OIDAnyArray, OIDAnyCompatibleArray:
		if ElementType(source) != 0 {
			return true
		}
	case OIDAnyNonArray, OIDAnyCompatibleNonArray:
		if ElementType(source) == 0 {
			return true
		}
	case OIDAnyEnum:
		if t := TypeByOID(source); t != nil && t.TypType == 'e' {
			return true
		}
	case OIDAnyRange, OIDAnyCompatibleRange:
		if t := TypeByOID(source); t != nil && t.TypType == 'r' {
			return true
		}
	case OIDAnyMultirange, OIDAnyCompatibleMultirange:
		if t := TypeByOID(source); t != nil && t.TypType == 'm' {
			return true
		}
	case OIDRecord:
		if t := TypeByOID(source); t != nil && t.TypType == 'c' {
			return true
		}
	case OIDRecordArray:
		if t := TypeByOID(ElementType(source)); t != nil && t.TypType == 'c' {
			return true
		}
	}
	c := CastBetween(source, target)
	return c != nil && c.Method == 'b' && c.Context == 'i'
}

func init() {
	register("pg_catalog", "pg_cast", true, "oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:char castmethod:char",
		func(*Snapshot, *Facts) [][]any {
			cs := Casts()
			rows := make([][]any, 0, len(cs))
			for _, c := range cs {
				rows = append(rows, []any{int64(c.OID), int64(c.Source), int64(c.Target), int64(c.Func), string(c.Context), string(c.Method)})
			}
			return rows
		})
}
