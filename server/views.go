package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// Views (CREATE [OR REPLACE] VIEW, DROP VIEW) are catalog entries of kind
// "v" next to the tables (catalog.CreateView): their query text with every
// relation qualified, their columns, and the relations they read. The
// translator expands a view where a query names it (bsql.ViewCatalog,
// implemented by the binder): the view's SELECT privilege is checked for
// the session's role, the relations its query reads for the view owner's.
// DROP TABLE / DROP VIEW of a relation a view reads is refused without
// CASCADE (2BP01), as PostgreSQL's dependency tracking does.

var _ bsql.ViewCatalog = (*binder)(nil)

// role is the role whose privileges the relation being bound is checked
// with: the owner of the innermost view being expanded, else the
// session's current role.
func (b *binder) role() uint32 {
	if n := len(b.viewOwners); n > 0 {
		return b.viewOwners[n-1]
	}
	return b.s.currentRole
}

// LookupView implements bsql.ViewCatalog.
func (b *binder) LookupView(schemaName, name string) (*bsql.ViewInfo, error) {
	if e := b.s.tempView(schemaName, name); e != nil {
		return viewInfo(e), nil
	}
	if b.s.tempTable(schemaName, name) != nil || b.s.isTempSchema(schemaName) {
		return nil, nil // a temporary table hides the search path (temp.go)
	}
	id, a, err := b.s.lookupTableAs(b.ctx, b.role(), schemaName, name)
	if err != nil {
		return nil, err
	}
	if b.s.eng.IsOpen(id) {
		return nil, nil // an open table
	}
	o, err := b.s.b.sec.table(b.ctx, id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	if o.view == nil {
		return nil, nil
	}
	if !b.describeOnly && !a.super() && acl.ObjectMask(acl.Table, o.acl, o.owner, a.role, acl.Select, a.m) != acl.Select {
		return nil, errPermission("view", id.Name)
	}
	return viewInfo(&catalog.Entry{ID: id, Owner: o.owner, View: o.view}), nil
}

func viewInfo(e *catalog.Entry) *bsql.ViewInfo {
	v := &bsql.ViewInfo{Schema: e.ID.Schema, Name: e.ID.Name, Query: e.View.Query, Owner: e.Owner}
	for _, c := range e.View.Columns {
		v.Columns = append(v.Columns, bsql.ColumnInfo{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod})
	}
	return v
}

// EnterView implements bsql.ViewCatalog.
func (b *binder) EnterView(v *bsql.ViewInfo) { b.viewOwners = append(b.viewOwners, v.Owner) }

// LeaveView implements bsql.ViewCatalog.
func (b *binder) LeaveView(*bsql.ViewInfo) {
	if n := len(b.viewOwners); n > 0 {
		b.viewOwners = b.viewOwners[:n-1]
	}
}

// isView reports whether a relation name means a view (for COPY, which
// PostgreSQL refuses on views).
func (s *session) isView(ctx context.Context, schemaName, name string) bool {
	if s.tempView(schemaName, name) != nil {
		return true
	}
	if s.tempTable(schemaName, name) != nil {
		return false
	}
	id, _, err := s.lookupTable(ctx, schemaName, name)
	if err != nil || s.eng.IsOpen(id) {
		return false
	}
	o, err := s.b.sec.table(ctx, id)
	return err == nil && o.view != nil
}

// errViewTarget is the error for writing into a view: PostgreSQL's for a
// view that is not automatically updatable (this server updates none).
func errViewTarget(name string, want acl.Mode) error {
	if want&acl.Truncate != 0 {
		return pgerr.New("42809", "\"%s\" is not a table", name)
	}
	e := pgerr.New(pgerr.FeatureNotSupported, "cannot insert into view \"%s\"", name).
		WithDetail("Views are not automatically updatable in this server.")
	e.NoPosition = true // the rewriter's error, as in PostgreSQL
	return e
}

// planRelationDDL plans CREATE VIEW, DROP VIEW, CREATE TABLE AS and
// SELECT INTO; ok is false for any other statement.
func (s *session) planRelationDDL(ctx context.Context, st *bsql.Statement) (p plan, ok bool, err error) {
	switch n := st.Tree.GetNode().(type) {
	case *pg_query.Node_ViewStmt:
		p, err = s.planCreateView(ctx, n.ViewStmt)
		return p, true, err
	case *pg_query.Node_DropStmt:
		if n.DropStmt.RemoveType == pg_query.ObjectType_OBJECT_VIEW {
			p, err = s.planDropRelations(ctx, n.DropStmt, true)
			return p, true, err
		}
	case *pg_query.Node_CreateTableAsStmt:
		if n.CreateTableAsStmt.Objtype == pg_query.ObjectType_OBJECT_TABLE && n.CreateTableAsStmt.Query.GetSelectStmt() != nil {
			p, err = s.planCreateTableAs(ctx, st, n.CreateTableAsStmt.Query, n.CreateTableAsStmt.Into, n.CreateTableAsStmt.IfNotExists, "CREATE TABLE AS")
			return p, true, err
		}
	case *pg_query.Node_SelectStmt:
		if into := n.SelectStmt.IntoClause; into != nil {
			q := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: cloneSelect(n.SelectStmt)}}
			q.GetSelectStmt().IntoClause = nil
			p, err = s.planCreateTableAs(ctx, st, q, into, false, "SELECT INTO")
			return p, true, err
		}
	}
	return nil, false, nil
}

