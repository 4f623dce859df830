package server

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/txn"
)

// COPY FROM decoding: each field of a row goes straight into the typed
// Arrow builder of its column. The common types have typed paths that
// neither box the value in an interface nor allocate; every other type,
// and typmods that need checks (varchar(n), numeric(p,s)), go through
// pgtypes.ParseText/ParseBinary and appendValue, exactly like INSERT. Both
// paths give PostgreSQL's errors: a value that does not parse fails with the
// column's CONTEXT line ("COPY t, line 3, column x: "abc""), a row that
// violates a column constraint with the row's.

// Batch bounds: a batch is cut at copyBatchRows rows (one DuckDB row group,
// see planner.BatchRows) or about copyBatchBytes of field data, whichever
// comes first.
const (
	copyBatchRows  = planner.BatchRows
	copyBatchBytes = 32 << 20
)

// fastKind selects a typed path.
type fastKind uint8

const (
	fastNone fastKind = iota // generic: ParseText/ParseBinary + appendValue
	fastInt16
	fastInt32
	fastInt64
	fastFloat32
	fastFloat64
	fastBool
	fastString // text, varchar, bpchar without a length
	fastBytea
	fastDate
	fastTimestamp
	fastTimestampTZ
	fastUUID
)

// copyColumn is one column of the COPY input.
type copyColumn struct {
	pos    int // index in the table
	col    *schema.Column
	oid    uint32
	typmod int32
	kind   fastKind
}

// copyDecoder builds record batches of the table's schema from COPY rows.
type copyDecoder struct {
	table    string            // the relation's name, for errors
	info     []bsql.ColumnInfo // the table's columns, for errors
	sch      *schema.Schema
	rb       *array.RecordBuilder
	cols     []copyColumn
	unlisted []int // table columns the COPY does not list
	defaults []any // by table column; nil = NULL
	binary   bool
	settings *pgtypes.Settings
	rows     int
	bytes    int
	limit    int
	// strBytes remembers each column's data bytes in the last batch, to
	// reserve string builders' data buffers for the next.
	strBytes []int
	// fused is the binary format's fast path (appendBuffered), by COPY
	// field; nil when a column needs the general path.
	fused []fusedCol
	// The fused path appends text fields without verifying them one by
	// one (two calls per field cost a tenth of a binary COPY): checkText
	// verifies the text it appended since the last check as one run of
	// bytes per column, before a batch leaves the decoder and before any
	// other error is reported (so the first error in input order is the
	// one reported). textRow is d.rows and textData each text builder's
	// DataLen at the last check; textSuspect is set when a value started
	// with a UTF-8 continuation byte (valid runs that cut a character).
	textRow     int
	textData    []int
	textSuspect bool
}

// fusedCol is one field of the fused binary path: its builder and the
// binary length its type has (0: any, for text and bytea).
type fusedCol struct {
	kind    fastKind
	notNull bool
	width   int
	b       array.Builder
}

// fusedWidths are the kinds of the fused path and their binary lengths.
var fusedWidths = map[fastKind]int{
	fastInt16: 2, fastInt32: 4, fastInt64: 8, fastFloat32: 4, fastFloat64: 8, fastBool: 1,
	fastString: 0, fastBytea: 0, fastDate: 4, fastTimestamp: 8, fastTimestampTZ: 8,
}

// newFused returns the fused path's columns, or nil when a column (or a
// default of an unlisted column) needs the general path.
func (d *copyDecoder) newFused() []fusedCol {
	if !d.binary || len(d.unlisted) > 0 || len(d.cols) == 0 {
		return nil
	}
	out := make([]fusedCol, len(d.cols))
	for i, c := range d.cols {
		w, ok := fusedWidths[c.kind]
		if !ok {
			return nil
		}
		out[i] = fusedCol{kind: c.kind, notNull: c.col.NotNull, width: w, b: d.rb.Field(c.pos)}
	}
	return out
}

