package pgtypes

import (
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// MaxDecimalPrecision is the widest numeric(p,s) stored as an Arrow
// decimal128; wider or unconstrained numerics are stored as their exact text
// (KindString) so that no digit is lost.
const MaxDecimalPrecision = 38

// ColumnType maps a PostgreSQL column type to its storage representation:
// the returned Column has Kind, Precision, Scale, Length and Annotation
// (FormatType spelling) set; the caller fills the rest. Types without a
// storage kind (arrays, timetz, pseudo-types...) give 0A000.
func ColumnType(oid uint32, typmod int32) (schema.Column, error) {
	c := schema.Column{Annotation: FormatType(oid, typmod)}
	switch oid {
	case OIDBool:
		c.Kind = schema.KindBool
	case OIDInt2:
		c.Kind = schema.KindInt16
	case OIDInt4:
		c.Kind = schema.KindInt32
	case OIDInt8, OIDOID:
		c.Kind = schema.KindInt64
	case OIDFloat4:
		c.Kind = schema.KindFloat32
	case OIDFloat8:
		c.Kind = schema.KindFloat64
	case OIDNumeric:
		p, s, ok := NumericPrecScale(typmod)
		if ok && p <= MaxDecimalPrecision && s >= 0 && s <= p {
			c.Kind, c.Precision, c.Scale = schema.KindDecimal, p, s
		} else {
			c.Kind = schema.KindString // exact text; Annotation says numeric
		}
	case OIDText, OIDName, OIDChar, OIDXML:
		c.Kind = schema.KindString
	case OIDVarchar, OIDBPChar:
		c.Kind = schema.KindString
		if n, ok := CharLength(typmod); ok {
			c.Length = n
		}
	case OIDBytea:
		c.Kind = schema.KindBinary
	case OIDDate:
		c.Kind = schema.KindDate
	case OIDTime:
		c.Kind = schema.KindTime
	case OIDTimestamp:
		c.Kind = schema.KindTimestamp
	case OIDTimestampTZ:
		c.Kind = schema.KindTimestampTZ
	case OIDInterval:
		c.Kind = schema.KindInterval
	case OIDUUID:
		c.Kind = schema.KindUUID
	case OIDJSON, OIDJSONB:
		c.Kind = schema.KindJSON
	default:
		return c, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported for table columns", FormatType(oid, typmod))
	}
	return c, nil
}

// TypeOfColumn recovers the exact PostgreSQL type of a stored column: from
// its Annotation when present (as written by ColumnType), else from its
// Kind (numeric(p,s), varchar(n), text, ...).
func TypeOfColumn(c schema.Column) (oid uint32, typmod int32, err error) {
	if c.Annotation != "" {
		t, tm, err := ParseTypeString(c.Annotation)
		if err != nil {
			return 0, -1, err
		}
		return t.OID, tm, nil
	}
	switch c.Kind {
	case schema.KindBool:
		return OIDBool, -1, nil
	case schema.KindInt16:
		return OIDInt2, -1, nil
	case schema.KindInt32:
		return OIDInt4, -1, nil
	case schema.KindInt64:
		return OIDInt8, -1, nil
	case schema.KindFloat32:
		return OIDFloat4, -1, nil
	case schema.KindFloat64:
		return OIDFloat8, -1, nil
	case schema.KindDecimal:
		return OIDNumeric, NumericTypmod(c.Precision, c.Scale), nil
	case schema.KindString:
		if c.Length > 0 {
			return OIDVarchar, VarcharTypmod(c.Length), nil
		}
		return OIDText, -1, nil
	case schema.KindBinary:
		return OIDBytea, -1, nil
	case schema.KindDate:
		return OIDDate, -1, nil
	case schema.KindTime:
		return OIDTime, -1, nil
	case schema.KindTimestamp:
		return OIDTimestamp, -1, nil
	case schema.KindTimestampTZ:
		return OIDTimestampTZ, -1, nil
	case schema.KindInterval:
		return OIDInterval, -1, nil
	case schema.KindUUID:
		return OIDUUID, -1, nil
	case schema.KindJSON:
		return OIDJSON, -1, nil
	}
	return 0, -1, pgerr.New(pgerr.InternalError, "column %q: no PostgreSQL type for kind %v", c.Name, c.Kind)
}
