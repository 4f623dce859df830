package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/txn"
)

// copySpec is a parsed COPY statement.
type copySpec struct {
	from    bool
	rel     *pg_query.RangeVar
	query   *pg_query.Node
	columns []string
	opts    pgtypes.CopyOptions
}

func parseCopy(st *bsql.Statement) (*copySpec, error) {
	cs := st.Tree.GetCopyStmt()
	if cs == nil {
		return nil, st.Unsupported()
	}
	if cs.IsProgram || cs.Filename != "" {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "COPY to or from a file or program is not allowed; use COPY ... FROM STDIN / TO STDOUT (psql's \\copy)")
	}
	if cs.WhereClause != nil {
		return nil, errUnsupported("COPY FROM ... WHERE")
	}
	spec := &copySpec{from: cs.IsFrom, rel: cs.Relation, query: cs.Query}
	for _, a := range cs.Attlist {
		spec.columns = append(spec.columns, nodeString(a))
	}
	format := pgtypes.CopyText
	for _, o := range cs.Options {
		if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "format") {
			switch strings.ToLower(defString(d)) {
			case "text":
				format = pgtypes.CopyText
			case "csv":
				format = pgtypes.CopyCSV
			case "binary":
				format = pgtypes.CopyBinary
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", defString(d))
			}
		}
	}
	spec.opts = pgtypes.CopyOptions{Format: format}
	oneByte := func(what, v string) (byte, error) {
		if len(v) != 1 {
			return 0, pgerr.New(pgerr.FeatureNotSupported, "COPY %s must be a single one-byte character", what)
		}
		return v[0], nil
	}
	var err error
	for _, o := range cs.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch strings.ToLower(d.Defname) {
		case "format":
		case "delimiter":
			if spec.opts.Delimiter, err = oneByte("delimiter", defString(d)); err != nil {
				return nil, err
			}
		case "null":
			v := defString(d)
			spec.opts.Null = &v
		case "header":
			v := strings.ToLower(defString(d))
			spec.opts.Header = v == "" || v == "true" || v == "on" || v == "1" || v == "match"
		case "quote":
			if spec.opts.Quote, err = oneByte("quote", defString(d)); err != nil {
				return nil, err
			}
		case "escape":
			if spec.opts.Escape, err = oneByte("escape", defString(d)); err != nil {
				return nil, err
			}
		case "encoding":
			if e := strings.ToUpper(strings.ReplaceAll(defString(d), "-", "")); e != "UTF8" && e != "UNICODE" {
				return nil, errUnsupported("COPY encoding " + defString(d))
			}
		case "freeze":
		case "force_quote", "force_not_null", "force_null":
			// Accepted; FORCE_QUOTE * is honoured by the writer.
			if strings.ToLower(d.Defname) == "force_quote" && d.Arg != nil && d.Arg.GetAStar() != nil {
				spec.opts.ForceQuoteAll = true
			}
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "option \"%s\" not recognized", d.Defname)
		}
	}
	check := spec.opts
	if err := check.Normalize(); err != nil {
		return nil, err
	}
	return spec, nil
}

func defString(d *pg_query.DefElem) string {
	if d.Arg == nil {
		return ""
	}
	if s := d.Arg.GetString_(); s != nil {
		return s.Sval
	}
	if c := d.Arg.GetAConst(); c != nil {
		switch {
		case c.GetSval() != nil:
			return c.GetSval().Sval
		case c.GetIval() != nil:
			return fmt.Sprint(c.GetIval().Ival)
		case c.GetBoolval() != nil:
			if c.GetBoolval().Boolval {
				return "true"
			}
			return "false"
		}
	}
	if b := d.Arg.GetBoolean(); b != nil {
		if b.Boolval {
			return "true"
		}
		return "false"
	}
	if i := d.Arg.GetInteger(); i != nil {
		return fmt.Sprint(i.Ival)
	}
	return ""
}

