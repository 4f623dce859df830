package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bsdb/bsdb-pg/planner"
)

// EXPLAIN: the engine's plan, shown as PostgreSQL shows one.
//
// DuckDB's own rendering named the engine's relations (memory.main.
// __bsdb_buf_16385), its internal functions and, for committed files, the
// function reading them. A client sees PostgreSQL only, so the plan is
// taken as JSON and rendered in the shape of PostgreSQL's text format with
// COSTS OFF: one line per node ("Seq Scan on t", "HashAggregate", "Hash
// Join"), "->" for children, and the node's keys (Filter, Hash Cond, Group
// Key, Sort Key) where the engine gives them in a form that names only the
// query's own columns. EXPLAIN ANALYZE adds "(actual time=... rows=N
// loops=1)" and the execution time. Node names and keys are DuckDB's
// choices translated, not PostgreSQL's planner: the plan is the one that
// runs here.

// explainNode is one node of DuckDB's JSON plan (EXPLAIN and EXPLAIN
// ANALYZE use different field names for the operator).
type explainNode struct {
	Name         string          `json:"name"`
	OperatorName string          `json:"operator_name"`
	OperatorType string          `json:"operator_type"`
	Children     []*explainNode  `json:"children"`
	ExtraInfo    json.RawMessage `json:"extra_info"`
	Timing       float64         `json:"operator_timing"`
	Cardinality  *int64          `json:"operator_cardinality"`
	Latency      float64         `json:"latency"`

	info map[string][]string // ExtraInfo, values as lists
}

func (n *explainNode) op() string {
	switch {
	case n.Name != "":
		return n.Name
	case n.OperatorType != "":
		return n.OperatorType
	}
	return n.OperatorName
}

func (n *explainNode) decode() {
	n.info = map[string][]string{}
	var raw map[string]json.RawMessage
	if json.Unmarshal(n.ExtraInfo, &raw) == nil {
		for k, v := range raw {
			var s string
			var l []string
			switch {
			case json.Unmarshal(v, &s) == nil:
				n.info[k] = []string{s}
			case json.Unmarshal(v, &l) == nil:
				n.info[k] = l
			}
		}
	}
	for _, c := range n.Children {
		c.decode()
	}
}

// explainRenderer renders one plan. tables maps the engine's relation
// names of the statement's tables (buffer mirrors, native cache) to the
// names the client wrote.
type explainRenderer struct {
	tables  map[string]string
	only    string // the statement's one table, if it reads exactly one
	analyze bool
	lines   []string
}

func newExplainRenderer(tables []*planner.Table, analyze bool) *explainRenderer {
	r := &explainRenderer{tables: map[string]string{}, analyze: analyze}
	seen := map[string]bool{}
	for _, t := range tables {
		name := t.ID.Name
		if t.ID.Schema != "public" {
			name = t.ID.Schema + "." + name
		}
		r.tables[fmt.Sprintf("__bsdb_buf_%d", t.Entry.OID)] = name
		r.tables[planner.CacheTableName(t)] = name
		seen[name] = true
	}
	if len(seen) == 1 {
		for n := range seen {
			r.only = n
		}
	}
	return r
}

// render parses DuckDB's JSON plan (the text of EXPLAIN (FORMAT JSON)'s
// last column) and returns the lines of the plan.
func (r *explainRenderer) render(planJSON string) ([]string, error) {
	var roots []*explainNode
	if err := json.Unmarshal([]byte(planJSON), &roots); err != nil {
		var one explainNode
		if err2 := json.Unmarshal([]byte(planJSON), &one); err2 != nil {
			return nil, fmt.Errorf("EXPLAIN: the engine's plan: %w", err)
		}
		roots = []*explainNode{&one}
	}
	total := 0.0
	for _, root := range roots {
		root.decode()
		total += root.Latency
		for _, n := range r.skip(root) {
			r.node(n, 0, "")
		}
	}
	if r.analyze {
		r.lines = append(r.lines, fmt.Sprintf("Execution Time: %.3f ms", total*1000))
	}
	return r.lines, nil
}

