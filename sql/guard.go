package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// The guard: what a client's statement may reach.
//
// Two kinds of code run a client's statement that cannot be recovered from
// a crash, pg_query (C) and DuckDB (C++), and DuckDB has functions that
// read and write server files, reach the network, change its settings and
// read its internals. The guard stands between the client's text and both:
//
//   - Before pg_query parses a string, checkLexicalDepth bounds how deep
//     its tree can be (pg_query's C code recurses once per level and
//     overflows its thread's stack at ~25,000 levels of a left-deep
//     chain such as 1+1+...+1; PostgreSQL itself gives up at ~4,000).
//   - After parsing, guardFunctions renames every call of a function that
//     PostgreSQL 15 does not have (pg_proc, pgcatalog.IsBuiltinFunction)
//     and that this project does not document as its own (OwnFunctions)
//     to a name DuckDB cannot resolve (undefinedFunctionCatalog); the
//     translator reports such a call as PostgreSQL does (42883 with the
//     argument types, or 3F000 for an unknown schema), and if a path ever
//     forgot to, DuckDB fails to bind it and MapError says the same. A
//     DuckDB function therefore never runs because a client named it.
//   - Deparse (what turns a translated tree into DuckDB's text) checks the
//     tree's depth and shape before handing it to pg_query's deparser
//     (checkDeparsable, deparse.go).
//
// Table references need no guard here: every RangeVar is resolved against
// the catalog (from.go) and replaced by the planner's FROM item, so a name
// that is not one of the client's tables (an internal __bsdb_ relation, a
// file path, another database's table) is 42P01 or 0A000.

// maxLexicalDepth bounds checkLexicalDepth's estimate. Below it, pg_query's
// tree is at most ~maxLexicalDepth nodes deep: far from the depth at which
// its C code overflows a stack (measured: ~25,000 in a goroutine's
// thread), and below the 10,000 levels of protobuf nesting at which its
// Go side gives up.
const maxLexicalDepth = 4000

// OwnFunctions are the functions this project documents as its own, which
// PostgreSQL does not have (README, "Security"). None yet.
var OwnFunctions = map[string]bool{}

// undefinedFunctionCatalog is the first name part of a call guardFunctions
// refused: catalog.schema.function, which DuckDB resolves in a catalog of
// that name, and there is none (the engine attaches none by that name).
const undefinedFunctionCatalog = "__bsdb_undefined_function"

// StackDepthError is PostgreSQL's answer to a statement nested too deeply
// (54001, check_stack_depth).
func StackDepthError() *pgerr.Error {
	return pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
		WithHint(`Increase the configuration parameter "max_stack_depth" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.`)
}

// checkLexicalDepth estimates, from the tokens of query alone, how deep its
// parse tree can be, and refuses it (54001) past maxLexicalDepth.
//
// The estimate is an upper bound of the nesting that a chain builds: every
// operator token (+, ::, NOT, IS, BETWEEN, LIKE, IN, COLLATE, AT, UNION,
// JOIN, ...) nests the tree one level deeper than its left operand, so
// within a run of tokens not separated by a comma, AND, OR, WHEN, THEN or
// ELSE (PostgreSQL flattens AND and OR into one node; commas separate
// siblings) the count of operators bounds the chain's depth. Parentheses,
// brackets and CASE ... END open a nested run. The estimate is the largest
// sum, over the open runs, of their operator counts: a chain inside each
// of many nested parentheses adds up. Nesting alone (parentheses,
// subqueries, function calls, ARRAY[[...]]) is bounded by the grammar's
// own stack (10,000 entries: "memory exhausted", 42601, as in PostgreSQL)
// and by the protobuf nesting pg_query's Go side accepts (54001 past it):
// measured, neither lets a tree deep enough for the C code to crash.
func checkLexicalDepth(query string) error {
	if lexicalDepth(query) > maxLexicalDepth {
		return StackDepthError()
	}
	return nil
}

