package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// CHECK constraints, enforced on every write (INSERT, COPY, UPDATE,
// MERGE, ON CONFLICT DO UPDATE): before the rows are written, one query
// of the query engine evaluates every constraint of the table over them
// (registered as a relation of the engine), and finds the first row for
// which one is false (true and NULL pass, as in PostgreSQL). The query is
// translated once per table handle and set of constraints. Errors are
// PostgreSQL's: 23514 with the failing row, the row first in the
// statement's order and, of its failed constraints, the first by name
// (PostgreSQL checks them in name order).

// checkRowsRelation names the rows being written in the check query; the
// placeholder is replaced by the registered relation's name.
const checkRowsRelation = "__bsdb_checkrows"

// setPseudo makes info the relation name of the session's queries until
// the returned function runs.
func (s *session) setPseudo(name string, info *bsql.TableInfo) func() {
	if s.pseudo == nil {
		s.pseudo = map[string]*bsql.TableInfo{}
	}
	s.pseudo[name] = info
	return func() { delete(s.pseudo, name) }
}

// checkColumns are the columns of the rows a check reads: the table's,
// then the mirror's batch and row index.
func checkColumns(cols []bsql.ColumnInfo) []bsql.ColumnInfo {
	out := make([]bsql.ColumnInfo, 0, len(cols)+2)
	for _, c := range cols {
		c.NotNull, c.Default, c.Identity = false, "", ""
		out = append(out, c)
	}
	return append(out, bsql.ColumnInfo{Name: "__bsdb_batch", TypeOID: pgtypes.OIDInt8, TypeMod: -1},
		bsql.ColumnInfo{Name: "__bsdb_idx", TypeOID: pgtypes.OIDInt8, TypeMod: -1})
}

// buildCheckQuery translates the query that finds the first row failing
// one of checks, over rows of columns cols: its batch, index and, per
// check (in the order given: planner.Table.Checks', by name), whether it
// failed.
func (s *session) buildCheckQuery(ctx context.Context, table string, cols []bsql.ColumnInfo, checks []catalog.CheckDef) (string, error) {
	failed := make([]string, len(checks))
	for i, c := range checks {
		failed[i] = fmt.Sprintf("(NOT (%s)) IS TRUE", c.Expr)
	}
	q := fmt.Sprintf("SELECT CAST(__bsdb_batch AS bigint), CAST(__bsdb_idx AS bigint), %s FROM %s WHERE %s ORDER BY 1, 2 LIMIT 1",
		strings.Join(failed, ", "), checkRowsRelation, strings.Join(failed, " OR "))
	tree, err := pg_query.Parse(q)
	if err != nil || len(tree.Stmts) != 1 {
		return "", fmt.Errorf("BUG: check query of %s does not parse: %v", table, err)
	}
	info := &bsql.TableInfo{Name: table, Columns: checkColumns(cols), FromSQL: checkRowsRelation}
	defer s.setPseudo(checkRowsRelation, info)()
	b := &binder{s: s, ctx: ctx}
	defer b.release()
	tq, err := bsql.TranslateQuery(tree.Stmts[0].Stmt, b, nil)
	if err != nil {
		return "", err
	}
	return tq.SQL, nil
}

// enforceChecks checks rows about to be written to t against its CHECK
// constraints.
func (s *session) enforceChecks(ctx context.Context, t *planner.Table, recs []arrow.RecordBatch) error {
	return s.enforceChecksWhere(ctx, t, recs, nil)
}

