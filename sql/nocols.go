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
// table's files and buffered rows. A table looked up with RowsCatalog
// (tr.noColumns: decided on the statement as written) has no FromSQL: if
// the rewritten statement reads a column after all, that is a bug.
func (tr *translator) useNoColumns(n *pg_query.Node) error {
	some, missing := false, false
	for i, s := range tr.substNoCols {
		some = some || s != ""
		missing = missing || tr.subst[i] == ""
	}
	if !some {
		return nil
	}
	if readsColumns(n.ProtoReflect()) {
		if missing {
			return pgerr.New(pgerr.InternalError, "BUG: a table bound without columns in a statement that reads columns")
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
