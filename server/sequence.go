package server

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/seq"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// Sequences (package seq holds the values and their durability):
//
//   - CREATE/ALTER/DROP SEQUENCE, ALTER SEQUENCE ... RENAME TO, with
//     PostgreSQL's options, checks and messages;
//   - nextval, currval, setval, lastval: session functions (sessionfuncs.go)
//     taking the sequence's name (a literal, nextval('s'::regclass)) or
//     its OID; currval and lastval are the session's;
//   - serial columns and identity columns: CREATE TABLE creates the
//     column's sequence, owned by the column (dropped with the table), and
//     the column's default is nextval of it; a direct INSERT takes the
//     values of all its rows in one call (insert.go), COPY one call per
//     batch (copy.go);
//   - SELECT last_value, log_cnt, is_called FROM s.
//
// Like PostgreSQL, nextval is not undone by ROLLBACK, and DDL on sequences
// is not transactional here (as DDL on tables).

// seqs returns the server's sequence manager.
func (b *Backend) seqs() *seq.Manager {
	b.seqOnce.Do(func() { b.seqM = seq.NewManager(b.Eng.Catalog()) })
	return b.seqM
}

// seqSession is a session's sequence state: currval per sequence, lastval,
// and name lookups of the current search path.
type seqSession struct {
	mu      sync.Mutex
	curr    map[uint32]int64
	last    *seq.Seq
	lastVal int64
	names   map[string]*seq.Seq
	gen     uint64
	path    string
}

func (s *session) noteSeqValue(sq *seq.Seq, v int64) {
	s.sq.mu.Lock()
	defer s.sq.mu.Unlock()
	if s.sq.curr == nil {
		s.sq.curr = map[uint32]int64{}
	}
	s.sq.curr[sq.Info().OID] = v
	s.sq.last, s.sq.lastVal = sq, v
}

