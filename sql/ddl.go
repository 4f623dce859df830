package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// CreateTable is a translated CREATE TABLE.
type CreateTable struct {
	Schema, Name string
	IfNotExists  bool
	// Temp: CREATE TEMP TABLE (ON COMMIT PRESERVE ROWS).
	Temp    bool
	Columns []ColumnDef
	// ForeignKeys are the FOREIGN KEY constraints (table constraints and
	// column REFERENCES), in the order written.
	ForeignKeys []ForeignKeySpec
	// Uniques are the UNIQUE constraints (column and table constraints),
	// in the order written.
	Uniques []UniqueSpec
	// Checks are the CHECK constraints (column and table constraints), in
	// the order written.
	Checks []CheckSpec
}

// CheckSpec is a CHECK constraint as written.
type CheckSpec struct {
	Name string // "" = generated
	// Expr is the condition, PostgreSQL text; Column the one column it
	// reads ("" = none or several), which a generated name is made of.
	Expr     string
	Column   string
	NotValid bool
}

// TranslateCheck translates a CHECK constraint, refusing what PostgreSQL
// refuses in one (subqueries, aggregates, window functions, parameters)
// and what is not kept (NO INHERIT).
func TranslateCheck(c *pg_query.Constraint) (CheckSpec, error) {
	cs := CheckSpec{Name: c.Conname, NotValid: c.SkipValidation}
	if c.IsNoInherit {
		return cs, pgerr.New(pgerr.FeatureNotSupported, "CHECK ... NO INHERIT is not supported").WithPosition(int(c.Location) + 1)
	}
	if err := CheckExpression(c.RawExpr); err != nil {
		return cs, err
	}
	var bad error
	cols := map[string]bool{}
	walkNodes(c.RawExpr, func(n *pg_query.Node) bool {
		if bad != nil {
			return false
		}
		switch x := n.GetNode().(type) {
		case *pg_query.Node_SubLink:
			bad = pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in check constraint").WithPosition(int(x.SubLink.Location) + 1)
		case *pg_query.Node_ParamRef:
			bad = pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", x.ParamRef.Number).WithPosition(int(x.ParamRef.Location) + 1)
		case *pg_query.Node_FuncCall:
			if x.FuncCall.Over != nil {
				bad = pgerr.New(pgerr.WindowingError, "window functions are not allowed in check constraints").WithPosition(int(x.FuncCall.Location) + 1)
			} else if x.FuncCall.AggStar || x.FuncCall.AggDistinct || len(x.FuncCall.AggOrder) > 0 || isAggregateName(x.FuncCall.Funcname) {
				bad = pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in check constraints").WithPosition(int(x.FuncCall.Location) + 1)
			}
		case *pg_query.Node_ColumnRef:
			if f := x.ColumnRef.Fields; len(f) > 0 {
				cols[f[len(f)-1].GetString_().GetSval()] = true
			}
		}
		return bad == nil
	})
	if bad != nil {
		return cs, bad
	}
	if len(cols) == 1 {
		for c := range cols {
			cs.Column = c
		}
	}
	text, err := deparseExpr(c.RawExpr)
	if err != nil {
		return cs, err
	}
	cs.Expr = text
	return cs, nil
}

// isAggregateName reports whether a function name is one of PostgreSQL's
// common aggregates (a CHECK that calls one is refused before it is
// resolved).
func isAggregateName(name []*pg_query.Node) bool {
	if len(name) == 0 {
		return false
	}
	switch name[len(name)-1].GetString_().GetSval() {
	case "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "bool_and", "bool_or", "every", "json_agg", "jsonb_agg":
		return true
	}
	return false
}

// UniqueSpec is a UNIQUE constraint as written.
type UniqueSpec struct {
	Name    string // "" = generated
	Columns []string
}

