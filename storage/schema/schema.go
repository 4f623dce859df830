// Package schema is the table schema vocabulary shared by the storage engine
// (wal, txn, storage) and the layers above it. It knows logical column kinds,
// their Arrow representation (used in the WAL, the buffers and Parquet files)
// and nothing of SQL: the SQL layer maps PostgreSQL types onto kinds and keeps
// its own spelling of the type in Column.Annotation, which storage persists
// verbatim.
//
// Part of the on-disk format: the JSON encoding of Schema (it is stored in
// every _manifest/v{N}.json) and the Arrow types below.
package schema

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// Kind is a logical column type.
type Kind uint8

// Kinds. The numeric values are not persisted (the JSON form is the name).
const (
	KindInvalid Kind = iota
	KindBool
	KindInt16
	KindInt32
	KindInt64
	KindFloat32
	KindFloat64
	KindDecimal     // Precision, Scale
	KindString      // Length: 0 = unbounded
	KindBinary      // bytea
	KindDate        // days since 1970-01-01
	KindTime        // microseconds since midnight
	KindTimestamp   // microseconds since 1970-01-01 00:00:00, no zone
	KindTimestampTZ // microseconds since 1970-01-01 00:00:00 UTC
	KindInterval    // months, days, nanoseconds (microsecond precision)
	KindUUID
	KindJSON // text holding JSON
)

var kindNames = [...]string{
	KindInvalid:     "invalid",
	KindBool:        "bool",
	KindInt16:       "int16",
	KindInt32:       "int32",
	KindInt64:       "int64",
	KindFloat32:     "float32",
	KindFloat64:     "float64",
	KindDecimal:     "decimal",
	KindString:      "string",
	KindBinary:      "binary",
	KindDate:        "date",
	KindTime:        "time",
	KindTimestamp:   "timestamp",
	KindTimestampTZ: "timestamptz",
	KindInterval:    "interval",
	KindUUID:        "uuid",
	KindJSON:        "json",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s && k != int(KindInvalid) {
			return Kind(k), nil
		}
	}
	return KindInvalid, fmt.Errorf("schema: unknown kind %q", s)
}

// MarshalJSON encodes a kind by name.
func (k Kind) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// UnmarshalJSON decodes a kind name.
func (k *Kind) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseKind(s)
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Column is one column of a table.
type Column struct {
	// ID is the stable Iceberg field id, 1-based, never reused within a table.
	ID        int    `json:"id"`
	Name      string `json:"name"`
	Kind      Kind   `json:"kind"`
	Precision int    `json:"precision,omitempty"` // KindDecimal
	Scale     int    `json:"scale,omitempty"`     // KindDecimal
	Length    int    `json:"length,omitempty"`    // KindString: declared max length, 0 = none
	NotNull   bool   `json:"not_null,omitempty"`
	// Annotation is opaque to storage: the SQL layer's spelling of the type
	// (e.g. "character varying(20)", "jsonb", "numeric") and anything else it
	// needs to round-trip the declaration.
	Annotation string `json:"annotation,omitempty"`
	// Default is opaque to storage: the SQL text of the column default, if any.
	Default string `json:"default,omitempty"`
	// Identity is opaque to storage: "a" for GENERATED ALWAYS AS IDENTITY,
	// "d" for BY DEFAULT (Default then holds the sequence's nextval).
	Identity string `json:"identity,omitempty"`
	// InitialDefault is the value of the column in rows written before it
	// was added (ALTER TABLE ... ADD COLUMN ... DEFAULT), as text the
	// column's kind parses ("" with HasInitialDefault false = NULL).
	// Iceberg's initial-default: data files without the column's field id
	// read it.
	InitialDefault    string `json:"initial_default,omitempty"`
	HasInitialDefault bool   `json:"has_initial_default,omitempty"`
}

// Schema is an ordered list of columns.
type Schema struct {
	Columns []Column `json:"columns"`
	// PrimaryKey lists column names of a declared primary key (informational:
	// not enforced by storage).
	PrimaryKey []string `json:"primary_key,omitempty"`
	// Version counts the schema changes (ALTER TABLE) since the table was
	// created (Iceberg's schema id). While it is 0 every data file has
	// exactly the table's columns; after a change, files of older versions
	// must be read by field id.
	Version int `json:"version,omitempty"`
	// LastColumnID is the highest column id ever assigned (Iceberg's
	// last-column-id): a dropped column's id is never reused. 0 = the
	// highest id of Columns (a schema never altered).
	LastColumnID int `json:"last_column_id,omitempty"`
}

// MaxColumnID is the highest column id ever assigned.
func (s *Schema) MaxColumnID() int {
	m := s.LastColumnID
	for _, c := range s.Columns {
		if c.ID > m {
			m = c.ID
		}
	}
	return m
}