// parseQualifiedName splits the text of a regclass the way PostgreSQL's
// stringToQualifiedNameList does: dots separate names, double quotes keep
// case and dots, other names are folded to lower case.
func parseQualifiedName(text string) ([]string, error) {
	bad := pgerr.New("42602", "invalid name syntax")
	var out []string
	i := 0
	for {
		for i < len(text) && isSpaceByte(text[i]) {
			i++
		}
		var b strings.Builder
		if i < len(text) && text[i] == '"' {
			i++
			for {
				if i >= len(text) {
					return nil, bad
				}
				if text[i] == '"' {
					if i+1 < len(text) && text[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(text[i])
				i++
			}
			if b.Len() == 0 {
				return nil, pgerr.New("42602", "invalid name syntax")
			}
		} else {
			for i < len(text) && text[i] != '.' && !isSpaceByte(text[i]) {
				c := text[i]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				b.WriteByte(c)
				i++
			}
			if b.Len() == 0 {
				return nil, bad
			}
		}
		name := b.String()
		if len(name) > 63 {
			name = truncateIdent(name)
		}
		out = append(out, name)
		for i < len(text) && isSpaceByte(text[i]) {
			i++
		}
		if i == len(text) {
			return out, nil
		}
		if text[i] != '.' {
			return nil, bad
		}
		i++
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// truncateIdent cuts a name to NAMEDATALEN-1 bytes on a UTF-8 boundary.
func truncateIdent(s string) string {
	if len(s) <= 63 {
		return s
	}
	n := 63
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// sequenceByName resolves the text of a regclass naming a sequence:
// 42P01 when no relation has the name, 42809 when it is a table.
func (s *session) sequenceByName(ctx context.Context, text string) (*seq.Seq, error) {
	m := s.b.seqs()
	path := strings.Join(s.set.searchPath(), ",")
	s.sq.mu.Lock()
	if s.sq.gen != m.Gen() || s.sq.path != path {
		s.sq.names, s.sq.gen, s.sq.path = nil, m.Gen(), path
	}
	if sq := s.sq.names[text]; sq != nil {
		s.sq.mu.Unlock()
		return sq, nil
	}
	s.sq.mu.Unlock()
	parts, err := parseQualifiedName(text)
	if err != nil {
		return nil, err
	}
	var schemaName, name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		schemaName, name = parts[0], parts[1]
	case 3:
		if parts[0] != s.db {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", text)
		}
		schemaName, name = parts[1], parts[2]
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", text)
	}
	sq, err := s.findSequence(ctx, schemaName, name, true)
	if err != nil {
		return nil, err
	}
	s.sq.mu.Lock()
	if s.sq.names == nil {
		s.sq.names = map[string]*seq.Seq{}
	}
	s.sq.names[text] = sq
	s.sq.mu.Unlock()
	return sq, nil
}

// findSequence looks schemaName.name up (along the search path when
// schemaName is empty). A table found first is 42809 "... is not a
// sequence"; nothing is 42P01 (nil, nil when !must).
func (s *session) findSequence(ctx context.Context, schemaName, name string, must bool) (*seq.Seq, error) {
	a, err := s.authz(ctx)
	if err != nil {
		return nil, err
	}
	schemas := []string{schemaName}
	if schemaName == "" {
		if schemas, err = s.searchPathFor(ctx, a); err != nil {
			return nil, err
		}
	}
	m := s.b.seqs()
	for _, sc := range schemas {
		id := catalog.TableID{Database: s.db, Schema: sc, Name: name}
		sq, err := m.Lookup(ctx, id)
		if err != nil {
			return nil, err
		}
		if sq != nil {
			return sq, nil
		}
		if s.eng.IsOpen(id) {
			return nil, notASequence(name)
		}
		if _, err := s.eng.Catalog().Table(ctx, id); err == nil {
			return nil, notASequence(name)
		}
	}
	if !must {
		return nil, nil
	}
	if schemaName != "" {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schemaName, name)
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

func notASequence(name string) error {
	return pgerr.New("42809", "\"%s\" is not a sequence", name)
}

// sequenceArg is a sequence function's first argument: a name or an OID.
func (s *session) sequenceArg(ctx context.Context, v driver.Value) (*seq.Seq, error) {
	switch x := v.(type) {
	case string:
		return s.sequenceByName(ctx, x)
	case int64:
		sq, err := s.b.seqs().LookupOID(ctx, s.db, uint32(x))
		if err != nil {
			return nil, err
		}
		if sq == nil {
			return nil, pgerr.New(pgerr.InternalError, "could not open relation with OID %d", x)
		}
		return sq, nil
	}
	return nil, fmt.Errorf("BUG: sequence argument %T", v)
}

func fnNextval(ctx context.Context, s *session, args []driver.Value) (any, error) {
	if args[0] == nil {
		return nil, nil
	}
	sq, err := s.sequenceArg(ctx, args[0])
	if err != nil {
		return nil, err
	}
	v, err := sq.Next(ctx, 1)
	if err != nil {
		return nil, err
	}
	s.noteSeqValue(sq, v[0])
	return v[0], nil
}

func fnCurrval(ctx context.Context, s *session, args []driver.Value) (any, error) {
	if args[0] == nil {
		return nil, nil
	}
	sq, err := s.sequenceArg(ctx, args[0])
	if err != nil {
		return nil, err
	}
	info := sq.Info()
	s.sq.mu.Lock()
	v, ok := s.sq.curr[info.OID]
	s.sq.mu.Unlock()
	if !ok {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", info.ID.Name)
	}
	return v, nil
}

func fnLastval(ctx context.Context, s *session, _ []driver.Value) (any, error) {
	s.sq.mu.Lock()
	last, v := s.sq.last, s.sq.lastVal
	s.sq.mu.Unlock()
	if last == nil {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	}
	// A sequence dropped since is no longer there to ask.
	if sq, err := s.b.seqs().LookupOID(ctx, s.db, last.Info().OID); err != nil {
		return nil, err
	} else if sq == nil {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	}
	return v, nil
}

func fnSetval(ctx context.Context, s *session, args []driver.Value) (any, error) {
	for _, a := range args {
		if a == nil {
			return nil, nil
		}
	}
	sq, err := s.sequenceArg(ctx, args[0])
	if err != nil {
		return nil, err
	}
	v, ok := args[1].(int64)
	if !ok {
		return nil, fmt.Errorf("BUG: setval value %T", args[1])
	}
	called := true
	if len(args) > 2 {
		called, _ = args[2].(bool)
	}
	if err := sq.SetVal(ctx, v, called); err != nil {
		return nil, err
	}
	if called {
		s.noteSeqValue(sq, v)
	}
	return v, nil
}

// seqNextN takes n values of the sequence named by text for an integer
// column of type colOID (insert.go, copy.go), as n calls of nextval.
func (s *session) seqNextN(ctx context.Context, text string, n int, colOID uint32) ([]any, error) {
	vals, err := s.seqNextInts(ctx, text, n)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		switch colOID {
		case bsql.OIDInt2:
			if v < math.MinInt16 || v > math.MaxInt16 {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "smallint out of range")
			}
			out[i] = int16(v)
		case bsql.OIDInt4:
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
			}
			out[i] = int32(v)
		default:
			out[i] = v
		}
	}
	return out, nil
}

// seqNextInts takes n values of the sequence named by text.
func (s *session) seqNextInts(ctx context.Context, text string, n int) ([]int64, error) {
	sq, err := s.sequenceByName(ctx, text)
	if err != nil {
		return nil, err
	}
	vals, err := sq.Next(ctx, n)
	if err != nil {
		return nil, err
	}
	s.noteSeqValue(sq, vals[len(vals)-1])
	return vals, nil
}

// seqOptions reads the DefElems of CREATE/ALTER SEQUENCE (and of an
// identity column) into seq.Options and the OWNED BY names.
func seqOptions(elems []*pg_query.Node) (o seq.Options, ownedBy []string, ownedGiven bool, err error) {
	seen := map[string]bool{}
	for _, n := range elems {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if seen[d.Defname] {
			return o, nil, false, pgerr.New(pgerr.SyntaxError, "conflicting or redundant options").WithPosition(int(d.Location) + 1)
		}
		seen[d.Defname] = true
		num := func() (*int64, error) {
			v, ok := defInt64(d.Arg)
			if !ok {
				return nil, pgerr.New(pgerr.SyntaxError, "%s requires a numeric value", d.Defname)
			}
			return &v, nil
		}
		switch d.Defname {
		case "as":
			tn := d.Arg.GetTypeName()
			oid, _, rerr := bsql.ResolveTypeName(tn)
			if rerr != nil {
				return o, nil, false, rerr
			}
			o.As = &oid
		case "increment":
			o.Increment, err = num()
		case "start":
			o.Start, err = num()
		case "restart":
			if d.Arg == nil {
				o.RestartDefault = true
			} else {
				o.Restart, err = num()
			}
		case "maxvalue":
			if d.Arg == nil {
				o.NoMax = true
			} else {
				o.Max, err = num()
			}
		case "minvalue":
			if d.Arg == nil {
				o.NoMin = true
			} else {
				o.Min, err = num()
			}
		case "cache":
			o.Cache, err = num()
		case "cycle":
			b := d.Arg.GetBoolean().GetBoolval()
			if iv := d.Arg.GetInteger(); iv != nil {
				b = iv.Ival != 0
			}
			o.Cycle = &b
		case "owned_by":
			ownedGiven = true
			for _, p := range d.Arg.GetList().GetItems() {
				ownedBy = append(ownedBy, nodeString(p))
			}
		case "sequence_name":
			return o, nil, false, pgerr.New(pgerr.SyntaxError, "invalid sequence option SEQUENCE NAME").WithPosition(int(d.Location) + 1)
		default:
			return o, nil, false, pgerr.New(pgerr.SyntaxError, "option \"%s\" not recognized", d.Defname)
		}
		if err != nil {
			return o, nil, false, err
		}
	}
	return o, ownedBy, ownedGiven, nil
}

func defInt64(n *pg_query.Node) (int64, bool) {
	if n == nil {
		return 0, false
	}
	if i := n.GetInteger(); i != nil {
		return int64(i.Ival), true
	}
	if f := n.GetFloat(); f != nil {
		var v int64
		if _, err := fmt.Sscan(f.Fval, &v); err == nil {
			return v, true
		}
	}
	return 0, false
}

// planSequence plans CREATE/ALTER/DROP SEQUENCE and ALTER SEQUENCE ...
// RENAME TO; ok is false for other statements.
func (s *session) planSequence(ctx context.Context, st *bsql.Statement) (p plan, ok bool, err error) {
	switch n := st.Tree.GetNode().(type) {
	case *pg_query.Node_CreateSeqStmt:
		if err := s.ddlAllowed("CREATE SEQUENCE"); err != nil {
			return nil, true, err
		}
		return tagOnly("CREATE SEQUENCE", func(ctx context.Context) error { return s.createSequence(ctx, n.CreateSeqStmt) }), true, nil
	case *pg_query.Node_AlterSeqStmt:
		if err := s.ddlAllowed("ALTER SEQUENCE"); err != nil {
			return nil, true, err
		}
		return tagOnly("ALTER SEQUENCE", func(ctx context.Context) error { return s.alterSequence(ctx, n.AlterSeqStmt) }), true, nil
	case *pg_query.Node_RenameStmt:
		rs := n.RenameStmt
		switch {
		case rs.RenameType == pg_query.ObjectType_OBJECT_SEQUENCE:
		case rs.RenameType == pg_query.ObjectType_OBJECT_TABLE && rs.Relation != nil:
			// ALTER TABLE ... RENAME TO of a sequence (PostgreSQL allows it).
			if sq, err := s.findSequence(ctx, rs.Relation.Schemaname, rs.Relation.Relname, false); err != nil || sq == nil {
				return nil, false, nil
			}
		default:
			return nil, false, nil
		}
		if err := s.ddlAllowed("ALTER SEQUENCE"); err != nil {
			return nil, true, err
		}
		return tagOnly("ALTER SEQUENCE", func(ctx context.Context) error { return s.renameSequence(ctx, n.RenameStmt) }), true, nil
	case *pg_query.Node_DropStmt:
		if n.DropStmt.RemoveType != pg_query.ObjectType_OBJECT_SEQUENCE {
			return nil, false, nil
		}
		if err := s.ddlAllowed("DROP SEQUENCE"); err != nil {
			return nil, true, err
		}
		return tagOnly("DROP SEQUENCE", func(ctx context.Context) error { return s.dropSequences(ctx, n.DropStmt) }), true, nil
	}
	return nil, false, nil
}

// relationExists reports whether a table or a sequence has the name id.
func (s *session) relationExists(ctx context.Context, id catalog.TableID) (bool, error) {
	if s.eng.IsOpen(id) {
		return true, nil
	}
	if _, err := s.eng.Catalog().Table(ctx, id); err == nil {
		return true, nil
	} else if !errors.Is(err, catalog.ErrNotFound) {
		return false, err
	}
	sq, err := s.b.seqs().Lookup(ctx, id)
	return sq != nil, err
}

func (s *session) createSequence(ctx context.Context, cs *pg_query.CreateSeqStmt) error {
	rv := cs.Sequence
	if rv.Relpersistence == "t" {
		return pgerr.New(pgerr.FeatureNotSupported, "temporary sequences are not supported")
	}
	if rv.Catalogname != "" && rv.Catalogname != s.db {
		return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	o, ownedBy, _, err := seqOptions(cs.Options)
	if err != nil {
		return err
	}
	id, a, err := s.lookupTable(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return err
	}
	if err := s.requireSchema(ctx, a, id.Schema, acl.Create); err != nil {
		return err
	}
	rec := &catalog.Sequence{ID: id, Owner: s.currentRole}
	if err := seq.ApplyOptions(rec, &o, true, false); err != nil {
		return err
	}
	if err := s.setOwnedBy(ctx, rec, ownedBy); err != nil {
		return err
	}
	_, err = s.newSequence(ctx, rec, cs.IfNotExists)
	return err
}

// newSequence creates rec's sequence: 42P07 if a relation has its name
// (a notice and nil with ifNotExists).
func (s *session) newSequence(ctx context.Context, rec *catalog.Sequence, ifNotExists bool) (*seq.Seq, error) {
	exists, err := s.relationExists(ctx, rec.ID)
	if err == nil && !exists {
		var sq *seq.Seq
		sq, err = s.b.seqs().Create(ctx, rec)
		if err == nil {
			return sq, nil
		}
		if !errors.Is(err, catalog.ErrExists) {
			if errors.Is(err, catalog.ErrNotFound) {
				return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", rec.ID.Schema)
			}
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if ifNotExists {
		return nil, s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", rec.ID.Name)})
	}
	return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rec.ID.Name)
}

// setOwnedBy applies OWNED BY t.c | NONE to rec (process_owned_by).
func (s *session) setOwnedBy(ctx context.Context, rec *catalog.Sequence, names []string) error {
	if names == nil {
		return nil
	}
	if len(names) == 1 && names[0] == "none" {
		rec.OwnedBy, rec.OwnedByColumn = catalog.TableID{}, ""
		return nil
	}
	if len(names) < 2 {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	col := names[len(names)-1]
	tparts := names[:len(names)-1]
	var sc, tn string
	switch len(tparts) {
	case 1:
		tn = tparts[0]
	default:
		sc, tn = tparts[len(tparts)-2], tparts[len(tparts)-1]
	}
	t, err := s.accessTable(ctx, sc, tn, acl.None)
	if err != nil {
		return err
	}
	if t.ID.Schema != rec.ID.Schema {
		return pgerr.New(pgerr.FeatureNotSupported, "sequence must be in same schema as table it is linked to")
	}
	if t.Schema.Index(col) < 0 {
		return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, tn)
	}
	rec.OwnedBy, rec.OwnedByColumn = t.ID, col
	return nil
}

func (s *session) alterSequence(ctx context.Context, as *pg_query.AlterSeqStmt) error {
	rv := as.Sequence
	sq, err := s.findSequence(ctx, rv.Schemaname, rv.Relname, !as.MissingOk)
	if err != nil {
		return err
	}
	if sq == nil {
		return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
	}
	if err := s.requireSequenceOwner(ctx, sq); err != nil {
		return err
	}
	o, ownedBy, ownedGiven, err := seqOptions(as.Options)
	if err != nil {
		return err
	}
	var owned func(*catalog.Sequence) error
	if ownedGiven {
		if sq.Info().Identity {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot change ownership of identity sequence").
				WithDetail("Sequence \"%s\" is linked to table \"%s\".", sq.Info().ID.Name, sq.Info().OwnedBy.Name)
		}
		probe := sq.Info()
		if err := s.setOwnedBy(ctx, &probe, ownedBy); err != nil {
			return err
		}
		owned = func(r *catalog.Sequence) error {
			r.OwnedBy, r.OwnedByColumn = probe.OwnedBy, probe.OwnedByColumn
			return nil
		}
	}
	return sq.Alter(ctx, &o, owned)
}

func (s *session) requireSequenceOwner(ctx context.Context, sq *seq.Seq) error {
	a, err := s.authz(ctx)
	if err != nil {
		return err
	}
	if a.super() || a.owns(sq.Info().Owner) {
		return nil
	}
	return errNotOwner("sequence", sq.Info().ID.Name)
}

func (s *session) renameSequence(ctx context.Context, rs *pg_query.RenameStmt) error {
	rv := rs.Relation
	sq, err := s.findSequence(ctx, rv.Schemaname, rv.Relname, !rs.MissingOk)
	if err != nil {
		return err
	}
	if sq == nil {
		return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
	}
	if err := s.requireSequenceOwner(ctx, sq); err != nil {
		return err
	}
	id := sq.Info().ID
	id.Name = rs.Newname
	if ok, err := s.relationExists(ctx, id); err != nil {
		return err
	} else if ok {
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rs.Newname)
	}
	if err := s.b.seqs().Rename(ctx, sq, rs.Newname); err != nil {
		if errors.Is(err, catalog.ErrExists) {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rs.Newname)
		}
		return err
	}
	return nil
}

func (s *session) dropSequences(ctx context.Context, ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	for _, obj := range ds.Objects {
		sc, name, err := s.dropObjectName(obj) // views.go
		if err != nil {
			return err
		}
		sq, err := s.findSequence(ctx, sc, name, false)
		if pe, ok := pgerr.As(err); ok && pe.Code == "42809" {
			return pgerr.New("42809", "\"%s\" is not a sequence", name).WithHint("Use DROP TABLE to remove a table.")
		}
		if err != nil {
			return err
		}
		if sq == nil {
			if ds.MissingOk {
				s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("sequence \"%s\" does not exist, skipping", name)})
				continue
			}
			return pgerr.New(pgerr.UndefinedTable, "sequence \"%s\" does not exist", name)
		}
		if err := s.requireSequenceOwner(ctx, sq); err != nil {
			return err
		}
		info := sq.Info()
		if info.OwnedBy.Name != "" {
			// The owning column's default (or identity) depends on it.
			if t, err := s.eng.Table(ctx, info.OwnedBy); err == nil {
				if i := t.Schema.Index(info.OwnedByColumn); i >= 0 && strings.Contains(t.Schema.Columns[i].Default, "nextval(") {
					if info.Identity {
						return pgerr.New("2BP01", "cannot drop sequence %s because column %s of table %s requires it", info.ID.Name, info.OwnedByColumn, info.OwnedBy.Name).
							WithHint("You can drop column %s of table %s instead.", info.OwnedByColumn, info.OwnedBy.Name)
					}
					if !cascade {
						return pgerr.New("2BP01", "cannot drop sequence %s because other objects depend on it", info.ID.Name).
							WithDetail("default value for column %s of table %s depends on sequence %s", info.OwnedByColumn, info.OwnedBy.Name, info.ID.Name).
							WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
					}
					return pgerr.New(pgerr.FeatureNotSupported, "DROP SEQUENCE ... CASCADE of a sequence a column default uses is not supported")
				}
			}
		}
		if err := s.b.seqs().Drop(ctx, sq); err != nil {
			return err
		}
	}
	return nil
}

