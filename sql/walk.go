package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// walkNodes calls fn for root and every *pg_query.Node below it, in
// pre-order. fn may replace n.Node; the walk then descends into the new
// content. Returning false skips n's children.
func walkNodes(root *pg_query.Node, fn func(n *pg_query.Node) bool) {
	if root == nil {
		return
	}
	if fn(root) {
		walkChildren(root, fn)
	}
}

// walkChildren calls walkNodes for every *pg_query.Node directly below m
// (looking through non-Node messages such as TypeName or WindowDef).
func walkChildren(m proto.Message, fn func(n *pg_query.Node) bool) {
	walkMsg(m.ProtoReflect(), fn)
}

func walkMsg(m protoreflect.Message, fn func(n *pg_query.Node) bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visitMsg(l.Get(i).Message(), fn)
			}
			return true
		}
		visitMsg(v.Message(), fn)
		return true
	})
}

func visitMsg(pm protoreflect.Message, fn func(n *pg_query.Node) bool) {
	if n, ok := pm.Interface().(*pg_query.Node); ok {
		walkNodes(n, fn)
		return
	}
	walkMsg(pm, fn)
}

// exprLocation is the 0-based byte offset where an expression starts (like
// PostgreSQL's exprLocation: the leftmost of the node's own location and
// its left operand's), or -1 when unknown.
func exprLocation(n *pg_query.Node) int32 {
	if n == nil || n.GetNode() == nil {
		return -1
	}
	loc := int32(-1)
	m := n.ProtoReflect()
	if od := m.Descriptor().Oneofs().ByName("node"); od != nil {
		if f := m.WhichOneof(od); f != nil {
			inner := m.Get(f).Message()
			if lf := inner.Descriptor().Fields().ByName("location"); lf != nil {
				loc = int32(inner.Get(lf).Int())
			}
		}
	}
	var left *pg_query.Node
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AExpr:
		left = v.AExpr.Lexpr
	case *pg_query.Node_TypeCast:
		left = v.TypeCast.Arg
	}
	if l := exprLocation(left); l >= 0 && (loc < 0 || l < loc) {
		loc = l
	}
	return loc
}

// withLocation sets e's position from a 0-based offset (none if < 0).
func withLocation(e *pgerr.Error, loc int32) *pgerr.Error {
	if loc < 0 {
		return e
	}
	return e.WithPosition(int(loc) + 1)
}