// TranslateUnique translates a UNIQUE constraint; column is the column of
// a column constraint, "" for a table constraint. What the key index does
// not keep (NULLS NOT DISTINCT, INCLUDE, DEFERRABLE, index options) is
// refused.
func TranslateUnique(c *pg_query.Constraint, column string) (UniqueSpec, error) {
	u := UniqueSpec{Name: c.Conname}
	switch {
	case c.NullsNotDistinct:
		return u, pgerr.New(pgerr.FeatureNotSupported, "UNIQUE NULLS NOT DISTINCT is not supported").WithPosition(int(c.Location) + 1)
	case len(c.Including) > 0:
		return u, pgerr.New(pgerr.FeatureNotSupported, "UNIQUE ... INCLUDE is not supported").WithPosition(int(c.Location) + 1)
	case c.Deferrable:
		return u, pgerr.New(pgerr.FeatureNotSupported, "DEFERRABLE unique constraints are not supported").WithPosition(int(c.Location) + 1)
	case c.Indexname != "":
		return u, pgerr.New(pgerr.FeatureNotSupported, "UNIQUE USING INDEX is not supported").WithPosition(int(c.Location) + 1)
	}
	if column != "" {
		u.Columns = []string{column}
		return u, nil
	}
	seen := map[string]bool{}
	for _, k := range c.Keys {
		name := k.GetString_().GetSval()
		if seen[name] {
			return u, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" appears twice in unique constraint", name).WithPosition(int(c.Location) + 1)
		}
		seen[name] = true
		u.Columns = append(u.Columns, name)
	}
	return u, nil
}

// ForeignKeySpec is a FOREIGN KEY constraint as written: the referenced
// table and columns are resolved by the planner.
type ForeignKeySpec struct {
	Name       string // "" = generated
	Columns    []string
	RefSchema  string
	RefTable   string
	RefColumns []string // empty: the referenced table's primary key
	// OnUpdate, OnDelete, Match: pg_constraint's codes (a, r, c, n, d;
	// s, f).
	OnUpdate, OnDelete, Match string
	Deferrable, Deferred      bool
	NotValid                  bool
	Location                  int32
}

// TranslateForeignKey translates a FOREIGN KEY constraint; column is the
// column of a column constraint (REFERENCES), "" for a table constraint.
func TranslateForeignKey(c *pg_query.Constraint, column string) (ForeignKeySpec, error) {
	fk := ForeignKeySpec{Name: c.Conname, OnUpdate: c.FkUpdAction, OnDelete: c.FkDelAction, Match: c.FkMatchtype,
		Deferrable: c.Deferrable, Deferred: c.Initdeferred, NotValid: c.SkipValidation, Location: c.Location}
	if c.Pktable == nil {
		return fk, pgerr.New(pgerr.SyntaxError, "FOREIGN KEY without a referenced table")
	}
	if c.Pktable.Catalogname != "" {
		return fk, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", c.Pktable.Catalogname, c.Pktable.Schemaname, c.Pktable.Relname)
	}
	fk.RefSchema, fk.RefTable = c.Pktable.Schemaname, c.Pktable.Relname
	if column != "" {
		fk.Columns = []string{column}
	}
	for _, n := range c.FkAttrs {
		fk.Columns = append(fk.Columns, n.GetString_().GetSval())
	}
	for _, n := range c.PkAttrs {
		fk.RefColumns = append(fk.RefColumns, n.GetString_().GetSval())
	}
	if len(c.FkDelSetCols) > 0 {
		return fk, pgerr.New(pgerr.FeatureNotSupported, "ON DELETE SET NULL/DEFAULT with a column list is not supported")
	}
	if fk.Match == "p" {
		return fk, pgerr.New(pgerr.FeatureNotSupported, "MATCH PARTIAL not yet implemented")
	}
	for _, a := range []*string{&fk.OnUpdate, &fk.OnDelete} {
		if *a == "" {
			*a = "a"
		}
	}
	if fk.Match == "" {
		fk.Match = "s"
	}
	return fk, nil
}

