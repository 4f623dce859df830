package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Deparse turns a tree into SQL text with pg_query's deparser, C code that
// cannot be recovered from a crash: the tree must be one the deparser can
// print. Trees that come from pg_query's parser always are; trees the
// translator rewrote are checked first (checkDeparsable), so that a
// translator bug is an error for one statement, never a dead server.

// maxDeparseDepth bounds the nesting of protobuf messages handed to the
// deparser: its C side (protobuf-c's unpacking, then the deparser)
// recurses once per message and was measured to overflow a goroutine's
// thread stack at ~10,000 levels (5,000 nested operators) and not at
// 8,000. Parse (checkLexicalDepth) keeps client trees far below it; a
// rewrite that adds a few levels per node stays below it too.
const maxDeparseDepth = 6000

// treeVersion is the parse-tree version pg_query.Deparse requires.
var treeVersion = func() int32 {
	res, err := pg_query.Parse("SELECT 1")
	if err != nil {
		panic("BUG: sql: pg_query cannot parse SELECT 1: " + err.Error())
	}
	return res.Version
}()

// Deparse prints a statement tree (a RawStmt's Stmt) as SQL, refusing one
// the deparser cannot handle (54001 when too deep, XX000 when malformed).
func Deparse(n *pg_query.Node) (string, error) {
	if err := checkDeparsable(n); err != nil {
		return "", err
	}
	return pg_query.Deparse(&pg_query.ParseResult{Version: treeVersion, Stmts: []*pg_query.RawStmt{{Stmt: n}}})
}

func deparseNode(n *pg_query.Node) (string, error) {
	n, restore := protectIdentifiers(n)
	text, err := Deparse(n)
	if err != nil {
		return "", err
	}
	return restore(text), nil
}

// checkDeparsable reports whether n is a tree pg_query's deparser can print
// without crashing: not deeper than maxDeparseDepth, no empty or nil node
// where the deparser follows a pointer (an element of a node list, a node
// field that is set), and the operands each node kind requires present
// (requiredOperands). The rules come from what the deparser dereferences
// without a check; TestDeparserSurvivesCheckedTrees feeds it mutated trees
// in a child process to hold them to that.
func checkDeparsable(n *pg_query.Node) error {
	if n == nil || n.GetNode() == nil {
		return malformedTree("empty statement")
	}
	c := deparseChecker{}
	c.message(n.ProtoReflect(), 1)
	if c.tooDeep {
		return StackDepthError()
	}
	if c.bad != "" {
		return malformedTree(c.bad)
	}
	return nil
}

func malformedTree(what string) error {
	return pgerr.New(pgerr.InternalError, "BUG: the rewritten statement cannot be printed: %s", what)
}

type deparseChecker struct {
	tooDeep bool
	bad     string
}

var nodeDescriptor = (&pg_query.Node{}).ProtoReflect().Descriptor()

// emptyElements are the lists in which PostgreSQL's parser itself leaves
// NULL elements, which the deparser expects (found by parsing PostgreSQL's
// regression suite): DISTINCT without ON is a list of one NULL; a function
// in FROM is a List of the call and its column definitions or NULL
// (listOfRangeFunction).
var emptyElements = map[string]bool{
	"SelectStmt.distinct_clause": true, "DefineStmt.args": true, "ObjectWithArgs.objargs": true,
}

// message checks m, depth levels deep. nullItems: m is a List whose
// elements may be empty nodes (a RangeFunction's function pair).
func (c *deparseChecker) message(m protoreflect.Message, depth int, nullItems ...bool) {
	if c.tooDeep || c.bad != "" {
		return
	}
	if depth > maxDeparseDepth {
		c.tooDeep = true
		return
	}
	if m.Descriptor() == nodeDescriptor {
		od := m.Descriptor().Oneofs().ByName("node")
		f := m.WhichOneof(od)
		if f == nil {
			c.bad = "an empty node"
			return
		}
		inner := m.Get(f).Message()
		if why := requiredOperands(inner.Interface()); why != "" {
			c.bad = why
			return
		}
		c.message(inner, depth+1, nullItems...)
		return
	}
	parent := string(m.Descriptor().Name())
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			field := parent + "." + string(fd.Name())
			emptyOK := emptyElements[field] || field == "List.items" && len(nullItems) > 0 && nullItems[0]
			pairs := field == "RangeFunction.functions"
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				e := l.Get(i).Message()
				if n, ok := e.Interface().(*pg_query.Node); ok && (n == nil || n.GetNode() == nil) {
					if emptyOK {
						continue
					}
					c.bad = "a missing element in " + field
					return false
				}
				c.message(e, depth+1, pairs)
			}
			return c.bad == "" && !c.tooDeep
		}
		c.message(v.Message(), depth+1)
		return c.bad == "" && !c.tooDeep
	})
}

