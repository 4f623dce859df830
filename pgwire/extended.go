package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Extended query protocol: Parse, Bind, Describe, Execute, Close, Sync.
//
// Invariants:
//   - The unnamed statement ("") is replaced by the next Parse of "", the
//     unnamed portal by the next Bind to ""; named ones must be closed
//     first (42P05 / 42P03).
//   - After an error, messages up to Sync are discarded (conn.ignoreTillSync).
//   - Portals end with their transaction: at every ReadyForQuery whose
//     status is 'I' (which is Sync for an implicit transaction) all portals
//     are closed.

type stmtEntry struct {
	sql     string
	stmt    Statement
	nparams int
}

type portalEntry struct {
	sql    string
	portal Portal
}

// DuplicateCursor is SQLSTATE 42P03 (duplicate_cursor), PostgreSQL's code
// for Bind to a named portal that exists.
const DuplicateCursor = "42P03"

func stmtNotFound(name string) *pgerr.Error {
	if name == "" {
		return pgerr.New(pgerr.InvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", name)
}

func portalNotFound(name string) *pgerr.Error {
	return pgerr.New(pgerr.InvalidCursorName, "portal %q does not exist", name)
}

// protocolFail reports an error pgwire raised itself to the session
// (ProtocolErrorHandler) and returns it.
func (c *conn) protocolFail(e *pgerr.Error) *pgerr.Error {
	if h, ok := c.sess.(ProtocolErrorHandler); ok {
		if err := c.guard("ProtocolError", func() error { h.ProtocolError(e); return nil }); err != nil {
			return c.wireError(err, nil)
		}
	}
	return e
}

func (c *conn) closeStmt(name string, s *stmtEntry) {
	delete(c.stmts, name)
	if err := c.guard("Statement.Close", func() error { s.stmt.Close(); return nil }); err != nil {
		c.sendError(err)
	}
}

func (c *conn) closePortal(name string, p portalEntry) {
	delete(c.portals, name)
	if err := c.guard("Portal.Close", func() error { p.portal.Close(); return nil }); err != nil {
		c.sendError(err)
	}
}

// stmt looks up a statement, dropping it if the session deallocated it.
func (c *conn) stmt(name string) (*stmtEntry, bool) {
	s, ok := c.stmts[name]
	if ok {
		if d, can := s.stmt.(Deallocator); can && d.Deallocated() {
			c.closeStmt(name, s)
			return nil, false
		}
	}
	return s, ok
}

// checkStrings is what pq_getmsgstring does to the strings of a message
// (query text, statement and portal names) before anything uses them: the
// conversion from the client encoding, which refuses invalid UTF-8 (22021).
// The message is well formed, so the error is an ERROR, not FATAL.
func (c *conn) checkStrings(a, b string) *pgerr.Error {
	e := pgerr.CheckTextString(a)
	if e == nil {
		e = pgerr.CheckTextString(b)
	}
	if e != nil {
		return c.protocolFail(e)
	}
	return nil
}

func (c *conn) parse(m cmdParse) error {
	if e := c.checkStrings(m.name, m.sql); e != nil {
		return e
	}
	if old, ok := c.stmt(m.name); ok {
		if m.name != "" {
			return c.protocolFail(pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", m.name))
		}
		c.closeStmt("", old)
	}
	var st Statement
	var nparams int
	if e := c.withStmt("Prepare", func(ctx context.Context) error {
		var err error
		if st, err = c.sess.Prepare(ctx, m.name, m.sql, m.paramOIDs); err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("BUG: Session.Prepare returned neither a statement nor an error")
		}
		nparams = len(st.ParamOIDs())
		return nil
	}); e != nil {
		return e
	}
	c.stmts[m.name] = &stmtEntry{sql: m.sql, stmt: st, nparams: nparams}
	return c.send(&pgproto3.ParseComplete{})
}

// checkFormats checks format codes: there must be 0, 1 or n of them (n > 1
// only when n things have formats), each 0 (text) or 1 (binary).
func checkFormats(formats []int16, n int) *pgerr.Error {
	if len(formats) > 1 && len(formats) != n {
		return protocolError(fmt.Sprintf("bind message has %d parameter formats but %d parameters", len(formats), n))
	}
	for _, f := range formats {
		if f != 0 && f != 1 {
			return pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	return nil
}

// protocolError is a non-fatal 08P01 (the message was well formed but its
// content is inconsistent): the client skips to Sync and goes on.
func protocolError(msg string) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.ProtocolViolation, Message: msg}
}

func (c *conn) bind(m *cmdBind) error {
	if e := c.checkStrings(m.portal, m.stmt); e != nil {
		return e
	}
	s, ok := c.stmt(m.stmt)
	if !ok {
		return c.protocolFail(stmtNotFound(m.stmt))
	}
	if old, ok := c.portals[m.portal]; ok {
		if m.portal != "" {
			return c.protocolFail(pgerr.New(DuplicateCursor, "cursor %q already exists", m.portal))
		}
		c.closePortal("", old)
	}
	if e := checkFormats(m.paramFormats, len(m.params)); e != nil {
		return c.protocolFail(e)
	}
	if len(m.params) != s.nparams {
		return c.protocolFail(protocolError(fmt.Sprintf("bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.params), m.stmt, s.nparams)))
	}
	if e := checkFormats(m.resultFormats, len(m.resultFormats)); e != nil { // the count is the session's to check
		return c.protocolFail(e)
	}
	var p Portal
	if e := c.withStmt("Bind", func(ctx context.Context) error {
		var err error
		if p, err = c.sess.Bind(ctx, s.stmt, m.portal, m.params, m.paramFormats, m.resultFormats); err != nil {
			return err
		}
		if p == nil {
			return fmt.Errorf("BUG: Session.Bind returned neither a portal nor an error")
		}
		return nil
	}); e != nil {
		return e
	}
	c.portals[m.portal] = portalEntry{sql: s.sql, portal: p}
	return c.send(&pgproto3.BindComplete{})
}

func rowDescription(cols []Column) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, col := range cols {
		rd.Fields[i] = pgproto3.FieldDescription{
			Name: []byte(col.Name), TableOID: col.TableOID, TableAttributeNumber: uint16(col.AttNum),
			DataTypeOID: col.TypeOID, DataTypeSize: col.TypeSize, TypeModifier: col.TypeMod, Format: col.Format,
		}
	}
	return rd
}

// sendColumns sends RowDescription, or NoData for nil columns.
func (c *conn) sendColumns(cols []Column) error {
	if cols == nil {
		return c.send(&pgproto3.NoData{})
	}
	return c.send(rowDescription(cols))
}

func (c *conn) describe(m *cmdDescribe) error {
	if e := c.checkStrings(m.name, ""); e != nil {
		return e
	}
	switch m.kind {
	case 'S':
		s, ok := c.stmt(m.name)
		if !ok {
			return c.protocolFail(stmtNotFound(m.name))
		}
		var oids []uint32
		var cols []Column
		if e := c.call("Statement.Describe", func() error {
			oids, cols = s.stmt.ParamOIDs(), s.stmt.Columns()
			return nil
		}); e != nil {
			return e
		}
		if oids == nil {
			oids = []uint32{}
		}
		if err := c.send(&pgproto3.ParameterDescription{ParameterOIDs: oids}); err != nil {
			return err
		}
		return c.sendColumns(cols)
	case 'P':
		p, ok := c.portals[m.name]
		if !ok {
			return c.protocolFail(portalNotFound(m.name))
		}
		var cols []Column
		if e := c.call("Portal.Describe", func() error { cols = p.portal.Columns(); return nil }); e != nil {
			return e
		}
		return c.sendColumns(cols)
	default:
		return c.protocolFail(protocolError(fmt.Sprintf("invalid DESCRIBE message subtype %d", m.kind)))
	}
}

func (c *conn) execute(m *cmdExecute) error {
	if e := c.checkStrings(m.portal, ""); e != nil {
		return e
	}
	p, ok := c.portals[m.portal]
	if !ok {
		return c.protocolFail(portalNotFound(m.portal))
	}
	c.setState("active", p.sql)
	var suspended bool
	if e := c.withStmt("Portal.Execute", func(ctx context.Context) error {
		var err error
		c.rw = resultWriter{c: c, ctx: ctx, extended: true}
		suspended, err = p.portal.Execute(ctx, m.maxRows, &c.rw)
		c.rw = resultWriter{}
		return err
	}); e != nil {
		return e
	}
	if suspended {
		return c.send(&pgproto3.PortalSuspended{})
	}
	return nil
}

func (c *conn) closeObject(m cmdClose) error {
	if e := c.checkStrings(m.name, ""); e != nil {
		return e
	}
	switch m.kind {
	case 'S':
		if s, ok := c.stmt(m.name); ok {
			c.closeStmt(m.name, s)
		}
	case 'P':
		if p, ok := c.portals[m.name]; ok {
			c.closePortal(m.name, p)
		}
	default:
		return c.protocolFail(protocolError(fmt.Sprintf("invalid CLOSE message subtype %d", m.kind)))
	}
	if c.stop {
		return nil
	}
	return c.send(&pgproto3.CloseComplete{})
}

// sync ends an extended-protocol cycle: the session ends its implicit
// transaction (Syncer), then ReadyForQuery.
func (c *conn) sync() {
	if s, ok := c.sess.(Syncer); ok {
		if e := c.withStmt("Sync", s.Sync); e != nil {
			c.sendError(e)
			if c.stop {
				return
			}
		}
	}
	c.readyForQuery()
}

// simpleQuery runs a Query message: its results, ErrorResponse if it
// failed, and always ReadyForQuery.
func (c *conn) simpleQuery(sql string) {
	if e := c.checkStrings(sql, ""); e != nil {
		// Refused as the message is read (PostgreSQL verifies the whole
		// string, comments too), before the statement starts: the unnamed
		// statement stays, pg_stat_activity never shows the bytes.
		c.sendError(e)
		c.readyForQuery()
		return
	}
	c.setState("active", sql)
	// PostgreSQL drops the unnamed statement and portal at each simple Query.
	if s, ok := c.stmts[""]; ok {
		c.closeStmt("", s)
	}
	if p, ok := c.portals[""]; ok {
		c.closePortal("", p)
	}
	if e := c.withStmt("SimpleQuery", func(ctx context.Context) error {
		return c.sess.SimpleQuery(ctx, sql, &resultWriter{c: c, ctx: ctx})
	}); e != nil {
		c.sendError(e)
	}
	if !c.stop {
		c.readyForQuery()
	}
}