func (s *session) planCopy(ctx context.Context, st *bsql.Statement) (plan, error) {
	spec, err := parseCopy(st)
	if err != nil {
		return nil, err
	}
	if spec.from {
		return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
			if err := s.lockForWrite(ctx, spec.rel); err != nil { // schemalock.go
				return err
			}
			n, err := s.copyFrom(ctx, spec, w)
			if err != nil {
				return err
			}
			return w.Complete(fmt.Sprintf("COPY %d", n))
		}}, nil
	}
	return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
		n, err := s.copyTo(ctx, st, spec, w)
		if err != nil {
			return err
		}
		return w.Complete(fmt.Sprintf("COPY %d", n))
	}}, nil
}

// copyTarget resolves the table and the column positions of a COPY.
func (s *session) copyTarget(ctx context.Context, spec *copySpec) (*planner.Table, *bsql.TableInfo, []int, error) {
	if spec.rel == nil {
		return nil, nil, nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM needs a table")
	}
	if s.isView(ctx, spec.rel.Schemaname, spec.rel.Relname) {
		return nil, nil, nil, pgerr.New("42809", "cannot copy to view \"%s\"", spec.rel.Relname).
			WithHint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
	}
	t, err := s.accessTable(ctx, spec.rel.Schemaname, spec.rel.Relname, acl.Insert)
	if err != nil {
		return nil, nil, nil, err
	}
	info := tableInfo(t)
	var pos []int
	if len(spec.columns) == 0 {
		for i := range info.Columns {
			pos = append(pos, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range spec.columns {
			i := info.ColumnIndex(c)
			if i < 0 {
				return nil, nil, nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, t.ID.Name)
			}
			if seen[i] {
				return nil, nil, nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c)
			}
			seen[i] = true
			pos = append(pos, i)
		}
	}
	return t, info, pos, nil
}

// copyFrom reads COPY data into one transaction: all rows or none.
//
// Rows are decoded straight into Arrow batches (copy_decode.go) of at most
// planner.BatchRows rows. A COPY inside a transaction block, or one that stays below the
// direct threshold (Backend.CopyDirectBytes), becomes one WAL transaction
// when it ends, as before. An autocommit COPY that grows beyond the
// threshold stops buffering: it becomes a txn bulk load, whose encoder
// goroutine writes the batches into Parquet files while this goroutine
// keeps parsing, and whose single manifest commit makes the whole COPY
// durable and visible when it ends (txn/bulk.go).
func (s *session) copyFrom(ctx context.Context, spec *copySpec, w pgwire.ResultWriter) (int64, error) {
	t, info, pos, err := s.copyTarget(ctx, spec)
	if err != nil {
		return 0, err
	}
	defaults, err := s.columnDefaults(ctx, info, pos)
	if err != nil {
		return 0, err
	}
	colFormats := make([]int16, len(pos))
	if spec.opts.Format == pgtypes.CopyBinary {
		for i := range colFormats {
			colFormats[i] = 1
		}
	}
	in, err := w.CopyIn(int8(colFormats0(colFormats)), colFormats)
	if err != nil {
		return 0, err
	}
	opts := spec.opts
	opts.Table = t.ID.Name
	for _, p := range pos {
		opts.Columns = append(opts.Columns, info.Columns[p].Name)
	}
	rd, err := pgtypes.NewCopyReader(in, opts, len(pos))
	if err != nil {
		return 0, err
	}
	cs := &copySink{s: s, t: t, direct: s.tx == nil, threshold: s.b.copyDirectBytes(), opts: &opts}
	dec := newCopyDecoder(t.Schema, t.T.ArrowSchema(), info, pos, defaults, spec.opts.Format == pgtypes.CopyBinary, &s.set.types)
	seqCols := copySequences(info, pos)
	n, err := decodeCopy(ctx, rd, dec, func(rec arrow.RecordBatch) error {
		if len(seqCols) > 0 {
			var err error
			if rec, err = s.fillSequences(ctx, rec, info, seqCols); err != nil {
				return err
			}
		}
		return cs.add(ctx, rec)
	})
	if err != nil {
		dec.release()
		cs.abort()
		// Drain the rest of the COPY data so the protocol stays in step.
		_, _ = io.Copy(io.Discard, in)
		return 0, err
	}
	dec.release()
	if err := cs.finish(ctx); err != nil {
		return 0, err
	}
	return n, nil
}