// skip returns the nodes that stand for n: n itself, or, for nodes
// PostgreSQL's plans do not show (projections, the analyze wrapper, the
// query root), their children.
func (r *explainRenderer) skip(n *explainNode) []*explainNode {
	switch n.op() {
	case "PROJECTION", "EXPLAIN_ANALYZE", "Query", "RESULT_COLLECTOR", "":
		var out []*explainNode
		for _, c := range n.Children {
			out = append(out, r.skip(c)...)
		}
		return out
	}
	return []*explainNode{n}
}

// node renders n at depth (0 = the root): PostgreSQL indents a child by
// 6 more spaces than its parent's details and prefixes it with "->  ".
func (r *explainRenderer) node(n *explainNode, depth int, sibling string) {
	title, keys, children := r.describe(n, sibling)
	indent := ""
	detail := "  "
	if depth > 0 {
		indent = strings.Repeat(" ", 6*(depth-1)+2) + "->  "
		detail = strings.Repeat(" ", 6*depth+2)
	}
	if r.analyze && n.Cardinality != nil {
		title += fmt.Sprintf("  (actual time=0.000..%.3f rows=%d loops=1)", n.Timing*1000, *n.Cardinality)
	}
	r.lines = append(r.lines, indent+title)
	for _, k := range keys {
		r.lines = append(r.lines, detail+k)
	}
	// The table a READ_PARQUET among these children reads: the one its
	// siblings (the same table's buffer and cache) name.
	sib := ""
	for _, c := range children {
		if t := r.scanTable(c); t != "" {
			sib = t
		}
	}
	for _, c := range children {
		for _, s := range r.skip(c) {
			r.node(s, depth+1, sib)
		}
	}
}

// scanTable is the client's name of the table a scan node reads, or "".
func (r *explainRenderer) scanTable(n *explainNode) string {
	for _, s := range r.skip(n) {
		if t := s.info["Table"]; len(t) == 1 {
			name := t[0]
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			if v, ok := r.tables[strings.Trim(name, `"`)]; ok {
				return v
			}
		}
	}
	return ""
}

