package server

import (
	"context"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// SQL PREPARE / EXECUTE / DEALLOCATE.
//
// Named prepared statements share one namespace with the extended
// protocol's named statements, as in PostgreSQL: s.named holds both kinds
// (a Parse of a name that SQL PREPARE took fails 42P05, EXECUTE runs a
// statement made by Parse, DEALLOCATE drops either). pgwire keeps its own
// table of protocol statements; a protocol statement that DEALLOCATE drops
// reports Deallocated() and pgwire forgets it at its next lookup.
//
// Known gap: pgwire's Bind does not see statements made by SQL PREPARE.

var _ pgwire.Deallocator = (*prepared)(nil)

// Deallocated implements pgwire.Deallocator.
func (p *prepared) Deallocated() bool { return p.deallocated }

// register makes p a named prepared statement.
func (s *session) register(p *prepared) {
	if s.named == nil {
		s.named = map[string]*prepared{}
	}
	s.named[p.name] = p
}

// unregister forgets p (Close of a protocol statement).
func (s *session) unregister(p *prepared) {
	if p.name != "" && s.named[p.name] == p {
		delete(s.named, p.name)
	}
}

func errNoPrepared(name string) error {
	return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
}

func errDupPrepared(name string) error {
	return pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", name)
}

func (s *session) planPrepare(st *bsql.Statement) (plan, error) {
	ps := st.Tree.GetPrepareStmt()
	if ps == nil || ps.Query == nil {
		return nil, st.Unsupported()
	}
	return tagOnly("PREPARE", func(ctx context.Context) error {
		if _, ok := s.named[ps.Name]; ok {
			return errDupPrepared(ps.Name)
		}
		declared := make([]uint32, len(ps.Argtypes))
		for i, a := range ps.Argtypes {
			oid, _, err := bsql.ResolveTypeName(a.GetTypeName())
			if err != nil {
				return err
			}
			declared[i] = oid
		}
		// The inner statement, parsed alone so that it is classified and
		// its positions are its own: its text in PREPARE's (at offset),
		// else deparsed (offset < 0: positions cannot be mapped back).
		text, offset := preparedText(st.Text)
		if offset < 0 {
			var err error
			text, err = bsql.Deparse(ps.Query)
			if err != nil {
				return err
			}
		}
		stmts, err := bsql.Parse(text)
		if err != nil {
			return withoutPosition(err)
		}
		if len(stmts) != 1 {
			return fmt.Errorf("BUG: PREPARE: %d statements in %q", len(stmts), text)
		}
		p := &prepared{s: s, st: stmts[0], name: ps.Name, paramOIDs: declared}
		if err := s.describeStatement(ctx, p, declared); err != nil {
			if offset < 0 {
				return withoutPosition(err)
			}
			return shiftPosition(err, offset) // decorate locates it in PREPARE's text
		}
		if len(p.paramOIDs) == 0 && len(declared) == 0 {
			p.paramOIDs = nil
		}
		s.register(p)
		return nil
	}), nil
}

// planExecute plans EXECUTE name(args): the prepared statement's own plan
// with the arguments evaluated and converted to its parameter types.
func (s *session) planExecute(ctx context.Context, st *bsql.Statement, params []any, formats []int16) (plan, error) {
	es := st.Tree.GetExecuteStmt()
	if es == nil {
		return nil, st.Unsupported()
	}
	p, ok := s.named[es.Name]
	if !ok || p.deallocated {
		return nil, errNoPrepared(es.Name)
	}
	if len(es.Params) != len(p.paramOIDs) {
		return nil, pgerr.New(pgerr.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", es.Name).
			WithDetail("Expected %d parameters but got %d.", len(p.paramOIDs), len(es.Params))
	}
	args, err := s.evalArgs(ctx, st, es.Params, p.paramOIDs, params)
	if err != nil {
		return nil, err
	}
	if err := s.checkFailed(p.st); err != nil {
		return nil, err
	}
	pl, err := s.planTyped(ctx, p.st, args, p.paramOIDs, formats)
	if err != nil {
		return nil, withoutPosition(s.decorate(ctx, err, nil))
	}
	return pl, nil
}

// evalArgs evaluates EXECUTE's argument expressions as
// SELECT CAST(arg AS type), ... and converts each to the canonical value
// Bind would give for the same text.
func (s *session) evalArgs(ctx context.Context, st *bsql.Statement, exprs []*pg_query.Node, oids []uint32, params []any) ([]any, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	sel := &pg_query.SelectStmt{}
	for i, e := range exprs {
		cast := &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: e, TypeName: typeNameOf(oids[i]), Location: -1}}}
		sel.TargetList = append(sel.TargetList, pg_query.MakeResTargetNodeWithVal(cast, -1))
	}
	tree := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}
	inner := &bsql.Statement{Text: st.Text, Query: st.Query, Offset: st.Offset, Kind: bsql.KindSelect, Tree: tree, Tag: "SELECT"}
	pl, err := s.planSelect(ctx, inner, params, nil)
	if err != nil {
		return nil, err
	}
	defer pl.Close()
	var row firstRow
	if _, err := pl.(*selectPlan).executeRows(ctx, &row); err != nil {
		return nil, err
	}
	args := make([]any, len(exprs))
	for i, raw := range row.vals {
		if raw == nil {
			continue
		}
		v, err := pgtypes.ParseParamText(oids[i], -1, raw, &s.set.types)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return args, nil
}