// AddColumn appends c with a new id (above every id ever assigned).
func (s *Schema) AddColumn(c Column) {
	c.ID = s.MaxColumnID() + 1
	s.LastColumnID = c.ID
	s.Columns = append(s.Columns, c)
}

// DropColumn removes the named column; its id stays used (LastColumnID).
func (s *Schema) DropColumn(name string) bool {
	i := s.Index(name)
	if i < 0 {
		return false
	}
	s.LastColumnID = s.MaxColumnID()
	s.Columns = append(s.Columns[:i:i], s.Columns[i+1:]...)
	return true
}

// Index returns the position of the named column, or -1.
func (s *Schema) Index(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Validate checks names are unique and non-empty, kinds valid, ids unique.
func (s *Schema) Validate() error {
	if len(s.Columns) == 0 {
		return fmt.Errorf("schema: no columns")
	}
	names := map[string]bool{}
	ids := map[int]bool{}
	for _, c := range s.Columns {
		if c.Name == "" {
			return fmt.Errorf("schema: empty column name")
		}
		if names[c.Name] {
			return fmt.Errorf("schema: duplicate column %q", c.Name)
		}
		names[c.Name] = true
		if c.ID <= 0 || ids[c.ID] {
			return fmt.Errorf("schema: column %q: bad or duplicate id %d", c.Name, c.ID)
		}
		ids[c.ID] = true
		if c.Kind == KindInvalid || int(c.Kind) >= len(kindNames) {
			return fmt.Errorf("schema: column %q: invalid kind", c.Name)
		}
		if c.Kind == KindDecimal && (c.Precision < 1 || c.Precision > 38 || c.Scale < 0 || c.Scale > c.Precision) {
			return fmt.Errorf("schema: column %q: bad decimal(%d,%d)", c.Name, c.Precision, c.Scale)
		}
	}
	return nil
}

// AssignIDs gives ids 1..n to columns that have none.
func (s *Schema) AssignIDs() {
	max := 0
	for _, c := range s.Columns {
		if c.ID > max {
			max = c.ID
		}
	}
	for i := range s.Columns {
		if s.Columns[i].ID == 0 {
			max++
			s.Columns[i].ID = max
		}
	}
}

// ArrowType is the Arrow type of a column in the WAL, the buffers and Parquet.
// Part of the on-disk format.
func (c *Column) ArrowType() arrow.DataType {
	switch c.Kind {
	case KindBool:
		return arrow.FixedWidthTypes.Boolean
	case KindInt16:
		return arrow.PrimitiveTypes.Int16
	case KindInt32:
		return arrow.PrimitiveTypes.Int32
	case KindInt64:
		return arrow.PrimitiveTypes.Int64
	case KindFloat32:
		return arrow.PrimitiveTypes.Float32
	case KindFloat64:
		return arrow.PrimitiveTypes.Float64
	case KindDecimal:
		return &arrow.Decimal128Type{Precision: int32(c.Precision), Scale: int32(c.Scale)}
	case KindString, KindJSON:
		return arrow.BinaryTypes.String
	case KindBinary:
		return arrow.BinaryTypes.Binary
	case KindDate:
		return arrow.FixedWidthTypes.Date32
	case KindTime:
		return arrow.FixedWidthTypes.Time64us
	case KindTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case KindTimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case KindInterval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	case KindUUID:
		return extensions.NewUUIDType()
	}
	panic(fmt.Sprintf("BUG: schema: no Arrow type for kind %v", c.Kind))
}

// Field metadata keys on the Arrow schema. Part of the on-disk format.
const (
	MetaFieldID = "PARQUET:field_id" // Iceberg field id, as pqarrow expects it
	MetaKind    = "bsdb:kind"
)

// Arrow is the Arrow schema of the table (field ids in metadata).
func (s *Schema) Arrow() *arrow.Schema {
	fields := make([]arrow.Field, len(s.Columns))
	for i := range s.Columns {
		c := &s.Columns[i]
		md := arrow.NewMetadata(
			[]string{MetaFieldID, MetaKind},
			[]string{fmt.Sprint(c.ID), c.Kind.String()},
		)
		fields[i] = arrow.Field{Name: c.Name, Type: c.ArrowType(), Nullable: !c.NotNull, Metadata: md}
	}
	return arrow.NewSchema(fields, nil)
}

// Clone returns a deep copy.
func (s *Schema) Clone() *Schema {
	c := &Schema{Columns: append([]Column(nil), s.Columns...), Version: s.Version, LastColumnID: s.LastColumnID}
	c.PrimaryKey = append([]string(nil), s.PrimaryKey...)
	return c
}