// dropOwnedSequences drops the sequences owned by columns of table id
// (DROP TABLE, DROP SCHEMA ... CASCADE).
func (s *session) dropOwnedSequences(ctx context.Context, id catalog.TableID) error {
	recs, err := s.eng.Catalog().ListSequences(ctx, id.Database)
	if err != nil {
		return err
	}
	m := s.b.seqs()
	for _, r := range recs {
		if r.OwnedBy != id {
			continue
		}
		sq, err := m.Lookup(ctx, r.ID)
		if err != nil {
			return err
		}
		if sq != nil {
			if err := m.Drop(ctx, sq); err != nil {
				return err
			}
		}
	}
	return nil
}

// serialSequences creates the sequences of the serial and identity
// columns of a CREATE TABLE (owned by their columns) and sets the columns'
// defaults to nextval of them. The sequences created are returned, to be
// dropped if the table is not created.
func (s *session) serialSequences(ctx context.Context, tid catalog.TableID, ct *bsql.CreateTable) ([]*seq.Seq, error) {
	var made []*seq.Seq
	fail := func(err error) ([]*seq.Seq, error) {
		for _, sq := range made {
			_ = s.b.seqs().Drop(context.WithoutCancel(ctx), sq)
		}
		return nil, err
	}
	for i := range ct.Columns {
		cd := &ct.Columns[i]
		if !cd.Serial && cd.Identity == "" {
			continue
		}
		var o seq.Options
		var seqSchema, seqName string
		if cd.Identity != "" {
			var owned []string
			opts, sc, sn, err := splitSequenceName(cd.IdentityOptions) // alter.go
			if err != nil {
				return fail(err)
			}
			seqSchema, seqName = sc, sn
			o, owned, _, err = seqOptions(opts)
			if err != nil {
				return fail(err)
			}
			if owned != nil {
				return fail(pgerr.New(pgerr.SyntaxError, "invalid sequence option OWNED BY"))
			}
		}
		t := cd.TypeOID
		o.As = &t
		name := seqName
		if name == "" {
			var err error
			if name, err = s.chooseSequenceName(ctx, tid, cd.Name); err != nil {
				return fail(err)
			}
		}
		if seqSchema == "" {
			seqSchema = tid.Schema
		}
		rec := &catalog.Sequence{ID: catalog.TableID{Database: tid.Database, Schema: seqSchema, Name: name}, Owner: s.currentRole,
			OwnedBy: tid, OwnedByColumn: cd.Name, Identity: cd.Identity != ""}
		if err := seq.ApplyOptions(rec, &o, true, cd.Identity != ""); err != nil {
			return fail(err)
		}
		sq, err := s.newSequence(ctx, rec, false)
		if err != nil {
			return fail(err)
		}
		made = append(made, sq)
		cd.Default = nextvalDefault(seqSchema, name)
	}
	return made, nil
}

