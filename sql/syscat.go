package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
)

// System catalog support (see package pgcatalog): relation routing and the
// expression idioms of catalog queries that DuckDB lacks.

// SystemPreparer is implemented by a Catalog that must prepare its
// connection before a query calls the functions package pgcatalog
// implements (TranslateQuery calls PrepareSystem once per such query).
type SystemPreparer interface {
	PrepareSystem() error
}

// systemRelation resolves a pg_catalog / information_schema relation (or an
// unqualified pg_* name, which PostgreSQL looks up in pg_catalog first)
// through the Catalog. handled is false when the reference is not a system
// relation after all (an unqualified pg_* name the Catalog does not know as
// one): the caller then resolves it as an ordinary table.
func (tr *translator) systemRelation(rv *pg_query.RangeVar) (rel *relInfo, handled bool, err error) {
	schema := rv.Schemaname
	if schema == "" {
		schema = "pg_catalog"
	}
	ti, err := tr.cat.LookupTable(schema, rv.Relname)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Code == pgerr.UndefinedTable && rv.Schemaname == "" {
			return nil, false, nil
		}
		if e, ok := pgerr.As(err); ok && e.Position == 0 && rv.Location >= 0 {
			return nil, true, e.WithPosition(int(rv.Location) + 1)
		}
		return nil, true, err
	}
	return tr.substitute(rv, ti, false), true, nil
}

// rewriteSystem rewrites, in place, the PostgreSQL idioms of catalog
// queries into DuckDB SQL, before translation:
//
//   - calls of the functions pgcatalog implements (format_type,
//     pg_get_userbyid, version, current_database, ...) -> their macros;
//     calls of SessionFunctions (set_config, current_setting,
//     current_schema, ...) -> the session's DuckDB functions;
//     CURRENT_USER / SESSION_USER / USER / CURRENT_ROLE / CURRENT_CATALOG /
//     CURRENT_SCHEMA likewise (DuckDB would answer with its own values);
//   - 'name'::regclass (a string or parameter) -> regclass_in('name') (the
//     OID); x::regclass (any other expression) -> regclass_out(x) (the
//     name as PostgreSQL prints it); same for regtype, regnamespace,
//     regproc, regprocedure, regrole; ::oid -> ::int8;
//   - OPERATOR(pg_catalog.op) -> op; ~ / ~* / !~ / !~* ->
//     [NOT] regexp_like(l, r[, 'i']) (PostgreSQL's regexp semantics, pgfuncs.go);
//   - COLLATE pg_catalog.default / "default" -> dropped;
//   - x op ANY(array) / x op ALL(array) over a non-subquery -> list
//     functions (DuckDB only has the subquery forms);
//   - pg_options_to_table(options) in FROM -> a LATERAL subquery that
//     splits each "name=value" of the array (pg_dump's FDW and column
//     options);
//   - i.indkey[n] (and the other int2vector / oidvector catalog columns,
//     which PostgreSQL subscripts from 0) -> i.indkey[n + 1] (they are
//     DuckDB lists, subscripted from 1).
//
// A result column whose expression is rewritten is first given the name
// PostgreSQL would give it. usesMacros reports whether the result calls a
// pgcatalog macro.
func rewriteSystem(root *pg_query.Node) (usesMacros bool) {
	walkNodes(root, func(n *pg_query.Node) bool {
		switch v := n.GetNode().(type) {
		case *pg_query.Node_ResTarget:
			if v.ResTarget.Name == "" && v.ResTarget.Val != nil && needsSystemRewrite(v.ResTarget.Val) {
				v.ResTarget.Name = pgColumnName(v.ResTarget.Val)
			}
		case *pg_query.Node_FuncCall:
			fc := v.FuncCall
			schema, name := funcName(fc)
			switch {
			case fc.Funcformat == pg_query.CoercionForm_COERCE_SQL_SYNTAX:
			case isPartitionAncestors(fc):
				// A relation is its own only ancestor (there are no
				// partitions): the one row of the set-returning call.
				n.Node = regclassOf(fc.Args[0]).Node
				if tc := n.GetTypeCast(); regToText(tc) || rewriteRegCast(n, tc) {
					usesMacros = true
				}
			case sessionFunc(schema, name):
				if seqFuncs[strings.ToLower(name)] && len(fc.Args) > 0 {
					// nextval('s'::regclass), a column default's spelling:
					// the session resolves the name itself (no catalog
					// refresh per statement).
					if tc := fc.Args[0].GetTypeCast(); tc != nil && regTypeName(tc.TypeName) == "regclass" && tc.Arg.GetAConst().GetSval() != nil {
						fc.Args[0] = tc.Arg
					}
				}
				fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode(SessionFuncPrefix + strings.ToLower(name))}
			case systemFunc(schema, name):
				fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode(pgcatalog.MacroPrefix + strings.ToLower(name))}
				usesMacros = true
			}
		case *pg_query.Node_SqlvalueFunction:
			if fn := sqlValueMacro(v.SqlvalueFunction.Op); fn != "" {
				n.Node = makeCall(fn, v.SqlvalueFunction.Location).Node
				usesMacros = true
			}
		case *pg_query.Node_TypeCast:
			if regToText(v.TypeCast) || rewriteRegCast(n, v.TypeCast) {
				usesMacros = true
			}
		case *pg_query.Node_AExpr:
			rewriteSystemOp(n, v.AExpr)
		case *pg_query.Node_AIndirection:
			shiftVectorSubscript(v.AIndirection)
		case *pg_query.Node_RangeFunction:
			optionsToTable(n, v.RangeFunction)
			partitionAncestorsTable(n, v.RangeFunction)
		case *pg_query.Node_CollateClause:
			if isDefaultCollation(v.CollateClause.Collname) && v.CollateClause.Arg != nil {
				n.Node = v.CollateClause.Arg.Node
				return true
			}
		}
		return true
	})
	return usesMacros
}

