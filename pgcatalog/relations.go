package pgcatalog

import (
	"fmt"
	"strings"
)

// colType is a catalog column type: the PostgreSQL type reported to clients
// and the DuckDB type that stores it.
type colType struct {
	oid  uint32
	duck string
}

var colTypes = map[string]colType{
	"oid":         {26, "BIGINT"},
	"xid":         {28, "BIGINT"},
	"regproc":     {24, "VARCHAR"},
	"name":        {19, "VARCHAR"},
	"char":        {18, "VARCHAR"},
	"text":        {25, "VARCHAR"},
	"bool":        {16, "BOOLEAN"},
	"int2":        {21, "SMALLINT"},
	"int4":        {23, "INTEGER"},
	"int8":        {20, "BIGINT"},
	"float4":      {700, "REAL"},
	"timestamptz": {1184, "TIMESTAMPTZ"},
	"text[]":      {1009, "VARCHAR[]"},
	"int2[]":      {1005, "SMALLINT[]"},
	"oid[]":       {1028, "BIGINT[]"},
	"char[]":      {1002, "VARCHAR[]"},
	"int2vector":  {22, "SMALLINT[]"},
	"oidvector":   {30, "BIGINT[]"},
}

// Column of a catalog relation.
type RelColumn struct {
	Name    string
	TypeOID uint32
	Duck    string // DuckDB storage type
}

// relation is a catalog relation: its schema, columns and row source.
type relation struct {
	schema, name string
	cols         []RelColumn
	static       bool // rows do not depend on the Snapshot (built once per connection)
	rows         func(s *Snapshot, f *Facts) [][]any
	// view, when set, makes the relation a view of other relations (its
	// body, built when the session is set up) instead of a table of rows.
	view func() string
}

// parseCols parses "name:type name:type ...".
func parseCols(spec string) []RelColumn {
	var out []RelColumn
	for _, f := range strings.Fields(spec) {
		n, t, ok := strings.Cut(f, ":")
		ct, known := colTypes[t]
		if !ok || !known {
			panic(fmt.Sprintf("BUG: pgcatalog: bad column spec %q", f))
		}
		out = append(out, RelColumn{Name: n, TypeOID: ct.oid, Duck: ct.duck})
	}
	return out
}

var registry = map[string]*relation{} // key: schema + "." + name

func register(schema, name string, static bool, spec string, rows func(*Snapshot, *Facts) [][]any) {
	registry[schema+"."+name] = &relation{schema: schema, name: name, cols: parseCols(spec), static: static, rows: rows}
}

// registerView registers a relation that is a view of other relations:
// body returns its SELECT (it may name them with tn).
func registerView(schema, name, spec string, body func() string) {
	registry[schema+"."+name] = &relation{schema: schema, name: name, cols: parseCols(spec), view: body}
}

func none(*Snapshot, *Facts) [][]any { return nil }

// Lookup resolves a relation name as PostgreSQL would for a system
// relation: schema "" means the implicit pg_catalog (searched first), so an
// unqualified pg_class is pg_catalog.pg_class. ok is false for an unknown
// name.
func Lookup(schema, name string) (cols []RelColumn, fromSQL string, ok bool) {
	if schema == "" {
		schema = "pg_catalog"
	}
	r, ok := registry[schema+"."+name]
	if !ok {
		return nil, "", false
	}
	return r.cols, tableName(r), true
}

// IsSystemSchema reports whether schema is one whose relations pgcatalog
// serves (every relation there is ours or does not exist).
func IsSystemSchema(schema string) bool {
	return schema == "pg_catalog" || schema == "information_schema"
}

// tableName is the DuckDB table holding a relation's rows: shared static
// relations live in schema __bsdb_pgc of the main database (created once
// per database), the others are temporary tables of each connection.
func tableName(r *relation) string {
	if r.static {
		return "__bsdb_pgc." + tableBase(r.schema, r.name)
	}
	return "temp." + tableBase(r.schema, r.name)
}

func tableBase(schema, name string) string {
	if schema == "information_schema" {
		return "__bsdb_isc_" + name
	}
	return "__bsdb_pgc_" + name
}

func tn(schema, name string) string { return tableName(registry[schema+"."+name]) }

// Rows are loaded as one text value per relation, split and cast by
// DuckDB: parsing a VALUES list costs ~0.1 ms per row of pg_proc (list
// literals are slow to bind), the split ~100 times less. Records are
// separated by recSep, fields by fieldSep, list elements by elemSep;
// nullMark is a NULL field and emptyMark an empty list.
const (
	recSep    = "\x1e"
	fieldSep  = "\x1f"
	elemSep   = "\x1d"
	nullMark  = "\x01"
	emptyMark = "\x02"
)

// bulkRows: relations with more rows are loaded from text (for a few rows
// a VALUES list is faster: the dynamic relations, rebuilt per refresh).
const bulkRows = 100

// insertValues is the INSERT ... VALUES statement of rows.
func insertValues(r *relation, rows [][]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s VALUES ", tableName(r))
	for i, row := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlLiteral(v))
		}
		b.WriteString(")")
	}
	return b.String()
}

// sqlLiteral renders a Go value as a DuckDB literal.
func sqlLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return lit(x)
	case timeLit:
		return "TIMESTAMPTZ " + lit(string(x))
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = lit(s)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case []int64:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = fmt.Sprint(s)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fieldText(v) // bool and numbers
}

