package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// checkRecursiveWith is PostgreSQL's check of a WITH RECURSIVE clause
// before its queries are analyzed (parse_cte.c: makeDependencyGraph,
// TopologicalSort, checkWellFormedRecursion), and parse_agg.c's refusal
// of aggregates in a recursive term. The engine would run most of the
// queries it refuses (a self-reference in a subquery, count(*) of the
// working table) until they time out, or answer differently.
func checkRecursiveWith(w *pg_query.WithClause) error {
	if w == nil || !w.Recursive {
		return nil
	}
	ctes := withItems(w)
	names := map[string]int{}
	for i, c := range ctes {
		names[c.Ctename] = i
	}
	// Dependencies and self-references.
	deps := make([]map[int]bool, len(ctes))
	recursive := make([]bool, len(ctes))
	for i, c := range ctes {
		deps[i] = map[int]bool{}
		d := &depWalker{names: names}
		d.walk(c.Ctequery)
		for j := range d.refs {
			if j == i {
				recursive[i] = true
			} else {
				deps[i][j] = true
			}
		}
	}
	// TopologicalSort: a cycle is mutual recursion.
	done := make([]bool, len(ctes))
	for range ctes {
		found := -1
		for j := range ctes {
			if !done[j] && len(deps[j]) == 0 {
				found = j
				break
			}
		}
		if found < 0 {
			// The first item not yet placed, as PostgreSQL reports it.
			first := 0
			for j := range ctes {
				if !done[j] {
					first = j
					break
				}
			}
			return pgerr.New(pgerr.FeatureNotSupported, "mutual recursion between WITH items is not implemented").
				WithPosition(int(ctes[first].Location) + 1)
		}
		done[found] = true
		for j := range ctes {
			delete(deps[j], found)
		}
	}
	for i, c := range ctes {
		if !recursive[i] {
			continue
		}
		if err := checkWellFormed(c); err != nil {
			return err
		}
	}
	return nil
}

// depWalker finds the references to the WITH items named in names that
// no inner WITH captures (makeDependencyGraphWalker).
type depWalker struct {
	cteScope
	names map[string]int
	refs  map[int]bool
}

// cteScope is the names of inner WITH clauses in scope at a point of the
// walk (parse_cte.c's innerwiths): a reference to one of them is not to
// the WITH RECURSIVE item being checked.
type cteScope struct{ inner [][]string }

func (c *cteScope) captured(name string) bool {
	for _, l := range c.inner {
		for _, n := range l {
			if n == name {
				return true
			}
		}
	}
	return false
}

// with walks w's items (walk) and then body, with w's names visible as
// PostgreSQL scopes them: in a RECURSIVE clause all of them everywhere,
// else each to the items after it and to body.
func (c *cteScope) with(w *pg_query.WithClause, walk func(*pg_query.Node), body func()) {
	ctes := withItems(w)
	top := len(c.inner)
	c.inner = append(c.inner, nil)
	if w.Recursive {
		for _, cte := range ctes {
			c.inner[top] = append(c.inner[top], cte.Ctename)
		}
	}
	for _, cte := range ctes {
		walk(cte.Ctequery)
		if !w.Recursive {
			c.inner[top] = append(c.inner[top], cte.Ctename)
		}
	}
	body()
	c.inner = c.inner[:top]
}

func (d *depWalker) walk(n *pg_query.Node) {
	if n == nil {
		return
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		if v.RangeVar.Schemaname == "" && !d.captured(v.RangeVar.Relname) {
			if i, ok := d.names[v.RangeVar.Relname]; ok {
				if d.refs == nil {
					d.refs = map[int]bool{}
				}
				d.refs[i] = true
			}
		}
		return
	case *pg_query.Node_SelectStmt:
		d.withStmt(v.SelectStmt.WithClause, func() { d.selectChildren(v.SelectStmt) })
		return
	case *pg_query.Node_InsertStmt:
		d.withStmt(v.InsertStmt.WithClause, func() { d.children(n) })
		return
	case *pg_query.Node_UpdateStmt:
		d.withStmt(v.UpdateStmt.WithClause, func() { d.children(n) })
		return
	case *pg_query.Node_DeleteStmt:
		d.withStmt(v.DeleteStmt.WithClause, func() { d.children(n) })
		return
	case *pg_query.Node_CommonTableExpr:
		return // only under withStmt's control
	}
	d.children(n)
}

func (d *depWalker) children(n *pg_query.Node) {
	walkChildren(n, func(c *pg_query.Node) bool {
		if _, ok := c.Node.(*pg_query.Node_CommonTableExpr); ok {
			return false
		}
		d.walk(c)
		return false
	})
}

func (d *depWalker) selectChildren(s *pg_query.SelectStmt) {
	for _, c := range selectParts(s) {
		d.walk(c)
	}
}

// withStmt walks a statement's WITH items and then the statement (body).
func (d *depWalker) withStmt(w *pg_query.WithClause, body func()) {
	if w == nil {
		body()
		return
	}
	d.with(w, d.walk, body)
}