func newCopyDecoder(sch *schema.Schema, as *arrow.Schema, info *bsql.TableInfo, pos []int, defaults []any, binaryFormat bool, set *pgtypes.Settings) *copyDecoder {
	d := &copyDecoder{
		table:    info.Name,
		info:     info.Columns,
		sch:      sch,
		rb:       array.NewRecordBuilder(memory.DefaultAllocator, as),
		defaults: defaults,
		binary:   binaryFormat,
		settings: set,
		limit:    copyBatchRows,
		strBytes: make([]int, len(sch.Columns)),
	}
	listed := make([]bool, len(sch.Columns))
	for _, p := range pos {
		listed[p] = true
		c := &sch.Columns[p]
		ci := info.Columns[p]
		d.cols = append(d.cols, copyColumn{pos: p, col: c, oid: ci.TypeOID, typmod: ci.TypeMod, kind: chooseFast(c, ci.TypeOID)})
	}
	for i := range sch.Columns {
		if !listed[i] {
			d.unlisted = append(d.unlisted, i)
		}
	}
	d.reserve(copyFirstReserve)
	d.fused = d.newFused()
	d.textData = make([]int, len(d.fused))
	return d
}

// chooseFast picks the typed path for a column of type oid, or fastNone.
func chooseFast(c *schema.Column, oid uint32) fastKind {
	switch {
	case oid == pgtypes.OIDInt2 && c.Kind == schema.KindInt16:
		return fastInt16
	case oid == pgtypes.OIDInt4 && c.Kind == schema.KindInt32:
		return fastInt32
	case oid == pgtypes.OIDInt8 && c.Kind == schema.KindInt64:
		return fastInt64
	case oid == pgtypes.OIDFloat4 && c.Kind == schema.KindFloat32:
		return fastFloat32
	case oid == pgtypes.OIDFloat8 && c.Kind == schema.KindFloat64:
		return fastFloat64
	case oid == pgtypes.OIDBool && c.Kind == schema.KindBool:
		return fastBool
	case (oid == pgtypes.OIDText || oid == pgtypes.OIDVarchar || oid == pgtypes.OIDBPChar) && c.Kind == schema.KindString && c.Length <= 0:
		return fastString
	case oid == pgtypes.OIDBytea && c.Kind == schema.KindBinary:
		return fastBytea
	case oid == pgtypes.OIDDate && c.Kind == schema.KindDate:
		return fastDate
	case oid == pgtypes.OIDTimestamp && c.Kind == schema.KindTimestamp:
		return fastTimestamp
	case oid == pgtypes.OIDTimestampTZ && c.Kind == schema.KindTimestampTZ:
		return fastTimestampTZ
	case oid == pgtypes.OIDUUID && c.Kind == schema.KindUUID:
		return fastUUID
	}
	return fastNone
}

// copyFirstReserve is the rows reserved for a COPY's first batch (small
// COPYs stay small); the next batches reserve what the previous one held.
const copyFirstReserve = 1024

// reserve pre-sizes the builders for a batch of rows.
func (d *copyDecoder) reserve(rows int) {
	for i := range d.sch.Columns {
		b := d.rb.Field(i)
		b.Reserve(rows)
		switch sb := b.(type) {
		case *array.StringBuilder:
			if n := d.strBytes[i]; n > 0 {
				sb.ReserveData(n + n/8)
			}
		case *array.BinaryBuilder:
			if n := d.strBytes[i]; n > 0 {
				sb.ReserveData(n + n/8)
			}
		}
	}
}

// rowError marks an error about the whole row (CONTEXT without a column).
type rowError struct{ err error }

func (e *rowError) Error() string { return e.err.Error() }
func (e *rowError) Unwrap() error { return e.err }

// appendRow appends one row of COPY fields (nil = NULL). On error the
// builders hold a partial row: the decoder must be aborted. The error is
// the value's (*pgerr.Error, for the column's CONTEXT) with its column
// index, or a *rowError.
func (d *copyDecoder) appendRow(fields [][]byte) (col int, err error) {
	for i := range d.cols {
		c := &d.cols[i]
		f := fields[i]
		b := d.rb.Field(c.pos)
		if f == nil {
			if c.col.NotNull {
				e := notNullErr(c.col, d.table)
				e.Detail = "Failing row contains " + d.failingRow(fields) + "."
				return i, &rowError{e}
			}
			b.AppendNull()
			continue
		}
		d.bytes += len(f)
		var err error
		if d.binary {
			err = d.appendBinary(c, b, f)
		} else {
			err = d.appendText(c, b, f)
		}
		if err != nil {
			return i, err
		}
	}
	for _, p := range d.unlisted {
		if err := appendValue(d.rb.Field(p), &d.sch.Columns[p], d.defaults[p]); err != nil {
			return -1, &rowError{d.named(err, &d.sch.Columns[p])}
		}
	}
	d.rows++
	return -1, nil
}