// checkNoAggWindow is PostgreSQL's check that an expression of a clause
// where they may not be (WHERE, JOIN conditions, RETURNING, UPDATE's SET)
// holds no aggregate or window function of its own level (subqueries are
// levels of their own): 42803 or 42P20, named after the clause. An
// aggregate whose arguments name only columns of outer levels belongs to
// the outer query (sc, when given, is the level being checked).
func checkNoAggWindow(n *pg_query.Node, clause string, sc ...*scope) error {
	var err error
	walkNodes(n, func(c *pg_query.Node) bool {
		if err != nil {
			return false
		}
		switch v := c.Node.(type) {
		case *pg_query.Node_SubLink, *pg_query.Node_SelectStmt, *pg_query.Node_RangeSubselect:
			return false
		case *pg_query.Node_FuncCall:
			fc := v.FuncCall
			if fc.Over != nil {
				err = withLocation(pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", clause), fc.Location)
				return false
			}
			if schema, name := funcName(fc); (schema == "" || schema == "pg_catalog") && isAggregateCall(name, fc) &&
				(len(sc) == 0 || sc[0] == nil || aggIsLocal(fc, sc[0])) {
				err = withLocation(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", clause), fc.Location)
				return false
			}
		}
		return true
	})
	return err
}

// aggIsLocal reports whether an aggregate call belongs to the level sc:
// it has no column reference, or one that names a relation (or a column)
// of sc.
func aggIsLocal(fc *pg_query.FuncCall, sc *scope) bool {
	refs, local := 0, false
	for _, a := range append(append([]*pg_query.Node(nil), fc.Args...), fc.AggFilter) {
		walkNodes(a, func(c *pg_query.Node) bool {
			switch v := c.Node.(type) {
			case *pg_query.Node_SubLink, *pg_query.Node_SelectStmt:
				return false
			case *pg_query.Node_ColumnRef:
				refs++
				f := v.ColumnRef.Fields
				for _, r := range sc.rels {
					if len(f) >= 2 {
						if s := f[len(f)-2].GetString_(); s != nil && s.Sval == r.alias {
							local = true
						}
						continue
					}
					if r.cols == nil {
						local = true
						continue
					}
					if s := f[0].GetString_(); s != nil {
						for _, c := range r.cols {
							if c.name == s.Sval {
								local = true
							}
						}
					}
				}
			}
			return true
		})
	}
	return refs == 0 || local
}

// stripCurrentDatabase drops the catalog part of every relation name in m
// that spells the session's database (postgres.public.t, as dbt and BI
// tools qualify names), as PostgreSQL accepts them; a name of another
// database is PostgreSQL's 0A000 at its position.
func stripCurrentDatabase(m proto.Message, cat Catalog) error {
	db := ""
	if dn, ok := cat.(DatabaseNamer); ok {
		db = dn.CurrentDatabase()
	}
	return eachRangeVar(m.ProtoReflect(), func(rv *pg_query.RangeVar) error {
		switch {
		case rv.Catalogname == "":
		case db != "" && rv.Catalogname == db:
			rv.Catalogname = ""
		default:
			return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"",
				rv.Catalogname, rv.Schemaname, rv.Relname).WithPosition(int(rv.Location) + 1)
		}
		return nil
	})
}

// eachRangeVar calls fn for every RangeVar in m, wherever it is.
func eachRangeVar(m protoreflect.Message, fn func(*pg_query.RangeVar) error) error {
	if rv, ok := m.Interface().(*pg_query.RangeVar); ok {
		return fn(rv)
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = eachRangeVar(l.Get(i).Message(), fn)
			}
		} else {
			err = eachRangeVar(v.Message(), fn)
		}
		return err == nil
	})
	return err
}

// RenameRelationInQuery rewrites a stored view query (one SELECT, every
// relation qualified) for a relation renamed or moved from fromSchema.from
// to toSchema.to: each reference names the new relation, under the old
// name as its alias where it had none, so that the query's column
// references qualified by the old name still resolve.
func RenameRelationInQuery(query, fromSchema, from, toSchema, to string) (string, error) {
	stmts, err := Parse(query)
	if err != nil {
		return "", err
	}
	if len(stmts) != 1 {
		return "", pgerr.New(pgerr.InternalError, "view query of %d statements", len(stmts))
	}
	tree := stmts[0].Tree
	_ = eachRangeVar(tree.ProtoReflect(), func(rv *pg_query.RangeVar) error {
		if rv.Schemaname == fromSchema && rv.Relname == from {
			if rv.Alias == nil {
				rv.Alias = &pg_query.Alias{Aliasname: from}
			}
			rv.Schemaname, rv.Relname = toSchema, to
		}
		return nil
	})
	return deparseNode(tree)
}

// QueryReadsColumn reports whether a stored view query (one SELECT) may
// read column col: a column reference whose last name is col, or a star
// (a view's * was every column when it was created). Conservative: a
// reference to another relation's column of the same name counts too.
func QueryReadsColumn(query, col string) (bool, error) {
	stmts, err := Parse(query)
	if err != nil {
		return false, err
	}
	found := false
	for _, st := range stmts {
		walkNodes(st.Tree, func(n *pg_query.Node) bool {
			if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) > 0 {
				last := cr.Fields[len(cr.Fields)-1]
				if last.GetAStar() != nil || last.GetString_().GetSval() == col {
					found = true
				}
			}
			return !found
		})
	}
	return found, nil
}