// decodeCopy reads every row of rd into dec and hands each full batch (and
// the last) to emit, which owns it. Errors carry PostgreSQL's COPY CONTEXT:
// the column's for a value that does not parse, the row's otherwise.
func decodeCopy(ctx context.Context, rd *pgtypes.CopyReader, dec *copyDecoder, emit func(arrow.RecordBatch) error) (int64, error) {
	opts := rd.Options()
	var n int64
	// cut verifies the fused path's text (checkText) and hands the batch
	// on; fail reports err unless text appended before it is invalid,
	// which comes first in the input.
	cut := func() error {
		if err := dec.checkText(opts, n-int64(dec.rows)); err != nil {
			return err
		}
		if rec := dec.batch(); rec != nil {
			return emit(rec)
		}
		return nil
	}
	fail := func(err error) (int64, error) {
		if terr := dec.checkText(opts, n-int64(dec.rows)); terr != nil {
			return 0, terr
		}
		return 0, err
	}
	for {
		if dec.fused != nil {
			if k := dec.appendBuffered(rd); k > 0 {
				if n/4096 != (n+int64(k))/4096 {
					if err := ctx.Err(); err != nil {
						return 0, err
					}
				}
				n += int64(k)
				if dec.full() {
					if err := cut(); err != nil {
						return 0, err
					}
				}
				continue
			}
		}
		fields, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if col, err := dec.appendRow(fields); err != nil {
			var re *rowError
			if errors.As(err, &re) {
				return fail(withWhere(re.err, rowWhere(rd)))
			}
			return fail(withWhere(err, rd.Where(col, fields[col])))
		}
		n++
		if dec.full() {
			if err := cut(); err != nil {
				return 0, err
			}
		}
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
	}
	if err := cut(); err != nil {
		return 0, err
	}
	return n, nil
}

// DefaultCopyDirectBytes is the size (Arrow bytes) beyond which an
// autocommit COPY stops buffering and streams into Parquet files
// (BSDB_COPY_DIRECT_MB). The rows before it are parsed while no encoder
// runs: at 64 MB, most of a 1M-row COPY (~90 MB) was parsed first and
// encoded after; at 16 MB (two batches of events rows) parsing and
// encoding overlap almost from the start.
const DefaultCopyDirectBytes = 16 << 20

func (b *Backend) copyDirectBytes() int64 {
	if b.CopyDirectBytes == 0 {
		return DefaultCopyDirectBytes
	}
	return b.CopyDirectBytes
}

// copySink is where a COPY's batches go: buffered for one WAL write at the
// end, or, once an autocommit COPY passes the threshold, a bulk load.
type copySink struct {
	s         *session
	t         *planner.Table
	direct    bool  // autocommit: may become a bulk load
	threshold int64 // bytes; < 0: never
	pending   []arrow.RecordBatch
	bytes     int64
	bulk      *txn.BulkLoad
	// The table's unique keys: the COPY's rows hold their keys (keys,
	// ended by endKeys) from their check to the end of the write; rows
	// counts the rows checked (a violation's line number), opts names the
	// COPY in its CONTEXT.
	keys    *planner.KeyOwner
	endKeys func()
	rows    int64
	opts    *pgtypes.CopyOptions
}

// checkKeys checks rec's keys against the table's unique keys.
func (c *copySink) checkKeys(ctx context.Context, rec arrow.RecordBatch) error {
	if !c.t.HasKeys() {
		return nil
	}
	if c.keys == nil {
		c.keys, c.endKeys = c.s.keyOwner()
	}
	_, _, err := c.s.checkKeys(ctx, c.t, []arrow.RecordBatch{rec}, keyOptions{owner: c.keys, where: c.where})
	return err
}