// failingRow describes a COPY row (its fields, the defaults of the
// columns it does not list) as PostgreSQL's constraint errors do. A field
// that does not parse shows as null (the row fails anyway).
func (d *copyDecoder) failingRow(fields [][]byte) string {
	row := make([]any, len(d.info))
	for p, v := range d.defaults {
		if p < len(row) {
			row[p] = v
		}
	}
	for i, c := range d.cols {
		row[c.pos] = nil
		if i >= len(fields) || fields[i] == nil {
			continue
		}
		var v any
		var err error
		if d.binary {
			v, err = pgtypes.ParseBinary(c.oid, c.typmod, fields[i])
		} else {
			v, err = pgtypes.ParseText(c.oid, c.typmod, fields[i], d.settings)
		}
		if err == nil {
			row[c.pos] = v
		}
	}
	return failingRowText(d.info, row, d.settings)
}

// named gives a NOT NULL violation of appendValue (which knows no
// relation) PostgreSQL's message, which names the relation.
func (d *copyDecoder) named(err error, c *schema.Column) error {
	if pgerr.Code(err) == pgerr.NotNullViolation {
		return notNullErr(c, d.table)
	}
	return err
}

func notNullErr(c *schema.Column, table string) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.NotNullViolation, Message: "null value in column \"" + c.Name + "\" of relation \"" + table + "\" violates not-null constraint"}
}

func (d *copyDecoder) appendText(c *copyColumn, b array.Builder, f []byte) error {
	switch c.kind {
	case fastInt16:
		v, err := pgtypes.ParseIntText(f, 16)
		if err != nil {
			return err
		}
		b.(*array.Int16Builder).Append(int16(v))
	case fastInt32:
		v, err := pgtypes.ParseIntText(f, 32)
		if err != nil {
			return err
		}
		b.(*array.Int32Builder).Append(int32(v))
	case fastInt64:
		v, err := pgtypes.ParseIntText(f, 64)
		if err != nil {
			return err
		}
		b.(*array.Int64Builder).Append(v)
	case fastFloat32:
		v, err := pgtypes.ParseFloatText(f, 32)
		if err != nil {
			return err
		}
		x := float32(v)
		if v != v {
			x = math.Float32frombits(0x7fc00000) // canonical quiet NaN, as ParseText
		}
		b.(*array.Float32Builder).Append(x)
	case fastFloat64:
		v, err := pgtypes.ParseFloatText(f, 64)
		if err != nil {
			return err
		}
		b.(*array.Float64Builder).Append(v)
	case fastBool:
		v, err := pgtypes.ParseBoolText(f)
		if err != nil {
			return err
		}
		b.(*array.BooleanBuilder).Append(v)
	case fastString:
		b.(*array.StringBuilder).BinaryBuilder.Append(f)
	case fastBytea:
		v, err := pgtypes.ParseByteaText(f)
		if err != nil {
			return err
		}
		b.(*array.BinaryBuilder).Append(v)
	case fastDate:
		v, err := pgtypes.ParseDateText(f, d.settings)
		if err != nil {
			return err
		}
		b.(*array.Date32Builder).Append(arrowDate(v))
	case fastTimestamp, fastTimestampTZ:
		v, err := pgtypes.ParseTimestampText(f, c.typmod, c.kind == fastTimestampTZ, d.settings)
		if err != nil {
			return err
		}
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(shiftTS(v)))
	case fastUUID:
		v, err := pgtypes.ParseUUIDText(f)
		if err != nil {
			return err
		}
		b.(*extensions.UUIDBuilder).AppendBytes(v)
	default:
		v, err := pgtypes.ParseText(c.oid, c.typmod, f, d.settings)
		if err != nil {
			return err
		}
		if err := appendValue(b, c.col, v); err != nil {
			return &rowError{d.named(err, c.col)}
		}
	}
	return nil
}

