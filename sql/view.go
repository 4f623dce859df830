package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Views. A view is stored as the text of its SELECT with every relation it
// reads qualified by schema (TranslateView makes that text); a reference
// to a view in FROM is replaced by that query as a subquery in FROM, with
// the view's name as alias and its column names (expandView). The view's
// query is translated in a scope of its own: the CTEs around the reference
// are not visible in it, and its relations are checked with the view
// owner's privileges (ViewCatalog.EnterView).

// maxViewDepth bounds views of views: a definition cannot refer to itself
// (it is created before it exists), but OR REPLACE could make a cycle.
const maxViewDepth = 64

// lookupView resolves rv as a view when the catalog has views and the name
// is neither a CTE in scope nor a system relation.
func (tr *translator) lookupView(rv *pg_query.RangeVar, sc *scope) (*ViewInfo, error) {
	vc, ok := tr.cat.(ViewCatalog)
	if !ok || rv.Catalogname != "" || systemSchemas[rv.Schemaname] {
		return nil, nil
	}
	if rv.Schemaname == "" && (sc.lookupCTE(rv.Relname) != nil || strings.HasPrefix(rv.Relname, "pg_")) {
		return nil, nil
	}
	v, err := vc.LookupView(rv.Schemaname, rv.Relname)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 && !e.NoPosition && rv.Location >= 0 {
			return nil, e.WithPosition(int(rv.Location) + 1)
		}
		return nil, err
	}
	return v, nil
}

// expandView replaces the FROM item n (the reference rv) by the view's
// query and adds the relation to sc.
func (tr *translator) expandView(n *pg_query.Node, rv *pg_query.RangeVar, v *ViewInfo, sc *scope) error {
	if tr.viewDepth >= maxViewDepth {
		return pgerr.New("42P17", "infinite recursion detected in rules for relation \"%s\"", v.Name)
	}
	tr.noteRelation(rv, v.Schema, v.Name)
	stmts, err := Parse(v.Query)
	if err != nil || len(stmts) != 1 || stmts[0].Tree.GetSelectStmt() == nil {
		return pgerr.New(pgerr.InternalError, "view \"%s\" has a definition that cannot be read: %v", v.Name, err)
	}
	body := stmts[0].Tree
	if rewriteSystem(body) {
		if p, ok := tr.cat.(SystemPreparer); ok {
			if err := p.PrepareSystem(); err != nil {
				return err
			}
		}
	}
	sel := body.GetSelectStmt()
	alias := &pg_query.Alias{Aliasname: rv.Relname}
	if rv.Alias != nil {
		alias.Aliasname = rv.Alias.Aliasname
	}
	for i, c := range v.Columns {
		name := c.Name
		if rv.Alias != nil && i < len(rv.Alias.Colnames) {
			name = rv.Alias.Colnames[i].GetString_().GetSval()
		}
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode(name))
	}
	if rv.Alias != nil && len(rv.Alias.Colnames) > len(v.Columns) {
		return pgerr.New(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified",
			alias.Aliasname, len(v.Columns), len(rv.Alias.Colnames)).WithPosition(int(rv.Location) + 1)
	}
	n.Node = &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{Subquery: body, Alias: alias}}

	vc := tr.cat.(ViewCatalog)
	vc.EnterView(v)
	tr.viewDepth++
	tr.views++
	noCols := tr.noColumns
	tr.noColumns = false // the view's query reads columns of its relations
	tr.rawNext = true
	cols, err := tr.selectStmt(sel, &scope{parent: sc, viewBody: true})
	tr.noColumns = noCols
	tr.viewDepth--
	vc.LeaveView(v)
	if err != nil {
		// Positions point into the view's text, not the user's.
		if e, ok := pgerr.As(err); ok && e.Position > 0 {
			c := *e
			c.Position = 0
			return &c
		}
		return err
	}
	if len(cols) != len(v.Columns) {
		return pgerr.New(pgerr.InternalError, "view \"%s\" has %d columns but its query gives %d", v.Name, len(v.Columns), len(cols))
	}
	rel := &relInfo{cols: cols, alias: alias.Aliasname}
	renameCols(rel, alias)
	sc.rels = append(sc.rels, rel)
	return nil
}

// noteRelation records a relation of the statement as written (not of a
// view it expands): TranslateView qualifies and lists them.
func (tr *translator) noteRelation(rv *pg_query.RangeVar, schema, name string) {
	if tr.viewDepth > 0 || tr.resolved == nil {
		return
	}
	tr.resolved[rv.Location] = schema
	for _, d := range tr.deps {
		if d == [2]string{schema, name} {
			return
		}
	}
	tr.deps = append(tr.deps, [2]string{schema, name})
}

// ViewQuery is a translated CREATE VIEW query.
type ViewQuery struct {
	// Query is the translation (its Columns are the view's, before the
	// column list of CREATE VIEW renames them).
	Query *Query
	// Text is the definition to store: the SELECT with every relation it
	// reads qualified by its schema.
	Text string
	// Deps are the relations (schema, name) the query reads, in order of
	// appearance, each once.
	Deps [][2]string
}

// TranslateView translates the query of CREATE VIEW (or of CREATE TABLE AS)
// and makes the text to store: the query as written, each relation it
// reads qualified with the schema it was found in. stmt is not modified.
func TranslateView(stmt *pg_query.Node, cat Catalog) (*ViewQuery, error) {
	if stmt == nil || stmt.GetSelectStmt() == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateView on %T", stmt.GetNode())
	}
	defer endBind(cat)
	tr := newTranslator(cat, nil)
	tr.resolved = map[int32]string{}
	n := proto.Clone(stmt).(*pg_query.Node)
	tr.noColumns = false
	if rewriteSystem(n) {
		if p, ok := cat.(SystemPreparer); ok {
			if err := p.PrepareSystem(); err != nil {
				return nil, err
			}
		}
	}
	cols, err := tr.selectStmt(n.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	if tr.maxParam > 0 {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $1")
	}
	q, err := tr.finish(n, cols)
	if err != nil {
		return nil, err
	}
	orig := proto.Clone(stmt).(*pg_query.Node)
	qualifyRelations(orig.ProtoReflect(), tr.resolved)
	text, err := Deparse(orig)
	if err != nil {
		return nil, err
	}
	return &ViewQuery{Query: q, Text: text, Deps: tr.deps}, nil
}

// qualifyRelations sets the schema of every RangeVar under m whose
// location is in resolved.
func qualifyRelations(m protoreflect.Message, resolved map[int32]string) {
	if rv, ok := m.Interface().(*pg_query.RangeVar); ok {
		if sc, ok := resolved[rv.Location]; ok && rv.Schemaname == "" {
			rv.Schemaname = sc
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				qualifyRelations(l.Get(i).Message(), resolved)
			}
			return true
		}
		qualifyRelations(v.Message(), resolved)
		return true
	})
}