// ColumnDef is one column of CREATE TABLE.
type ColumnDef struct {
	Name       string
	TypeOID    uint32
	TypeMod    int32
	TypeName   string // PostgreSQL's spelling, e.g. "character varying(20)" (for schema.Column.Annotation)
	NotNull    bool   // also set for PRIMARY KEY columns
	Default    string // PostgreSQL expression text, or ""
	PrimaryKey bool
	// Serial: smallserial, serial or bigserial (the planner creates the
	// sequence and sets Default). Identity: 'a' (GENERATED ALWAYS AS
	// IDENTITY) or 'd' (BY DEFAULT), with the sequence options of
	// IdentityOptions (DefElems of CREATE SEQUENCE).
	Serial          bool
	Identity        string
	IdentityOptions []*pg_query.Node
}

// storableTypes are the column types storage can hold (storage/schema kinds).
var storableTypes = map[uint32]bool{
	OIDBool: true, OIDInt2: true, OIDInt4: true, OIDInt8: true, OIDFloat4: true, OIDFloat8: true,
	OIDNumeric: true, OIDText: true, OIDVarchar: true, OIDBpchar: true, OIDBytea: true,
	OIDDate: true, OIDTime: true, OIDTimestamp: true, OIDTimestamptz: true, OIDInterval: true,
	OIDUUID: true, OIDJSON: true, OIDJSONB: true,
	OIDName: true, // PostgreSQL's own catalogs' identifier type; stored as text
}

// TranslateCreateTable translates CREATE TABLE. Unsupported column types and
// constraints are 0A000 errors naming them.
func TranslateCreateTable(stmt *pg_query.Node) (*CreateTable, error) {
	cs := stmt.GetCreateStmt()
	if cs == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateCreateTable on %T", stmt.GetNode())
	}
	rv := cs.Relation
	switch {
	case rv.Relpersistence == "t" && (cs.Oncommit == pg_query.OnCommitAction_ONCOMMIT_DELETE_ROWS || cs.Oncommit == pg_query.OnCommitAction_ONCOMMIT_DROP):
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ON COMMIT DELETE ROWS and ON COMMIT DROP are not supported")
	case rv.Relpersistence != "t" && cs.Oncommit != pg_query.OnCommitAction_ONCOMMIT_NOOP && cs.Oncommit != pg_query.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED:
		return nil, pgerr.New("42P16", "ON COMMIT can only be used on temporary tables")
	case rv.Relpersistence == "u":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "unlogged tables are not supported")
	case len(cs.InhRelations) > 0:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "INHERITS is not supported")
	case cs.Partspec != nil || cs.Partbound != nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "partitioned tables are not supported")
	case cs.OfTypename != nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "typed tables (OF type) are not supported")
	case rv.Catalogname != "":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	ct := &CreateTable{Schema: rv.Schemaname, Name: rv.Relname, IfNotExists: cs.IfNotExists, Temp: rv.Relpersistence == "t"}
	index := map[string]int{}
	var tableConstraints []*pg_query.Constraint
	for _, elt := range cs.TableElts {
		switch e := elt.GetNode().(type) {
		case *pg_query.Node_ColumnDef:
			cd, err := columnDef(e.ColumnDef, rv.Relname)
			if err != nil {
				return nil, err
			}
			for _, cn := range e.ColumnDef.Constraints {
				if k := cn.GetConstraint(); k != nil && k.Contype == pg_query.ConstrType_CONSTR_FOREIGN {
					fk, err := TranslateForeignKey(k, cd.Name)
					if err != nil {
						return nil, err
					}
					ct.ForeignKeys = append(ct.ForeignKeys, fk)
				}
				if k := cn.GetConstraint(); k != nil && k.Contype == pg_query.ConstrType_CONSTR_CHECK {
					c, err := TranslateCheck(k)
					if err != nil {
						return nil, err
					}
					ct.Checks = append(ct.Checks, c)
				}
				if k := cn.GetConstraint(); k != nil && k.Contype == pg_query.ConstrType_CONSTR_UNIQUE {
					u, err := TranslateUnique(k, cd.Name)
					if err != nil {
						return nil, err
					}
					ct.Uniques = append(ct.Uniques, u)
				}
			}
			if _, dup := index[cd.Name]; dup {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cd.Name).WithPosition(int(e.ColumnDef.Location) + 1)
			}
			index[cd.Name] = len(ct.Columns)
			ct.Columns = append(ct.Columns, cd)
		case *pg_query.Node_Constraint:
			tableConstraints = append(tableConstraints, e.Constraint)
		case *pg_query.Node_TableLikeClause:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "LIKE in CREATE TABLE is not supported")
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "unsupported CREATE TABLE element %s", nodeName(elt))
		}
	}
	if len(ct.Columns) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	for _, cn := range cs.Constraints {
		if c := cn.GetConstraint(); c != nil {
			tableConstraints = append(tableConstraints, c)
		}
	}
	for _, c := range tableConstraints {
		if c.Contype == pg_query.ConstrType_CONSTR_FOREIGN {
			fk, err := TranslateForeignKey(c, "")
			if err != nil {
				return nil, err
			}
			ct.ForeignKeys = append(ct.ForeignKeys, fk)
			continue
		}
		if c.Contype == pg_query.ConstrType_CONSTR_CHECK {
			cc, err := TranslateCheck(c)
			if err != nil {
				return nil, err
			}
			ct.Checks = append(ct.Checks, cc)
			continue
		}
		if c.Contype == pg_query.ConstrType_CONSTR_UNIQUE {
			u, err := TranslateUnique(c, "")
			if err != nil {
				return nil, err
			}
			for _, k := range u.Columns {
				if _, ok := index[k]; !ok {
					return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", k).WithPosition(int(c.Location) + 1)
				}
			}
			ct.Uniques = append(ct.Uniques, u)
			continue
		}
		if c.Contype != pg_query.ConstrType_CONSTR_PRIMARY {
			return nil, unsupportedConstraint(c)
		}
		for _, k := range c.Keys {
			name := k.GetString_().GetSval()
			i, ok := index[name]
			if !ok {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", name).WithPosition(int(c.Location) + 1)
			}
			ct.Columns[i].PrimaryKey = true
			ct.Columns[i].NotNull = true
		}
	}
	return ct, nil
}