// SessionFuncPrefix prefixes the DuckDB scalar functions that implement the
// PostgreSQL functions of SessionFunctions. The server registers them
// (server/sessionfuncs.go) and answers them from the calling session's
// state: its settings, search path and transaction.
const SessionFuncPrefix = "__bsdb_s_"

// SessionFunctions are the PostgreSQL functions answered by the session;
// calls are renamed to SessionFuncPrefix + name. Known gap: current_schema
// and current_schemas report text / text[] where PostgreSQL reports name /
// name[].
var SessionFunctions = map[string]bool{
	"set_config": true, "current_setting": true, "txid_current": true,
	"pg_current_xact_id": true, "current_schema": true, "current_schemas": true,
	"current_query": true,
	// Roles and privileges: the session's role and the catalog's ACLs.
	"current_user": true, "session_user": true, "has_table_privilege": true,
	"has_schema_privilege": true, "has_database_privilege": true, "has_column_privilege": true,
	"has_any_column_privilege": true, "pg_has_role": true,
	// Sequences (server/sequence.go): the session's currval and lastval.
	"nextval": true, "currval": true, "setval": true, "lastval": true, "pg_get_serial_sequence": true,
	// Advisory locks: a lock table shared by the sessions (server/advisory.go).
	"pg_advisory_lock": true, "pg_advisory_lock_shared": true, "pg_try_advisory_lock": true,
	"pg_try_advisory_lock_shared": true, "pg_advisory_xact_lock": true, "pg_advisory_xact_lock_shared": true,
	"pg_try_advisory_xact_lock": true, "pg_try_advisory_xact_lock_shared": true,
	"pg_advisory_unlock": true, "pg_advisory_unlock_shared": true, "pg_advisory_unlock_all": true,
}

// seqFuncs take a sequence (regclass) first: a string literal reaches the
// session as the name, anything else as the OID.
var seqFuncs = map[string]bool{"nextval": true, "currval": true, "setval": true}

func sessionFunc(schema, name string) bool {
	return SessionFunctions[strings.ToLower(name)] && (schema == "" || schema == "pg_catalog")
}

// systemFunc reports whether schema.name is a function pgcatalog implements
// (information_schema holds the _pg_* helpers).
func systemFunc(schema, name string) bool {
	name = strings.ToLower(name)
	return pgcatalog.IsFunction(name) && (schema == "" || schema == "pg_catalog" || schema == "information_schema" && strings.HasPrefix(name, "_pg_"))
}

func makeCall(name string, loc int32, args ...*pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
		Funcname: []*pg_query.Node{pg_query.MakeStrNode(name)}, Args: args, Location: loc,
		Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL,
	}}}
}