// requiredOperands names what is missing from a node whose deparser
// follows the pointer unchecked, or "".
func requiredOperands(m any) string {
	switch v := m.(type) {
	case *pg_query.A_Expr:
		if len(v.Name) == 0 {
			return "an operator without a name"
		}
		if v.Rexpr == nil {
			return "an operator without a right operand"
		}
		if v.Lexpr == nil && v.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
			return "an operator without a left operand"
		}
	case *pg_query.FuncCall:
		if len(v.Funcname) == 0 {
			return "a function call without a name"
		}
	case *pg_query.TypeCast:
		if v.Arg == nil || v.TypeName == nil {
			return "a cast without an operand or a type"
		}
	case *pg_query.TypeName:
		if len(v.Names) == 0 {
			return "a type without a name"
		}
	case *pg_query.ColumnRef:
		if len(v.Fields) == 0 {
			return "a column reference without a name"
		}
	case *pg_query.ResTarget:
		if v.Val == nil && v.Name == "" {
			return "an empty select-list item"
		}
	case *pg_query.SubLink:
		if v.Subselect == nil {
			return "a subquery without a query"
		}
	case *pg_query.BoolExpr:
		if len(v.Args) == 0 {
			return "a boolean expression without operands"
		}
	case *pg_query.CaseWhen:
		if v.Expr == nil || v.Result == nil {
			return "a CASE branch without a condition or a result"
		}
	case *pg_query.CaseExpr:
		if len(v.Args) == 0 {
			return "a CASE without a branch"
		}
	case *pg_query.NullTest:
		if v.Arg == nil {
			return "IS NULL without an operand"
		}
	case *pg_query.BooleanTest:
		if v.Arg == nil {
			return "IS TRUE without an operand"
		}
	case *pg_query.A_Indirection:
		if v.Arg == nil {
			return "a subscript without an operand"
		}
	case *pg_query.SortBy:
		if v.Node == nil {
			return "a sort key without an expression"
		}
	case *pg_query.JoinExpr:
		if v.Larg == nil || v.Rarg == nil {
			return "a join without two sides"
		}
	case *pg_query.RangeSubselect:
		if v.Subquery == nil {
			return "a subquery in FROM without a query"
		}
	case *pg_query.RangeVar:
		if v.Relname == "" {
			return "a table reference without a name"
		}
	case *pg_query.CommonTableExpr:
		if v.Ctequery == nil {
			return "a WITH query without a query"
		}
	case *pg_query.SelectStmt:
		if v.Op != pg_query.SetOperation_SETOP_NONE && v.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED && (v.Larg == nil || v.Rarg == nil) {
			return "a set operation without two sides"
		}
	case *pg_query.CoalesceExpr:
		if len(v.Args) == 0 {
			return "COALESCE without arguments"
		}
	case *pg_query.MinMaxExpr:
		if len(v.Args) == 0 {
			return "GREATEST/LEAST without arguments"
		}
	case *pg_query.NamedArgExpr:
		if v.Arg == nil {
			return "a named argument without a value"
		}
	case *pg_query.CollateClause:
		if len(v.Collname) == 0 {
			return "COLLATE without a collation"
		}
	case *pg_query.JsonObjectAgg, *pg_query.CreateForeignTableStmt:
		// Measured: the deparser crashes on these when their fields are
		// empty; neither is PostgreSQL 15 syntax that we print (JSON_OBJECTAGG
		// is PostgreSQL 16's, CREATE FOREIGN TABLE is never translated).
		return "an unsupported node"
	}
	return ""
}