func cloneSelect(s *pg_query.SelectStmt) *pg_query.SelectStmt {
	return proto.Clone(s).(*pg_query.SelectStmt)
}

// creationID is where CREATE puts an unqualified name: the first schema of
// the search path that exists and the role may use (PostgreSQL's creation
// namespace); 3F000 "no schema has been selected to create in" if none.
func (s *session) creationID(ctx context.Context, a *authz, schemaName, name string) (catalog.TableID, error) {
	if schemaName != "" {
		if !a.super() {
			if err := s.requireSchema(ctx, a, schemaName, acl.Usage); err != nil {
				return catalog.TableID{}, err
			}
		}
		return catalog.TableID{Database: s.db, Schema: schemaName, Name: name}, nil
	}
	path, err := s.searchPathFor(ctx, a)
	if err != nil {
		return catalog.TableID{}, err
	}
	for _, sc := range path {
		if _, err := s.b.sec.schema(ctx, s.db, sc); err == nil {
			return catalog.TableID{Database: s.db, Schema: sc, Name: name}, nil
		}
	}
	return catalog.TableID{}, pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
}

// queryColumns translates a query (for CREATE VIEW / CREATE TABLE AS) and
// returns its columns with PostgreSQL's types, and the translation.
func (s *session) queryColumns(ctx context.Context, query *pg_query.Node) ([]resultCol, *bsql.ViewQuery, error) {
	b := &binder{s: s, ctx: ctx}
	defer b.release()
	vq, err := bsql.TranslateView(query, b)
	if err != nil {
		return nil, nil, err
	}
	p := &selectPlan{s: s, q: vq.Query, b: b}
	if err := p.describe(ctx, nil); err != nil {
		return nil, nil, err
	}
	return p.cols, vq, nil
}

