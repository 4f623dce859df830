package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// duckKeywords are DuckDB's keywords that are not "unreserved" (from
// duckdb_keywords() of DuckDB 1.5): an identifier spelled like one must be
// quoted for DuckDB even where PostgreSQL's deparser leaves it bare (e.g. a
// column named "at" or "map").
var duckKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`all analyse analyze and anti any array as asc asof asymmetric at
		authorization between bigint binary bit boolean both by case cast char character check coalesce
		collate collation column columns concurrently constraint create cross dec decimal default deferrable
		desc describe distinct do else end except exists extract false fetch float for foreign freeze from
		full generated glob group grouping grouping_id having ilike in initially inner inout int integer
		intersect interval into is isnull join lambda lateral leading left like limit map national natural
		nchar none not notnull null nullif numeric offset on only or order out outer overlaps overlay pivot
		pivot_longer pivot_wider placing position positional precision primary qualify real references
		returning right row select semi setof show similar smallint some struct substring summarize symmetric
		table tablesample then time timestamp to trailing treat trim true try_cast union unique unpack
		unpivot using values varchar variadic verbose when where window with`) {
		m[k] = true
	}
	return m
}()

const identPlaceholderPrefix = "__bsdb_id_"

// protectIdentifiers returns a copy of n in which identifiers that DuckDB
// would read as keywords are replaced by placeholders, and a function that
// turns the deparsed text back into DuckDB SQL with those identifiers quoted.
func protectIdentifiers(n *pg_query.Node) (*pg_query.Node, func(string) string) {
	var names []string
	index := map[string]int{}
	protect := func(s *string) {
		if !duckKeywords[*s] {
			return
		}
		i, ok := index[*s]
		if !ok {
			i = len(names)
			index[*s] = i
			names = append(names, *s)
		}
		*s = fmt.Sprintf("%s%d__", identPlaceholderPrefix, i)
	}
	protectAlias := func(a *pg_query.Alias) {
		if a == nil {
			return
		}
		protect(&a.Aliasname)
		for _, c := range a.Colnames {
			if s := c.GetString_(); s != nil {
				protect(&s.Sval)
			}
		}
	}
	c := proto.Clone(n).(*pg_query.Node)
	walkNodes(c, func(x *pg_query.Node) bool {
		switch {
		case x.GetColumnRef() != nil:
			for _, f := range x.GetColumnRef().Fields {
				if s := f.GetString_(); s != nil {
					protect(&s.Sval)
				}
			}
		case x.GetResTarget() != nil:
			protect(&x.GetResTarget().Name)
		case x.GetRangeVar() != nil:
			protectAlias(x.GetRangeVar().Alias)
		case x.GetRangeSubselect() != nil:
			protectAlias(x.GetRangeSubselect().Alias)
		case x.GetRangeFunction() != nil:
			protectAlias(x.GetRangeFunction().Alias)
		case x.GetJoinExpr() != nil:
			protectAlias(x.GetJoinExpr().Alias)
		case x.GetCommonTableExpr() != nil:
			cte := x.GetCommonTableExpr()
			protect(&cte.Ctename)
			for _, cn := range cte.Aliascolnames {
				if s := cn.GetString_(); s != nil {
					protect(&s.Sval)
				}
			}
		}
		return true
	})
	if len(names) == 0 {
		return n, func(s string) string { return s }
	}
	pairs := make([]string, 0, 2*len(names))
	for i, name := range names {
		ph := fmt.Sprintf("%s%d__", identPlaceholderPrefix, i)
		// The deparser may or may not quote the placeholder; cover both.
		pairs = append(pairs, `"`+ph+`"`, `"`+name+`"`, ph, `"`+name+`"`)
	}
	r := strings.NewReplacer(pairs...)
	return c, r.Replace
}