func unsupportedConstraint(c *pg_query.Constraint) error {
	name := strings.TrimPrefix(c.Contype.String(), "CONSTR_")
	switch c.Contype {
	case pg_query.ConstrType_CONSTR_FOREIGN:
		name = "FOREIGN KEY"
	case pg_query.ConstrType_CONSTR_IDENTITY:
		name = "GENERATED ... AS IDENTITY"
	case pg_query.ConstrType_CONSTR_GENERATED:
		name = "GENERATED ALWAYS AS"
	}
	return pgerr.New(pgerr.FeatureNotSupported, "%s constraints are not supported", name).WithPosition(int(c.Location) + 1)
}

// TranslateColumnDef is one column definition of table (ALTER TABLE ...
// ADD COLUMN), as CREATE TABLE translates it.
func TranslateColumnDef(c *pg_query.ColumnDef, table string) (ColumnDef, error) {
	return columnDef(c, table)
}

func columnDef(c *pg_query.ColumnDef, table string) (ColumnDef, error) {
	cd := ColumnDef{Name: c.Colname}
	tname := typeNameString(c.TypeName)
	tn := c.TypeName
	if len(tn.Names) == 1 || len(tn.Names) == 2 && tn.Names[0].GetString_().GetSval() == "pg_catalog" {
		if len(tn.ArrayBounds) == 0 && len(tn.Typmods) == 0 {
			var base string
			switch tn.Names[len(tn.Names)-1].GetString_().GetSval() {
			case "serial", "serial4":
				base = "int4"
			case "bigserial", "serial8":
				base = "int8"
			case "smallserial", "serial2":
				base = "int2"
			}
			if base != "" {
				// transformColumnDefinition: the integer type, NOT NULL and
				// a default of the column's own sequence.
				cd.Serial, cd.NotNull = true, true
				tn = &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(base)}, Typemod: -1, Location: tn.Location}
				c = proto.Clone(c).(*pg_query.ColumnDef)
				c.TypeName = tn
				tname = typeNameString(tn)
			}
		}
	}
	oid, mod, err := ResolveTypeName(c.TypeName)
	if err != nil {
		return cd, err
	}
	if !storableTypes[oid] {
		return cd, pgerr.New(pgerr.FeatureNotSupported, "column type %s is not supported", formatType(oid, mod, tname)).WithPosition(int(c.TypeName.Location) + 1)
	}
	if oid == OIDNumeric {
		if p, _, ok := NumericPrecisionScale(mod); ok && p > 38 {
			return cd, pgerr.New(pgerr.FeatureNotSupported, "numeric precision %d above 38 is not supported", p).WithPosition(int(c.TypeName.Location) + 1)
		}
	}
	cd.TypeOID, cd.TypeMod, cd.TypeName = oid, mod, formatType(oid, mod, tname)
	cd.NotNull = cd.NotNull || c.IsNotNull
	if c.RawDefault != nil {
		if err := CheckExpression(c.RawDefault); err != nil {
			return cd, err
		}
		d, err := deparseExpr(c.RawDefault)
		if err != nil {
			return cd, err
		}
		cd.Default = d
	}
	if c.CollClause != nil {
		return cd, pgerr.New(pgerr.FeatureNotSupported, "COLLATE is not supported")
	}
	for _, cn := range c.Constraints {
		k := cn.GetConstraint()
		if k == nil {
			continue
		}
		switch k.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL:
			cd.NotNull = true
		case pg_query.ConstrType_CONSTR_NULL:
			if cd.Identity != "" || cd.Serial {
				return cd, pgerr.New(pgerr.SyntaxError, "conflicting NULL/NOT NULL declarations for column \"%s\" of table \"%s\"", cd.Name, table).WithPosition(int(k.Location) + 1)
			}
			cd.NotNull = false
		case pg_query.ConstrType_CONSTR_IDENTITY:
			if cd.Identity != "" {
				return cd, pgerr.New(pgerr.SyntaxError, "multiple identity specifications for column \"%s\" of table \"%s\"", cd.Name, table).WithPosition(int(k.Location) + 1)
			}
			if cd.Serial || cd.Default != "" {
				return cd, pgerr.New(pgerr.SyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", cd.Name, table).WithPosition(int(k.Location) + 1)
			}
			if oid != OIDInt2 && oid != OIDInt4 && oid != OIDInt8 {
				return cd, pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
			}
			cd.Identity = k.GeneratedWhen
			cd.IdentityOptions = k.Options
			cd.NotNull = true
		case pg_query.ConstrType_CONSTR_DEFAULT:
			if cd.Identity != "" {
				return cd, pgerr.New(pgerr.SyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", cd.Name, table).WithPosition(int(k.Location) + 1)
			}
			if cd.Serial || cd.Default != "" {
				return cd, pgerr.New(pgerr.SyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", cd.Name, table).WithPosition(int(k.Location) + 1)
			}
			if err := CheckExpression(k.RawExpr); err != nil {
				return cd, err
			}
			d, err := deparseExpr(k.RawExpr)
			if err != nil {
				return cd, err
			}
			cd.Default = d
		case pg_query.ConstrType_CONSTR_PRIMARY:
			cd.PrimaryKey, cd.NotNull = true, true
		case pg_query.ConstrType_CONSTR_FOREIGN, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_CHECK:
			// REFERENCES, UNIQUE, CHECK: the caller collects them
			// (TranslateForeignKey, TranslateUnique, TranslateCheck).
		default:
			return cd, unsupportedConstraint(k)
		}
	}
	return cd, nil
}

// formatType spells a type the way PostgreSQL's format_type does.
func formatType(oid uint32, mod int32, fallback string) string {
	var base string
	switch e := ElemOID(oid); {
	case e != 0:
		return formatType(e, mod, fallback) + "[]"
	}
	switch oid {
	case OIDBool:
		base = "boolean"
	case OIDInt2:
		base = "smallint"
	case OIDInt4:
		base = "integer"
	case OIDInt8:
		base = "bigint"
	case OIDFloat4:
		base = "real"
	case OIDFloat8:
		base = "double precision"
	case OIDNumeric:
		if p, s, ok := NumericPrecisionScale(mod); ok {
			return fmt.Sprintf("numeric(%d,%d)", p, s)
		}
		return "numeric"
	case OIDVarchar:
		if mod > 4 {
			return fmt.Sprintf("character varying(%d)", mod-4)
		}
		return "character varying"
	case OIDBpchar:
		if mod > 4 {
			return fmt.Sprintf("character(%d)", mod-4)
		}
		return "bpchar"
	case OIDTimestamp:
		base = "timestamp without time zone"
	case OIDTimestamptz:
		base = "timestamp with time zone"
	case OIDTime:
		base = "time without time zone"
	case OIDTimetz:
		base = "time with time zone"
	case OIDText, OIDBytea, OIDDate, OIDInterval, OIDUUID, OIDJSON, OIDJSONB:
		for n, o := range map[string]uint32{"text": OIDText, "bytea": OIDBytea, "date": OIDDate, "interval": OIDInterval, "uuid": OIDUUID, "json": OIDJSON, "jsonb": OIDJSONB} {
			if o == oid {
				base = n
			}
		}
	default:
		base = fallback
	}
	if (oid == OIDTimestamp || oid == OIDTimestamptz || oid == OIDTime || oid == OIDTimetz) && mod >= 0 {
		i := strings.Index(base, " ")
		return fmt.Sprintf("%s(%d)%s", base[:i], mod, base[i:])
	}
	return base
}

// deparseExpr returns the PostgreSQL text of an expression.
func deparseExpr(n *pg_query.Node) (string, error) {
	sel := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(n, -1)}, Op: pg_query.SetOperation_SETOP_NONE}
	text, err := deparseNode(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return "", pgerr.Wrap(err, pgerr.InternalError, "cannot deparse expression: %v", err)
	}
	return strings.TrimPrefix(text, "SELECT "), nil
}