func (s *session) planCreateView(ctx context.Context, vs *pg_query.ViewStmt) (plan, error) {
	rv := vs.View
	switch {
	case rv.Relpersistence == "u":
		return nil, pgerr.New(pgerr.SyntaxError, "views cannot be unlogged because they do not have storage")
	case rv.Catalogname != "" && rv.Catalogname != s.db:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	case vs.Query.GetSelectStmt() == nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "views must be defined by a SELECT")
	case vs.Query.GetSelectStmt().IntoClause != nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "views must not contain SELECT INTO")
	case vs.WithCheckOption != pg_query.ViewCheckOption_NO_CHECK_OPTION && vs.WithCheckOption != pg_query.ViewCheckOption_VIEW_CHECK_OPTION_UNDEFINED:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views")
	}
	if err := s.ddlAllowed("CREATE VIEW"); err != nil {
		return nil, err
	}
	temp := rv.Relpersistence == "t"
	return tagOnly("CREATE VIEW", func(ctx context.Context) error {
		cols, vq, err := s.queryColumns(ctx, vs.Query)
		if err != nil {
			return err
		}
		if len(vs.Aliases) > len(cols) {
			return pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
		}
		def := &catalog.ViewDef{Query: vq.Text}
		for i, c := range cols {
			name := c.name
			if i < len(vs.Aliases) {
				name = nodeString(vs.Aliases[i])
			}
			for _, prev := range def.Columns {
				if prev.Name == name {
					return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
				}
			}
			oid, mod := c.oid, c.typmod
			if oid == pgtypes.OIDUnknown {
				oid, mod = pgtypes.OIDText, -1
			}
			def.Columns = append(def.Columns, catalog.ViewColumn{Name: name, TypeOID: oid, TypeMod: mod})
		}
		for _, d := range vq.Deps {
			if s.isTempSchema(d[0]) && !temp {
				// PostgreSQL makes a view of temporary relations temporary.
				if rv.Schemaname != "" && !s.isTempSchema(rv.Schemaname) {
					return pgerr.New("42P16", "cannot create temporary relation in non-temporary schema")
				}
				temp = true
				s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("view \"%s\" will be a temporary view", rv.Relname)})
			}
			def.Deps = append(def.Deps, catalog.TableID{Database: s.db, Schema: d[0], Name: d[1]})
		}
		if temp {
			return s.createTempView(rv, def, vs.Replace)
		}
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		id, err := s.creationID(ctx, a, rv.Schemaname, rv.Relname)
		if err != nil {
			return err
		}
		if err := s.requireSchema(ctx, a, id.Schema, acl.Create); err != nil {
			return err
		}
		defer s.b.sec.forget(tableKey(id))
		cat := s.eng.Catalog()
		if vs.Replace {
			old, err := cat.Table(ctx, id)
			if err == nil {
				if !old.IsView() {
					return pgerr.New("42809", "\"%s\" is not a view", id.Name)
				}
				if !a.owns(old.Owner) {
					return errNotOwner("view", id.Name)
				}
				if slices.Contains(def.Deps, id) {
					return pgerr.New("42P17", "infinite recursion detected in rules for relation \"%s\"", id.Name)
				}
				_, err = cat.ReplaceView(ctx, id, func(e *catalog.Entry) error {
					if !e.IsView() {
						return pgerr.New("42809", "\"%s\" is not a view", id.Name)
					}
					if err := checkViewColumns(e.View.Columns, def.Columns); err != nil {
						return err
					}
					e.View = def
					return nil
				})
				return err
			} else if !errors.Is(err, catalog.ErrNotFound) {
				return err
			}
		}
		_, err = cat.CreateView(ctx, id, def, catalog.OwnedBy(s.currentRole))
		if errors.Is(err, catalog.ErrExists) {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", id.Name)
		}
		if errors.Is(err, catalog.ErrNotFound) {
			return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", id.Schema)
		}
		return err
	}), nil
}

