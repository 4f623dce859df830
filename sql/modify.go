package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Row identity columns: a DML target's relation (TargetCatalog) yields, with
// the table's columns, the identity of each row. For a row of a committed
// data file, RowIDFile is the file's index in the binding's file list
// (>= 0) and RowIDPos its 0-based position in the file; for a buffered
// row, RowIDFile is -(batch id) and RowIDPos the row's index in the batch.
const (
	RowIDFile = "__bsdb_rid_f"
	RowIDPos  = "__bsdb_rid_p"
)

// TargetCatalog is implemented by catalogs that can bind the target of an
// UPDATE or DELETE: LookupTarget binds it like LookupTable, checking the
// privilege the statement needs, and its FromSQL has the columns RowIDFile
// and RowIDPos (BIGINT) after the table's.
type TargetCatalog interface {
	LookupTarget(schema, name string, update, reads bool) (*TableInfo, error)
}

// Modify is a translated UPDATE or DELETE.
type Modify struct {
	Table  *TableInfo
	Delete bool
	// Source is a DuckDB SELECT with one row per row to change: RowIDFile,
	// RowIDPos, then (UPDATE, or DELETE ... RETURNING) every table column
	// in table order: for UPDATE its new value, cast to the column's type
	// and checked as an INSERT's Source checks it; for DELETE its value.
	Source *Query
	// Returning is nil or a DuckDB SELECT over the relation
	// ReturningRelation holding the new (UPDATE) or deleted (DELETE) rows.
	Returning *Query
	// Assigned marks the table columns an UPDATE sets (by position).
	Assigned []bool
}

