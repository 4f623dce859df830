package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// DescribeModify gives UPDATE and DELETE their parameter types and
// RETURNING columns before they can run (the extended protocol's
// Describe: pgx and GORM encode arguments by the ParameterDescription).
//
// It translates an equivalent SELECT, as PostgreSQL's parse analysis of the
// statement would type it:
//
//	UPDATE t [AS a] SET c1 = e1, ... [FROM f] [WHERE w] [RETURNING r]
//	  -> SELECT CAST(e1 AS type of c1), ..., r FROM t [AS a] [, f] [WHERE w]
//	DELETE FROM t [AS a] [USING u] [WHERE w] [RETURNING r]
//	  -> SELECT 1, r FROM t [AS a] [, u] [WHERE w]
//
// (a value assigned to a column is coerced to its type, so a bare $n there
// takes the column's type). The result's first Prefix columns are the
// assignments (or the placeholder); the rest are RETURNING's.
func DescribeModify(stmt *pg_query.Node, cat Catalog, declaredParams []uint32) (q *Query, prefix int, err error) {
	var (
		rel       *pg_query.RangeVar
		from      []*pg_query.Node
		where     *pg_query.Node
		returning []*pg_query.Node
		with      *pg_query.WithClause
		targets   []*pg_query.Node
	)
	switch {
	case stmt.GetUpdateStmt() != nil:
		u := stmt.GetUpdateStmt()
		rel, from, where, returning, with = u.Relation, u.FromClause, u.WhereClause, u.ReturningList, u.WithClause
	case stmt.GetDeleteStmt() != nil:
		d := stmt.GetDeleteStmt()
		rel, from, where, returning, with = d.Relation, d.UsingClause, d.WhereClause, d.ReturningList, d.WithClause
	default:
		return nil, 0, fmt.Errorf("BUG: sql: DescribeModify on %T", stmt.GetNode())
	}
	if cat == nil {
		return nil, 0, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rel.Schemaname, rel.Relname))
	}
	ti, err := describeTable(cat, rel.Schemaname, rel.Relname)
	endBind(cat)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 {
			return nil, 0, e.WithPosition(int(rel.Location) + 1)
		}
		return nil, 0, err
	}
	if u := stmt.GetUpdateStmt(); u != nil {
		for _, t := range u.TargetList {
			rt := t.GetResTarget()
			if rt == nil {
				continue
			}
			val := rt.Val
			if mr := val.GetMultiAssignRef(); mr != nil {
				// SET (a, b) = (...): the source is typed on its own.
				if mr.Colno == 1 {
					targets = append(targets, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: mr.Source}}})
				}
				continue
			}
			i := ti.ColumnIndex(rt.Name)
			if i < 0 {
				return nil, 0, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, ti.Name).WithPosition(int(rt.Location) + 1)
			}
			if len(rt.Indirection) > 0 {
				targets = append(targets, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: val}}})
				continue
			}
			if val.GetSetToDefault() != nil {
				continue
			}
			c := ti.Columns[i]
			tn, err := columnTypeName(c.TypeOID, c.TypeMod)
			if err != nil {
				return nil, 0, err
			}
			cast := &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: val, TypeName: tn, Location: -1}}}
			targets = append(targets, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Name: c.Name, Val: cast, Location: rt.Location}}})
		}
	}
	if len(targets) == 0 {
		targets = append(targets, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: pg_query.MakeAConstIntNode(1, -1)}}})
	}
	prefix = len(targets)
	sel := &pg_query.SelectStmt{
		TargetList:  append(targets, returning...),
		FromClause:  append([]*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rel}}}, from...),
		WhereClause: where,
		WithClause:  with,
		Op:          pg_query.SetOperation_SETOP_NONE,
		LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT,
	}
	q, err = TranslateQuery(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, cat, declaredParams)
	if err != nil {
		return nil, 0, err
	}
	return q, prefix, nil
}

// columnTypeName is a parse-tree type name for a PostgreSQL type and typmod
// (parsed from its SQL spelling, "character varying(20)").
func columnTypeName(oid uint32, typmod int32) (*pg_query.TypeName, error) {
	tree, err := pg_query.Parse("SELECT NULL::" + pgtypes.FormatType(oid, typmod))
	if err != nil {
		return nil, err
	}
	tc := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast()
	if tc == nil {
		return nil, fmt.Errorf("BUG: sql: no type name for OID %d", oid)
	}
	return tc.TypeName, nil
}
