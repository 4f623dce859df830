package server

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Streaming DuckDB results.
//
// database/sql over duckdb-go runs a query to its end before the first row
// can be read (duckdb_pending_prepared, a materialized result): a SELECT of
// 4 GB held the 4 GB in DuckDB, and its Go copies, before the first
// DataRow left. PostgreSQL sends rows as its executor produces them, and a
// client that reads slowly holds the backend in its socket write: memory
// stays bounded by a row. A duckStream does the same with DuckDB's
// streaming result (duckdb_pending_prepared_streaming, then
// duckdb_fetch_chunk): DuckDB runs the query as chunks are fetched,
// holding its streaming buffer (about 1 MB) and the chunk being read (2048
// rows); the session converts and sends one chunk's rows, blocking on the
// socket when the client is slow, before it fetches the next.
//
// duckdb-go (v2.10506) has neither a streaming execution nor a reader of a
// raw chunk, so this file uses three of its internals, checked at init
// (streamInternals) and by TestStreamingBoundsMemory: the prepared
// statement handle inside *duckdb.Stmt and the connection handle inside
// *duckdb.Conn (struct fields, by reflection), and two methods by
// go:linkname: DataChunk.initFromDuckDataChunk (the driver's own
// conversion of a chunk's values into the Go values database/sql would
// give) and Conn.setContext (the context DuckDB-side Go functions, the
// session functions, find while the query runs). A duckdb-go upgrade
// that changes them fails the build or the init check, not a query.
//
// A query that calls a session function (set_config, current_setting,
// txid_current, ...: bsql.SessionFuncPrefix in its text) is read to its end
// before its first row is sent, as all queries were before: DuckDB's worker
// threads run a streaming query between fetches, and these functions read
// and change the session's state (settings, statement counter) that the
// session's goroutine uses meanwhile. Such queries are small in practice
// (catalog and settings queries).
//
// One stream per connection: DuckDB closes a connection's open streaming
// result when that connection runs anything else (a query, a prepare, a
// SET). A result that outlives its statement (a portal suspended by an
// Execute row limit, a cursor between FETCHes) is therefore drained into
// memory (detach) before the session's connection runs anything else:
// the rows it still had are kept, as a materialized result kept them
// before. A client that reads a cursor or a portal to its end without
// running other statements in between streams it whole.

//go:linkname duckChunkInit github.com/duckdb/duckdb-go/v2.(*DataChunk).initFromDuckDataChunk
func duckChunkInit(chunk *duckdb.DataChunk, in mapping.DataChunk, writable bool) error

//go:linkname duckSetContext github.com/duckdb/duckdb-go/v2.(*Conn).setContext
func duckSetContext(c *duckdb.Conn, ctx context.Context) func()

// streamInternals are the offsets of the handles duckdb-go keeps unexported.
var streamInternals = func() (o struct{ stmtPrepared, connHandle uintptr }) {
	field := func(t reflect.Type, name string, want reflect.Type) uintptr {
		f, ok := t.FieldByName(name)
		if !ok || f.Type != want {
			panic(fmt.Sprintf("server: duckdb-go changed: %s.%s is not a %s (result streaming, duckstream.go)", t, name, want))
		}
		return f.Offset
	}
	o.stmtPrepared = field(reflect.TypeFor[duckdb.Stmt](), "preparedStmt", reflect.TypeFor[*mapping.PreparedStatement]())
	o.connHandle = field(reflect.TypeFor[duckdb.Conn](), "conn", reflect.TypeFor[mapping.Connection]())
	return o
}()

func preparedHandle(st *duckdb.Stmt) *mapping.PreparedStatement {
	return *(**mapping.PreparedStatement)(unsafe.Add(unsafe.Pointer(st), streamInternals.stmtPrepared))
}

func connHandle(c *duckdb.Conn) mapping.Connection {
	return *(*mapping.Connection)(unsafe.Add(unsafe.Pointer(c), streamInternals.connHandle))
}

// interruptEvery re-sends DuckDB's interrupt while a call it should stop
// is still running (DuckDB clears it at some task boundaries), as
// duckdb-go does.
const interruptEvery = 200 * time.Millisecond

// duckStream is one query's streaming result on a session's connection.
// It is used by the session's goroutine only.
type duckStream struct {
	s       *session
	dc      *duckdb.Conn
	st      *duckdb.Stmt
	release func() // gives st back to the statement cache, or closes it
	ctx     context.Context
	cancel  context.CancelFunc
	// unsetCtx removes ctx from the connection's context store, where it
	// stays while the query runs: DuckDB's worker threads go on with a
	// streaming query between fetches, and a session function they call
	// finds its session there.
	unsetCtx func()

	res   mapping.Result
	live  bool // res is an open DuckDB result
	raw   mapping.DataChunk
	chunk duckdb.DataChunk
	row   int // next row of chunk
	size  int // rows in chunk (0: none)

	// After detach: the rows that were still to come, then err.
	held    [][]any
	drained bool
	err     error
}