func sqlValueMacro(op pg_query.SQLValueFunctionOp) string {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_USER,
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return SessionFuncPrefix + "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return SessionFuncPrefix + "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return pgcatalog.MacroPrefix + "current_database"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return SessionFuncPrefix + "current_schema"
	}
	return ""
}

// needsSystemRewrite reports whether rewriteSystem changes n itself (so
// that its result column name must be fixed first).
func needsSystemRewrite(n *pg_query.Node) bool {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_FuncCall:
		return systemFunc(funcName(v.FuncCall)) || sessionFunc(funcName(v.FuncCall))
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueMacro(v.SqlvalueFunction.Op) != ""
	case *pg_query.Node_TypeCast:
		return regTypeName(v.TypeCast.TypeName) != "" || isRegtypeArray(v.TypeCast.TypeName) || needsSystemRewrite(v.TypeCast.Arg)
	case *pg_query.Node_CollateClause:
		return true
	case *pg_query.Node_AExpr: // regex operators and ANY/ALL over arrays become calls
		return v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ANY || v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL ||
			v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_SIMILAR ||
			v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_OP && len(v.AExpr.Name) > 0 && strings.Contains(v.AExpr.Name[len(v.AExpr.Name)-1].GetString_().GetSval(), "~")
	}
	return false
}

func regTypeName(tn *pg_query.TypeName) string {
	if tn == nil || len(tn.ArrayBounds) > 0 {
		return ""
	}
	name := typeNameString(tn)
	if pgcatalog.IsRegType(name) || name == "oid" {
		return name
	}
	return ""
}

// rewriteRegCast rewrites a cast to a reg* type into a macro call (true)
// and ::oid into ::int8; x::regtype[] (x an oid array or oidvector) into
// the array of the types' names (known gap: typed text[], not regtype[]).
func rewriteRegCast(n *pg_query.Node, tc *pg_query.TypeCast) bool {
	if isRegtypeArray(tc.TypeName) && !isRegInput(tc.Arg) {
		n.Node = makeCall(pgcatalog.MacroPrefix+"regtype_array_out", tc.Location, tc.Arg).Node
		return true
	}
	name := regTypeName(tc.TypeName)
	switch {
	case name == "":
		return false
	case name == "oid" && regTypeName(tc.Arg.GetTypeCast().GetTypeName()) == "regproc":
		// x::regproc::oid: regproc values are names here, so the OID is
		// looked up from the name regproc's input checked.
		n.Node = makeCall(pgcatalog.MacroPrefix+"regproc_oid_in", tc.Location, tc.Arg).Node
		return true
	case name == "oid":
		tc.TypeName = &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode("int8")}, Typemod: -1, Location: tc.TypeName.Location}
		return false
	}
	arg := tc.Arg
	suffix := "_out"
	if isRegInput(arg) {
		suffix = "_in"
	}
	n.Node = makeCall(pgcatalog.MacroPrefix+name+suffix, tc.Location, arg).Node
	return true
}

// regToText rewrites x::regclass::text (any reg* type, any text type)
// into regclass_out(regclass_in(x)) (regclass_out(x) when x is not a
// string): the text of a reg* value is the object's name, not the OID.
func regToText(tc *pg_query.TypeCast) bool {
	inner := tc.Arg.GetTypeCast()
	if inner == nil || !isTextType(tc.TypeName) {
		return false
	}
	name := regTypeName(inner.TypeName)
	if name == "" || name == "oid" {
		return false
	}
	arg := inner.Arg
	if isRegInput(arg) {
		arg = makeCall(pgcatalog.MacroPrefix+name+"_in", inner.Location, arg)
	}
	tc.Arg = makeCall(pgcatalog.MacroPrefix+name+"_out", inner.Location, arg)
	return true
}

// isRegInput: a reg* cast of this expression parses a name (string
// literal, parameter, text cast) rather than taking an OID.
func isRegInput(arg *pg_query.Node) bool {
	switch a := arg.GetNode().(type) {
	case *pg_query.Node_AConst:
		_, ok := a.AConst.Val.(*pg_query.A_Const_Sval)
		return ok
	case *pg_query.Node_ParamRef:
		return true
	case *pg_query.Node_TypeCast:
		return isTextType(a.TypeCast.TypeName)
	}
	return false
}