// QualifiedName is a possibly schema-qualified object name.
type QualifiedName struct{ Schema, Name string }

func (q QualifiedName) String() string { return qualName(q.Schema, q.Name) }

// DropTable is DROP TABLE.
type DropTable struct {
	Names    []QualifiedName
	IfExists bool
	Cascade  bool
}

// Truncate is TRUNCATE.
type Truncate struct{ Names []QualifiedName }

// CreateSchema is CREATE SCHEMA.
type CreateSchema struct {
	Name        string
	IfNotExists bool
}

// DropSchema is DROP SCHEMA.
type DropSchema struct {
	Names    []string
	IfExists bool
	Cascade  bool
}

// CreateDatabase is CREATE DATABASE (options are ignored).
type CreateDatabase struct{ Name string }

// DropDatabase is DROP DATABASE.
type DropDatabase struct {
	Name     string
	IfExists bool
}

// TranslateDropTable translates DROP TABLE.
func TranslateDropTable(stmt *pg_query.Node) (*DropTable, error) {
	ds := stmt.GetDropStmt()
	if ds == nil || ds.RemoveType != pg_query.ObjectType_OBJECT_TABLE {
		return nil, fmt.Errorf("BUG: sql: TranslateDropTable on %T", stmt.GetNode())
	}
	out := &DropTable{IfExists: ds.MissingOk, Cascade: ds.Behavior == pg_query.DropBehavior_DROP_CASCADE}
	for _, o := range ds.Objects {
		var parts []string
		for _, p := range o.GetList().GetItems() {
			parts = append(parts, p.GetString_().GetSval())
		}
		q, err := qualifiedName(parts)
		if err != nil {
			return nil, err
		}
		out.Names = append(out.Names, q)
	}
	return out, nil
}

