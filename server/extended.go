package server

import (
	"context"
	"fmt"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// prepared is a parsed and described statement (extended protocol).
type prepared struct {
	s         *session
	st        *bsql.Statement
	paramOIDs []uint32
	cols      []pgwire.Column
	// name: "" for the unnamed statement; named ones are in s.named
	// (prepare.go) until closed or deallocated.
	name        string
	deallocated bool
}

func (p *prepared) ParamOIDs() []uint32      { return p.paramOIDs }
func (p *prepared) Columns() []pgwire.Column { return p.cols }
func (p *prepared) Close()                   { p.s.unregister(p) }

// Prepare implements pgwire.Session.
func (s *session) Prepare(ctx context.Context, name, query string, paramOIDs []uint32) (_ pgwire.Statement, err error) {
	defer s.recoverPanic(&err)
	ctx = withSession(ctx, s)
	stmts, err := bsql.Parse(query)
	if err != nil {
		s.fail()
		return nil, err
	}
	if len(stmts) > 1 {
		s.fail()
		return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	st := stmts[0]
	p := &prepared{s: s, st: st, paramOIDs: append([]uint32(nil), paramOIDs...), name: name}
	if err := s.checkFailed(st); err != nil {
		return nil, err
	}
	if _, taken := s.named[name]; taken && name != "" {
		s.fail()
		return nil, errDupPrepared(name)
	}
	if err := s.describeStatement(ctx, p, paramOIDs); err != nil {
		s.fail()
		return nil, s.decorate(ctx, err, st)
	}
	if name != "" {
		s.register(p)
	}
	return p, nil
}

// describeStatement fills parameter types and result columns.
func (s *session) describeStatement(ctx context.Context, p *prepared, declared []uint32) error {
	switch p.st.Kind {
	case bsql.KindSelect:
		b := &binder{s: s, ctx: ctx, describeOnly: true}
		defer b.release()
		q, err := bsql.TranslateQuery(p.st.Tree, b, declared)
		if err != nil {
			return err
		}
		p.paramOIDs = mergeParams(declared, q.ParamOIDs)
		sp := &selectPlan{s: s, q: q}
		if err := sp.describe(ctx, nil); err != nil {
			return err
		}
		p.cols = pgColumns(sp.cols)
	case bsql.KindInsert:
		b := &binder{s: s, ctx: ctx, describeOnly: true}
		defer b.release()
		ins, err := bsql.TranslateInsert(p.st.Tree, b, declared)
		if err != nil {
			return err
		}
		p.paramOIDs = mergeParams(declared, ins.Source.ParamOIDs)
		if ins.Returning != nil {
			id, err := s.resolve(ctx, ins.Table.Schema, ins.Table.Name)
			if err != nil {
				return err
			}
			t, err := s.eng.Table(ctx, id)
			if err != nil {
				return err
			}
			if err := s.returningView(ctx, t, nil); err != nil {
				return err
			}
			rp := &selectPlan{s: s, q: ins.Returning}
			if err := rp.describe(ctx, nil); err != nil {
				return err
			}
			p.cols = pgColumns(rp.cols)
		}
	case bsql.KindUpdate, bsql.KindDelete:
		// Not executable yet (Bind refuses them with 0A000), but described
		// as PostgreSQL does: drivers encode their arguments by the
		// parameter types (pgx fails "mismatched param and argument count"
		// on none).
		b := &binder{s: s, ctx: ctx, describeOnly: true}
		defer b.release()
		q, prefix, err := bsql.DescribeModify(p.st.Tree, b, declared)
		if err != nil {
			return err
		}
		p.paramOIDs = mergeParams(declared, q.ParamOIDs)
		if hasReturning(p.st.Tree) {
			sp := &selectPlan{s: s, q: q}
			if err := sp.describe(ctx, nil); err != nil {
				return err
			}
			p.cols = pgColumns(sp.cols[prefix:])
		}
	case bsql.KindMerge:
		// Its parameters' types, as PostgreSQL's parse analysis gives them
		// (merge.go).
		b := &binder{s: s, ctx: ctx, describeOnly: true}
		defer b.release()
		m, err := bsql.TranslateMerge(p.st, b, declared, true)
		if err != nil {
			return err
		}
		p.paramOIDs = mergeParams(declared, m.Source.ParamOIDs)
	case bsql.KindShow:
		pl, err := s.planShow(ctx, p.st, nil)
		if err != nil {
			return err
		}
		p.cols = pl.Columns()
	case bsql.KindExplain:
		p.cols = []pgwire.Column{{Name: "QUERY PLAN", TypeOID: pgtypes.OIDText, TypeMod: -1, TypeSize: -1}}
	case bsql.KindExecute:
		if es := p.st.Tree.GetExecuteStmt(); es != nil {
			if np, ok := s.named[es.Name]; ok {
				p.cols = np.cols
			}
		}
	case bsql.KindOther:
		if d := p.st.Tree.GetDeclareCursorStmt(); d != nil && d.Query.GetSelectStmt() != nil {
			// DECLARE has no columns but takes its query's parameters.
			b := &binder{s: s, ctx: ctx, describeOnly: true}
			defer b.release()
			q, err := bsql.TranslateQuery(d.Query, b, declared)
			if err != nil {
				return err
			}
			p.paramOIDs = mergeParams(declared, q.ParamOIDs)
			return nil
		}
		p.cols = s.fetchColumns(ctx, p.st)
	}
	return nil
}

func mergeParams(declared, inferred []uint32) []uint32 {
	n := len(inferred)
	if len(declared) > n {
		n = len(declared)
	}
	out := make([]uint32, n)
	for i := range out {
		if i < len(inferred) {
			out[i] = inferred[i]
		}
		if i < len(declared) && declared[i] != 0 && declared[i] != pgtypes.OIDUnknown {
			out[i] = declared[i] // unknown (705) is typed from context, as 0
		}
		if out[i] == 0 {
			out[i] = pgtypes.OIDText
		}
	}
	return out
}

// portal is a bound statement.
type portal struct {
	s    *session
	st   *bsql.Statement
	plan plan
	err  error
}

func (p *portal) Columns() []pgwire.Column {
	if p.plan == nil {
		return nil
	}
	return p.plan.Columns()
}

func (p *portal) Close() {
	if p.plan != nil {
		p.plan.Close()
		p.plan = nil
	}
}

// Execute implements pgwire.Portal.
func (p *portal) Execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (suspended bool, err error) {
	s := p.s
	defer s.recoverPanic(&err)
	if p.st.Kind == bsql.KindEmpty {
		return false, w.EmptyQuery()
	}
	if p.plan == nil {
		return false, pgerr.New(pgerr.InvalidCursorState, "portal has been closed")
	}
	if err := s.checkFailed(p.st); err != nil {
		return false, err
	}
	ctx = withSession(ctx, s)
	s.beginImplicit()
	s.settleCursors(ctx)
	s.fx.stmt++
	s.takeFuncError()
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	suspended, err = p.plan.execute(ctx, maxRows, &noticeWriter{ResultWriter: w, s: s})
	if err != nil {
		s.fail()
		return false, s.decorate(ctx, err, p.st)
	}
	return suspended, nil
}

// Bind implements pgwire.Session.
func (s *session) Bind(ctx context.Context, stmt pgwire.Statement, portalName string, params [][]byte, paramFormats, resultFormats []int16) (_ pgwire.Portal, err error) {
	defer s.recoverPanic(&err)
	ctx = withSession(ctx, s)
	ps := stmt.(*prepared)
	if err := s.checkFailed(ps.st); err != nil {
		return nil, err
	}
	s.stmtStart = time.Now()
	args := make([]any, len(params))
	for i, raw := range params {
		if raw == nil {
			continue
		}
		oid := uint32(pgtypes.OIDText)
		if i < len(ps.paramOIDs) {
			oid = ps.paramOIDs[i]
		}
		var v any
		if formatOf(paramFormats, i) == 1 {
			v, err = pgtypes.ParseBinary(oid, -1, raw)
		} else if e := pgerr.CheckText(raw); e != nil {
			// A text parameter of any type is converted from the client
			// encoding first (exec_bind_message), which refuses invalid
			// UTF-8 and NUL before the type's input function runs.
			err = e
		} else {
			v, err = pgtypes.ParseParamText(oid, -1, raw, &s.set.types)
		}
		if err != nil {
			s.fail()
			return nil, bindParamContext(err, portalName, i)
		}
		args[i] = v
	}
	pt := &portal{s: s, st: ps.st}
	if ps.st.Kind == bsql.KindEmpty {
		return pt, nil
	}
	pl, err := s.planTyped(ctx, ps.st, args, ps.paramOIDs, resultFormats)
	if err != nil {
		s.fail()
		return nil, s.decorate(ctx, err, ps.st)
	}
	if ps.st.Kind == bsql.KindSelect && ps.cols != nil && len(pl.Columns()) != len(ps.cols) {
		// A view replaced since Parse added columns (views.go): the
		// client decodes rows by the description it got.
		pl.Close()
		s.fail()
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	pt.plan = pl
	return pt, nil
}

// toDuckArgs converts canonical parameter values into what the DuckDB
// driver binds.
func toDuckArgs(params []any) []any {
	if len(params) == 0 {
		return params
	}
	out := make([]any, len(params))
	for i, v := range params {
		out[i] = toDuckArg(v)
	}
	return out
}

// toDuckArg converts a canonical value into what the DuckDB driver binds.
func toDuckArg(v any) any {
	switch x := v.(type) {
	case pgtypes.Numeric:
		return x.String()
	case pgtypes.Date:
		return x.Time()
	case pgtypes.Timestamp:
		return x.Time()
	case pgtypes.TimestampTZ:
		return x.Time()
	case pgtypes.Time:
		return time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(x) * time.Microsecond)
	case pgtypes.Interval:
		return duckdb.Interval{Months: x.Months, Days: x.Days, Micros: x.Micros}
	case [16]byte:
		u := duckdb.UUID(x)
		return &u
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case uint32:
		return int64(x)
	}
	return v
}

// noticeWriter sends a statement's queued notices before its completion.
type noticeWriter struct {
	pgwire.ResultWriter
	s *session
}

func (n *noticeWriter) Complete(tag string) error {
	if err := n.s.flushSettings(context.Background(), n.ResultWriter); err != nil {
		return err
	}
	for _, no := range n.s.notices {
		if err := n.Notice(no); err != nil {
			return err
		}
	}
	n.s.notices = nil
	return n.ResultWriter.Complete(tag)
}

// Notice sends a notice unless client_min_messages filters it out.
func (n *noticeWriter) Notice(no *pgerr.Error) error {
	if !n.s.set.wantsMessage(no.Severity) {
		return nil
	}
	return n.ResultWriter.Notice(no)
}

// bindParamContext gives an encoding error of Bind parameter i (0-based)
// PostgreSQL's CONTEXT line (bind_param_error_callback, which names no
// value: the bytes could not be converted).
func bindParamContext(err error, portal string, i int) error {
	pe, ok := pgerr.As(err)
	if !ok || pe.Code != pgerr.CharacterNotInRepertoire || pe.Where != "" {
		return err
	}
	e := *pe
	if portal != "" {
		e.Where = fmt.Sprintf("portal \"%s\" parameter $%d", portal, i+1)
	} else {
		e.Where = fmt.Sprintf("unnamed portal parameter $%d", i+1)
	}
	return &e
}

// hasReturning reports whether an UPDATE or DELETE has a RETURNING list.
func hasReturning(tree *pg_query.Node) bool {
	if u := tree.GetUpdateStmt(); u != nil {
		return len(u.ReturningList) > 0
	}
	if d := tree.GetDeleteStmt(); d != nil {
		return len(d.ReturningList) > 0
	}
	return false
}