func isTextType(tn *pg_query.TypeName) bool {
	switch typeNameString(tn) {
	case "text", "varchar", "name", "bpchar":
		return true
	}
	return false
}

func isDefaultCollation(names []*pg_query.Node) bool {
	if len(names) == 0 {
		return false
	}
	last := names[len(names)-1].GetString_().GetSval()
	return last == "default"
}

func rewriteSystemOp(n *pg_query.Node, e *pg_query.A_Expr) {
	if len(e.Name) == 2 && e.Name[0].GetString_().GetSval() == "pg_catalog" {
		e.Name = e.Name[1:]
	}
	if len(e.Name) != 1 {
		return
	}
	op := e.Name[0].GetString_().GetSval()
	switch e.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if e.Lexpr == nil || e.Rexpr == nil {
			return // a prefix operator: ~5 is bitwise not, no regex
		}
		regCompareByName(e, op)
		var args []*pg_query.Node
		neg := strings.HasPrefix(op, "!")
		switch op {
		case "~", "!~":
			args = []*pg_query.Node{e.Lexpr, e.Rexpr}
		case "~*", "!~*":
			args = []*pg_query.Node{e.Lexpr, e.Rexpr, pg_query.MakeAConstStrNode("i", -1)}
		default:
			return
		}
		call := makeCall("regexp_like", e.Location, args...)
		if neg {
			call = pg_query.MakeBoolExprNode(pg_query.BoolExprType_NOT_EXPR, []*pg_query.Node{call}, e.Location)
		}
		n.Node = call.Node
	case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		// x [NOT] SIMILAR TO p: x ~ similar_to_escape(p), PostgreSQL's
		// translation of the SQL pattern (pgfuncs.go).
		if op != "~" && op != "!~" || e.Lexpr == nil || e.Rexpr == nil {
			return
		}
		call := makeCall("regexp_like", e.Location, e.Lexpr, e.Rexpr)
		if op == "!~" {
			call = pg_query.MakeBoolExprNode(pg_query.BoolExprType_NOT_EXPR, []*pg_query.Node{call}, e.Location)
		}
		n.Node = call.Node
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		if e.Rexpr.GetSubLink() != nil {
			return
		}
		// x = ANY(a) -> list_contains(a, x); x <> ALL(a) -> NOT list_contains(a, x);
		// other operators: list_bool_or / list_bool_and over a lambda.
		any := e.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ANY
		if op == "=" && any {
			n.Node = makeCall("list_contains", e.Location, e.Rexpr, e.Lexpr).Node
			return
		}
		if op == "<>" && !any {
			n.Node = pg_query.MakeBoolExprNode(pg_query.BoolExprType_NOT_EXPR, []*pg_query.Node{makeCall("list_contains", e.Location, e.Rexpr, e.Lexpr)}, e.Location).Node
		}
	}
}

// zeroBasedVectors are the catalog columns of type int2vector / oidvector:
// PostgreSQL subscripts them from 0.
var zeroBasedVectors = map[string]bool{"indkey": true, "indclass": true, "indcollation": true, "indoption": true,
	"proargtypes": true, "stxkeys": true}

func shiftVectorSubscript(ai *pg_query.A_Indirection) {
	cr := ai.Arg.GetColumnRef()
	if cr == nil || len(cr.Fields) == 0 || len(ai.Indirection) != 1 {
		return
	}
	if !zeroBasedVectors[cr.Fields[len(cr.Fields)-1].GetString_().GetSval()] {
		return
	}
	idx := ai.Indirection[0].GetAIndices()
	if idx == nil || idx.IsSlice || idx.Uidx == nil {
		return
	}
	idx.Uidx = pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")},
		idx.Uidx, pg_query.MakeAConstIntNode(1, -1), -1)
}

// isRegtypeArray reports whether tn is regtype[].
func isRegtypeArray(tn *pg_query.TypeName) bool {
	return tn != nil && len(tn.ArrayBounds) == 1 && len(tn.Typmods) == 0 &&
		typeNameString(&pg_query.TypeName{Names: tn.Names}) == "regtype"
}