// startStream binds args to st and starts its streaming execution. On
// error st is released.
func (s *session) startStream(ctx context.Context, dc *duckdb.Conn, st *duckdb.Stmt, release func(), args []any) (*duckStream, error) {
	d := &duckStream{s: s, dc: dc, st: st, release: release}
	d.ctx, d.cancel = context.WithCancel(ctx)
	d.unsetCtx = duckSetContext(dc, d.ctx)
	nargs, err := namedArgs(dc, args)
	if err == nil {
		err = st.BindWithCtx(ctx, nargs)
	}
	if err == nil {
		err = d.call(func() error {
			var pending mapping.PendingResult
			defer mapping.DestroyPending(&pending)
			if bindings.PendingPreparedStreaming(*preparedHandle(st), &pending) == mapping.StateError {
				return &duckdb.Error{Msg: mapping.PendingError(pending)}
			}
			if err := d.ctx.Err(); err != nil {
				return err
			}
			if mapping.ExecutePending(pending, &d.res) == mapping.StateError {
				err := resultError(&d.res)
				mapping.DestroyResult(&d.res)
				return errors.Join(d.ctx.Err(), err)
			}
			d.live = true
			return nil
		})
	}
	if err != nil {
		d.unsetCtx()
		d.cancel()
		release()
		return nil, err
	}
	s.stream = d
	return d, nil
}

// namedArgs converts args as database/sql does before it binds them: the
// connection's checker, then the default converter.
func namedArgs(dc *duckdb.Conn, args []any) ([]driver.NamedValue, error) {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv := driver.NamedValue{Ordinal: i + 1, Value: v}
		err := dc.CheckNamedValue(&nv)
		if errors.Is(err, driver.ErrSkip) {
			nv.Value, err = driver.DefaultParameterConverter.ConvertValue(v)
		}
		if err != nil {
			return nil, fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		out[i] = nv
	}
	return out, nil
}

func resultError(res *mapping.Result) error {
	return &duckdb.Error{Type: duckdb.ErrorType(mapping.ResultErrorType(res)), Msg: mapping.ResultError(res)}
}

// call runs fn, a DuckDB call that executes the query, with the stream's
// cancellation turned into DuckDB interrupts for as long as fn runs, and no
// longer: a late interrupt would stop the connection's next query.
func (d *duckStream) call(fn func() error) error {
	if err := d.ctx.Err(); err != nil {
		return err
	}
	var mu sync.Mutex
	finished := false
	done := make(chan struct{})
	stop := context.AfterFunc(d.ctx, func() {
		t := time.NewTicker(interruptEvery)
		defer t.Stop()
		for {
			mu.Lock()
			if finished {
				mu.Unlock()
				return
			}
			mapping.Interrupt(connHandle(d.dc))
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	err := fn()
	mu.Lock()
	finished = true
	mu.Unlock()
	close(done)
	stop()
	return err
}

// next reads the next row into dst; false at the end of the result.
func (d *duckStream) next(dst []any) (bool, error) {
	if d.drained {
		if len(d.held) > 0 {
			copy(dst, d.held[0])
			d.held[0] = nil
			d.held = d.held[1:]
			return true, nil
		}
		return false, d.err
	}
	for d.row >= d.size {
		if !d.live {
			return false, d.err
		}
		d.dropChunk()
		var raw mapping.DataChunk
		if err := d.call(func() error { raw = mapping.FetchChunk(d.res); return nil }); err != nil {
			d.fail(err)
			return false, err
		}
		if raw.Ptr == nil {
			// The end, or the query failed (DuckDB closed the result
			// either way: it must not be fetched from again).
			var err error
			if msg := mapping.ResultError(&d.res); msg != "" {
				err = errors.Join(d.ctx.Err(), resultError(&d.res))
			}
			d.fail(err)
			return false, err
		}
		d.raw = raw
		if err := duckChunkInit(&d.chunk, raw, false); err != nil {
			d.fail(err)
			return false, err
		}
		d.row, d.size = 0, d.chunk.GetSize()
	}
	for i := range dst {
		v, err := d.chunk.GetValue(i, d.row)
		if err != nil {
			d.fail(err)
			return false, err
		}
		if bit, ok := v.(duckdb.Bit); ok {
			v = bit.String() // as duckdb-go's rows give it
		}
		dst[i] = v
	}
	d.row++
	return true, nil
}

func (d *duckStream) dropChunk() {
	if d.raw.Ptr != nil {
		mapping.DestroyDataChunk(&d.raw)
		d.chunk = duckdb.DataChunk{}
	}
	d.row, d.size = 0, 0
}

// fail ends the DuckDB result; err (nil: the end) is what next returns
// from now on.
func (d *duckStream) fail(err error) {
	d.err = err
	d.closeResult()
}

// closeResult frees the DuckDB side: chunk, result, statement.
func (d *duckStream) closeResult() {
	d.dropChunk()
	if d.live {
		d.live = false
		mapping.DestroyResult(&d.res)
	}
	if d.release != nil {
		d.release()
		d.release = nil
	}
	if d.unsetCtx != nil {
		d.unsetCtx()
		d.unsetCtx = nil
	}
	d.cancel()
	if d.s.stream == d {
		d.s.stream = nil
	}
}

// drain reads the rest of the result into memory (the connection is about
// to run something else, or the query calls session functions: see
// queryDuck); ctx is the statement that needs it. An error of the query is
// kept for after the held rows.
func (d *duckStream) drain(ctx context.Context) {
	if !d.live && d.size == 0 {
		d.closeResult()
		d.drained = true
		return
	}
	stop := context.AfterFunc(ctx, d.cancel)
	defer stop()
	var held [][]any
	ncols := mapping.ColumnCount(&d.res)
	for {
		row := make([]any, ncols)
		ok, err := d.next(row)
		if err != nil || !ok {
			break
		}
		held = append(held, row)
	}
	d.closeResult()
	d.held, d.drained = held, true
}

func (d *duckStream) close() {
	d.closeResult()
	d.held, d.drained = nil, true
}

// detachStream drains the session's open streaming result, if any, before
// its DuckDB connection runs anything else.
func (s *session) detachStream(ctx context.Context) {
	if d := s.stream; d != nil {
		s.stream = nil
		d.drain(ctx)
	}
}