// checkViewColumns is PostgreSQL's checkViewTupleDesc: CREATE OR REPLACE
// VIEW may only add columns at the end.
func checkViewColumns(old, cur []catalog.ViewColumn) error {
	if len(cur) < len(old) {
		return pgerr.New("42P16", "cannot drop columns from view")
	}
	for i, o := range old {
		n := cur[i]
		if n.Name != o.Name {
			return pgerr.New("42P16", "cannot change name of view column \"%s\" to \"%s\"", o.Name, n.Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if n.TypeOID != o.TypeOID || n.TypeMod != o.TypeMod {
			return pgerr.New("42P16", "cannot change data type of view column \"%s\" from %s to %s", o.Name,
				pgcatalog.FormatType(o.TypeOID, o.TypeMod), pgcatalog.FormatType(n.TypeOID, n.TypeMod))
		}
	}
	return nil
}

// dropObject names a relation as PostgreSQL's getObjectDescription does:
// "table t", "view s.v" (qualified when its schema is not in the search
// path).
func (s *session) describeRelation(e *catalog.Entry) string {
	kind := "table"
	if e.IsView() {
		kind = "view"
	}
	name := e.ID.Name
	if !slices.Contains(s.set.searchPath(), e.ID.Schema) {
		name = e.ID.Schema + "." + name
	}
	return kind + " " + name
}

// dependents are the views that read the relations of targets, directly
// or through other views, in the order PostgreSQL reports them, with the
// lines of the 2BP01 DETAIL; views among targets are not dependents.
func (s *session) dependents(ctx context.Context, targets []*catalog.Entry) ([]*catalog.Entry, []string, error) {
	all, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return nil, nil, err
	}
	in := map[catalog.TableID]bool{}
	for _, t := range targets {
		in[t.ID] = true
	}
	sort.Slice(all, func(i, j int) bool { return all[i].OID < all[j].OID })
	var out []*catalog.Entry
	var lines []string
	// Depth first, each relation's dependents in creation (OID) order:
	// the order of PostgreSQL's report.
	var visit func(cur *catalog.Entry)
	visit = func(cur *catalog.Entry) {
		for i := range all {
			v := &all[i]
			if !v.IsView() || v.View == nil || in[v.ID] || !slices.Contains(v.View.Deps, cur.ID) {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s depends on %s", s.describeRelation(v), s.describeRelation(cur)))
			in[v.ID] = true
			out = append(out, v)
			visit(v)
		}
	}
	for _, t := range targets {
		visit(t)
	}
	return out, lines, nil
}

// planDropRelations is DROP VIEW (views) and DROP TABLE (!views) with
// PostgreSQL's dependency rules for the views that read them.
func (s *session) planDropRelations(ctx context.Context, ds *pg_query.DropStmt, views bool) (plan, error) {
	what, tag := "table", "DROP TABLE"
	if views {
		what, tag = "view", "DROP VIEW"
	}
	if err := s.ddlAllowed(tag); err != nil {
		return nil, err
	}
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	return tagOnly(tag, func(ctx context.Context) error {
		var targets []*catalog.Entry
		var temps []*planner.Table
		for _, obj := range ds.Objects {
			sc, name, err := s.dropObjectName(obj)
			if err != nil {
				return err
			}
			if e := s.tempView(sc, name); e != nil {
				if !views {
					return pgerr.New("42809", "\"%s\" is not a table", name).WithHint("Use DROP VIEW to remove a view.")
				}
				delete(s.temp.views, name)
				continue
			}
			if t := s.tempTable(sc, name); t != nil {
				if views {
					return pgerr.New("42809", "\"%s\" is not a view", name).WithHint("Use DROP TABLE to remove a table.")
				}
				temps = append(temps, t)
				continue
			}
			if s.isTempSchema(sc) {
				sc = s.tempSchema() // no such temporary table: nothing in the catalog either
			}
			id, a, err := s.lookupTable(ctx, sc, name)
			if err != nil {
				return err
			}
			e, err := s.eng.Catalog().Table(ctx, id)
			if errors.Is(err, catalog.ErrNotFound) {
				if sq, _ := s.findSequence(ctx, sc, name, false); sq != nil { // sequence.go
					return pgerr.New("42809", "\"%s\" is not a %s", name, what).WithHint("Use DROP SEQUENCE to remove a sequence.")
				}
				if ds.MissingOk {
					s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("%s \"%s\" does not exist, skipping", what, name)})
					continue
				}
				return pgerr.New(pgerr.UndefinedTable, "%s \"%s\" does not exist", what, name)
			}
			if err != nil {
				return err
			}
			if e.IsView() != views {
				if views {
					return pgerr.New("42809", "\"%s\" is not a view", name).WithHint("Use DROP TABLE to remove a table.")
				}
				return pgerr.New("42809", "\"%s\" is not a table", name).WithHint("Use DROP VIEW to remove a view.")
			}
			if err := s.requireTableOwner(ctx, a, id, true); err != nil {
				if pe, ok := pgerr.As(err); ok && views && pe.Code == pgerr.InsufficientPrivilege {
					return errNotOwner("view", name)
				}
				return err
			}
			targets = append(targets, e)
		}
		for _, t := range temps {
			s.dropTempTable(ctx, t)
		}
		if len(targets) == 0 {
			return nil
		}
		deps, lines, err := s.dependents(ctx, targets)
		if err != nil {
			return err
		}
		// Foreign keys of other tables that reference a dropped table
		// (foreignkey.go).
		var fkDeps []fkDependent
		if !views {
			if fkDeps, err = s.foreignKeyDependents(ctx, targets); err != nil {
				return err
			}
			for _, d := range fkDeps {
				lines = append(lines, s.describeFKDependent(d))
			}
		}
		if (len(deps) > 0 || len(fkDeps) > 0) && !cascade {
			return pgerr.New("2BP01", "cannot drop %s because other objects depend on it", s.describeRelation(targets[0])).
				WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		var drops []string
		for _, d := range deps {
			drops = append(drops, "drop cascades to "+s.describeRelation(d))
		}
		for _, d := range fkDeps {
			drops = append(drops, fmt.Sprintf("drop cascades to constraint %s on table %s", d.name, s.shownName(d.table)))
		}
		if len(drops) > 0 {
			notice := &pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: drops[0]}
			if len(drops) > 1 {
				notice.Message = fmt.Sprintf("drop cascades to %d other objects", len(drops))
				notice.Detail = strings.Join(drops, "\n")
			}
			s.pendingNotice(notice)
		}
		// Foreign keys of other tables that reference a dropped table go
		// (CASCADE drops the constraints, not their tables).
		for _, d := range fkDeps {
			if _, err := s.dropForeignKey(ctx, d.table, d.name); err != nil {
				return err
			}
		}
		// Dependents first, the last found first (views of views).
		for i := len(deps) - 1; i >= 0; i-- {
			if err := s.dropRelation(ctx, deps[i]); err != nil {
				return err
			}
		}
		for _, t := range targets {
			if err := s.dropRelation(ctx, t); err != nil {
				return err
			}
		}
		return nil
	}), nil
}

