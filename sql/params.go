package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// Parameter types that conflict.
//
// PostgreSQL types an undeclared $n at its first coercion and keeps that
// type: later references already have it (SELECT $1::int, $1::text is $1
// integer, cast to text). A bare $n in a select list is left untyped until
// the end of its SELECT, where the unknown outputs become text
// (resolveTargetListUnknowns); if $n got another type meanwhile, that is
// 42P08 "inconsistent types deduced for parameter $1" (DETAIL "integer
// versus text") at the bare reference:
//
//	SELECT $1, $1 + 1            -- 42P08 integer versus text
//	SELECT $1 WHERE $1 = 1       -- 42P08 integer versus text
//	SELECT $1 LIMIT $1           -- 42P08 bigint versus text
//	SELECT $1, $1::text          -- $1 text
//	SELECT $1 + 1, $1            -- $1 integer (typed before the bare one)
//
// The select list of a set operation's branch and of INSERT ... SELECT is
// not resolved to text there (PostgreSQL's p_resolve_unknowns is off: the
// set operation or the target column decides), and neither here.
//
// A parameter that the statement never references and the client did not
// declare has no type at all: 42P18 "could not determine data type of
// parameter $1" (checkParamGaps), and so is a parameter whose only
// references leave it untyped, as in $1 IS NULL (checkUnknownParams).

// notePendingParam records a bare $n of a select list that has no type
// yet; resolveTargetParams settles it when the SELECT is done.
func (tr *translator) notePendingParam(n *pg_query.Node, sc *scope) {
	p := n.GetParamRef()
	if p == nil || p.Number < 1 || tr.paramType(int(p.Number)).known() {
		return
	}
	sc.pendingParams = append(sc.pendingParams, p)
}

// resolveTargetParams gives the untyped bare parameters of a select list
// the type text, or fails with 42P08 where the parameter got another type
// after the reference.
func (tr *translator) resolveTargetParams(sc *scope) error {
	text := typ{OIDText, -1}
	for _, p := range sc.pendingParams {
		n := int(p.Number)
		if t := tr.paramType(n); t.known() && t.oid != OIDText {
			err := pgerr.New(pgerr.AmbiguousParameter, "inconsistent types deduced for parameter $%d", n).
				WithDetail("%s versus %s", pgtypes.FormatType(t.oid, -1), pgtypes.FormatType(OIDText, -1))
			return withLocation(err, p.Location)
		}
		tr.params[n] = text
	}
	sc.pendingParams = nil
	return nil
}

// checkParamGaps fails with 42P18 when a parameter below the highest one
// is neither referenced anywhere in tree nor declared by the client.
func (tr *translator) checkParamGaps(tree *pg_query.Node) error {
	used := map[int]bool{}
	maxUsed := 0
	walkNodes(tree, func(x *pg_query.Node) bool {
		if p := x.GetParamRef(); p != nil {
			used[int(p.Number)] = true
			maxUsed = max(maxUsed, int(p.Number))
		}
		return true
	})
	for i := 1; i < maxUsed; i++ {
		if !used[i] && (i > len(tr.declared) || tr.declared[i-1] == 0) {
			return pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", i)
		}
	}
	return nil
}

// checkUnknownParams is PostgreSQL's check of the parameters referenced
// where nothing gives them a type (the argument of IS [NOT] NULL), while
// they had none yet: still untyped at the end, 42P18 "could not determine
// data type of parameter $n" (exec_parse_message, no position); typed by
// a later reference, the earlier one keeps "unknown" and PostgreSQL's
// check_parameter_resolution_walker reports 42P08 with the same message
// at that reference.
func (tr *translator) checkUnknownParams() error {
	for _, p := range tr.unknownParams {
		n := int(p.Number)
		if !tr.paramType(n).known() {
			return pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", n)
		}
		return withLocation(pgerr.New(pgerr.AmbiguousParameter, "could not determine data type of parameter $%d", n), p.Location)
	}
	return nil
}

// untypedParam reports whether n is a $n without a type so far.
func (tr *translator) untypedParam(n *pg_query.Node) bool {
	p := n.GetParamRef()
	return p != nil && p.Number >= 1 && !tr.paramType(int(p.Number)).known()
}

// typeParam gives the parameter n the type t, unless it has one, and
// returns its type.
func (tr *translator) typeParam(n *pg_query.Node, t typ) typ {
	num := int(n.GetParamRef().GetNumber())
	tr.noteParam(num, t)
	return tr.paramType(num)
}

// NoParameters is PostgreSQL's check of a statement sent without
// parameters (the simple query protocol): any $n in it is 42P02 "there is
// no parameter $n" at the first one, except in PREPARE, whose statement
// takes its parameters from EXECUTE.
func NoParameters(st *Statement) error {
	if st.Kind == KindPrepare || st.Tree == nil {
		return nil
	}
	var first *pg_query.ParamRef
	walkNodes(st.Tree, func(x *pg_query.Node) bool {
		if p := x.GetParamRef(); p != nil && (first == nil || p.Location < first.Location) {
			first = p
		}
		return true
	})
	if first == nil {
		return nil
	}
	return withLocation(pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", first.Number), first.Location)
}
