package server

import (
	"context"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// COMMENT ON TABLE / VIEW / COLUMN / INDEX.
//
// A comment is kept in the catalog entry of its table or view (the
// column's and the index's too) and shown where PostgreSQL shows it:
// pg_description, obj_description, col_description, psql's \d+ and \dt+,
// the drivers' metadata (JDBC's REMARKS), pg_dump. IS NULL or IS ''
// removes it. Comments on other kinds of objects are refused (0A000).

// planComment plans COMMENT ON; ok is false for any other statement.
func (s *session) planComment(st *bsql.Statement) (p plan, ok bool, err error) {
	cs := st.Tree.GetCommentStmt()
	if cs == nil {
		return nil, false, nil
	}
	switch cs.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_VIEW, pg_query.ObjectType_OBJECT_COLUMN, pg_query.ObjectType_OBJECT_INDEX:
	default:
		kind := strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(cs.Objtype.String(), "OBJECT_"), "_", " "))
		return nil, true, pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported", kind)
	}
	if err := s.ddlAllowed("COMMENT"); err != nil {
		return nil, true, err
	}
	return tagOnly("COMMENT", func(ctx context.Context) error { return s.comment(ctx, cs) }), true, nil
}

func (s *session) comment(ctx context.Context, cs *pg_query.CommentStmt) error {
	var names []string
	for _, n := range cs.Object.GetList().GetItems() {
		names = append(names, n.GetString_().GetSval())
	}
	column := ""
	if cs.Objtype == pg_query.ObjectType_OBJECT_COLUMN {
		if len(names) < 2 {
			return pgerr.New(pgerr.SyntaxError, "column name must be qualified")
		}
		column, names = names[len(names)-1], names[:len(names)-1]
	}
	if len(names) == 3 {
		if names[0] != s.db {
			return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
		}
		names = names[1:]
	}
	if len(names) > 2 || len(names) == 0 {
		return pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(names, "."))
	}
	rv := &pg_query.RangeVar{Relname: names[len(names)-1]}
	if len(names) == 2 {
		rv.Schemaname = names[0]
	}
	text := cs.Comment
	if cs.Objtype == pg_query.ObjectType_OBJECT_INDEX {
		return s.commentIndex(ctx, rv, text)
	}
	wantView := cs.Objtype == pg_query.ObjectType_OBJECT_VIEW
	// The session's temporary relations first, as the search path has them.
	if t := s.tempTable(rv.Schemaname, rv.Relname); t != nil {
		if wantView {
			return pgerr.New("42809", "\"%s\" is not a view", rv.Relname)
		}
		if column != "" && t.Schema.Index(column) < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, rv.Relname)
		}
		setComment(&t.Entry, column, text)
		return nil
	}
	if v := s.tempView(rv.Schemaname, rv.Relname); v != nil {
		if cs.Objtype == pg_query.ObjectType_OBJECT_TABLE {
			return pgerr.New("42809", "\"%s\" is not a table", rv.Relname)
		}
		if column != "" && !viewHasColumn(v, column) {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, rv.Relname)
		}
		setComment(v, column, text)
		return nil
	}
	id, a, o, err := s.lookupExisting(ctx, rv)
	if err != nil {
		return err
	}
	isView := o.view != nil
	switch {
	case cs.Objtype == pg_query.ObjectType_OBJECT_TABLE && isView:
		return pgerr.New("42809", "\"%s\" is not a table", rv.Relname)
	case wantView && !isView:
		return pgerr.New("42809", "\"%s\" is not a view", rv.Relname)
	}
	if err := s.requireTableOwner(ctx, a, id, false); err != nil {
		return err
	}
	if column != "" {
		found := false
		if isView {
			e, err := s.eng.Catalog().Table(ctx, id)
			if err != nil {
				return err
			}
			found = viewHasColumn(e, column)
		} else {
			t, err := s.eng.Table(ctx, id)
			if err != nil {
				return err
			}
			found = t.Schema.Index(column) >= 0
		}
		if !found {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, rv.Relname)
		}
	}
	return s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
		setComment(e, column, text)
		return nil
	})
}

// setComment sets (or with "" removes) the comment of e or of its column.
func setComment(e *catalog.Entry, column, text string) {
	if column == "" {
		e.Comment = text
		return
	}
	if text == "" {
		delete(e.ColumnComments, column)
		return
	}
	if e.ColumnComments == nil {
		e.ColumnComments = map[string]string{}
	}
	e.ColumnComments[column] = text
}

func viewHasColumn(e *catalog.Entry, column string) bool {
	if e.View == nil {
		return false
	}
	for _, c := range e.View.Columns {
		if c.Name == column {
			return true
		}
	}
	return false
}

// commentIndex sets the comment of an index (a temporary table's first).
func (s *session) commentIndex(ctx context.Context, rv *pg_query.RangeVar, text string) error {
	ref, err := s.lookupIndex(ctx, rv)
	switch {
	case err != nil:
		return err
	case ref == nil:
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
	case ref.temp != nil:
		ref.temp.Comment = text
		return nil
	case ref.pkey:
		return pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON a primary key's index is not supported")
	}
	if err := s.requireTableOwner(ctx, ref.a, ref.id, false); err != nil {
		return err
	}
	return s.b.sec.updateTable(ctx, ref.id, func(e *catalog.Entry) error {
		if x := e.IndexNamed(rv.Relname); x != nil {
			x.Comment = text
		}
		return nil
	})
}