// nextvalDefault is the text of a serial column's default, as PostgreSQL
// prints it: nextval('t_id_seq'::regclass), the name schema-qualified
// outside public and quoted where it must be.
func nextvalDefault(schema, name string) string {
	q := quoteIdentIfNeeded(name)
	if schema != catalog.DefaultSchema {
		q = quoteIdentIfNeeded(schema) + "." + q
	}
	return "nextval('" + strings.ReplaceAll(q, "'", "''") + "'::regclass)"
}

func quoteIdentIfNeeded(s string) string {
	ok := s != ""
	for i := 0; i < len(s) && ok; i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '$')
	}
	if ok && !keywordNeedsQuotes(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func keywordNeedsQuotes(s string) bool {
	r, err := pg_query.Scan(s)
	if err != nil || len(r.Tokens) != 1 {
		return true
	}
	k := r.Tokens[0].KeywordKind
	return k != pg_query.KeywordKind_NO_KEYWORD && k != pg_query.KeywordKind_UNRESERVED_KEYWORD
}

// chooseSequenceName is PostgreSQL's ChooseRelationName(table, column,
// "seq", namespace): table_column_seq, the two names cut (the longer one
// first) to fit in 63 bytes, then a number appended until the name is
// free.
func (s *session) chooseSequenceName(ctx context.Context, tid catalog.TableID, column string) (string, error) {
	for pass := 0; pass < 10000; pass++ {
		label := "seq"
		if pass > 0 {
			label = fmt.Sprintf("seq%d", pass)
		}
		name := makeObjectName(tid.Name, column, label)
		id := catalog.TableID{Database: tid.Database, Schema: tid.Schema, Name: name}
		exists, err := s.relationExists(ctx, id)
		if err != nil {
			return "", err
		}
		if !exists && name != tid.Name {
			return name, nil
		}
	}
	return "", pgerr.New(pgerr.DuplicateTable, "could not choose a sequence name for column \"%s\"", column)
}

// makeObjectName is PostgreSQL's makeObjectName.
func makeObjectName(name1, name2, label string) string {
	overhead := len(label) + 1
	n1, n2 := len(name1), len(name2)
	if name2 != "" {
		overhead++
	}
	avail := 63 - overhead
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	n1 = clipLen(name1, n1)
	out := name1[:n1]
	if name2 != "" {
		out += "_" + name2[:clipLen(name2, n2)]
	}
	return out + "_" + label
}

// clipLen is pg_mbcliplen: n cut back to a UTF-8 boundary.
func clipLen(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// sequenceRelation is SELECT ... FROM a sequence: its one row.
func (s *session) sequenceRelation(ctx context.Context, schemaName, name string) (*bsql.TableInfo, bool, error) {
	sq, err := s.findSequence(ctx, schemaName, name, false)
	if err != nil || sq == nil {
		return nil, false, nil
	}
	st := sq.State()
	info := sq.Info()
	return &bsql.TableInfo{Schema: info.ID.Schema, Name: info.ID.Name,
		Columns: []bsql.ColumnInfo{{Name: "last_value", TypeOID: bsql.OIDInt8, TypeMod: -1, NotNull: true},
			{Name: "log_cnt", TypeOID: bsql.OIDInt8, TypeMod: -1, NotNull: true},
			{Name: "is_called", TypeOID: bsql.OIDBool, TypeMod: -1, NotNull: true}},
		FromSQL: fmt.Sprintf("(SELECT CAST(%d AS BIGINT) AS last_value, CAST(%d AS BIGINT) AS log_cnt, %t AS is_called)", st.LastValue, st.LogCnt, st.IsCalled),
	}, true, nil
}

func isIntegerOID(oid uint32) bool {
	return oid == bsql.OIDInt2 || oid == bsql.OIDInt4 || oid == bsql.OIDInt8
}

// copySequences returns the columns a COPY does not list whose default is
// nextval of a sequence (serial, identity): column -> the sequence's text.
func copySequences(info *bsql.TableInfo, pos []int) map[int]string {
	listed := map[int]bool{}
	for _, p := range pos {
		listed[p] = true
	}
	var out map[int]string
	for i, c := range info.Columns {
		if listed[i] || !isIntegerOID(c.TypeOID) {
			continue
		}
		if name, ok := bsql.SequenceOfDefault(c.Default); ok {
			if out == nil {
				out = map[int]string{}
			}
			out[i] = name
		}
	}
	return out
}

// fillSequences replaces the placeholder columns of a COPY batch by the
// sequences' values: one nextval call per column and batch.
func (s *session) fillSequences(ctx context.Context, rec arrow.RecordBatch, info *bsql.TableInfo, cols map[int]string) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	if n == 0 {
		return rec, nil
	}
	arrs := slices.Clone(rec.Columns())
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for c, name := range cols {
		vals, err := s.seqNextInts(ctx, name, n)
		if err != nil {
			rec.Release()
			return nil, err
		}
		var a arrow.Array
		switch info.Columns[c].TypeOID {
		case bsql.OIDInt2:
			b := array.NewInt16Builder(memory.DefaultAllocator)
			b.Reserve(n)
			for _, x := range vals {
				if x < math.MinInt16 || x > math.MaxInt16 {
					b.Release()
					rec.Release()
					return nil, pgerr.New(pgerr.NumericValueOutOfRange, "smallint out of range")
				}
				b.UnsafeAppend(int16(x))
			}
			a = b.NewArray()
			b.Release()
		case bsql.OIDInt4:
			b := array.NewInt32Builder(memory.DefaultAllocator)
			b.Reserve(n)
			for _, x := range vals {
				if x < math.MinInt32 || x > math.MaxInt32 {
					b.Release()
					rec.Release()
					return nil, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
				}
				b.UnsafeAppend(int32(x))
			}
			a = b.NewArray()
			b.Release()
		default:
			b := array.NewInt64Builder(memory.DefaultAllocator)
			b.Reserve(n)
			b.AppendValues(vals, nil)
			a = b.NewArray()
			b.Release()
		}
		made = append(made, a)
		arrs[c] = a
	}
	out := array.NewRecordBatch(rec.Schema(), arrs, int64(n))
	rec.Release()
	return out, nil
}

// fnSerialSequence is pg_get_serial_sequence(table, column): the
// sequence owned by the column (serial or identity), schema-qualified, or
// NULL.
func fnSerialSequence(ctx context.Context, s *session, args []driver.Value) (any, error) {
	if args[0] == nil || args[1] == nil {
		return nil, nil
	}
	tname, _ := args[0].(string)
	col, _ := args[1].(string)
	parts, err := parseQualifiedName(tname)
	if err != nil {
		return nil, err
	}
	var sc, name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		sc, name = parts[0], parts[1]
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", tname)
	}
	t, err := s.accessTable(ctx, sc, name, acl.None)
	if err != nil {
		return nil, err
	}
	if t.Schema.Index(col) < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, name)
	}
	recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.OwnedBy == t.ID && r.OwnedByColumn == col {
			return quoteIdentIfNeeded(r.ID.Schema) + "." + quoteIdentIfNeeded(r.ID.Name), nil
		}
	}
	return nil, nil
}