// regCompareByName: in x::regtype = 'name'::regtype (pgcli:
// p.prorettype::regtype != 'trigger'::regtype) the left side becomes the
// type's name and the right side its OID; the right side is spelled as
// the name too ('name'::regtype::text), so that names are compared (the
// same answer: a reg* value's name is unique).
func regCompareByName(e *pg_query.A_Expr, op string) {
	if op != "=" && op != "<>" && op != "!=" {
		return
	}
	lc, rc := e.Lexpr.GetTypeCast(), e.Rexpr.GetTypeCast()
	if lc == nil || rc == nil {
		return
	}
	name := regTypeName(lc.TypeName)
	if name == "" || name == "oid" || regTypeName(rc.TypeName) != name || isRegInput(lc.Arg) == isRegInput(rc.Arg) {
		return
	}
	asText := func(n *pg_query.Node) *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: n,
			TypeName: &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("text")}, Typemod: -1, Location: -1}, Location: -1}}}
	}
	if isRegInput(lc.Arg) {
		e.Lexpr = asText(e.Lexpr)
	} else {
		e.Rexpr = asText(e.Rexpr)
	}
}

// isPartitionAncestors reports whether fc is pg_partition_ancestors(x).
func isPartitionAncestors(fc *pg_query.FuncCall) bool {
	schema, name := funcName(fc)
	return strings.EqualFold(name, "pg_partition_ancestors") && (schema == "" || schema == "pg_catalog") && len(fc.Args) == 1 &&
		!fc.AggStar && fc.Over == nil
}

// regclassOf is x::regclass.
func regclassOf(x *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: x,
		TypeName: &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode("regclass")}, Typemod: -1, Location: -1},
		Location: -1}}}
}

// partitionAncestorsTable rewrites FROM pg_partition_ancestors(x) [AS
// alias] (psql's \d of foreign keys) into (SELECT x::regclass AS relid)
// AS alias: a table is its own only ancestor, there being no partitions.
func partitionAncestorsTable(n *pg_query.Node, rf *pg_query.RangeFunction) {
	if len(rf.Functions) != 1 || rf.IsRowsfrom {
		return
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 {
		return
	}
	fc := items[0].GetFuncCall()
	if fc == nil || !isPartitionAncestors(fc) {
		return
	}
	sel := &pg_query.SelectStmt{Op: pg_query.SetOperation_SETOP_NONE,
		TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Name: "relid", Val: regclassOf(fc.Args[0]), Location: -1}}}}}
	if rf.Ordinality {
		sel.TargetList = append(sel.TargetList, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
			Name: "ordinality", Val: pg_query.MakeAConstIntNode(1, -1), Location: -1}}})
	}
	alias := rf.Alias
	if alias == nil {
		alias = &pg_query.Alias{Aliasname: "pg_partition_ancestors"}
	}
	n.Node = &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, Alias: alias}}
}

// optionsTable is pg_options_to_table(a): the option_name and option_value
// of each "name=value" element of a.
const optionsTable = `SELECT split_part(_o.o, '=', 1) AS option_name,
	CASE WHEN strpos(_o.o, '=') > 0 THEN substr(_o.o, strpos(_o.o, '=') + 1) END AS option_value
	FROM unnest(NULL::text[]) AS _o(o)`

// optionsToTable rewrites FROM pg_options_to_table(x) [AS alias] into
// LATERAL (optionsTable over x) AS alias.
func optionsToTable(n *pg_query.Node, rf *pg_query.RangeFunction) {
	if len(rf.Functions) != 1 || rf.Ordinality || rf.IsRowsfrom {
		return
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 {
		return
	}
	fc := items[0].GetFuncCall()
	if fc == nil || len(fc.Args) != 1 {
		return
	}
	if schema, name := funcName(fc); !strings.EqualFold(name, "pg_options_to_table") || schema != "" && schema != "pg_catalog" {
		return
	}
	tree, err := pg_query.Parse(optionsTable)
	if err != nil {
		return
	}
	sel := tree.Stmts[0].Stmt
	un := sel.GetSelectStmt().FromClause[0].GetRangeFunction().Functions[0].GetList().Items[0].GetFuncCall()
	un.Args[0] = fc.Args[0]
	alias := rf.Alias
	if alias == nil {
		alias = &pg_query.Alias{Aliasname: "pg_options_to_table"}
	}
	n.Node = &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{Lateral: true, Subquery: sel, Alias: alias}}
}