func withItems(w *pg_query.WithClause) []*pg_query.CommonTableExpr {
	var out []*pg_query.CommonTableExpr
	for _, c := range w.Ctes {
		if cte := c.GetCommonTableExpr(); cte != nil {
			out = append(out, cte)
		}
	}
	return out
}

// selectParts are what raw_expression_tree_walker visits in a SelectStmt,
// without its WITH clause (walked under the caller's control) and with
// the set operation's arms as nodes.
func selectParts(s *pg_query.SelectStmt) []*pg_query.Node {
	var out []*pg_query.Node
	out = append(out, s.DistinctClause...)
	out = append(out, s.TargetList...)
	out = append(out, s.FromClause...)
	out = append(out, s.WhereClause)
	out = append(out, s.GroupClause...)
	out = append(out, s.HavingClause)
	out = append(out, s.WindowClause...)
	out = append(out, s.ValuesLists...)
	out = append(out, s.SortClause...)
	out = append(out, s.LimitOffset, s.LimitCount)
	out = append(out, s.LockingClause...)
	if s.Larg != nil {
		out = append(out, &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: s.Larg}})
	}
	if s.Rarg != nil {
		out = append(out, &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: s.Rarg}})
	}
	return out
}

// Contexts in which a self-reference is refused (RecursionContext).
type recursionContext int

const (
	recursionOK recursionContext = iota
	recursionNonRecursiveTerm
	recursionSublink
	recursionOuterJoin
	recursionIntersect
	recursionExcept
)

var recursionMessages = [...]string{
	recursionNonRecursiveTerm: "recursive reference to query \"%s\" must not appear within its non-recursive term",
	recursionSublink:          "recursive reference to query \"%s\" must not appear within a subquery",
	recursionOuterJoin:        "recursive reference to query \"%s\" must not appear within an outer join",
	recursionIntersect:        "recursive reference to query \"%s\" must not appear within INTERSECT",
	recursionExcept:           "recursive reference to query \"%s\" must not appear within EXCEPT",
}

