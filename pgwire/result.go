package pgwire

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// resultWriter is the ResultWriter of one SimpleQuery or Execute call.
type resultWriter struct {
	c        *conn
	ctx      context.Context // the statement's context
	extended bool
	copyOut  bool // CopyOutResponse sent, CopyDone not yet
}

var _ ResultWriter = (*resultWriter)(nil)

func (w *resultWriter) Describe(cols []Column) error {
	if w.extended || cols == nil {
		return w.c.writeErr
	}
	return w.c.send(rowDescription(cols))
}

func (w *resultWriter) Row(values [][]byte) error {
	m := &w.c.msgs.dataRow
	m.Values = values
	err := w.c.send(m)
	m.Values = nil
	return err
}

func (w *resultWriter) Complete(tag string) error {
	if w.copyOut {
		w.copyOut = false
		if err := w.c.send(&pgproto3.CopyDone{}); err != nil {
			return err
		}
	}
	m := &w.c.msgs.complete
	w.c.msgs.tag = append(w.c.msgs.tag[:0], tag...)
	m.CommandTag = w.c.msgs.tag
	return w.c.send(m)
}

func (w *resultWriter) EmptyQuery() error {
	return w.c.send(&pgproto3.EmptyQueryResponse{})
}

func (w *resultWriter) Notice(n *pgerr.Error) error {
	return w.c.send(noticeResponse(n))
}

func (w *resultWriter) ParameterStatus(name, value string) error {
	if name == "application_name" {
		w.c.mu.Lock()
		w.c.mu.appName = value
		w.c.mu.Unlock()
	}
	return w.c.send(&pgproto3.ParameterStatus{Name: name, Value: value})
}

func copyFormats(format int8, columnFormats []int16) ([]uint16, error) {
	if format != 0 && format != 1 {
		return nil, fmt.Errorf("BUG: COPY format %d", format)
	}
	out := make([]uint16, len(columnFormats))
	for i, f := range columnFormats {
		out[i] = uint16(f)
	}
	return out, nil
}

func (w *resultWriter) CopyIn(format int8, columnFormats []int16) (io.Reader, error) {
	cf, err := copyFormats(format, columnFormats)
	if err != nil {
		return nil, err
	}
	if err := w.c.send(&pgproto3.CopyInResponse{OverallFormat: byte(format), ColumnFormatCodes: cf}); err != nil {
		return nil, err
	}
	// The client sends nothing until it sees CopyInResponse.
	if err := w.c.flush(); err != nil {
		return nil, err
	}
	return &copyInReader{c: w.c, ctx: w.ctx}, nil
}

func (w *resultWriter) CopyOut(format int8, columnFormats []int16) (io.Writer, error) {
	cf, err := copyFormats(format, columnFormats)
	if err != nil {
		return nil, err
	}
	if err := w.c.send(&pgproto3.CopyOutResponse{OverallFormat: byte(format), ColumnFormatCodes: cf}); err != nil {
		return nil, err
	}
	w.copyOut = true
	return copyOutWriter{w.c}, nil
}

type copyOutWriter struct{ c *conn }

func (w copyOutWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, w.c.writeErr
	}
	if err := w.c.send(&pgproto3.CopyData{Data: p}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// copyInReader yields the CopyData of a COPY FROM STDIN, reading the
// connection's messages itself. A CopyData's bytes are used in place: they
// stay valid until the next message is read, which happens only once they
// are consumed. Its error is sticky.
type copyInReader struct {
	c   *conn
	ctx context.Context
	buf []byte
	err error
}

func (r *copyInReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return 0, r.err
		}
		if r.c.copyIntr == nil {
			r.c.copyIntr = r.c.interruptCopyReads(r.ctx)
		}
		msg, err := r.c.in.Receive()
		if err != nil {
			if ctxErr := r.ctx.Err(); ctxErr != nil && r.c.ctx.Err() == nil {
				// Canceled while waiting: the connection goes on.
				r.err = ctxErr
				return 0, r.err
			}
			r.c.pending = r.c.readError(err) // the command loop must see the connection end
			r.err = &pgerr.Error{Code: pgerr.ConnectionException, Message: "unexpected EOF on client connection with an open transaction"}
			return 0, r.err
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			r.buf = m.Data
		case *pgproto3.CopyDone:
			r.err = io.EOF
		case *pgproto3.CopyFail:
			r.err = pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
			// Ignored during copy-in, like PostgreSQL: libpq sends Sync
			// right after an extended-protocol Execute that turns out to
			// be a COPY, and another Sync after CopyDone.
		case *pgproto3.Terminate:
			r.c.pending = cmdTerminate{} // the command loop must see the connection end
			r.err = &pgerr.Error{Code: pgerr.ConnectionException, Message: "unexpected EOF on client connection with an open transaction"}
		default:
			r.err = pgerr.New(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", toCommand(msg, nil).msgType())
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