// where is the CONTEXT of an error about row row of the batch being added
// (its line: the rows before it were counted in c.rows).
func (c *copySink) where(_, row int) string {
	line := c.rows + int64(row) + 1
	if c.opts == nil {
		return ""
	}
	if c.opts.Header {
		line++
	}
	return c.opts.Where(line, -1, nil)
}

// end ends the COPY's hold on its keys.
func (c *copySink) end() {
	if c.endKeys != nil {
		c.endKeys()
		c.endKeys = nil
	}
}

// add takes ownership of rec (nil is ignored).
func (c *copySink) add(ctx context.Context, rec arrow.RecordBatch) error {
	if rec == nil {
		return nil
	}
	if err := c.s.enforceChecksWhere(ctx, c.t, []arrow.RecordBatch{rec}, c.where); err != nil { // checks.go
		rec.Release()
		return err
	}
	if err := c.checkKeys(ctx, rec); err != nil {
		rec.Release()
		return err
	}
	c.rows += rec.NumRows()
	if c.bulk != nil {
		err := c.bulk.Write(rec)
		rec.Release()
		return err
	}
	c.pending = append(c.pending, rec)
	c.bytes += batchBytes(rec)
	if !c.direct || c.threshold < 0 || c.bytes < c.threshold {
		return nil
	}
	b, err := c.t.T.BeginBulk(ctx)
	if err != nil {
		return err
	}
	c.bulk = b
	pending := c.pending
	c.pending, c.bytes = nil, 0
	for i, r := range pending {
		if err == nil {
			err = b.Write(r)
		}
		r.Release()
		pending[i] = nil
	}
	return err
}

// finish makes the COPY durable and visible.
func (c *copySink) finish(ctx context.Context) (err error) {
	defer c.end()
	if c.bulk != nil {
		b := c.bulk
		c.bulk = nil
		_, err = b.Commit(ctx)
		return err
	}
	recs := c.pending
	c.pending = nil
	defer releaseAll(recs)
	if len(recs) == 0 {
		return nil
	}
	_, err = c.s.write(ctx, c.t, recs)
	return err
}

// abort drops everything the COPY produced.
func (c *copySink) abort() {
	c.end()
	if c.bulk != nil {
		c.bulk.Abort()
		c.bulk = nil
	}
	releaseAll(c.pending)
	c.pending = nil
}

func colFormats0(f []int16) int16 {
	if len(f) > 0 {
		return f[0]
	}
	return 0
}

// rowWhere is the CONTEXT line of an error about the current row as a
// whole: its line and, in text and CSV, its text, as PostgreSQL shows it.
func rowWhere(rd *pgtypes.CopyReader) string {
	var raw []byte
	if rd.Options().Format != pgtypes.CopyBinary {
		raw = bytes.TrimRight(rd.Raw(), "\r\n")
	}
	return rd.Options().Where(rd.Line(), -1, raw)
}

// withWhere sets PostgreSQL's CONTEXT line on an error.
func withWhere(err error, where string) error {
	pe, ok := pgerr.As(err)
	if !ok {
		pe = pgerr.Wrap(err, pgerr.BadCopyFileFormat, "%v", err)
	}
	c := *pe
	c.Where = where
	return &c
}