func (d *copyDecoder) appendBinary(c *copyColumn, b array.Builder, f []byte) error {
	be := binary.BigEndian
	switch {
	case c.kind == fastInt16 && len(f) == 2:
		b.(*array.Int16Builder).Append(int16(be.Uint16(f)))
	case c.kind == fastInt32 && len(f) == 4:
		b.(*array.Int32Builder).Append(int32(be.Uint32(f)))
	case c.kind == fastInt64 && len(f) == 8:
		b.(*array.Int64Builder).Append(int64(be.Uint64(f)))
	case c.kind == fastFloat32 && len(f) == 4:
		b.(*array.Float32Builder).Append(math.Float32frombits(be.Uint32(f)))
	case c.kind == fastFloat64 && len(f) == 8:
		b.(*array.Float64Builder).Append(math.Float64frombits(be.Uint64(f)))
	case c.kind == fastBool && len(f) == 1:
		b.(*array.BooleanBuilder).Append(f[0] != 0)
	case c.kind == fastString:
		// textrecv verifies the encoding (a text COPY's lines are
		// verified as they are read; a binary field only here).
		if e := pgerr.CheckText(f); e != nil {
			return e
		}
		b.(*array.StringBuilder).BinaryBuilder.Append(f)
	case c.kind == fastBytea:
		b.(*array.BinaryBuilder).Append(f)
	case c.kind == fastDate && len(f) == 4:
		b.(*array.Date32Builder).Append(arrowDate(pgtypes.Date(int32(be.Uint32(f)))))
	case (c.kind == fastTimestamp || c.kind == fastTimestampTZ) && len(f) == 8:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(shiftTS(int64(be.Uint64(f)))))
	case c.kind == fastUUID && len(f) == 16:
		b.(*extensions.UUIDBuilder).AppendBytes([16]byte(f))
	default:
		v, err := pgtypes.ParseBinary(c.oid, c.typmod, f)
		if err != nil {
			return err
		}
		if err := appendValue(b, c.col, v); err != nil {
			return &rowError{d.named(err, c.col)}
		}
	}
	return nil
}

// appendBuffered decodes the whole tuples in rd's read buffer straight into
// the builders, up to the end of the batch, without a Next call, a fields
// slice or a type switch on the builder per value: the binary format's fast
// path, when every field has a typed path (d.fused). It stops before the
// first tuple that needs more: the trailer, a tuple cut by the end of the
// buffer, a wrong field count, a NULL in a NOT NULL column, a value whose
// length its type does not have. rd.Next and appendRow take that tuple,
// with their exact errors. Text is verified later (checkText). It returns
// the rows appended.
func (d *copyDecoder) appendBuffered(rd *pgtypes.CopyReader) int {
	buf := rd.BufferedBinary()
	ncols := len(d.fused)
	room := min(d.limit-d.rows, len(buf)/(2+4*ncols)) // a tuple has at least 2+4*ncols bytes
	if room <= 0 {
		return 0
	}
	for i := range d.fused {
		d.fused[i].b.Reserve(room) // within the batch's capacity: no growth
	}
	be := binary.BigEndian
	p, k := 0, 0
	for k < room && d.bytes < copyBatchBytes {
		// First the tuple's shape: whole, and every field on the fast path.
		if len(buf)-p < 2 || int(int16(be.Uint16(buf[p:]))) != ncols {
			break
		}
		q, ok := p+2, true
		for i := range d.fused {
			if len(buf)-q < 4 {
				ok = false
				break
			}
			l := int(int32(be.Uint32(buf[q:])))
			q += 4
			if l == -1 {
				if d.fused[i].notNull {
					ok = false
					break
				}
				continue
			}
			if l < 0 || len(buf)-q < l || (d.fused[i].width != 0 && l != d.fused[i].width) {
				ok = false
				break
			}
			q += l
		}
		if !ok {
			break
		}
		// Then its values.
		q = p + 2
		for i := range d.fused {
			c := &d.fused[i]
			l := int(int32(be.Uint32(buf[q:])))
			q += 4
			if l == -1 {
				c.b.AppendNull()
				continue
			}
			f := buf[q : q+l]
			q += l
			d.bytes += l
			switch c.kind {
			case fastInt16:
				c.b.(*array.Int16Builder).UnsafeAppend(int16(be.Uint16(f)))
			case fastInt32:
				c.b.(*array.Int32Builder).UnsafeAppend(int32(be.Uint32(f)))
			case fastInt64:
				c.b.(*array.Int64Builder).UnsafeAppend(int64(be.Uint64(f)))
			case fastFloat32:
				c.b.(*array.Float32Builder).UnsafeAppend(math.Float32frombits(be.Uint32(f)))
			case fastFloat64:
				c.b.(*array.Float64Builder).UnsafeAppend(math.Float64frombits(be.Uint64(f)))
			case fastBool:
				c.b.(*array.BooleanBuilder).UnsafeAppend(f[0] != 0)
			case fastString:
				// Verified later, with the whole run (checkText).
				d.textSuspect = d.textSuspect || len(f) > 0 && f[0]&0xc0 == 0x80
				c.b.(*array.StringBuilder).BinaryBuilder.Append(f)
			case fastBytea:
				c.b.(*array.BinaryBuilder).Append(f)
			case fastDate:
				c.b.(*array.Date32Builder).UnsafeAppend(arrowDate(pgtypes.Date(int32(be.Uint32(f)))))
			case fastTimestamp, fastTimestampTZ:
				c.b.(*array.TimestampBuilder).UnsafeAppend(arrow.Timestamp(shiftTS(int64(be.Uint64(f)))))
			}
		}
		p = q
		k++
	}
	d.rows += k
	rd.ConsumeBinary(p, k)
	return k
}