// snapshotSequences adds the database's sequences to a catalog snapshot
// (pg_class, pg_sequence, pg_sequences, information_schema.sequences,
// pg_depend of owned sequences).
func (s *session) snapshotSequences(ctx context.Context, snap *pgcatalog.Snapshot, rs *roleSnap) error {
	recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
	if err != nil {
		return err
	}
	tables := map[catalog.TableID]*pgcatalog.Table{}
	for i := range snap.Tables {
		t := &snap.Tables[i]
		tables[catalog.TableID{Database: s.db, Schema: t.Schema, Name: t.Name}] = t
	}
	m := s.b.seqs()
	for _, r := range recs {
		q := pgcatalog.Sequence{OID: r.OID, Schema: r.ID.Schema, Name: r.ID.Name, Owner: r.Owner, ACL: r.ACL.Format(rs.name),
			TypeOID: r.TypeOID, Start: r.Start, Increment: r.Increment, Min: r.Min, Max: r.Max, Cache: r.Cache, Cycle: r.Cycle,
			Identity: r.Identity}
		last, called := r.LastValue, r.IsCalled
		if sq, err := m.Lookup(ctx, r.ID); err == nil && sq != nil && sq.Info().OID == r.OID {
			st := sq.State()
			last, called = st.LastValue, st.IsCalled
		}
		if called {
			q.LastValue = &last
		}
		if t := tables[r.OwnedBy]; t != nil && r.OwnedBy.Name != "" {
			for i, c := range t.Columns {
				if c.Name == r.OwnedByColumn {
					q.OwnedBy, q.OwnedByCol = t.OID, c.Num(i)
				}
			}
		}
		snap.Sequences = append(snap.Sequences, q)
	}
	return nil
}

// discardSequences is DISCARD SEQUENCES (and DISCARD ALL): currval and
// lastval are undefined again.
func (s *session) discardSequences() {
	s.sq.mu.Lock()
	defer s.sq.mu.Unlock()
	s.sq.curr, s.sq.last, s.sq.lastVal = nil, nil, 0
}

// schemaSequences lists the sequences of a schema of the session's
// database (DROP SCHEMA).
func (s *session) schemaSequences(ctx context.Context, schemaName string) ([]catalog.Sequence, error) {
	recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
	if err != nil {
		return nil, err
	}
	var out []catalog.Sequence
	for _, r := range recs {
		if r.ID.Schema == schemaName {
			out = append(out, r)
		}
	}
	return out, nil
}

// dropSequenceRecords drops sequences by their records (DROP SCHEMA ...
// CASCADE, DROP DATABASE).
func (s *session) dropSequenceRecords(ctx context.Context, recs []catalog.Sequence) error {
	m := s.b.seqs()
	for _, r := range recs {
		m.Forget(r.ID)
		if err := s.eng.Catalog().DropSequence(ctx, r.ID); err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return err
		}
	}
	return nil
}