// checkWellFormed is checkWellFormedRecursion for one recursive item.
func checkWellFormed(cte *pg_query.CommonTableExpr) error {
	name := cte.Ctename
	stmt := cte.Ctequery.GetSelectStmt()
	if stmt == nil {
		return pgerr.New(pgerr.InvalidRecursion, "recursive query \"%s\" must not contain data-modifying statements", name).
			WithPosition(int(cte.Location) + 1)
	}
	if stmt.Op != pg_query.SetOperation_SETOP_UNION {
		return pgerr.New(pgerr.InvalidRecursion, "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", name).
			WithPosition(int(cte.Location) + 1)
	}
	w := &recWalker{name: name}
	if stmt.WithClause != nil {
		w.ctx = recursionSublink
		for _, c := range withItems(stmt.WithClause) {
			w.walk(c.Ctequery)
		}
		if w.err != nil {
			return w.err
		}
	}
	switch {
	case len(stmt.SortClause) > 0:
		return pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented").
			WithPosition(int(exprLocation(sortKey(stmt.SortClause[0]))) + 1)
	case stmt.LimitOffset != nil:
		return pgerr.New(pgerr.FeatureNotSupported, "OFFSET in a recursive query is not implemented").
			WithPosition(int(exprLocation(stmt.LimitOffset)) + 1)
	case stmt.LimitCount != nil:
		return pgerr.New(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented").
			WithPosition(int(exprLocation(stmt.LimitCount)) + 1)
	case len(stmt.LockingClause) > 0:
		return pgerr.New(pgerr.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
	}
	w = &recWalker{name: name, ctx: recursionNonRecursiveTerm}
	w.walkSelect(stmt.Larg)
	if w.err != nil {
		return w.err
	}
	w = &recWalker{name: name, ctx: recursionOK}
	w.walkSelect(stmt.Rarg)
	if w.err != nil {
		return w.err
	}
	if w.aggLevel != nil {
		// parse_agg.c: the level that reads the working table may not
		// aggregate.
		if fc := findAggregate(w.aggLevel); fc != nil {
			return pgerr.New(pgerr.InvalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term").
				WithPosition(int(fc.Location) + 1)
		}
	}
	return nil
}

// recWalker is checkWellFormedRecursionWalker's state.
type recWalker struct {
	cteScope
	name     string
	ctx      recursionContext
	refs     int
	err      error
	aggLevel *pg_query.SelectStmt // the SELECT whose FROM reads the self-reference
}

func (w *recWalker) walk(n *pg_query.Node) {
	if n == nil || w.err != nil {
		return
	}
	save := w.ctx
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		rv := v.RangeVar
		if rv.Schemaname != "" || rv.Relname != w.name || w.captured(rv.Relname) {
			return
		}
		if w.ctx != recursionOK {
			w.err = pgerr.New(pgerr.InvalidRecursion, recursionMessages[w.ctx], w.name).WithPosition(int(rv.Location) + 1)
			return
		}
		w.refs++
		if w.refs > 1 {
			w.err = pgerr.New(pgerr.InvalidRecursion, "recursive reference to query \"%s\" must not appear more than once", w.name).
				WithPosition(int(rv.Location) + 1)
		}
		return
	case *pg_query.Node_SelectStmt:
		w.walkSelect(v.SelectStmt)
		return
	case *pg_query.Node_CommonTableExpr:
		return
	case *pg_query.Node_JoinExpr:
		j := v.JoinExpr
		switch j.Jointype {
		case pg_query.JoinType_JOIN_LEFT:
			w.walk(j.Larg)
			if save == recursionOK {
				w.ctx = recursionOuterJoin
			}
			w.walk(j.Rarg)
			w.ctx = save
			w.walk(j.Quals)
		case pg_query.JoinType_JOIN_FULL:
			if save == recursionOK {
				w.ctx = recursionOuterJoin
			}
			w.walk(j.Larg)
			w.walk(j.Rarg)
			w.ctx = save
			w.walk(j.Quals)
		case pg_query.JoinType_JOIN_RIGHT:
			if save == recursionOK {
				w.ctx = recursionOuterJoin
			}
			w.walk(j.Larg)
			w.ctx = save
			w.walk(j.Rarg)
			w.walk(j.Quals)
		default:
			w.walk(j.Larg)
			w.walk(j.Rarg)
			w.walk(j.Quals)
		}
		return
	case *pg_query.Node_SubLink:
		w.ctx = recursionSublink
		w.walk(v.SubLink.Subselect)
		w.ctx = save
		w.walk(v.SubLink.Testexpr)
		return
	}
	walkChildren(n, func(c *pg_query.Node) bool {
		w.walk(c)
		return false
	})
}

// walkSelect walks a SELECT with its WITH clause's names in scope.
func (w *recWalker) walkSelect(s *pg_query.SelectStmt) {
	if s == nil || w.err != nil {
		return
	}
	if s.WithClause == nil {
		w.selectStmt(s)
		return
	}
	w.with(s.WithClause, w.walk, func() { w.selectStmt(s) })
}

// selectStmt is checkWellFormedSelectStmt.
func (w *recWalker) selectStmt(s *pg_query.SelectStmt) {
	save := w.ctx
	if save != recursionOK || s.Op == pg_query.SetOperation_SETOP_NONE || s.Op == pg_query.SetOperation_SETOP_UNION {
		before := w.refs
		for _, c := range selectParts(s) {
			w.walk(c)
		}
		if save == recursionOK && s.Op == pg_query.SetOperation_SETOP_NONE && w.refs > before && w.aggLevel == nil && w.fromReads(s.FromClause) {
			w.aggLevel = s
		}
		return
	}
	if s.Op == pg_query.SetOperation_SETOP_INTERSECT {
		if s.All {
			w.ctx = recursionIntersect
		}
		w.walkSelect(s.Larg)
		w.walkSelect(s.Rarg)
	} else { // EXCEPT
		if s.All {
			w.ctx = recursionExcept
		}
		w.walkSelect(s.Larg)
		w.ctx = recursionExcept
		w.walkSelect(s.Rarg)
	}
	w.ctx = save
	for _, c := range s.SortClause {
		w.walk(c)
	}
	w.walk(s.LimitOffset)
	w.walk(s.LimitCount)
	for _, c := range s.LockingClause {
		w.walk(c)
	}
}

// fromReads reports whether the self-reference is a FROM item of this
// level (directly or in a join), not of a subquery in FROM.
func (w *recWalker) fromReads(from []*pg_query.Node) bool {
	for _, f := range from {
		switch v := f.Node.(type) {
		case *pg_query.Node_RangeVar:
			if v.RangeVar.Schemaname == "" && v.RangeVar.Relname == w.name && !w.captured(w.name) {
				return true
			}
		case *pg_query.Node_JoinExpr:
			if w.fromReads([]*pg_query.Node{v.JoinExpr.Larg, v.JoinExpr.Rarg}) {
				return true
			}
		}
	}
	return false
}

// findAggregate is the first aggregate call of s's own level (target
// list, HAVING, ORDER BY), nil if none.
func findAggregate(s *pg_query.SelectStmt) *pg_query.FuncCall {
	var found *pg_query.FuncCall
	parts := append(append(append([]*pg_query.Node{}, s.TargetList...), s.HavingClause), s.SortClause...)
	for _, p := range parts {
		walkNodes(p, func(c *pg_query.Node) bool {
			if found != nil || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over == nil {
				_, name := funcName(fc)
				if isAggregateCall(strings.ToLower(name), fc) {
					found = fc
					return false
				}
			}
			return true
		})
		if found != nil {
			break
		}
	}
	return found
}

// sortKey is an ORDER BY item's expression (exprLocation of a SortBy is
// its argument's).
func sortKey(n *pg_query.Node) *pg_query.Node {
	if sb := n.GetSortBy(); sb != nil {
		return sb.Node
	}
	return n
}