// firstRow keeps a copy of the first row it receives.
type firstRow struct {
	vals [][]byte
	seen bool
}

func (r *firstRow) Row(values [][]byte) error {
	if r.seen {
		return nil
	}
	r.seen = true
	r.vals = make([][]byte, len(values))
	for i, v := range values {
		if v != nil {
			r.vals[i] = append([]byte{}, v...)
		}
	}
	return nil
}

// typeNameOf is the parse-tree type name of a built-in type OID (text when
// unknown).
func typeNameOf(oid uint32) *pg_query.TypeName {
	tn := &pg_query.TypeName{Typemod: -1, Location: -1}
	ti, ok := pgtypes.TypeByOID(oid)
	if !ok {
		ti, _ = pgtypes.TypeByOID(pgtypes.OIDText)
	}
	if ti.IsArray() {
		if el, ok := pgtypes.TypeByOID(ti.ElemOID); ok {
			ti = el
			tn.ArrayBounds = []*pg_query.Node{pg_query.MakeIntNode(-1)}
		}
	}
	tn.Names = []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(ti.Name)}
	return tn
}

func (s *session) planDeallocate(st *bsql.Statement) (plan, error) {
	ds := st.Tree.GetDeallocateStmt()
	if ds == nil {
		return nil, st.Unsupported()
	}
	if ds.Isall {
		return tagOnly("DEALLOCATE ALL", func(ctx context.Context) error {
			s.deallocateAll()
			return nil
		}), nil
	}
	return tagOnly("DEALLOCATE", func(ctx context.Context) error {
		p, ok := s.named[ds.Name]
		if !ok {
			return errNoPrepared(ds.Name)
		}
		p.deallocated = true
		delete(s.named, ds.Name)
		return nil
	}), nil
}

func (s *session) deallocateAll() {
	for name, p := range s.named {
		p.deallocated = true
		delete(s.named, name)
	}
}

// preparedText returns the text of the statement of PREPARE name [(types)]
// AS statement and its byte offset in text, or ("", -1).
func preparedText(text string) (string, int) {
	res, err := pg_query.Scan(text)
	if err != nil {
		return "", -1
	}
	for i, tok := range res.Tokens {
		if tok.Token == pg_query.Token_AS && i+1 < len(res.Tokens) {
			start := int(res.Tokens[i+1].Start)
			return text[start:], start
		}
	}
	return "", -1
}

// shiftPosition moves an error's position (1 + byte offset) by offset
// bytes.
func shiftPosition(err error, offset int) error {
	if e, ok := pgerr.As(err); ok && e.Position > 0 {
		c := *e
		c.Position += offset
		return &c
	}
	return err
}

// withoutPosition drops an error's cursor position: positions of a
// prepared statement's errors are not positions in the EXECUTE text.
func withoutPosition(err error) error {
	if e, ok := pgerr.As(err); ok && e.Position > 0 {
		c := *e
		c.Position = 0
		return &c
	}
	return err
}
