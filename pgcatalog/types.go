package pgcatalog

import "fmt"

var typeByOID = func() map[uint32]*typeRow {
	m := make(map[uint32]*typeRow, len(builtinTypes))
	for i := range builtinTypes {
		m[uint32(builtinTypes[i].oid)] = &builtinTypes[i]
	}
	return m
}()

// FormatType is PostgreSQL's format_type(oid, typmod) for built-in types;
// typmod < 0 means none.
func FormatType(oid uint32, typmod int32) string {
	t, ok := typeByOID[oid]
	if !ok {
		return "???"
	}
	// format_type names a true array by its element type (int4[]), but
	// not the plain-storage vector types (int2vector, oidvector).
	if t.elem != 0 && t.storage != "p" && ElementType(oid) != 0 {
		return FormatType(uint32(t.elem), typmod) + "[]"
	}
	if typmod < 0 {
		return t.formatted
	}
	switch oid {
	case 1043:
		return fmt.Sprintf("character varying(%d)", typmod-4)
	case 1042:
		return fmt.Sprintf("character(%d)", typmod-4)
	case 1700:
		return fmt.Sprintf("numeric(%d,%d)", (typmod-4)>>16, (typmod-4)&0xffff)
	case 1114:
		return fmt.Sprintf("timestamp(%d) without time zone", typmod)
	case 1184:
		return fmt.Sprintf("timestamp(%d) with time zone", typmod)
	case 1083:
		return fmt.Sprintf("time(%d) without time zone", typmod)
	case 1266:
		return fmt.Sprintf("time(%d) with time zone", typmod)
	case 1560:
		return fmt.Sprintf("bit(%d)", typmod)
	case 1562:
		return fmt.Sprintf("bit varying(%d)", typmod)
	}
	return t.formatted
}

// typeLen, typeAlign, typeByVal, typeStorage, typeCollation describe a
// built-in type for pg_attribute.
func typeFacts(oid uint32) (length int32, byval bool, align, storage string, coll int64, name string) {
	if t, ok := typeByOID[oid]; ok {
		return t.len, t.byval, t.align, t.storage, t.collation, t.name
	}
	return -1, false, "i", "x", 0, "???"
}

// infoSchemaType returns information_schema.columns' type facts.
type infoType struct {
	dataType                  string
	charMax, charOctet        any
	numPrec, numRadix, numScl any
	dtPrec                    any
	intervalType, intervalPre any
}

func infoSchemaType(oid uint32, typmod int32) infoType {
	it := infoType{dataType: "USER-DEFINED"}
	t, ok := typeByOID[oid]
	if ok {
		it.dataType = t.formatted
		if t.category == "A" {
			it.dataType = "ARRAY"
		}
	}
	switch oid {
	case 1043, 1042:
		if typmod >= 4 {
			it.charMax = int32(typmod - 4)
			it.charOctet = int32(typmod-4) * 4
		} else {
			it.charOctet = int32(1073741824)
		}
	case 25:
		it.charOctet = int32(1073741824)
	case 21:
		it.numPrec, it.numRadix, it.numScl = int32(16), int32(2), int32(0)
	case 23:
		it.numPrec, it.numRadix, it.numScl = int32(32), int32(2), int32(0)
	case 20:
		it.numPrec, it.numRadix, it.numScl = int32(64), int32(2), int32(0)
	case 700:
		it.numPrec, it.numRadix = int32(24), int32(2)
	case 701:
		it.numPrec, it.numRadix = int32(53), int32(2)
	case 1700:
		it.numRadix = int32(10)
		if typmod >= 4 {
			it.numPrec, it.numScl = int32((typmod-4)>>16), int32((typmod-4)&0xffff)
		}
	case 1082:
		it.dtPrec = int32(0)
	case 1083, 1114, 1184, 1266:
		it.dtPrec = int32(6)
		if typmod >= 0 {
			it.dtPrec = typmod
		}
	case 1186:
		it.dtPrec = int32(6)
	}
	return it
}

var typeNamesOnce = func() map[string]bool {
	m := make(map[string]bool, len(builtinTypes))
	for i := range builtinTypes {
		m[builtinTypes[i].name] = true
	}
	return m
}()

// IsBuiltinType reports whether PostgreSQL 15 has a type of this name in
// pg_catalog (its pg_type name: int4, _int4, bpchar, ...).
func IsBuiltinType(name string) bool { return typeNamesOnce[name] }
