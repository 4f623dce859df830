package server

import (
	"context"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// plan is an executable statement: a portal's body.
type plan interface {
	Columns() []pgwire.Column
	// execute runs or resumes; suspended=true when maxRows rows were sent
	// and more remain. On completion it has written CommandComplete.
	execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (suspended bool, err error)
	Close()
}

// funcPlan is a statement without rows, run at execute.
type funcPlan struct {
	cols []pgwire.Column
	run  func(ctx context.Context, w pgwire.ResultWriter) error
}

func (p *funcPlan) Columns() []pgwire.Column { return p.cols }
func (p *funcPlan) execute(ctx context.Context, _ int, w pgwire.ResultWriter) (bool, error) {
	return false, p.run(ctx, w)
}
func (p *funcPlan) Close() {}

func tagOnly(tag string, fn func(ctx context.Context) error) *funcPlan {
	return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
		if err := fn(ctx); err != nil {
			return err
		}
		return w.Complete(tag)
	}}
}

// rowsPlan returns fixed text rows (SHOW, EXPLAIN).
type rowsPlan struct {
	cols []resultCol
	rows [][]string
	tag  string
	pos  int
}

func (p *rowsPlan) Columns() []pgwire.Column { return pgColumns(p.cols) }
func (p *rowsPlan) execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (bool, error) {
	n := 0
	for p.pos < len(p.rows) {
		if maxRows > 0 && n >= maxRows {
			return true, nil
		}
		r := p.rows[p.pos]
		vals := make([][]byte, len(r))
		for i, v := range r {
			if p.cols[i].format == 1 {
				b, err := pgtypes.AppendBinary(nil, p.cols[i].oid, -1, v)
				if err != nil {
					return false, err
				}
				vals[i] = b
			} else {
				vals[i] = []byte(v)
			}
		}
		if err := w.Row(vals); err != nil {
			return false, err
		}
		p.pos++
		n++
	}
	tag := p.tag
	if tag == "" {
		tag = fmt.Sprintf("SELECT %d", len(p.rows))
	}
	return false, w.Complete(tag)
}
func (p *rowsPlan) Close() {}

// plan builds the executable form of a statement.
// params are canonical pgtypes values (nil: NULL); DuckDB gets them as
// toDuckArg converts them.
func (s *session) plan(ctx context.Context, st *bsql.Statement, params []any, formats []int16) (plan, error) {
	return s.planTyped(ctx, st, params, nil, formats)
}

