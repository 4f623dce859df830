package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// targetList translates the select list, names every output column the
// way PostgreSQL does (DuckDB's derived names differ: "count_star()" vs
// "count", "1" vs "?column?") and returns the result columns.
func (tr *translator) targetList(list []*pg_query.Node, sc *scope) ([]colInfo, error) {
	var cols []colInfo
	known := true
	for _, item := range list {
		rt := item.GetResTarget()
		if rt == nil {
			continue
		}
		sc.itemOut = append(sc.itemOut, len(cols))
		if r := rt.Val.GetRowExpr(); r != nil && sc.parent == nil {
			// A record column for the client: the engine's struct has no
			// PostgreSQL form yet (a driver error leaked before).
			return nil, pgerr.New(pgerr.FeatureNotSupported, "row values in the select list are not supported").WithPosition(int(r.Location) + 1)
		}
		if star, rel := starOf(rt.Val); star {
			expanded, ok := expandStar(sc, rel)
			if !ok {
				known = false
				if tr.haveRaw {
					tr.rawUnsafe = true
				}
				sc.raw = false // outputs unknown: no ORDER BY/GROUP BY rewrites
			}
			cols = append(cols, expanded...)
			if sc.raw {
				tr.noteRawStar(sc, rel)
			} else {
				for _, c := range expanded {
					if c.raw {
						tr.rawUnsafe = true // text into DISTINCT or a set operation
					}
				}
			}
			continue
		}
		// Name first: the rewrites below change the expression's shape.
		// A bare column reference keeps DuckDB's own (identical) name: an
		// alias equal to a column name would change DuckDB's error for an
		// unknown column into one about the alias.
		name := rt.Name
		if name == "" {
			name = pgColumnName(rt.Val)
			if rt.Val.GetColumnRef() == nil {
				rt.Name = name
			}
		}
		tr.notePendingParam(rt.Val, sc)
		if sc.raw {
			tr.keepRaw, tr.keptRaw = rt.Val, nil
			if sl := rt.Val.GetSubLink(); sl != nil && sl.SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK && !sc.grouped {
				// (SELECT max(x) ...) as a whole item: its value may be
				// numeric text (rawnum.go).
				tr.rawSubLink, tr.subLinkText = sl, false
			}
		}
		t, err := tr.expr(rt.Val, sc, unknownTyp)
		tr.keepRaw, tr.rawSubLink = nil, nil
		if err != nil {
			return nil, err
		}
		if sc.raw {
			var item *pg_query.ResTarget
			var dec *pg_query.Node
			if tr.keptRaw != nil {
				item, dec = rt, decimalOf(tr.keptRaw.ref)
			} else if tr.subLinkText {
				// DuckDB cannot sort by an expression of an alias whose
				// item has a subquery: ORDER BY on it reads DECIMAL
				// everywhere (rawOrderBy).
				if sc.subLinkOut == nil {
					sc.subLinkOut = map[int]bool{}
				}
				sc.subLinkOut[len(sc.outDec)] = true
			}
			sc.rawOut = append(sc.rawOut, tr.keptRaw)
			sc.rawItem = append(sc.rawItem, item)
			sc.outDec = append(sc.outDec, dec)
			tr.keptRaw = nil
		}
		if rt.Name == "" && rt.Val.GetColumnRef() != nil && pgColumnName(rt.Val) != name {
			rt.Name = name // a whole-row reference became rel.col (wholeRowRef)
		} else if rt.Name == "" && rt.Val.GetColumnRef() == nil {
			rt.Name = name // a system column became its value (systemColumn)
		}
		if t.oid == OIDUnknown {
			t = typ{OIDText, -1}
		}
		if rt.Val.GetColumnRef() == nil {
			// The engine's JSON values reach the driver decoded (a JSON
			// null as NULL); their text is what PostgreSQL prints. Stored
			// json columns are text already.
			switch t.oid {
			case OIDJSON, OIDJSONB:
				_ = castTo(rt.Val, typ{OIDText, -1})
			case ArrayOID(OIDJSON), ArrayOID(OIDJSONB):
				_ = castTo(rt.Val, typ{ArrayOID(OIDText), -1})
			}
		}
		cols = append(cols, colInfo{name: name, t: t, raw: sc.raw && (sc.rawOut[len(sc.rawOut)-1] != nil || tr.subLinkText)})
		tr.subLinkText = false
	}
	if !known {
		return nil, nil
	}
	return cols, nil
}