// dropRelation drops a table (its files too) or a view.
func (s *session) dropRelation(ctx context.Context, e *catalog.Entry) error {
	defer s.b.sec.forget(tableKey(e.ID))
	if e.IsView() {
		err := s.eng.Catalog().DropView(ctx, e.ID)
		if errors.Is(err, catalog.ErrNotFound) {
			return nil // dropped meanwhile
		}
		return err
	}
	err := s.eng.DropTable(ctx, e.ID)
	if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.UndefinedTable {
		return nil
	}
	if err != nil {
		return err
	}
	return s.dropOwnedSequences(ctx, e.ID) // serial and identity sequences go with their table (sequence.go)
}

// planCreateTableAs is CREATE TABLE ... AS SELECT and SELECT ... INTO: a
// table with the query's columns (PostgreSQL's types, the INTO column list
// renaming them), filled through the ordinary INSERT path (WAL, commit)
// unless WITH NO DATA. A failure of the query drops the table again: the
// statement leaves no table behind. The command tag is "SELECT n".
func (s *session) planCreateTableAs(ctx context.Context, st *bsql.Statement, query *pg_query.Node, into *pg_query.IntoClause, ifNotExists bool, what string) (plan, error) {
	rv := into.GetRel()
	switch {
	case rv == nil:
		return nil, errUnsupported(what)
	case rv.Relpersistence == "t" && (into.OnCommit == pg_query.OnCommitAction_ONCOMMIT_DELETE_ROWS || into.OnCommit == pg_query.OnCommitAction_ONCOMMIT_DROP):
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ON COMMIT DELETE ROWS and ON COMMIT DROP are not supported")
	case rv.Relpersistence == "u":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "unlogged tables are not supported")
	case rv.Catalogname != "" && rv.Catalogname != s.db:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	case rv.Relpersistence != "t" && into.OnCommit != pg_query.OnCommitAction_ONCOMMIT_NOOP && into.OnCommit != pg_query.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED:
		return nil, pgerr.New("42P16", "ON COMMIT can only be used on temporary tables")
	}
	if err := s.ddlAllowed(what); err != nil {
		return nil, err
	}
	temp := rv.Relpersistence == "t"
	return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
		if temp {
			return s.createTempTableAs(ctx, st, query, into, ifNotExists, w)
		}
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		id, err := s.creationID(ctx, a, rv.Schemaname, rv.Relname)
		if err != nil {
			return err
		}
		if err := s.requireSchema(ctx, a, id.Schema, acl.Create); err != nil {
			return err
		}
		if e, err := s.eng.Catalog().Table(ctx, id); err == nil && (!e.Creating || s.eng.IsOpen(id)) {
			if ifNotExists {
				if err := w.Notice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", id.Name)}); err != nil {
					return err
				}
				return w.Complete("CREATE TABLE AS")
			}
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", id.Name)
		}
		sch, err := s.ctasSchema(ctx, query, into)
		if err != nil {
			return err
		}
		created, err := s.eng.CreateTable(ctx, id, sch, ifNotExists, catalog.OwnedBy(s.currentRole), catalog.Creating())
		s.b.sec.forget(tableKey(id))
		if err != nil {
			return err
		}
		if !created {
			if err := w.Notice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", id.Name)}); err != nil {
				return err
			}
			return w.Complete("CREATE TABLE AS")
		}
		var n int64
		if !into.SkipData {
			n, err = s.fillTable(ctx, st, id, query)
			if err != nil {
				// The statement leaves no table behind.
				if derr := s.eng.DropTable(context.WithoutCancel(ctx), id); derr != nil {
					s.b.Log.Warn("could not drop the table of a failed CREATE TABLE AS", "table", id.String(), "err", derr)
				}
				s.b.sec.forget(tableKey(id))
				return err
			}
		}
		// Until here a crash leaves no table (the entry is Creating).
		crash.Point(crash.CTASAfterFill)
		if err := s.eng.FinishCreate(ctx, id); err != nil {
			return err
		}
		s.b.sec.forget(tableKey(id))
		return w.Complete(fmt.Sprintf("SELECT %d", n))
	}}, nil
}

