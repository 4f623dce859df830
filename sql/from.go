package sql

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func (tr *translator) withClause(w *pg_query.WithClause, sc *scope) error {
	if err := checkRecursiveWith(w); err != nil {
		return err
	}
	sc.ctes = map[string]*relInfo{}
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		rel := &relInfo{alias: cte.Ctename}
		if w.Recursive {
			// Visible inside its own definition; columns unknown until the
			// non-recursive term is seen.
			sc.ctes[cte.Ctename] = rel
		}
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH are not supported")
		}
		tr.rawNext = !w.Recursive // a recursive CTE refers to itself before its columns are known
		cols, err := tr.selectStmt(sel, sc)
		if err != nil {
			return err
		}
		if cols != nil && len(cte.Aliascolnames) > 0 {
			for i, a := range cte.Aliascolnames {
				if i < len(cols) {
					cols[i].name = a.GetString_().GetSval()
				}
			}
		}
		rel.cols = cols
		sc.ctes[cte.Ctename] = rel
	}
	return nil
}

// fromItem translates one FROM item and adds what it exposes to sc.
func (tr *translator) fromItem(n *pg_query.Node, sc *scope) error {
	switch f := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		if f.RangeVar == tr.target && tr.targetInfo != nil {
			// An UPDATE's or DELETE's target, bound by TranslateModify.
			tr.noteRelation(f.RangeVar, tr.targetInfo.Schema, tr.targetInfo.Name)
			sc.rels = append(sc.rels, tr.substitute(f.RangeVar, tr.targetInfo, sc.raw))
			return nil
		}
		if v, err := tr.lookupView(f.RangeVar, sc); err != nil {
			return err
		} else if v != nil {
			return tr.expandView(n, f.RangeVar, v, sc)
		}
		rel, err := tr.rangeVar(f.RangeVar, sc)
		if err != nil {
			return err
		}
		sc.rels = append(sc.rels, rel)
	case *pg_query.Node_RangeSubselect:
		sel := f.RangeSubselect.Subquery.GetSelectStmt()
		if sel == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "unsupported subquery in FROM")
		}
		tr.rawNext = true
		cols, err := tr.selectStmt(sel, sc)
		if err != nil {
			return err
		}
		rel := &relInfo{cols: cols}
		if a := f.RangeSubselect.Alias; a != nil {
			rel.alias = a.Aliasname
			renameCols(rel, a)
		}
		sc.rels = append(sc.rels, rel)
	case *pg_query.Node_JoinExpr:
		j := f.JoinExpr
		if err := tr.fromItem(j.Larg, sc); err != nil {
			return err
		}
		if err := tr.fromItem(j.Rarg, sc); err != nil {
			return err
		}
		if j.IsNatural || usesRawColumn(j.UsingClause, sc) {
			// DuckDB would join on the text (rawnum.go).
			tr.rawJoin = true
		}
		if j.IsNatural || len(j.UsingClause) > 0 {
			// The join's columns merge the USING ones: an unqualified *
			// is not the concatenation of the relations' columns
			// (expandStar asks the engine instead).
			sc.mergedJoin = true
		}
		if j.Quals != nil {
			if err := checkNoAggWindow(j.Quals, "JOIN conditions", sc); err != nil {
				return err
			}
			sc.clause = clauseJoin
			if _, err := tr.expr(j.Quals, sc, typ{OIDBool, -1}); err != nil {
				return err
			}
		}
		if j.Alias != nil {
			// A join alias hides the inner names; columns unknown.
			sc.rels = append(sc.rels, &relInfo{alias: j.Alias.Aliasname})
		}
	case *pg_query.Node_RangeFunction:
		sc.clause = clauseFrom
		rel, err := tr.rangeFunction(n, f.RangeFunction, sc)
		if err != nil {
			return err
		}
		sc.rels = append(sc.rels, rel)
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "unsupported FROM item %s", nodeName(n))
	}
	return nil
}

func renameCols(rel *relInfo, a *pg_query.Alias) {
	if rel.cols == nil {
		return
	}
	for i, cn := range a.Colnames {
		if i < len(rel.cols) {
			rel.cols[i].name = cn.GetString_().GetSval()
		}
	}
}

// systemSchemas are left to DuckDB's own catalog views for now.
var systemSchemas = map[string]bool{"pg_catalog": true, "information_schema": true}