// fieldText renders a Go value as a field of the load text.
func fieldText(v any) string {
	switch x := v.(type) {
	case nil:
		return nullMark
	case string:
		if strings.ContainsAny(x, recSep+fieldSep+elemSep+nullMark+emptyMark) {
			panic(fmt.Sprintf("BUG: pgcatalog: value %q holds a separator", x))
		}
		return x
	case bool, int, int16, int32, int64, uint32, uint16, float32:
		return fmt.Sprint(x)
	case timeLit:
		return string(x)
	case []string:
		if len(x) == 0 {
			return emptyMark
		}
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = fieldText(s)
		}
		return strings.Join(parts, elemSep)
	case []int64:
		if len(x) == 0 {
			return emptyMark
		}
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = fmt.Sprint(s)
		}
		return strings.Join(parts, elemSep)
	}
	panic(fmt.Sprintf("BUG: pgcatalog: no text for %T", v))
}

// timeLit is a timestamptz literal text (RFC 3339 with microseconds).
type timeLit string

// build returns the statements that (re)create r's table with its rows.
func build(r *relation, s *Snapshot, f *Facts) []string {
	var b strings.Builder
	if r.static {
		fmt.Fprintf(&b, "CREATE OR REPLACE TABLE %s (", tableName(r))
	} else {
		fmt.Fprintf(&b, "CREATE OR REPLACE TEMP TABLE %s (", tableBase(r.schema, r.name))
	}
	for i, c := range r.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q %s", c.Name, c.Duck)
	}
	b.WriteString(")")
	out := []string{b.String()}
	rows := r.rows(s, f)
	for _, row := range rows {
		if len(row) != len(r.cols) {
			panic(fmt.Sprintf("BUG: pgcatalog: %s row has %d values, want %d", r.name, len(row), len(r.cols)))
		}
	}
	switch {
	case len(rows) == 0:
		return out
	case len(rows) <= bulkRows:
		return append(out, insertValues(r, rows))
	}
	var text strings.Builder
	for i, row := range rows {
		if i > 0 {
			text.WriteString(recSep)
		}
		for j, v := range row {
			if j > 0 {
				text.WriteString(fieldSep)
			}
			text.WriteString(fieldText(v))
		}
	}
	b.Reset()
	fmt.Fprintf(&b, "INSERT INTO %s SELECT ", tableName(r))
	for i, c := range r.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		field := fmt.Sprintf("_f[%d]", i+1)
		if strings.HasSuffix(c.Duck, "[]") {
			fmt.Fprintf(&b, "CASE WHEN %[1]s = chr(2) THEN CAST([] AS %[2]s) ELSE CAST(string_split(nullif(%[1]s, chr(1)), chr(29)) AS %[2]s) END", field, c.Duck)
		} else {
			fmt.Fprintf(&b, "CAST(nullif(%s, chr(1)) AS %s)", field, c.Duck)
		}
	}
	fmt.Fprintf(&b, " FROM (SELECT string_split(_l, chr(31)) AS _f FROM (SELECT unnest(string_split(%s, chr(30))) AS _l))", lit(text.String()))
	return append(out, b.String())
}

// SharedSetup returns the statements creating the static relations (pg_type,
// pg_am, the always-empty ones, ...) in schema __bsdb_pgc of the DuckDB
// database. Run them once per database, before any SessionSetup, and not
// concurrently with each other (they replace the tables).
func SharedSetup() []string {
	out := []string{"CREATE SCHEMA IF NOT EXISTS __bsdb_pgc"}
	for _, k := range sortedKeys() {
		if r := registry[k]; r.static && r.view == nil {
			out = append(out, build(r, nil, nil)...)
		}
	}
	return out
}

// SessionSetup returns the statements creating, on one DuckDB connection,
// the dynamic relations (empty until refreshed) and the function macros,
// with the connection's facts baked in.
func SessionSetup(f Facts) []string {
	var out []string
	empty := &Snapshot{}
	for _, k := range sortedKeys() {
		if r := registry[k]; !r.static && r.view == nil {
			out = append(out, build(r, empty, &f)[0]) // the macros refer to them
		}
	}
	for _, k := range sortedKeys() {
		if r := registry[k]; r.view != nil {
			out = append(out, fmt.Sprintf("CREATE OR REPLACE TEMP VIEW %s AS %s", tableBase(r.schema, r.name), r.view()))
		}
	}
	return append(out, macros(f)...)
}

// Refresher rebuilds a connection's dynamic relations, skipping those whose
// rows have not changed since its last refresh (most catalog queries of a
// session see the same tables: only pg_stat_activity changes).
type Refresher struct {
	last map[string]string // relation key -> statements last run
}

// Statements returns the statements to run to bring the dynamic relations
// to s, and records them as run: if running them fails, call Reset.
func (r *Refresher) Statements(s *Snapshot, f Facts) []string {
	if r.last == nil {
		r.last = map[string]string{}
	}
	var out []string
	for _, k := range sortedKeys() {
		rel := registry[k]
		if rel.static || rel.view != nil {
			continue
		}
		stmts := build(rel, s, &f)
		joined := strings.Join(stmts, ";\n")
		if r.last[k] == joined {
			continue
		}
		r.last[k] = joined
		out = append(out, stmts...)
	}
	return out
}

// Reset forgets what was run: the next Statements rebuilds everything.
func (r *Refresher) Reset() { r.last = nil }
