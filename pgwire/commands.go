package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
)

// A command is one frontend message, decoded and copied out of the codec's
// reused buffers by the reader goroutine, so the command loop (and a COPY
// reader) can hold it while the next message is read.
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
func (cmdBind) msgType() byte      { return 'B' }
func (cmdDescribe) msgType() byte  { return 'D' }
func (cmdExecute) msgType() byte   { return 'E' }
func (cmdClose) msgType() byte     { return 'C' }
func (cmdSync) msgType() byte      { return 'S' }
func (cmdFlush) msgType() byte     { return 'H' }
func (cmdTerminate) msgType() byte { return 'X' }
func (cmdCopyData) msgType() byte  { return 'd' }
func (cmdCopyDone) msgType() byte  { return 'c' }
func (cmdCopyFail) msgType() byte  { return 'f' }
func (c cmdOther) msgType() byte   { return c.typ }
func (cmdReadError) msgType() byte { return 0 }

// toCommand copies msg into a command value.
func toCommand(msg pgproto3.FrontendMessage) command {
	switch m := msg.(type) {
	case *pgproto3.Query:
		return cmdQuery{sql: m.String}
	case *pgproto3.Parse:
		return cmdParse{name: m.Name, sql: m.Query, paramOIDs: append([]uint32(nil), m.ParameterOIDs...)}
	case *pgproto3.Bind:
		b := cmdBind{
			portal:        m.DestinationPortal,
			stmt:          m.PreparedStatement,
			paramFormats:  append([]int16(nil), m.ParameterFormatCodes...),
			resultFormats: append([]int16(nil), m.ResultFormatCodes...),
			params:        make([][]byte, len(m.Parameters)),
		}
		for i, p := range m.Parameters {
			if p != nil {
				b.params[i] = append(make([]byte, 0, len(p)), p...)
			}
		}
		return b
	case *pgproto3.Describe:
		return cmdDescribe{kind: m.ObjectType, name: m.Name}
	case *pgproto3.Execute:
		// The wire field is an int32; PostgreSQL treats <= 0 as "all rows".
		n := int(int32(m.MaxRows))
		if n < 0 {
			n = 0
		}
		return cmdExecute{portal: m.Portal, maxRows: n}
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
	return toCommand(msg), true
}

// readError makes the command that ends the stream after a failed read.
func (c *conn) readError(err error) cmdReadError {
	re := cmdReadError{err: err, io: c.ior.failed() || c.ctx.Err() != nil}
	if re.io {
		c.cancel(errClientGone)
	}
	return re
}