// enforceChecksWhere is enforceChecks; where, if set, gives the CONTEXT of
// a violation by row row of recs[rec].
func (s *session) enforceChecksWhere(ctx context.Context, t *planner.Table, recs []arrow.RecordBatch, where func(rec, row int) string) error {
	if len(recs) == 0 {
		return nil
	}
	checks, q, err := t.Checks(func(c []catalog.CheckDef) (string, error) {
		return s.buildCheckQuery(ctx, t.ID.Name, tableInfo(t).Columns, c)
	})
	if err != nil || len(checks) == 0 {
		return err
	}
	var fail error
	err = t.QueryRows(ctx, q, checkRowsRelation, recs, func(res arrow.RecordBatch) error {
		if res.NumRows() == 0 || fail != nil {
			return nil
		}
		bs, ok1 := res.Column(0).(*array.Int64)
		rs, ok2 := res.Column(1).(*array.Int64)
		if !ok1 || !ok2 || int(res.NumCols()) != 2+len(checks) {
			fail = fmt.Errorf("BUG: check query of %s returned %s", t.ID.Name, res.Schema())
			return nil
		}
		batch, row := int(bs.Value(0)), int(rs.Value(0))
		if batch < 0 || batch >= len(recs) || row < 0 || row >= int(recs[batch].NumRows()) {
			fail = fmt.Errorf("BUG: check query of %s found row %d of batch %d", t.ID.Name, row, batch)
			return nil
		}
		for i, c := range checks { // in name order, as the query's columns
			if b, ok := res.Column(2 + i).(*array.Boolean); ok && b.IsValid(0) && b.Value(0) {
				e := s.checkViolation(t, c.Name, recs[batch], row)
				if where != nil {
					e.Where = where(batch, row)
				}
				fail = e
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return fail
}

// checkViolation is PostgreSQL's error for a row that fails a CHECK.
func (s *session) checkViolation(t *planner.Table, name string, rec arrow.RecordBatch, row int) *pgerr.Error {
	e := pgerr.New(pgerr.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", t.ID.Name, name)
	e.Detail = "Failing row contains " + s.arrowRowText(t, rec, row) + "."
	e.SchemaName, e.TableName, e.ConstraintName = t.ID.Schema, t.ID.Name, name
	return e
}

// arrowRowText is a row's text as PostgreSQL's "Failing row contains"
// shows it: every column, null as null, each value cut at 64 bytes.
func (s *session) arrowRowText(t *planner.Table, rec arrow.RecordBatch, row int) string {
	info := tableInfo(t)
	parts := make([]string, len(info.Columns))
	for i, c := range info.Columns {
		if i >= int(rec.NumCols()) {
			parts[i] = "null"
			continue
		}
		parts[i] = cutValueText(arrowText(rec.Column(i), row, c.TypeOID, c.TypeMod, &s.set.types)) // insert.go
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// newChecks makes the catalog entries of CHECK constraints of table
// (columns cols), named as PostgreSQL names them (table_col_check when
// the condition reads one column, table_check otherwise), each
// translated once to refuse what does not compile (an unknown column:
// 42703). taken reports the constraint names in use.
func (s *session) newChecks(ctx context.Context, table string, cols []bsql.ColumnInfo, specs []bsql.CheckSpec, taken func(string) bool, alloc func() (uint32, error)) ([]catalog.CheckDef, error) {
	var out []catalog.CheckDef
	used := map[string]bool{}
	for _, c := range specs {
		def := catalog.CheckDef{Name: c.Name, Expr: c.Expr, NotValid: c.NotValid}
		if _, err := s.buildCheckQuery(ctx, table, cols, []catalog.CheckDef{def}); err != nil {
			if pe, ok := pgerr.As(err); ok && pe.Position > 0 {
				// A position in the check query, not in the statement.
				c := *pe
				c.Position = 0
				return nil, &c
			}
			return nil, err
		}
		if def.Name == "" {
			col := ""
			for _, ci := range cols {
				if ci.Name == c.Column {
					col = c.Column
				}
			}
			for pass := 0; ; pass++ {
				label := "check"
				if pass > 0 {
					label = fmt.Sprintf("check%d", pass)
				}
				def.Name = makeObjectName(table, col, label)
				if !used[def.Name] && !taken(def.Name) {
					break
				}
			}
		} else if used[def.Name] || taken(def.Name) {
			return nil, pgerr.New(pgerr.DuplicateObject, "check constraint \"%s\" already exists", def.Name)
		}
		used[def.Name] = true
		var err error
		if def.OID, err = alloc(); err != nil {
			return nil, err
		}
		out = append(out, def)
	}
	return out, nil
}

// schemaColumns describes columns of a table not yet created.
func schemaColumns(sch *schema.Schema) []bsql.ColumnInfo {
	var out []bsql.ColumnInfo
	for _, c := range sch.Columns {
		oid, mod, err := pgtypes.TypeOfColumn(c)
		if err != nil {
			oid, mod = pgtypes.OIDText, -1
		}
		out = append(out, bsql.ColumnInfo{Name: c.Name, TypeOID: oid, TypeMod: mod})
	}
	return out
}

// pgChecks converts a table's CHECK constraints for the catalogs.
func pgChecks(e *catalog.Entry, cols []bsql.ColumnInfo) []pgcatalog.Check {
	var out []pgcatalog.Check
	for _, c := range e.Checks {
		pc := pgcatalog.Check{OID: c.OID, Name: c.Name, Expr: c.Expr, NotValid: c.NotValid}
		names, _ := bsql.ExprColumns(c.Expr)
		for _, n := range names {
			for i, col := range cols {
				if col.Name == n {
					pc.Keys = append(pc.Keys, int64(attnumOf(col, i)))
				}
			}
		}
		out = append(out, pc)
	}
	return out
}

// addCheckTo adds the CHECK constraint c to table id (ALTER TABLE t ADD
// [CONSTRAINT name] CHECK (...) [NOT VALID], ADD COLUMN ... CHECK): unless
// NOT VALID, the rows must satisfy it (23514); it is enforced from then
// on.
func (s *session) addCheckTo(ctx context.Context, id catalog.TableID, c bsql.CheckSpec) error {
	return s.eng.WithWritesStopped(ctx, id, func(t *planner.Table) error {
		ent, err := s.eng.Catalog().Table(ctx, id)
		if err != nil {
			return err
		}
		taken := constraintNames(ent, t.Schema.PrimaryKey) // foreignkey.go
		defs, err := s.newChecks(ctx, id.Name, tableInfo(t).Columns, []bsql.CheckSpec{c}, func(n string) bool { return taken[n] },
			func() (uint32, error) { return s.eng.Catalog().AllocOID(ctx) })
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.DuplicateObject {
			return pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", c.Name, id.Name)
		}
		if err != nil {
			return err
		}
		if !c.NotValid {
			if err := s.checkRows(ctx, t, defs[0]); err != nil {
				return err
			}
		}
		if err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
			e.Checks = append(e.Checks, defs[0])
			return nil
		}); err != nil {
			return err
		}
		return s.refreshKeys(ctx, id) // keys.go
	})
}

// validateCheck runs ALTER TABLE t VALIDATE CONSTRAINT name: a NOT VALID
// CHECK is checked against the rows and marked valid.
func (s *session) validateCheck(ctx context.Context, at *pg_query.AlterTableStmt, name string) error {
	id, a, ent, err := s.alterTarget(ctx, at.Relation, at.MissingOk)
	if err != nil || ent == nil {
		return err
	}
	if err := s.requireTableOwner(ctx, a, id, false); err != nil {
		return err
	}
	var def *catalog.CheckDef
	for i := range ent.Checks {
		if ent.Checks[i].Name == name {
			def = &ent.Checks[i]
		}
	}
	if def == nil {
		for _, fk := range ent.ForeignKeys {
			if fk.Name == name {
				return nil // recorded, not enforced: nothing to check
			}
		}
		return pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, id.Name)
	}
	if !def.NotValid {
		return nil
	}
	return s.eng.WithWritesStopped(ctx, id, func(t *planner.Table) error {
		if err := s.checkRows(ctx, t, *def); err != nil {
			return err
		}
		if err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
			for i := range e.Checks {
				if e.Checks[i].Name == name {
					e.Checks[i].NotValid = false
				}
			}
			return nil
		}); err != nil {
			return err
		}
		return s.refreshKeys(ctx, id)
	})
}

// checkRows fails (23514) if a row of t does not satisfy def.
func (s *session) checkRows(ctx context.Context, t *planner.Table, def catalog.CheckDef) error {
	q := fmt.Sprintf("SELECT 1 FROM %s WHERE (NOT (%s)) IS TRUE LIMIT 1", checkRowsRelation, def.Expr)
	tree, err := pg_query.Parse(q)
	if err != nil || len(tree.Stmts) != 1 {
		return fmt.Errorf("BUG: check query of %s does not parse: %v", t.ID.Name, err)
	}
	bd, err := t.Bind(ctx, s.tx.pendingBatches(t))
	if err != nil {
		return err
	}
	defer bd.Release()
	info := &bsql.TableInfo{Name: t.ID.Name, Columns: checkColumns(tableInfo(t).Columns)[:len(t.Schema.Columns)], FromSQL: bd.FromSQL}
	defer s.setPseudo(checkRowsRelation, info)()
	b := &binder{s: s, ctx: ctx}
	tq, err := bsql.TranslateQuery(tree.Stmts[0].Stmt, b, nil)
	b.release()
	if err != nil {
		return err
	}
	s.detachStream(ctx)
	rows, err := s.conn.QueryContext(ctx, tq.SQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return pgerr.New(pgerr.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", def.Name, t.ID.Name)
	}
	return rows.Err()
}

// dropCheck drops the CHECK constraint name of table id, if it has one
// (ok).
func (s *session) dropCheck(ctx context.Context, id catalog.TableID, name string) (ok bool, err error) {
	return s.dropConstraint(ctx, id, func(e *catalog.Entry) bool {
		for i := range e.Checks {
			if e.Checks[i].Name == name {
				e.Checks = append(e.Checks[:i:i], e.Checks[i+1:]...)
				return true
			}
		}
		return false
	})
}