func qualifiedName(parts []string) (QualifiedName, error) {
	switch len(parts) {
	case 1:
		return QualifiedName{Name: parts[0]}, nil
	case 2:
		return QualifiedName{Schema: parts[0], Name: parts[1]}, nil
	}
	return QualifiedName{}, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(parts, "."))
}

// TranslateTruncate translates TRUNCATE.
func TranslateTruncate(stmt *pg_query.Node) (*Truncate, error) {
	ts := stmt.GetTruncateStmt()
	if ts == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateTruncate on %T", stmt.GetNode())
	}
	out := &Truncate{}
	for _, r := range ts.Relations {
		rv := r.GetRangeVar()
		out.Names = append(out.Names, QualifiedName{Schema: rv.Schemaname, Name: rv.Relname})
	}
	return out, nil
}

// TranslateCreateSchema translates CREATE SCHEMA (no embedded elements).
func TranslateCreateSchema(stmt *pg_query.Node) (*CreateSchema, error) {
	cs := stmt.GetCreateSchemaStmt()
	if cs == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateCreateSchema on %T", stmt.GetNode())
	}
	if len(cs.SchemaElts) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA with schema elements is not supported")
	}
	name := cs.Schemaname
	if name == "" && cs.Authrole != nil {
		name = cs.Authrole.Rolename
	}
	return &CreateSchema{Name: name, IfNotExists: cs.IfNotExists}, nil
}