// columnDefaults evaluates the defaults of columns a COPY does not list.
func (s *session) columnDefaults(ctx context.Context, info *bsql.TableInfo, pos []int) ([]any, error) {
	out := make([]any, len(info.Columns))
	listed := map[int]bool{}
	for _, p := range pos {
		listed[p] = true
	}
	for i, c := range info.Columns {
		if listed[i] || c.Default == "" {
			continue
		}
		if _, ok := bsql.SequenceOfDefault(c.Default); ok && isIntegerOID(c.TypeOID) {
			// A placeholder that copySequences replaces batch by batch.
			out[i] = int64(0)
			continue
		}
		v, err := s.evalDefault(ctx, c)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// evalDefault computes a column default (once per statement).
func (s *session) evalDefault(ctx context.Context, c bsql.ColumnInfo) (any, error) {
	stmts, err := bsql.Parse("SELECT (" + c.Default + ")::" + pgtypes.FormatType(c.TypeOID, c.TypeMod))
	if err != nil || len(stmts) != 1 {
		return nil, fmt.Errorf("column %s: bad default %q: %v", c.Name, c.Default, err)
	}
	q, err := bsql.TranslateQuery(stmts[0].Tree, &binder{s: s, ctx: ctx}, nil)
	if err != nil {
		return nil, err
	}
	var v any
	s.detachStream(ctx)
	if err := s.conn.QueryRowContext(ctx, q.SQL).Scan(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	return fromDuck(c.TypeOID, v)
}

// copyTo writes a table or a query result as COPY data.
func (s *session) copyTo(ctx context.Context, st *bsql.Statement, spec *copySpec, w pgwire.ResultWriter) (int64, error) {
	var sel *bsql.Statement
	if spec.query != nil {
		sel = &bsql.Statement{Text: st.Text, Kind: bsql.KindSelect, Tree: spec.query, Tag: "SELECT"}
	} else {
		if s.isView(ctx, spec.rel.Schemaname, spec.rel.Relname) {
			return 0, pgerr.New("42809", "cannot copy from view \"%s\"", spec.rel.Relname).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		cols := "*"
		if len(spec.columns) > 0 {
			q := make([]string, len(spec.columns))
			for i, c := range spec.columns {
				q[i] = quoteIdentPG(c)
			}
			cols = strings.Join(q, ", ")
		}
		name := quoteIdentPG(spec.rel.Relname)
		if spec.rel.Schemaname != "" {
			name = quoteIdentPG(spec.rel.Schemaname) + "." + name
		}
		stmts, err := bsql.Parse(fmt.Sprintf("SELECT %s FROM %s", cols, name))
		if err != nil {
			return 0, err
		}
		sel = stmts[0]
	}
	formats := []int16{0}
	if spec.opts.Format == pgtypes.CopyBinary {
		formats = []int16{1}
	}
	p, err := s.planSelect(ctx, sel, nil, formats)
	if err != nil {
		if spec.query == nil {
			// The SELECT is ours, not the user's: its positions mean nothing.
			if pe, ok := pgerr.As(err); ok {
				return 0, pe.WithPosition(0)
			}
		}
		return 0, err
	}
	defer p.Close()
	sp := p.(*selectPlan)
	colFormats := make([]int16, len(sp.cols))
	for i := range colFormats {
		colFormats[i] = formats[0]
	}
	out, err := w.CopyOut(int8(formats[0]), colFormats)
	if err != nil {
		return 0, err
	}
	cw, err := pgtypes.NewCopyWriter(nil, spec.opts)
	if err != nil {
		return 0, err
	}
	names := make([]string, len(sp.cols))
	for i, c := range sp.cols {
		names[i] = c.name
	}
	rw := &copyRowWriter{cw: cw, out: out}
	rw.buf = cw.AppendHeader(rw.buf, names)
	if _, err := sp.executeRows(ctx, rw); err != nil {
		return 0, err
	}
	rw.buf = cw.AppendTrailer(rw.buf)
	if err := rw.flush(); err != nil {
		return 0, err
	}
	return sp.count, nil
}

// copyRowWriter adapts encoded rows to CopyData messages of up to 64 KiB.
type copyRowWriter struct {
	cw  *pgtypes.CopyWriter
	out io.Writer
	buf []byte
}

func (c *copyRowWriter) Row(values [][]byte) error {
	c.buf = c.cw.AppendRow(c.buf, values)
	if len(c.buf) >= 64<<10 {
		return c.flush()
	}
	return nil
}

func (c *copyRowWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.out.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

func quoteIdentPG(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
