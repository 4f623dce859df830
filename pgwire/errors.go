package pgwire

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// protocolErrorf is a FATAL 08P01: the connection closes after it.
func protocolErrorf(format string, args ...any) *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.ProtocolViolation, Message: fmt.Sprintf(format, args...)}
}

func shutdownError() *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.AdminShutdown,
		Message: "terminating connection due to administrator command"}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// PanicError is what a recovered panic in a Session call becomes. The
// client sees FATAL XX000 and the connection closes; the server goes on.
type PanicError struct {
	Op    string // the Session/Statement/Portal method
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic in %s: %v", e.Op, e.Value) }

// guard calls f, turning a panic into a *PanicError (logged with its stack).
func (c *conn) guard(op string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			pe := &PanicError{Op: op, Value: r, Stack: debug.Stack()}
			c.log.Error("pgwire: panic in session call; closing connection",
				"op", op, "pid", c.pid, "panic", fmt.Sprint(r), "stack", string(pe.Stack))
			err = pe
		}
	}()
	return f()
}

// wireError turns any error into the *pgerr.Error the client sees. ctx is
// the statement's context (may be nil): its cancellation cause decides
// between 57014 (CancelRequest, client-side cancel) and 57P01 (Shutdown).
func (c *conn) wireError(err error, ctx context.Context) *pgerr.Error {
	var pe *PanicError
	if errors.As(err, &pe) {
		return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InternalError,
			Message: fmt.Sprintf("internal error: %v", pe), Err: err}
	}
	if ctx != nil && ctx.Err() != nil && context.Cause(ctx) == errShutdown {
		e := shutdownError()
		e.Err = err
		return e
	}
	if e, ok := pgerr.As(err); ok {
		cp := *e
		if cp.Severity == "" {
			cp.Severity = pgerr.SeverityError
		}
		if pgerr.RedactedClass(cp.Code) {
			cp.Message, cp.Detail = pgerr.RedactPaths(cp.Message), pgerr.RedactPaths(cp.Detail)
		}
		return &cp
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		(ctx != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx))) {
		return &pgerr.Error{Severity: pgerr.SeverityError, Code: pgerr.QueryCanceled,
			Message: "canceling statement due to user request", Err: err}
	}
	return &pgerr.Error{Severity: pgerr.SeverityError, Code: pgerr.InternalError, Message: pgerr.RedactPaths(err.Error()), Err: err}
}

// errorResponse encodes e. The severity is always set (wireError does it).
func errorResponse(e *pgerr.Error) *pgproto3.ErrorResponse {
	sev := e.Severity
	if sev == "" {
		sev = pgerr.SeverityError
	}
	return &pgproto3.ErrorResponse{
		Severity: sev, SeverityUnlocalized: sev, Code: e.Code, Message: e.Message,
		Detail: e.Detail, Hint: e.Hint, Position: int32(e.Position), Where: e.Where,
		SchemaName: e.SchemaName, TableName: e.TableName, ConstraintName: e.ConstraintName,
	}
}

func noticeResponse(e *pgerr.Error) *pgproto3.NoticeResponse {
	sev := e.Severity
	if sev == "" {
		sev = pgerr.SeverityNotice
	}
	code := e.Code
	if code == "" {
		code = pgerr.SuccessfulCompletion
	}
	return &pgproto3.NoticeResponse{
		Severity: sev, SeverityUnlocalized: sev, Code: code, Message: e.Message,
		Detail: e.Detail, Hint: e.Hint, Position: int32(e.Position), Where: e.Where,
	}
}