// starOf reports whether n is "*" or "rel.*".
func starOf(n *pg_query.Node) (bool, string) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) == 0 {
		return false, ""
	}
	if cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
		return false, ""
	}
	if len(cr.Fields) >= 2 {
		return true, cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
	}
	return true, ""
}

func expandStar(sc *scope, rel string) ([]colInfo, bool) {
	if rel == "" && sc.mergedJoin {
		return nil, false // JOIN ... USING / NATURAL: see fromItem
	}
	var out []colInfo
	for _, r := range sc.rels {
		if rel != "" && r.alias != rel {
			continue
		}
		if r.cols == nil {
			return nil, false
		}
		out = append(out, r.cols...)
	}
	if rel != "" && len(out) == 0 {
		return nil, false
	}
	return out, true
}

// pgColumnName is PostgreSQL's FigureColname: the name of an unnamed
// select-list item.
func pgColumnName(n *pg_query.Node) string {
	name, _ := figureColname(n)
	return name
}

// figureColname is FigureColnameInternal: the name and its strength (0:
// none, "?column?"; 1: a type name or "case", which an outer cast's or
// CASE's name overrides; 2: anything else).
func figureColname(n *pg_query.Node) (string, int) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		f := v.ColumnRef.Fields
		if len(f) > 0 {
			if s := f[len(f)-1].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
	case *pg_query.Node_FuncCall:
		f := v.FuncCall.Funcname
		if len(f) > 0 {
			return f[len(f)-1].GetString_().GetSval(), 2
		}
	case *pg_query.Node_TypeCast:
		if name, st := figureColname(v.TypeCast.Arg); st > 1 {
			return name, st
		}
		if tn := v.TypeCast.TypeName; tn != nil && len(tn.Names) > 0 {
			return tn.Names[len(tn.Names)-1].GetString_().GetSval(), 1
		}
	case *pg_query.Node_CaseExpr:
		if v.CaseExpr.Defresult != nil {
			if name, st := figureColname(v.CaseExpr.Defresult); st > 1 {
				return name, st
			}
		}
		return "case", 1
	case *pg_query.Node_AIndirection:
		return figureColname(v.AIndirection.Arg)
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg_query.Node_MinMaxExpr:
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case *pg_query.Node_AExpr:
		if v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg_query.Node_SubLink:
		switch v.SubLink.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg_query.SubLinkType_EXPR_SUBLINK:
			if sel := v.SubLink.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				if rt := sel.TargetList[0].GetResTarget(); rt != nil {
					if rt.Name != "" {
						return rt.Name, 2
					}
					name, _ := figureColname(rt.Val) // the subquery's output name
					return name, 2
				}
			}
		}
	case *pg_query.Node_AArrayExpr:
		return "array", 2
	case *pg_query.Node_RowExpr:
		return "row", 2
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueFunctionName(v.SqlvalueFunction.Op), 2
	}
	return "?column?", 0
}

func sqlValueFunctionName(op pg_query.SQLValueFunctionOp) string {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "current_date"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "current_time"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "current_timestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "localtime"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "localtimestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return "current_role"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		return "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_USER:
		return "user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return "current_catalog"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return "current_schema"
	}
	return "?column?"
}

func nodeName(n *pg_query.Node) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", n.GetNode()), "*pg_query.Node_")
}