// fillTable runs INSERT INTO id <query> through the ordinary INSERT path
// and returns the number of rows.
func (s *session) fillTable(ctx context.Context, st *bsql.Statement, id catalog.TableID, query *pg_query.Node) (int64, error) {
	ins := &pg_query.InsertStmt{
		Relation:   &pg_query.RangeVar{Schemaname: id.Schema, Relname: id.Name, Inh: true, Relpersistence: "p", Location: -1},
		SelectStmt: query,
		Override:   pg_query.OverridingKind_OVERRIDING_NOT_SET,
	}
	ist := &bsql.Statement{Text: st.Text, Query: st.Query, Offset: st.Offset, Kind: bsql.KindInsert, Tag: "INSERT",
		Tree: &pg_query.Node{Node: &pg_query.Node_InsertStmt{InsertStmt: ins}}}
	p, err := s.planInsert(ctx, ist, nil, nil)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	tw := &tagWriter{}
	if _, err := p.execute(ctx, 0, tw); err != nil {
		return 0, err
	}
	var n int64
	if f := strings.Fields(tw.tag); len(f) > 0 {
		fmt.Sscan(f[len(f)-1], &n)
	}
	return n, nil
}

// tagWriter is a ResultWriter that keeps the command tag only.
type tagWriter struct {
	pgwire.ResultWriter
	tag string
}

func (t *tagWriter) Complete(tag string) error         { t.tag = tag; return nil }
func (t *tagWriter) Describe([]pgwire.Column) error    { return nil }
func (t *tagWriter) Row([][]byte) error                { return nil }
func (t *tagWriter) Notice(n *pgerr.Error) error       { return nil }
func (t *tagWriter) ParameterStatus(_, _ string) error { return nil }

// ctasSchema is the schema of the table CREATE TABLE AS makes: the
// query's columns with PostgreSQL's types, renamed by the INTO column list.
func (s *session) ctasSchema(ctx context.Context, query *pg_query.Node, into *pg_query.IntoClause) (*schema.Schema, error) {
	cols, _, err := s.queryColumns(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(into.ColNames) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
	}
	sch := &schema.Schema{}
	for i, c := range cols {
		name := c.name
		if i < len(into.ColNames) {
			name = nodeString(into.ColNames[i])
		}
		if sch.Index(name) >= 0 {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		oid, mod := c.oid, c.typmod
		if oid == pgtypes.OIDUnknown {
			oid, mod = pgtypes.OIDText, -1
		}
		col, err := pgtypes.ColumnType(oid, mod)
		if err != nil {
			return nil, err
		}
		col.Name = name
		sch.Columns = append(sch.Columns, col)
	}
	if len(sch.Columns) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	return sch, nil
}

// createTempTableAs is CREATE TEMP TABLE ... AS / SELECT ... INTO TEMP.
func (s *session) createTempTableAs(ctx context.Context, st *bsql.Statement, query *pg_query.Node, into *pg_query.IntoClause, ifNotExists bool, w pgwire.ResultWriter) error {
	rv := into.Rel
	if t := s.tempTable(rv.Schemaname, rv.Relname); t != nil && ifNotExists {
		if err := w.Notice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", rv.Relname)}); err != nil {
			return err
		}
		return w.Complete("CREATE TABLE AS")
	}
	sch, err := s.ctasSchema(ctx, query, into)
	if err != nil {
		return err
	}
	t, _, err := s.createTempTable(ctx, rv.Schemaname, rv.Relname, sch, false)
	if err != nil {
		return err
	}
	var n int64
	if !into.SkipData {
		if n, err = s.fillTable(ctx, st, t.ID, query); err != nil {
			s.dropTempTable(ctx, t)
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SELECT %d", n))
}

// dropObjectName is the schema ("" = the search path) and name of a DROP
// statement's object, as makeRangeVarFromNameList reads its name list.
func (s *session) dropObjectName(obj *pg_query.Node) (string, string, error) {
	var names []string
	for _, n := range obj.GetList().GetItems() {
		names = append(names, nodeString(n))
	}
	switch len(names) {
	case 1:
		return "", names[0], nil
	case 2:
		return names[0], names[1], nil
	case 3:
		if names[0] != s.db {
			return "", "", pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
		}
		return names[1], names[2], nil
	}
	return "", "", pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(names, "."))
}