// lexicalDepth is checkLexicalDepth's estimate.
func lexicalDepth(q string) int {
	type run struct {
		ops  int
		kind byte // '(' '[' or 'c' (CASE)
	}
	stack := []run{{kind: '('}}
	sum, max := 1, 1
	op := func() {
		stack[len(stack)-1].ops++
		sum++
		if sum > max {
			max = sum
		}
	}
	push := func(k byte) {
		stack = append(stack, run{kind: k})
	}
	pop := func(k byte) {
		if len(stack) > 1 && (k != 'c' || stack[len(stack)-1].kind == 'c') {
			sum -= stack[len(stack)-1].ops
			stack = stack[:len(stack)-1]
		}
	}
	reset := func() {
		sum -= stack[len(stack)-1].ops
		stack[len(stack)-1].ops = 0
	}
	n := len(q)
	for i := 0; i < n; {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < n && q[i+1] == '-':
			for i < n && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && q[i+1] == '*':
			i = skipBlockComment(q, i)
		case c == '\'':
			i = skipQuoted(q, i, '\'', false)
		case c == '"':
			i = skipQuoted(q, i, '"', false)
		case (c == 'e' || c == 'E') && i+1 < n && q[i+1] == '\'':
			i = skipQuoted(q, i+1, '\'', true)
		case c == '$' && i+1 < n && (q[i+1] == '$' || isIdentStart(q[i+1])):
			i = skipDollar(q, i)
		case c == '(' || c == '[':
			push(c)
			i++
		case c == ')' || c == ']':
			pop('(')
			i++
		case c == ',' || c == ';':
			reset()
			i++
		case c == ':' && i+1 < n && q[i+1] == ':':
			op()
			i += 2
		case isOpChar(c):
			for i < n && isOpChar(q[i]) {
				if q[i] == '-' && i+1 < n && q[i+1] == '-' || q[i] == '/' && i+1 < n && q[i+1] == '*' {
					break
				}
				i++
			}
			op()
		case isIdentStart(c):
			j := i
			for j < n && isIdentCont(q[j]) {
				j++
			}
			switch kw := strings.ToLower(q[i:j]); kw {
			case "case":
				push('c')
			case "end":
				pop('c')
			case "and", "or", "when", "then", "else":
				reset()
			case "not", "is", "isnull", "notnull", "between", "like", "ilike", "similar", "in",
				"collate", "at", "union", "intersect", "except", "join", "overlaps", "escape":
				op()
			}
			i = j
		default:
			i++
		}
	}
	return max
}