// checkText verifies the text the fused path appended since the last check
// (see copyDecoder.textRow): each text column's new bytes as one run, and
// row by row only when that fails, for the exact error: the first invalid
// value in input order, with the CONTEXT appendRow would give it. line0 is
// the input line before the batch's first row.
func (d *copyDecoder) checkText(opts *pgtypes.CopyOptions, line0 int64) error {
	from, suspect := d.textRow, d.textSuspect
	if d.fused == nil || from >= d.rows {
		return nil
	}
	bad := suspect
	for i := range d.fused {
		c := &d.fused[i]
		if c.kind != fastString || bad {
			continue
		}
		sb := c.b.(*array.StringBuilder)
		// Value's slice lies in the builder's data buffer: extended to
		// the data appended since the last check, it is that run.
		run := sb.BinaryBuilder.Value(from)[:sb.DataLen()-d.textData[i]]
		bad = !pgerr.ValidText(run)
	}
	if !bad {
		d.markTextChecked()
		return nil
	}
	for r := from; r < d.rows; r++ {
		for i := range d.fused {
			if d.fused[i].kind != fastString {
				continue
			}
			if e := pgerr.CheckText(d.fused[i].b.(*array.StringBuilder).BinaryBuilder.Value(r)); e != nil {
				e.Where = opts.WhereColumn(line0+int64(r)+1, i)
				return e
			}
		}
	}
	d.markTextChecked()
	return nil
}

// markTextChecked starts the next run of text to check at the builders'
// current end.
func (d *copyDecoder) markTextChecked() {
	d.textRow, d.textSuspect = d.rows, false
	for i := range d.fused {
		if d.fused[i].kind == fastString {
			d.textData[i] = d.fused[i].b.(*array.StringBuilder).DataLen()
		}
	}
}

// arrowDate maps a PostgreSQL date to Arrow's (days since 1970), the
// infinities to DuckDB's: ±(2^31-1).
func arrowDate(d pgtypes.Date) arrow.Date32 {
	switch d {
	case pgtypes.DateInfinity:
		return arrow.Date32(math.MaxInt32)
	case pgtypes.DateNegInfinity:
		return arrow.Date32(-math.MaxInt32)
	}
	return arrow.Date32(int32(d) + unixDaysAt2000)
}

// full reports whether the current batch should be cut.
func (d *copyDecoder) full() bool { return d.rows >= d.limit || d.bytes >= copyBatchBytes }

// batch cuts the current batch (nil when empty) and re-reserves the
// builders. The caller owns the batch.
func (d *copyDecoder) batch() arrow.RecordBatch {
	if d.rows == 0 {
		return nil
	}
	for i := range d.sch.Columns {
		switch sb := d.rb.Field(i).(type) {
		case *array.StringBuilder:
			d.strBytes[i] = sb.DataLen()
		case *array.BinaryBuilder:
			d.strBytes[i] = sb.DataLen()
		}
	}
	rec := d.rb.NewRecordBatch()
	rows := d.rows
	d.rows, d.bytes = 0, 0
	d.reserve(rows)
	d.markTextChecked()
	return rec
}

// release frees the builders (after batch, or to abort a partial row).
func (d *copyDecoder) release() { d.rb.Release() }

// batchBytes is the size of a batch's buffers.
func batchBytes(r arrow.RecordBatch) int64 { return txn.RecordBytes(r) }
