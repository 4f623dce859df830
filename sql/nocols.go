package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// useNoColumns substitutes the tables' column-less FROM items when the
// statement n references no column anywhere: no column reference, no *,
// no NATURAL join or USING list (they match columns by name). Then only
// the tables' row counts matter, and DuckDB answers count(*) from Parquet
// metadata instead of reading every column through the UNION ALL of a
// table's files and buffered rows. Whether the statement reads columns is
// decided on the statement as written (tr.noColumns, before any table is
// looked up: a RowsCatalog then binds tables without FromSQL) and checked
// again on the rewritten tree.
func (tr *translator) useNoColumns(n *pg_query.Node) error {
	if !tr.noColumns {
		return nil // the statement as written reads columns: full relations
	}
	some := false
	for _, s := range tr.substNoCols {
		some = some || s != ""
	}
	if !some {
		return nil
	}
	if readsColumns(n.ProtoReflect()) {
		// A rewrite added a column reference: only tables bound with
		// their columns may stay.
		for _, s := range tr.subst {
			if s == "" {
				return pgerr.New(pgerr.InternalError, "BUG: a table bound without columns in a statement that reads columns")
			}
		}
		return nil
	}
	for i, s := range tr.substNoCols {
		if s != "" {
			tr.subst[i] = s
		}
	}
	return nil
}

// readsColumns reports whether the tree under m refers to a column.
func readsColumns(m protoreflect.Message) bool {
	switch v := m.Interface().(type) {
	case *pg_query.ColumnRef, *pg_query.A_Star:
		return true
	case *pg_query.JoinExpr:
		if v.IsNatural || len(v.UsingClause) > 0 {
			return true
		}
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && !found; i++ {
				found = readsColumns(l.Get(i).Message())
			}
		} else {
			found = readsColumns(v.Message())
		}
		return !found
	})
	return found
}
