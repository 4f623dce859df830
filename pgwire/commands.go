package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
)

// A command is one frontend message, decoded by the command loop, which
// handles it before it reads the next message.
//
// Most commands are copied out of the codec's reused buffers. The hot ones
// of the extended protocol are not: Bind, Describe and Execute come as
// pointers to the conn's scratch commands (conn.scratch), overwritten by
// the next message, and a Bind's parameter bytes point into the codec's
// read buffer, which the next Receive reuses. So a command must not be
// kept past the next read (conn.pending holds only commands that own
// their data), and Session.Bind copies what it keeps (api.go).
type command interface {
	msgType() byte // the wire type byte, for error messages
}

type (
	cmdQuery struct{ sql string }
	cmdParse struct {
		name, sql string
		paramOIDs []uint32
	}
	cmdBind struct {
		portal, stmt  string
		paramFormats  []int16
		params        [][]byte
		resultFormats []int16
	}
	cmdDescribe struct {
		kind byte
		name string
	}
	cmdExecute struct {
		portal  string
		maxRows int
	}
	cmdClose struct {
		kind byte
		name string
	}
	cmdSync      struct{}
	cmdFlush     struct{}
	cmdTerminate struct{}
	cmdCopyData  struct{ data []byte }
	cmdCopyDone  struct{}
	cmdCopyFail  struct{ msg string }
	// cmdOther is a well-formed message that is not valid after startup
	// (FunctionCall, a stray PasswordMessage).
	cmdOther struct{ typ byte }
	// cmdReadError ends the stream. io is true when the connection itself
	// failed (EOF, reset): nobody is left to tell. Otherwise the bytes were
	// malformed and the client gets FATAL 08P01.
	cmdReadError struct {
		err error
		io  bool
	}
)

func (cmdQuery) msgType() byte     { return 'Q' }
func (cmdParse) msgType() byte     { return 'P' }
func (*cmdBind) msgType() byte     { return 'B' }
func (*cmdDescribe) msgType() byte { return 'D' }
func (*cmdExecute) msgType() byte  { return 'E' }
func (cmdClose) msgType() byte     { return 'C' }
func (cmdSync) msgType() byte      { return 'S' }
func (cmdFlush) msgType() byte     { return 'H' }
func (cmdTerminate) msgType() byte { return 'X' }
func (cmdCopyData) msgType() byte  { return 'd' }
func (cmdCopyDone) msgType() byte  { return 'c' }
func (cmdCopyFail) msgType() byte  { return 'f' }
func (c cmdOther) msgType() byte   { return c.typ }
func (cmdReadError) msgType() byte { return 0 }

// scratchCommands are the conn's reused commands (see command).
type scratchCommands struct {
	bind     cmdBind
	describe cmdDescribe
	execute  cmdExecute
}

// toCommand makes msg a command: a copy, or for Bind, Describe and Execute
// one of sc's, valid until the next message is read. sc nil makes a copy
// of those too (messages that are only reported).
func toCommand(msg pgproto3.FrontendMessage, sc *scratchCommands) command {
	if sc == nil {
		sc = new(scratchCommands)
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		return cmdQuery{sql: m.String}
	case *pgproto3.Parse:
		return cmdParse{name: m.Name, sql: m.Query, paramOIDs: append([]uint32(nil), m.ParameterOIDs...)}
	case *pgproto3.Bind:
		// The parameters and their formats are used in place: the Bind
		// is handled, and Session.Bind has converted them, before the
		// next read. The result formats are copied: the portal keeps them.
		b := &sc.bind
		*b = cmdBind{
			portal:       m.DestinationPortal,
			stmt:         m.PreparedStatement,
			paramFormats: m.ParameterFormatCodes,
			params:       m.Parameters,
		}
		if len(m.ResultFormatCodes) > 0 {
			b.resultFormats = append([]int16(nil), m.ResultFormatCodes...)
		}
		return b
	case *pgproto3.Describe:
		sc.describe = cmdDescribe{kind: m.ObjectType, name: m.Name}
		return &sc.describe
	case *pgproto3.Execute:
		// The wire field is an int32; PostgreSQL treats <= 0 as "all rows".
		n := int(int32(m.MaxRows))
		if n < 0 {
			n = 0
		}
		sc.execute = cmdExecute{portal: m.Portal, maxRows: n}
		return &sc.execute
	case *pgproto3.Close:
		return cmdClose{kind: m.ObjectType, name: m.Name}
	case *pgproto3.Sync:
		return cmdSync{}
	case *pgproto3.Flush:
		return cmdFlush{}
	case *pgproto3.Terminate:
		return cmdTerminate{}
	case *pgproto3.CopyData:
		return cmdCopyData{data: append([]byte(nil), m.Data...)}
	case *pgproto3.CopyDone:
		return cmdCopyDone{}
	case *pgproto3.CopyFail:
		return cmdCopyFail{msg: m.Message}
	case *pgproto3.FunctionCall:
		return cmdOther{typ: 'F'}
	case *pgproto3.PasswordMessage, *pgproto3.SASLInitialResponse, *pgproto3.SASLResponse, *pgproto3.GSSResponse:
		return cmdOther{typ: 'p'}
	default:
		return cmdReadError{err: fmt.Errorf("BUG: unexpected frontend message %T", msg)}
	}
}

// next returns the next command, or false when the connection must end
// now (Shutdown). The command loop reads the socket itself: a statement
// runs on the goroutine that read it, with no hand-off between threads. A
// client that goes away while a statement runs is noticed by watchClient.
func (c *conn) next() (command, bool) {
	if cmd := c.pending; cmd != nil {
		c.pending = nil
		return cmd, true
	}
	if c.ctx.Err() != nil && context.Cause(c.ctx) == errShutdown {
		return nil, false
	}
	msg, err := c.in.Receive()
	if err != nil {
		if c.ctx.Err() != nil && context.Cause(c.ctx) == errShutdown {
			return nil, false
		}
		return c.readError(err), true
	}
	return toCommand(msg, &c.scratch), true
}

// readError makes the command that ends the stream after a failed read.
func (c *conn) readError(err error) cmdReadError {
	re := cmdReadError{err: err, io: c.ior.failed() || c.ctx.Err() != nil}
	if re.io {
		c.cancel(errClientGone)
	}
	return re
}
