package sql

// Catalog is what the translator resolves table names against. The planner
// implements it over its snapshot of the storage catalog.
type Catalog interface {
	// LookupTable resolves a table name (schema "" = search_path). An
	// unknown table is a *pgerr.Error 42P01 `relation "x" does not exist`.
	LookupTable(schema, name string) (*TableInfo, error)
}

// TableDescriber is optionally implemented by a Catalog: DescribeTable
// resolves a table like LookupTable but only for its columns (FromSQL
// empty), without binding a snapshot. INSERT's target uses it.
type TableDescriber interface {
	DescribeTable(schema, name string) (*TableInfo, error)
}

// describeTable uses cat's DescribeTable when it has one.
func describeTable(cat Catalog, schema, name string) (*TableInfo, error) {
	if d, ok := cat.(TableDescriber); ok {
		return d.DescribeTable(schema, name)
	}
	return cat.LookupTable(schema, name)
}

// SchemaChecker is optionally implemented by a Catalog: SchemaExists tells
// whether the current database has a schema of this name (a call of an
// unknown function qualified with an unknown schema is 3F000, as in
// PostgreSQL; without it, 42883).
type SchemaChecker interface {
	SchemaExists(name string) bool
}

func schemaExistsFunc(cat Catalog) func(string) bool {
	if c, ok := cat.(SchemaChecker); ok {
		return c.SchemaExists
	}
	return nil
}

// BindEnder is optionally implemented by a Catalog: EndBind is called when
// a translation has bound every table it reads (whether it succeeded or
// not). A catalog that holds a lock so that the tables' snapshots form one
// consistent cut releases it there, before the statement runs.
type BindEnder interface {
	EndBind()
}

// endBind calls cat's EndBind when it has one.
func endBind(cat Catalog) {
	if b, ok := cat.(BindEnder); ok {
		b.EndBind()
	}
}

// RowsCatalog is implemented by catalogs that bind a table more cheaply
// for a statement that reads none of its columns (see noColumns): the
// returned TableInfo has NoColumnsFromSQL and may leave FromSQL empty.
type RowsCatalog interface {
	LookupTableRows(schemaName, name string) (*TableInfo, error)
}

// TableInfo describes a table for translation.
type TableInfo struct {
	Schema, Name string
	Columns      []ColumnInfo
	// FromSQL is a DuckDB FROM item yielding the table's rows with exactly
	// these column names: a parenthesised subquery or a DuckDB table name.
	// The translator substitutes it verbatim for the table reference and
	// keeps the user's alias (or the table name as alias).
	FromSQL string
	// NoColumnsFromSQL, if set, is a FROM item with the same rows and
	// none of the columns, substituted instead of FromSQL in a statement
	// that references no column at all (count(*), SELECT 1 FROM t): see
	// noColumns.
	NoColumnsFromSQL string
	// Rows is the exact number of rows of the bound table when RowsKnown
	// (a table bound by LookupTableRows): a bare count(*) of the table is
	// answered with it (countstar.go).
	Rows      int64
	RowsKnown bool
	// OID is the relation's pg_class OID, which its system column
	// tableoid reads (0: the column is not offered).
	OID uint32
}

// ColumnInfo is one column of a table.
type ColumnInfo struct {
	Name    string
	TypeOID uint32
	TypeMod int32
	NotNull bool
	Default string // SQL expression text (PostgreSQL dialect), or ""
	// Identity is 'a' (GENERATED ALWAYS AS IDENTITY), 'd' (BY DEFAULT) or
	// "" (Default then is nextval of the column's sequence).
	Identity string
	// Attnum is the column's number in the catalogs (pg_attribute.attnum):
	// its Iceberg field id, which a column keeps for its life, as an
	// attnum; numbers of dropped columns are not reused. 0 = its position.
	Attnum int
}

// ColumnIndex returns the position of the named column, or -1.
func (t *TableInfo) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Query is a translated query.
type Query struct {
	SQL string // DuckDB SQL
	// ParamOIDs has one entry per parameter $1..$n: the declared type, or
	// the type inferred from context, else text (PostgreSQL resolves an
	// unknown parameter to text).
	ParamOIDs []uint32
	// Columns are the result columns with PostgreSQL's names. A TypeOID of
	// 0 means the translator could not infer the type: take DuckDB's
	// (PGTypeOfDuckDB). Nil when even the names are unknown (e.g. SELECT *
	// over a relation the translator cannot see into).
	Columns []ResultColumn
	// Inlined: the parameter values given to TranslateQueryArgs are spelled
	// into SQL as literals; run it without arguments.
	Inlined bool
	// UsesClock: the SQL spells the session clock's values (now(),
	// current_date...) as literals; it must not be reused by a later
	// execution.
	UsesClock bool
	// Row, if not nil, is the statement's one result row, known without
	// running SQL (a bare count(*) from row counts: int64 per column); SQL
	// still holds a DuckDB query with the same answer (EXPLAIN).
	Row []any
}

// ResultColumn is a result column.
type ResultColumn struct {
	Name    string
	TypeOID uint32
	TypeMod int32
}

// ViewCatalog is optionally implemented by a Catalog that has views.
// LookupView resolves a relation name (schema "" = search_path) before
// LookupTable: (nil, nil) when the name is no view. It checks the
// privilege to read the view itself. The translator then translates the
// view's query in place of the reference, between EnterView and LeaveView:
// the relations the view reads are checked with the privileges of the
// view's owner, as PostgreSQL does.
type ViewCatalog interface {
	LookupView(schema, name string) (*ViewInfo, error)
	EnterView(v *ViewInfo)
	LeaveView(v *ViewInfo)
}

// ViewInfo is a view for translation.
type ViewInfo struct {
	Schema, Name string
	// Query is the view's SELECT (PostgreSQL text, relations qualified).
	Query   string
	Columns []ColumnInfo
	Owner   uint32
}