// planTyped is plan for a prepared statement whose parameter types are
// known (paramOIDs, as its ParameterDescription gave them): a query then
// reads its parameters as those types, not as what DuckDB would infer.
func (s *session) planTyped(ctx context.Context, st *bsql.Statement, params []any, paramOIDs []uint32, formats []int16) (plan, error) {
	if st.Kind == bsql.KindInsert {
		// A direct INSERT uses the canonical values: planInsert converts
		// them for DuckDB only when it runs a source query.
		return s.planInsert(ctx, st, params, formats)
	}
	canon := params
	params = toDuckArgs(params)
	switch st.Kind {
	case bsql.KindSelect:
		return s.planSelectTyped(ctx, st, params, canon, paramOIDs, formats)
	case bsql.KindCopy:
		return s.planCopy(ctx, st)
	case bsql.KindCreateTable:
		return s.planCreateTable(ctx, st)
	case bsql.KindDropTable:
		return s.planDropTable(ctx, st)
	case bsql.KindTruncate:
		return s.planTruncate(ctx, st)
	case bsql.KindCreateSchema, bsql.KindDropSchema, bsql.KindCreateDatabase, bsql.KindDropDatabase:
		return s.planNamespace(ctx, st)
	case bsql.KindBegin:
		return tagOnly("BEGIN", func(ctx context.Context) error {
			switch {
			case s.tx == nil:
				s.tx = &txState{start: s.statementStart()}
			case s.tx.implicit:
				s.tx.implicit = false // BEGIN turns the implicit transaction into a block
			default:
				return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityWarn, Code: pgerr.ActiveSQLTransaction, Message: "there is already a transaction in progress"})
			}
			return nil
		}), nil
	case bsql.KindCommit:
		return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
			if s.tx == nil || (s.tx.implicit && !s.tx.hasWrites()) {
				s.tx = nil
				if err := w.Notice(&pgerr.Error{Severity: pgerr.SeverityWarn, Code: pgerr.NoActiveSQLTransaction, Message: "there is no transaction in progress"}); err != nil {
					return err
				}
				return w.Complete("COMMIT")
			}
			if s.tx.failed {
				s.rollback()
				s.settleCursors(ctx)
				return w.Complete("ROLLBACK")
			}
			if err := s.endCursors(ctx, true); err != nil {
				// PostgreSQL: a failed COMMIT ends the transaction.
				_ = s.endCursors(ctx, false)
				s.rollback()
				s.settleCursors(ctx)
				return err
			}
			if err := s.commit(ctx); err != nil {
				s.settleCursors(ctx)
				return err
			}
			s.settleCursors(ctx)
			return w.Complete("COMMIT")
		}}, nil
	case bsql.KindRollback:
		return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
			if s.tx == nil || (s.tx.implicit && !s.tx.hasWrites()) {
				if err := w.Notice(&pgerr.Error{Severity: pgerr.SeverityWarn, Code: pgerr.NoActiveSQLTransaction, Message: "there is no transaction in progress"}); err != nil {
					return err
				}
			}
			_ = s.endCursors(ctx, false)
			s.rollback()
			s.settleCursors(ctx)
			return w.Complete("ROLLBACK")
		}}, nil
	case bsql.KindSet:
		return s.planSet(ctx, st)
	case bsql.KindReset:
		return s.planSet(ctx, st)
	case bsql.KindShow:
		return s.planShow(ctx, st, formats)
	case bsql.KindExplain:
		return s.planExplain(ctx, st, params)
	case bsql.KindDiscard:
		return tagOnly(st.Tag, func(ctx context.Context) error {
			if st.Tag == "DISCARD ALL" || st.Tag == "DISCARD SEQUENCES" {
				s.discardSequences() // sequence.go
			}
			if st.Tag == "DISCARD ALL" {
				if s.inBlock() {
					return pgerr.New(pgerr.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
				}
				s.closeCursors()
				s.deallocateAll()
				s.resetAuthorization()
			}
			if (st.Tag == "DISCARD ALL" || st.Tag == "DISCARD TEMP") && !s.tx.hasWrites() {
				s.dropTempTables(ctx)
			}
			return nil
		}), nil
	case bsql.KindPrepare:
		return s.planPrepare(st)
	case bsql.KindExecute:
		return s.planExecute(ctx, st, params, formats)
	case bsql.KindDeallocate:
		return s.planDeallocate(st)
	case bsql.KindCreateRole, bsql.KindAlterRole, bsql.KindDropRole, bsql.KindGrant, bsql.KindGrantRole, bsql.KindAlterOwner:
		return s.planSecurity(st)
	case bsql.KindUpdate, bsql.KindDelete:
		return s.planModify(ctx, st, params, paramOIDs, formats)
	case bsql.KindMerge:
		return s.planMerge(st, params, paramOIDs)
	case bsql.KindSavepoint:
		return s.planSavepoint(st) // savepoint.go
	}
	if p, ok, err := s.planSequence(ctx, st); ok {
		return p, err
	}
	if p, ok, err := s.planRelationDDL(ctx, st); ok {
		return p, err
	}
	if p, ok, err := s.planCursor(ctx, st, params, formats); ok {
		return p, err
	}
	if p, ok, err := s.planVacuum(st); ok {
		return p, err
	}
	if p, ok := s.planListen(st); ok {
		return p, nil
	}
	if p, ok, err := s.planLock(st); ok {
		return p, err
	}
	if p, ok, err := s.planAlterTable(ctx, st); ok { // alter.go
		return p, err
	}
	if p, ok, err := s.planRenameRelation(st); ok { // alter.go
		return p, err
	}
	if p, ok, err := s.planRenameIndexOrConstraint(st); ok { // alter.go
		return p, err
	}
	if p, ok, err := s.planAlterKey(st); ok {
		return p, err
	}
	if p, ok, err := s.planIndex(st); ok { // index.go
		return p, err
	}
	if p, ok, err := s.planComment(st); ok { // comment.go
		return p, err
	}
	return nil, st.Unsupported()
}

// explain
func (s *session) planExplain(ctx context.Context, st *bsql.Statement, params []any) (plan, error) {
	ex := st.Tree.GetExplainStmt()
	if ex == nil || ex.Query == nil {
		return nil, errUnsupported("EXPLAIN")
	}
	inner := &bsql.Statement{Text: st.Text, Kind: bsql.KindSelect, Tree: ex.Query, Tag: "SELECT"}
	if ex.Query.GetSelectStmt() == nil {
		return nil, errUnsupported("EXPLAIN of this statement")
	}
	analyze := false
	for _, o := range ex.Options {
		if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "analyze") {
			analyze = true
		}
	}
	b := &binder{s: s, ctx: ctx}
	defer b.release()
	q, err := bsql.TranslateQuery(inner.Tree, b, nil)
	if err != nil {
		return nil, err
	}
	prefix := "EXPLAIN (FORMAT JSON) "
	if analyze {
		prefix = "EXPLAIN (ANALYZE, FORMAT JSON) "
	}
	var planJSON string
	s.detachStream(ctx)
	rows, err := s.conn.QueryContext(ctx, prefix+q.SQL, params...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		planJSON = fmt.Sprint(vals[len(vals)-1])
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	lines, err := newExplainRenderer(b.tables, analyze).render(planJSON)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = []string{l}
	}
	return &rowsPlan{cols: []resultCol{{name: "QUERY PLAN", oid: pgtypes.OIDText, typmod: -1}}, rows: out, tag: "EXPLAIN"}, nil
}

// nodeString returns the string value of a pg_query String node.
func nodeString(n *pg_query.Node) string {
	if n == nil {
		return ""
	}
	if s := n.GetString_(); s != nil {
		return s.Sval
	}
	return ""
}