// TranslateModify translates UPDATE t SET ... [FROM ...] [WHERE ...]
// [RETURNING ...] and DELETE FROM t [USING ...] [WHERE ...] [RETURNING
// ...]. stmt is not modified.
func TranslateModify(stmt *pg_query.Node, cat Catalog, declaredParams []uint32) (*Modify, error) {
	n := proto.Clone(stmt).(*pg_query.Node)
	if err := stripCurrentDatabase(n, cat); err != nil {
		return nil, err
	}
	var (
		rel       *pg_query.RangeVar
		from      []*pg_query.Node
		where     *pg_query.Node
		returning []*pg_query.Node
		with      *pg_query.WithClause
		sets      []*pg_query.Node
		isDelete  bool
	)
	switch {
	case n.GetUpdateStmt() != nil:
		u := n.GetUpdateStmt()
		rel, from, where, returning, with, sets = u.Relation, u.FromClause, u.WhereClause, u.ReturningList, u.WithClause, u.TargetList
	case n.GetDeleteStmt() != nil:
		d := n.GetDeleteStmt()
		rel, from, where, returning, with = d.Relation, d.UsingClause, d.WhereClause, d.ReturningList, d.WithClause
		isDelete = true
	default:
		return nil, fmt.Errorf("BUG: sql: TranslateModify on %T", stmt.GetNode())
	}
	defer endBind(cat)
	if cat == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rel.Schemaname, rel.Relname)).WithPosition(int(rel.Location) + 1)
	}
	if cur := where.GetCurrentOfExpr(); cur != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WHERE CURRENT OF is not supported")
	}
	tc, ok := cat.(TargetCatalog)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported here", map[bool]string{true: "DELETE", false: "UPDATE"}[isDelete])
	}
	reads := where != nil || len(returning) > 0 || len(from) > 0
	ti, err := tc.LookupTarget(rel.Schemaname, rel.Relname, !isDelete, reads)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 && rel.Location >= 0 {
			return nil, e.WithPosition(int(rel.Location) + 1)
		}
		return nil, err
	}
	// The table's own columns (the binding adds the identity columns).
	cols := ti.Columns
	if k := len(cols); k >= 2 && cols[k-2].Name == RowIDFile && cols[k-1].Name == RowIDPos {
		cols = cols[:k-2]
	}
	table := *ti
	table.Columns = cols
	out := &Modify{Table: &table, Delete: isDelete}

	alias := rel.Relname
	if rel.Alias != nil {
		alias = rel.Alias.Aliasname
	}
	colRef := func(name string) *pg_query.Node {
		return pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(name)}, -1)
	}
	// New values by column position (UPDATE).
	values := make([]*pg_query.Node, len(cols))
	if !isDelete {
		out.Assigned = make([]bool, len(cols))
		for _, t := range sets {
			rt := t.GetResTarget()
			if rt == nil {
				continue
			}
			i := table.ColumnIndex(rt.Name)
			if i < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, table.Name).WithPosition(int(rt.Location) + 1)
			}
			if len(rt.Indirection) > 0 {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "UPDATE of subfields or array elements is not supported").WithPosition(int(rt.Location) + 1)
			}
			if out.Assigned[i] {
				return nil, pgerr.New(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name).WithPosition(int(rt.Location) + 1)
			}
			out.Assigned[i] = true
			c := cols[i]
			val := rt.Val
			if mr := val.GetMultiAssignRef(); mr != nil {
				v, err := multiAssignValue(mr)
				if err != nil {
					return nil, err
				}
				val = v
			}
			if err := checkNoAggWindow(val, "UPDATE"); err != nil {
				return nil, err
			}
			if val.GetSetToDefault() != nil {
				d, err := defaultExpr(c)
				if err != nil {
					return nil, err
				}
				val = d
			} else if c.Identity == "a" {
				e := pgerr.New("428C9", "column \"%s\" can only be updated to DEFAULT", c.Name).WithPosition(int(rt.Location) + 1)
				e.Detail = fmt.Sprintf("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", c.Name)
				return nil, e
			}
			coerceUnknownLiteral(val, c)
			values[i] = val
		}
	}
	var targets []*pg_query.Node
	if !isDelete || len(returning) > 0 {
		for i, c := range cols {
			v := values[i]
			if v == nil {
				v = colRef(c.Name)
			}
			targets = append(targets, pg_query.MakeResTargetNodeWithVal(v, -1))
		}
	}
	targets = append(targets, pg_query.MakeResTargetNodeWithVal(colRef(RowIDFile), -1), pg_query.MakeResTargetNodeWithVal(colRef(RowIDPos), -1))
	sel := &pg_query.SelectStmt{
		TargetList:  targets,
		FromClause:  append([]*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rel}}}, from...),
		WhereClause: where,
		WithClause:  with,
		Op:          pg_query.SetOperation_SETOP_NONE,
		LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT,
	}
	if len(from) > 0 {
		// A row joined to several rows of FROM is changed once, with one
		// of them (PostgreSQL leaves which unspecified).
		sel.DistinctClause = []*pg_query.Node{colRef(RowIDFile), colRef(RowIDPos)}
	}
	tr := newTranslator(cat, declaredParams)
	tr.target = rel
	tr.targetInfo = ti
	tr.keepUnknownIn(sel) // the target columns type them
	selCols, err := tr.selectStmt(sel, nil)
	if err != nil {
		return nil, err
	}
	if len(targets) > 2 {
		// A bare $n assigned to a column takes the column's type.
		for i := range cols {
			if v := sel.TargetList[i].GetResTarget().GetVal(); v != nil && tr.untypedParam(v) {
				tr.typeParam(v, typ{cols[i].TypeOID, -1})
			}
		}
	}
	if err := tr.checkParamGaps(stmt); err != nil {
		return nil, err
	}
	if tr.srfPending != nil {
		return nil, tr.srfPending
	}
	srcSQL, err := tr.deparseFinal(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return nil, err
	}
	var srcRaw []bool
	for _, c := range selCols {
		srcRaw = append(srcRaw, c.raw)
	}
	if tr.rawUnsafe {
		srcRaw = nil
	}
	var src string
	if len(targets) > 2 {
		positions := make([]int, len(cols))
		for i := range positions {
			positions[i] = i
		}
		if src, err = buildModifySource(&table, positions, srcSQL, srcRaw, cat); err != nil {
			return nil, err
		}
	} else {
		src = fmt.Sprintf("SELECT %s, %s FROM (%s) AS __bsdb_src", quoteIdent(RowIDFile), quoteIdent(RowIDPos), srcSQL)
	}
	if err := tr.checkUnknownParams(); err != nil {
		return nil, err
	}
	out.Source = &Query{SQL: src, ParamOIDs: tr.paramOIDs()}
	for _, r := range returning {
		if err := checkNoAggWindow(r, "RETURNING"); err != nil {
			return nil, err
		}
	}
	if len(returning) > 0 {
		out.Returning, err = translateReturning(returning, &table, alias, cat, declaredParams)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// multiAssignValue is the value of one column of SET (a, b, ...) = source:
// the colno-th item of a row, or of a sub-SELECT's select list.
func multiAssignValue(mr *pg_query.MultiAssignRef) (*pg_query.Node, error) {
	src := mr.Source
	if r := src.GetRowExpr(); r != nil {
		if int(mr.Ncolumns) != len(r.Args) {
			return nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values").WithPosition(int(r.Location) + 1)
		}
		return r.Args[mr.Colno-1], nil
	}
	if sl := src.GetSubLink(); sl != nil && sl.SubLinkType == pg_query.SubLinkType_MULTIEXPR_SUBLINK {
		sub := proto.Clone(sl.Subselect).(*pg_query.Node)
		s := sub.GetSelectStmt()
		if s == nil || s.Op != pg_query.SetOperation_SETOP_NONE || len(s.TargetList) != int(mr.Ncolumns) {
			if s != nil && len(s.TargetList) != int(mr.Ncolumns) && s.Op == pg_query.SetOperation_SETOP_NONE {
				return nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values").WithPosition(int(sl.Location) + 1)
			}
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of multiple-column UPDATE is not supported").WithPosition(int(sl.Location) + 1)
		}
		s.TargetList = []*pg_query.Node{s.TargetList[mr.Colno-1]}
		return &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK, Subselect: sub, Location: sl.Location}}}, nil
	}
	if src.GetSetToDefault() != nil {
		return src, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of multiple-column UPDATE is not supported")
}

// buildModifySource wraps srcSQL (the table's columns' values c1..cn, then
// the two identity columns) so that it yields the identity columns, then
// every column cast and checked as an INSERT's Source does.
func buildModifySource(ti *TableInfo, targets []int, srcSQL string, srcRaw []bool, cat Catalog) (string, error) {
	n := len(ti.Columns)
	body, err := buildInsertSource(ti, targets, srcSQL, srcRaw, cat)
	if err != nil {
		return "", err
	}
	// body is "SELECT <cast cols> FROM (srcSQL) AS __bsdb_src(c1, ..., cn)":
	// name the identity columns too, and select them.
	alias := "AS __bsdb_src("
	for i := 0; i < n; i++ {
		if i > 0 {
			alias += ", "
		}
		alias += fmt.Sprintf("c%d", i+1)
	}
	full := alias + fmt.Sprintf(", %s, %s", quoteIdent(RowIDFile), quoteIdent(RowIDPos))
	got := replaceLast(body, alias+")", full+")")
	if got == body {
		return "", fmt.Errorf("BUG: sql: UPDATE source without its alias list")
	}
	return fmt.Sprintf("SELECT __bsdb_src.%s, __bsdb_src.%s, %s", quoteIdent(RowIDFile), quoteIdent(RowIDPos), got[len("SELECT "):]), nil
}

func replaceLast(s, old, new string) string {
	for i := len(s) - len(old); i >= 0; i-- {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	return s
}