func isOpChar(c byte) bool {
	return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentCont(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// skipQuoted returns the index after the quoted token starting at q[i]
// (a doubled quote continues it; with backslashes, \x escapes x).
func skipQuoted(q string, i int, quote byte, backslashes bool) int {
	for i++; i < len(q); i++ {
		switch q[i] {
		case '\\':
			if backslashes {
				i++
			}
		case quote:
			if i+1 < len(q) && q[i+1] == quote {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(q)
}

// skipBlockComment returns the index after the /* comment */ at q[i]
// (PostgreSQL's comments nest).
func skipBlockComment(q string, i int) int {
	depth := 0
	for i < len(q) {
		switch {
		case q[i] == '/' && i+1 < len(q) && q[i+1] == '*':
			depth++
			i += 2
		case q[i] == '*' && i+1 < len(q) && q[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(q)
}

// skipDollar returns the index after a $tag$...$tag$ string at q[i], or
// after the $ if it starts none (a $1 parameter is handled by the caller:
// a digit cannot start a tag).
func skipDollar(q string, i int) int {
	j := i + 1
	for j < len(q) && q[j] != '$' && isIdentCont(q[j]) {
		j++
	}
	if j >= len(q) || q[j] != '$' {
		return i + 1
	}
	tag := q[i : j+1]
	if k := strings.Index(q[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(q)
}

// guardFunctions renames every call in tree of a function that is neither
// PostgreSQL's nor one of OwnFunctions (see the top of this file).
func guardFunctions(tree *pg_query.Node) {
	walkNodes(tree, func(n *pg_query.Node) bool {
		if fc := n.GetFuncCall(); fc != nil && !allowedFunction(fc.Funcname) && !isRefused(fc) {
			fc.Funcname = append([]*pg_query.Node{pg_query.MakeStrNode(undefinedFunctionCatalog)}, fc.Funcname...)
		}
		return true
	})
}

// parseGuarded parses text that is not a client's statement but may hold
// a client's expression (a column default kept in the catalog, written by
// an older version without the guard): bounded and guarded like Parse.
func parseGuarded(text string) (*pg_query.ParseResult, error) {
	if err := checkLexicalDepth(text); err != nil {
		return nil, err
	}
	res, err := pg_query.Parse(text)
	if err != nil {
		return nil, parseError(text, err)
	}
	for _, st := range res.Stmts {
		guardFunctions(st.Stmt)
	}
	return res, nil
}

// CheckExpression reports, for an expression kept to be evaluated later
// (a column default), the error PostgreSQL gives when it is defined: a
// call of a function guardFunctions refused. The innermost call is
// reported, as PostgreSQL resolves arguments first.
func CheckExpression(n *pg_query.Node) error {
	var found *pg_query.FuncCall
	walkNodes(n, func(x *pg_query.Node) bool {
		if fc := x.GetFuncCall(); fc != nil && isRefused(fc) {
			found = fc
		}
		return true
	})
	if found == nil {
		return nil
	}
	tr := newTranslator(nil, nil)
	_, err := tr.funcCall(&pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: found}}, found, &scope{})
	return err
}

// allowedFunction reports whether a client may call the function of this
// (possibly qualified) name: one of PostgreSQL's, unqualified or in
// pg_catalog, one of the information_schema helpers pgcatalog implements,
// or one of OwnFunctions. Names are compared as the parser left them
// (folded to lower case unless quoted), as PostgreSQL compares them.
func allowedFunction(names []*pg_query.Node) bool {
	parts := make([]string, len(names))
	for i, n := range names {
		s := n.GetString_()
		if s == nil {
			return false
		}
		parts[i] = s.Sval
	}
	switch len(parts) {
	case 1:
		return pgcatalog.IsBuiltinFunction(parts[0]) || OwnFunctions[parts[0]]
	case 2:
		switch parts[0] {
		case "pg_catalog":
			return pgcatalog.IsBuiltinFunction(parts[1])
		case "information_schema":
			return strings.HasPrefix(parts[1], "_pg_") && pgcatalog.IsFunction(parts[1])
		}
	}
	return false
}

func isRefused(fc *pg_query.FuncCall) bool {
	_, ok := refusedCall(fc)
	return ok
}

// refusedCall reports whether fc is a call guardFunctions refused, and the
// name parts the client wrote.
func refusedCall(fc *pg_query.FuncCall) ([]string, bool) {
	if len(fc.Funcname) < 2 || fc.Funcname[0].GetString_().GetSval() != undefinedFunctionCatalog {
		return nil, false
	}
	parts := make([]string, 0, len(fc.Funcname)-1)
	for _, n := range fc.Funcname[1:] {
		parts = append(parts, n.GetString_().GetSval())
	}
	return parts, true
}

// undefinedFunction is PostgreSQL's error for a call of a function that
// does not exist (ParseFuncOrColumn): 42883 naming the argument types
// (unknown for an untyped literal); for a name qualified with a schema
// that does not exist, 3F000; three name parts are a cross-database
// reference (0A000), more are 42601.
func undefinedFunction(parts []string, args []typ, argNames []string, loc int32, schemaExists func(string) bool) error {
	switch {
	case len(parts) > 3:
		return withLocation(pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, ".")), loc)
	case len(parts) == 3:
		return withLocation(pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(parts, ".")), loc)
	case len(parts) == 2 && parts[0] != "pg_catalog" && parts[0] != "information_schema" && schemaExists != nil && !schemaExists(parts[0]):
		return withLocation(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", parts[0]), loc)
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = "unknown"
		if a.known() {
			names[i] = pgtypes.FormatType(a.oid, -1)
		}
		if i < len(argNames) && argNames[i] != "" {
			// PostgreSQL's func_signature_string: name => type.
			names[i] = argNames[i] + " => " + names[i]
		}
	}
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = pgQuoteIdent(p)
	}
	e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", strings.Join(quoted, "."), strings.Join(names, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	return withLocation(e, loc)
}

// pgQuoteIdent is PostgreSQL's quote_identifier: the name as is when it is a
// lower-case identifier and no keyword that must be quoted.
func pgQuoteIdent(s string) string {
	return pgtypes.QuoteIdent(s, func(w string) bool {
		r, err := pg_query.Scan(w)
		if err != nil || len(r.Tokens) != 1 {
			return true
		}
		k := r.Tokens[0].KeywordKind
		return k != pg_query.KeywordKind_NO_KEYWORD && k != pg_query.KeywordKind_UNRESERVED_KEYWORD
	})
}