// TranslateDropSchema translates DROP SCHEMA.
func TranslateDropSchema(stmt *pg_query.Node) (*DropSchema, error) {
	ds := stmt.GetDropStmt()
	if ds == nil || ds.RemoveType != pg_query.ObjectType_OBJECT_SCHEMA {
		return nil, fmt.Errorf("BUG: sql: TranslateDropSchema on %T", stmt.GetNode())
	}
	out := &DropSchema{IfExists: ds.MissingOk, Cascade: ds.Behavior == pg_query.DropBehavior_DROP_CASCADE}
	for _, o := range ds.Objects {
		out.Names = append(out.Names, o.GetString_().GetSval())
	}
	return out, nil
}

// TranslateCreateDatabase translates CREATE DATABASE.
func TranslateCreateDatabase(stmt *pg_query.Node) (*CreateDatabase, error) {
	s := stmt.GetCreatedbStmt()
	if s == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateCreateDatabase on %T", stmt.GetNode())
	}
	return &CreateDatabase{Name: s.Dbname}, nil
}

// TranslateDropDatabase translates DROP DATABASE.
func TranslateDropDatabase(stmt *pg_query.Node) (*DropDatabase, error) {
	s := stmt.GetDropdbStmt()
	if s == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateDropDatabase on %T", stmt.GetNode())
	}
	return &DropDatabase{Name: s.Dbname, IfExists: s.MissingOk}, nil
}

// DeparseExpr returns the PostgreSQL text of an expression (an index key,
// a predicate).
func DeparseExpr(n *pg_query.Node) (string, error) { return deparseExpr(n) }

// ColumnNameOf is the name PostgreSQL gives a select-list column computed
// by n (FigureColname): a column's or function's name, else "?column?".
func ColumnNameOf(n *pg_query.Node) string { return pgColumnName(n) }

// parseExpr parses PostgreSQL expression text (a CHECK's condition).
func parseExpr(expr string) (*pg_query.Node, error) {
	tree, err := pg_query.Parse("SELECT " + expr)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, fmt.Errorf("expression %q does not parse: %v", expr, err)
	}
	tl := tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()
	if len(tl) != 1 {
		return nil, fmt.Errorf("expression %q is not one expression", expr)
	}
	return tl[0].GetResTarget().GetVal(), nil
}

// ExprColumns lists the names of the columns an expression's column
// references name (last field), in order, each once.
func ExprColumns(expr string) ([]string, error) {
	n, err := parseExpr(expr)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	walkNodes(n, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) > 0 {
			if name := cr.Fields[len(cr.Fields)-1].GetString_().GetSval(); name != "" && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
		return true
	})
	return out, nil
}

// RenameColumnInExpr renames column from to to in an expression's column
// references (a CHECK's condition after RENAME COLUMN).
func RenameColumnInExpr(expr, from, to string) (string, error) {
	n, err := parseExpr(expr)
	if err != nil {
		return "", err
	}
	walkNodes(n, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) > 0 {
			if f := cr.Fields[len(cr.Fields)-1].GetString_(); f != nil && f.Sval == from {
				cr.Fields[len(cr.Fields)-1] = pg_query.MakeStrNode(to)
			}
		}
		return true
	})
	return deparseExpr(n)
}