// describe maps one engine operator to PostgreSQL's node title, its keys,
// and the children to render under it.
func (r *explainRenderer) describe(n *explainNode, sibling string) (string, []string, []*explainNode) {
	children := n.Children
	var keys []string
	key := func(label string, exprs []string, join string) {
		if s := r.exprs(exprs, join); s != "" {
			keys = append(keys, label+": "+s)
		}
	}
	switch op := n.op(); op {
	case "SEQ_SCAN", "TABLE_SCAN", "READ_PARQUET", "PARQUET_SCAN":
		fn := ""
		if f := n.info["Function"]; len(f) == 1 {
			fn = strings.ToLower(f[0])
		}
		name := r.scanTable(n)
		switch {
		case name != "":
		case fn == "read_parquet" || op == "READ_PARQUET" || op == "PARQUET_SCAN":
			name = sibling
			if name == "" {
				name = r.only
			}
		case fn != "" && fn != "seq_scan":
			if fn == "range" || fn == "generate_series" {
				fn = "generate_series"
			} else if internalName.MatchString(fn) {
				fn = "function"
			}
			key("Filter", n.info["Filters"], " AND ")
			return "Function Scan on " + fn, keys, nil
		}
		key("Filter", n.info["Filters"], " AND ")
		if name == "" {
			return "Seq Scan", keys, nil
		}
		return "Seq Scan on " + name, keys, nil
	case "FILTER":
		key("Filter", n.info["Expression"], " AND ")
		return "Result", keys, children
	case "HASH_GROUP_BY", "PERFECT_HASH_GROUP_BY", "PARTITIONED_AGGREGATE":
		key("Group Key", n.info["Groups"], ", ")
		return "HashAggregate", keys, children
	case "UNGROUPED_AGGREGATE", "SIMPLE_AGGREGATE":
		return "Aggregate", nil, children
	case "WINDOW", "STREAMING_WINDOW":
		return "WindowAgg", nil, children
	case "ORDER_BY":
		key("Sort Key", n.info["Order By"], ", ")
		return "Sort", keys, children
	case "TOP_N":
		sort := &explainNode{Name: "ORDER_BY", Children: children, info: map[string][]string{"Order By": n.info["Order By"]}}
		return "Limit", nil, []*explainNode{sort}
	case "LIMIT", "STREAMING_LIMIT", "LIMIT_PERCENT":
		return "Limit", nil, children
	case "HASH_JOIN":
		key("Hash Cond", n.info["Conditions"], " AND ")
		if len(children) == 2 {
			hash := &explainNode{Name: "HASH", Children: children[1:], info: map[string][]string{}}
			children = []*explainNode{children[0], hash}
		}
		return joinTitle("Hash", n.info["Join Type"]), keys, children
	case "HASH":
		return "Hash", nil, children
	case "NESTED_LOOP_JOIN", "BLOCKWISE_NL_JOIN", "CROSS_PRODUCT", "DELIM_JOIN", "LEFT_DELIM_JOIN", "RIGHT_DELIM_JOIN", "POSITIONAL_JOIN":
		key("Join Filter", n.info["Conditions"], " AND ")
		return joinTitle("Nested Loop", n.info["Join Type"]), keys, children
	case "PIECEWISE_MERGE_JOIN", "IE_JOIN", "ASOF_JOIN":
		key("Merge Cond", n.info["Conditions"], " AND ")
		return joinTitle("Merge", n.info["Join Type"]), keys, children
	case "UNION":
		return "Append", nil, children
	case "GENERATE_SERIES", "RANGE":
		return "Function Scan on generate_series", nil, nil
	case "DUMMY_SCAN":
		return "Result", nil, nil
	case "EMPTY_RESULT":
		return "Result", []string{"One-Time Filter: false"}, nil
	case "COLUMN_DATA_SCAN", "CHUNK_SCAN", "EXPRESSION_SCAN":
		return `Values Scan on "*VALUES*"`, nil, nil
	case "CTE", "MATERIALIZED_CTE":
		return "CTE", nil, children
	case "CTE_SCAN", "RECURSIVE_CTE_SCAN":
		return "CTE Scan", nil, nil
	case "RECURSIVE_CTE":
		return "Recursive Union", nil, children
	case "HASH_DISTINCT", "DISTINCT":
		return "Unique", nil, children
	case "UNNEST":
		return "ProjectSet", nil, children
	case "STREAMING_SAMPLE", "RESERVOIR_SAMPLE":
		return "Sample Scan", nil, children
	default:
		// Another operator: its name in PostgreSQL's title case.
		words := strings.Split(strings.ToLower(op), "_")
		for i, w := range words {
			if w != "" {
				words[i] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		return strings.Join(words, " "), nil, children
	}
}

func joinTitle(kind string, joinType []string) string {
	jt := ""
	if len(joinType) == 1 {
		jt = strings.ToUpper(joinType[0])
	}
	switch jt {
	case "LEFT":
		return kind + " Left Join"
	case "RIGHT":
		return kind + " Right Join"
	case "OUTER", "FULL":
		return kind + " Full Join"
	case "SEMI":
		return kind + " Semi Join"
	case "ANTI":
		return kind + " Anti Join"
	}
	if kind == "Nested Loop" {
		return kind
	}
	return kind + " Join"
}

// internalName finds what a plan expression must not show: the engine's
// internal functions, relations and columns, and positional references.
var internalName = regexp.MustCompile(`__bsdb|__internal|#\d|\bmemory\.|bsdb_cache|\bbsdb_`)

// exprs joins the engine's expression strings of a key, or returns "" if
// any of them names something internal (the key is then left out rather
// than shown in part).
func (r *explainRenderer) exprs(list []string, join string) string {
	var out []string
	for _, e := range list {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if internalName.MatchString(e) {
			return ""
		}
		out = append(out, parenthesize(e))
	}
	return strings.Join(out, join)
}

// parenthesize wraps a comparison in parentheses as PostgreSQL prints its
// conditions: (a > 3).
func parenthesize(e string) string {
	if strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") {
		return e
	}
	for _, op := range []string{">=", "<=", "!=", "<>", "=", ">", "<"} {
		if i := strings.Index(e, op); i > 0 {
			l, rhs := strings.TrimSpace(e[:i]), strings.TrimSpace(e[i+len(op):])
			if _, err := strconv.ParseFloat(l, 64); err == nil || l == "" || rhs == "" {
				return e
			}
			return "(" + l + " " + op + " " + rhs + ")"
		}
	}
	return e
}