// rangeVar resolves a table reference: a CTE, a system view (left to
// DuckDB), or a catalog table (substituted by its FromSQL under a
// placeholder name, keeping the alias).
func (tr *translator) rangeVar(rv *pg_query.RangeVar, sc *scope) (*relInfo, error) {
	if rv.Schemaname == "" {
		if cte := sc.lookupCTE(rv.Relname); cte != nil {
			rel := &relInfo{alias: rv.Relname, cols: append([]colInfo(nil), cte.cols...)}
			if cte.cols == nil {
				rel.cols = nil
			}
			if rv.Alias != nil {
				rel.alias = rv.Alias.Aliasname
				renameCols(rel, rv.Alias)
			}
			return rel, nil
		}
	}
	if systemSchemas[rv.Schemaname] || (rv.Schemaname == "" && strings.HasPrefix(rv.Relname, "pg_")) {
		if tr.cat != nil { // served by package pgcatalog through the Catalog (syscat.go)
			if rel, handled, err := tr.systemRelation(rv); handled || err != nil {
				return rel, err
			}
		}
	}
	if tr.cat == nil && (systemSchemas[rv.Schemaname] || (rv.Schemaname == "" && strings.HasPrefix(rv.Relname, "pg_"))) {
		alias := rv.Relname
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		return &relInfo{alias: alias}, nil
	}
	if rv.Catalogname != "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname).WithPosition(int(rv.Location) + 1)
	}
	if tr.cat == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname)).WithPosition(int(rv.Location) + 1)
	}
	lookup := tr.cat.LookupTable
	if rc, ok := tr.cat.(RowsCatalog); ok && tr.noColumns && (rv.Alias == nil || len(rv.Alias.Colnames) == 0) {
		lookup = rc.LookupTableRows
	}
	ti, err := lookup(rv.Schemaname, rv.Relname)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 && rv.Location >= 0 {
			return nil, e.WithPosition(int(rv.Location) + 1)
		}
		return nil, err
	}
	tr.noteRelation(rv, ti.Schema, ti.Name)
	return tr.substitute(rv, ti, sc.raw), nil
}

// substitute replaces the table reference rv by a placeholder for ti's
// FromSQL (keeping the user's alias, or the table name as alias) and
// returns the relation's scope entry.
func (tr *translator) substitute(rv *pg_query.RangeVar, ti *TableInfo, raw bool) *relInfo {
	tr.tables = append(tr.tables, ti)
	i := len(tr.subst)
	tr.subst = append(tr.subst, ti.FromSQL)
	noCols := ti.NoColumnsFromSQL
	if rv.Alias != nil && len(rv.Alias.Colnames) > 0 {
		noCols = "" // the alias names columns
	}
	tr.substNoCols = append(tr.substNoCols, noCols)
	tr.substRaw = append(tr.substRaw, raw)
	rel := &relInfo{alias: rv.Relname, tableOID: ti.OID}
	for _, c := range ti.Columns {
		t := typ{c.TypeOID, c.TypeMod}
		rel.cols = append(rel.cols, colInfo{name: c.Name, t: t, raw: raw && isRawType(t)})
		if raw && isRawType(t) {
			tr.haveRaw = true
		}
	}
	if rv.Alias == nil {
		rv.Alias = &pg_query.Alias{Aliasname: rv.Relname}
	} else {
		rel.alias = rv.Alias.Aliasname
		renameCols(rel, rv.Alias)
	}
	rv.Schemaname = ""
	rv.Relname = placeholder(i)
	rv.Inh = true
	return rel
}

func qualName(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

// nameValues turns VALUES ... into
//
//	SELECT * FROM (VALUES ...) AS "*VALUES*"(column1, column2, ...)
//
// so that the columns carry PostgreSQL's names (DuckDB says col0, col1).
// ORDER BY / LIMIT / WITH stay on the outer SELECT.
func nameValues(s *pg_query.SelectStmt, width int) {
	inner := &pg_query.SelectStmt{ValuesLists: s.ValuesLists, Op: pg_query.SetOperation_SETOP_NONE}
	alias := &pg_query.Alias{Aliasname: "*VALUES*"}
	for i := 1; i <= width; i++ {
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode("column"+strconv.Itoa(i)))
	}
	s.ValuesLists = nil
	s.TargetList = []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeAStarNode()}, -1), -1)}
	s.FromClause = []*pg_query.Node{{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: inner}},
		Alias:    alias,
	}}}}
}
