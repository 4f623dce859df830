package pgtypes

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// readRawLine returns the next physical line including its "\n" (absent on
// a final unterminated line), or io.EOF. The slice is valid until the next
// read.
func (cr *CopyReader) readRawLine() ([]byte, error) {
	cr.lbuf = cr.lbuf[:0]
	for {
		b, err := cr.r.ReadSlice('\n')
		if err == errInvalidText {
			return nil, cr.encodingError()
		}
		if err == bufio.ErrBufferFull {
			if err := cr.checkLineLen(len(cr.lbuf), len(b)); err != nil {
				return nil, err
			}
			cr.lbuf = append(cr.lbuf, b...)
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(cr.lbuf) > 0 {
			cr.lbuf = append(cr.lbuf, b...)
			b = cr.lbuf
		}
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		return b, nil
	}
}

// encodingError is PostgreSQL's error for COPY input that is not valid in
// the server encoding (UTF8; a NUL byte neither), which textVerifier found
// as the input was read: so every column type gets it, and its CONTEXT is
// the line without its text (which cannot be printed). The line is the
// physical line being read, the one that holds the bytes (the verifier
// handed on every byte before them).
func (cr *CopyReader) encodingError() *CopyError {
	e := pgerr.InvalidByteSequence(cr.verifier.bad)
	e.Where = cr.opts.Where(cr.line+1, -1, nil)
	return &CopyError{Line: cr.line + 1, Column: -1, Err: e}
}

// maxCopyLineBytes bounds a COPY line (text) or record (CSV, with its
// quoted newlines) as PostgreSQL's string buffers are bounded (MaxAllocSize,
// 1 GB - 1): without it, a line that never ends would grow until the server
// ran out of memory. A variable for tests.
var maxCopyLineBytes = maxCopyFieldBytes

// checkLineLen fails, as PostgreSQL's enlargeStringInfo does, when a line of
// have bytes would grow by more past maxCopyLineBytes.
func (cr *CopyReader) checkLineLen(have, more int) error {
	if have+more < maxCopyLineBytes {
		return nil
	}
	return cr.bufferLimitError(cr.line+1, -1, have, more)
}

// bufferLimitError is PostgreSQL's error when a string buffer would pass
// MaxAllocSize (enlargeStringInfo), at line and column col (-1: none); its
// CONTEXT names the column without a value, as PostgreSQL's.
func (cr *CopyReader) bufferLimitError(line int64, col, have, more int) *CopyError {
	e := pgerr.New(pgerr.ProgramLimitExceeded, "out of memory")
	e.Detail = fmt.Sprintf("Cannot enlarge string buffer containing %d bytes by %d more bytes.", have, more)
	e.Where = strings.TrimSuffix(cr.opts.Where(line, col, nil), ": null input")
	return &CopyError{Line: line, Column: col, Err: e}
}

func stripEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// escapedEOL reports whether b ends with c preceded by an odd number of
// backslashes: a c that the text format takes as data.
func escapedEOL(b []byte, c byte) bool {
	n := len(b)
	if n == 0 || b[n-1] != c {
		return false
	}
	k := 0
	for i := n - 2; i >= 0 && b[i] == '\\'; i-- {
		k++
	}
	return k%2 == 1
}

// stripTextEOL is stripEOL for the text format, where a backslash before
// the newline, or before the carriage return of "\r\n", makes it data.
func stripTextEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' && !escapedEOL(b, '\n') {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' && !escapedEOL(b, '\r') {
			b = b[:n-1]
		}
	}
	return b
}

func isEndMarker(line []byte) bool { return len(line) == 2 && line[0] == '\\' && line[1] == '.' }

func (cr *CopyReader) nextText() ([][]byte, error) {
	var line []byte
	for {
		raw, err := cr.readRawLine()
		if err == io.EOF {
			cr.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if escapedEOL(raw, '\n') {
			// A backslash quotes the character after it, a newline too:
			// PostgreSQL's text format takes backslash-newline as a newline
			// in the data, and the line goes on.
			cr.attr = append(cr.attr[:0], raw...)
			for escapedEOL(cr.attr, '\n') {
				more, err := cr.readRawLine()
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, err
				}
				if err := cr.checkLineLen(len(cr.attr), len(more)); err != nil {
					return nil, err
				}
				cr.attr = append(cr.attr, more...)
			}
			raw = append(cr.lbuf[:0], cr.attr...) // free attr for field decoding
			cr.lbuf = raw
		}
		cr.line++
		line = stripTextEOL(raw)
		if cr.opts.Header && cr.line == 1 {
			continue
		}
		if isEndMarker(line) {
			cr.done = true
			return nil, io.EOF
		}
		break
	}
	cr.raw = line
	fields := cr.fields[:0]
	cr.attr = cr.attr[:0]
	delim := cr.opts.Delimiter
	null := *cr.opts.Null
	// Most lines hold neither a backslash nor a carriage return: their
	// fields end at the next delimiter, found with IndexByte instead of a
	// loop over every byte that tests it for three values.
	plain := bytes.IndexByte(line, '\\') < 0 && bytes.IndexByte(line, '\r') < 0
	i := 0
	for {
		start := i
		escaped := false
		if plain {
			if j := bytes.IndexByte(line[i:], delim); j >= 0 {
				i += j
			} else {
				i = len(line)
			}
		}
		for i < len(line) {
			c := line[i]
			if c == delim {
				break
			}
			if c == '\\' {
				escaped = true
				i++
			} else if c == '\r' {
				return nil, cr.opts.newCopyError(cr.line, -1, line, "literal carriage return found in data").withHint("Use \"\\r\" to represent carriage return.")
			}
			i++
		}
		if i > len(line) {
			i = len(line)
		}
		f := line[start:i]
		switch {
		case len(f) == len(null) && string(f) == null:
			fields = append(fields, nil)
		case !escaped:
			fields = append(fields, f)
		default:
			v, err := cr.unescapeText(f)
			if err != nil {
				return nil, err
			}
			fields = append(fields, v)
		}
		if i >= len(line) {
			break
		}
		i++ // delimiter
	}
	cr.fields = fields
	if err := cr.checkCount(len(fields)); err != nil {
		return nil, err
	}
	return fields, nil
}

// unescapeText decodes text-format backslash escapes into cr.attr.
func (cr *CopyReader) unescapeText(f []byte) ([]byte, error) {
	start := len(cr.attr)
	out := cr.attr
	if out == nil {
		// An escaped field that decodes to nothing (a lone trailing
		// backslash) is an empty string, not NULL: never return nil.
		out = make([]byte, 0, len(f))
	}
	// nonASCII is PostgreSQL's saw_non_ascii: an escape made a byte that
	// is not plain ASCII (\xff, \0), so the field is verified again.
	nonASCII := false
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(f) {
			break // a trailing backslash is dropped, like PostgreSQL
		}
		c = f[i]
		switch {
		case c >= '0' && c <= '7':
			v := int(c - '0')
			for k := 0; k < 2 && i+1 < len(f) && isOctal(f[i+1]); k++ {
				i++
				v = v*8 + int(f[i]-'0')
			}
			c = byte(v)
			nonASCII = nonASCII || c >= 0x80 || c == 0
		case c == 'x' && i+1 < len(f) && isHex(f[i+1]):
			i++
			h, _ := unhex(f[i])
			if i+1 < len(f) && isHex(f[i+1]) {
				i++
				l, _ := unhex(f[i])
				h = h<<4 | l
			}
			c = h
			nonASCII = nonASCII || c >= 0x80 || c == 0
		case c == 'b':
			c = '\b'
		case c == 'f':
			c = '\f'
		case c == 'n':
			c = '\n'
		case c == 'r':
			c = '\r'
		case c == 't':
			c = '\t'
		case c == 'v':
			c = '\v'
		case c == '.':
			return nil, cr.opts.newCopyError(cr.line, -1, cr.raw, "end-of-copy marker corrupt")
		}
		out = append(out, c)
	}
	cr.attr = out
	v := out[start:]
	if nonASCII {
		if i := pgerr.InvalidText(v); i >= 0 {
			e := pgerr.InvalidByteSequence(v[i:])
			e.Where = cr.opts.Where(cr.line, -1, cr.raw)
			return nil, &CopyError{Line: cr.line, Column: -1, Err: e}
		}
	}
	return v, nil
}

func isHex(c byte) bool { _, ok := unhex(c); return ok }

// csvInQuote scans b and returns whether a quoted section is still open at
// its end, starting from state inq.
func (cr *CopyReader) csvInQuote(b []byte, inq bool) bool {
	q, e := cr.opts.Quote, cr.opts.Escape
	if !inq && bytes.IndexByte(b, q) < 0 {
		return false // no quote: nothing opens (most lines)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inq && c == e && e != q && i+1 < len(b) && (b[i+1] == q || b[i+1] == e) {
			i++
			continue
		}
		if c == q {
			inq = !inq
		}
	}
	return inq
}

func (cr *CopyReader) nextCSV() ([][]byte, error) {
	var rec []byte
	for {
		raw, err := cr.readRawLine()
		if err == io.EOF {
			cr.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		cr.line++
		if cr.csvInQuote(raw, false) {
			// The record continues on the next line(s): copy it out of the
			// read buffer and keep the embedded newlines.
			cr.attr = append(cr.attr[:0], raw...)
			for inq := true; inq; {
				more, err := cr.readRawLine()
				if err == io.EOF {
					rec = cr.attr
					break
				}
				if err != nil {
					return nil, err
				}
				if err := cr.checkLineLen(len(cr.attr), len(more)); err != nil {
					return nil, err
				}
				cr.line++
				inq = cr.csvInQuote(more, true)
				cr.attr = append(cr.attr, more...)
			}
			rec = append(cr.lbuf[:0], cr.attr...) // free attr for field decoding
			cr.lbuf = rec
		} else {
			rec = raw
		}
		rec = stripEOL(rec)
		if cr.opts.Header && cr.line == 1 {
			continue
		}
		if isEndMarker(rec) {
			cr.done = true
			return nil, io.EOF
		}
		break
	}
	cr.raw = rec
	return cr.splitCSV(rec)
}

func (cr *CopyReader) splitCSV(line []byte) ([][]byte, error) {
	fields := cr.fields[:0]
	cr.attr = cr.attr[:0]
	delim, q, e := cr.opts.Delimiter, cr.opts.Quote, cr.opts.Escape
	null := *cr.opts.Null
	// A line without a quote (most lines) is cut at its delimiters, found
	// with IndexByte.
	plain := bytes.IndexByte(line, q) < 0
	i := 0
	for col := 0; ; col++ {
		start := i
		sawQuote := false
		// Fast path: an unquoted field is a sub-slice of the line.
		j := i
		if plain {
			if k := bytes.IndexByte(line[i:], delim); k >= 0 {
				j += k
			} else {
				j = len(line)
			}
		}
		for j < len(line) && line[j] != delim && line[j] != q {
			j++
		}
		var v []byte
		if j >= len(line) || line[j] == delim {
			v = line[i:j]
			i = j
		} else {
			outStart := len(cr.attr)
			out := append(cr.attr, line[i:j]...)
			i = j
		unquoted:
			for i < len(line) {
				c := line[i]
				i++
				switch c {
				case delim:
					i--
					break unquoted
				case q:
					sawQuote = true
					for {
						if i >= len(line) {
							return nil, cr.opts.newCopyError(cr.line, -1, cr.raw, "unterminated CSV quoted field")
						}
						c = line[i]
						i++
						if c == e && i < len(line) && (line[i] == e || line[i] == q) {
							out = append(out, line[i])
							i++
							continue
						}
						if c == q {
							break
						}
						out = append(out, c)
					}
				default:
					out = append(out, c)
				}
			}
			cr.attr = out
			v = out[outStart:]
		}
		raw := line[start:i]
		isNull := !sawQuote && len(raw) == len(null) && string(raw) == null
		if sawQuote && col < len(cr.opts.ForceNull) && cr.opts.ForceNull[col] && string(v) == null {
			isNull = true
		}
		if isNull && !sawQuote && col < len(cr.opts.ForceNotNull) && cr.opts.ForceNotNull[col] {
			isNull = false
		}
		if isNull {
			fields = append(fields, nil)
		} else {
			if v == nil {
				v = line[start:start]
			}
			fields = append(fields, v)
		}
		if i >= len(line) {
			break
		}
		i++ // delimiter
	}
	cr.fields = fields
	if err := cr.checkCount(len(fields)); err != nil {
		return nil, err
	}
	return fields, nil
}

// CopyWriter writes COPY TO rows. AppendRow and friends build rows into a
// caller buffer (one CopyData message per row on the wire); WriteRow
// buffers them to an io.Writer.
type CopyWriter struct {
	opts CopyOptions
	w    io.Writer
	buf  []byte
}

// NewCopyWriter writes rows to w (which may be nil when only the Append
// methods are used).
func NewCopyWriter(w io.Writer, opts CopyOptions) (*CopyWriter, error) {
	if err := opts.Normalize(); err != nil {
		return nil, err
	}
	return &CopyWriter{opts: opts, w: w}, nil
}

// AppendHeader appends what precedes the rows: the binary signature, flags
// and extension length; or, with HEADER, the line of column names.
func (cw *CopyWriter) AppendHeader(dst []byte, names []string) []byte {
	if cw.opts.Format == CopyBinary {
		dst = append(dst, binarySignature...)
		return append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	if !cw.opts.Header {
		return dst
	}
	fields := make([][]byte, len(names))
	for i, n := range names {
		fields[i] = []byte(n)
	}
	if cw.opts.Format == CopyCSV {
		return cw.appendCSVRow(dst, fields, true)
	}
	return cw.AppendRow(dst, fields)
}

// AppendTrailer appends what follows the rows (binary: int16 -1).
func (cw *CopyWriter) AppendTrailer(dst []byte) []byte {
	if cw.opts.Format == CopyBinary {
		return append(dst, 0xff, 0xff)
	}
	return dst
}

// AppendRow appends one row; fields are text (or, for binary, typsend)
// forms, nil = NULL.
func (cw *CopyWriter) AppendRow(dst []byte, fields [][]byte) []byte {
	switch cw.opts.Format {
	case CopyBinary:
		return appendBinaryRow(dst, fields)
	case CopyCSV:
		return cw.appendCSVRow(dst, fields, false)
	}
	delim := cw.opts.Delimiter
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, delim)
		}
		if f == nil {
			dst = append(dst, *cw.opts.Null...)
			continue
		}
		start := 0
		for j := 0; j < len(f); j++ {
			c := f[j]
			var esc byte
			switch {
			case c < 0x20:
				switch c {
				case '\b':
					esc = 'b'
				case '\f':
					esc = 'f'
				case '\n':
					esc = 'n'
				case '\r':
					esc = 'r'
				case '\t':
					esc = 't'
				case '\v':
					esc = 'v'
				default:
					if c != delim {
						continue
					}
					esc = c
				}
			case c == '\\' || c == delim:
				esc = c
			default:
				continue
			}
			dst = append(dst, f[start:j]...)
			dst = append(dst, '\\', esc)
			start = j + 1
		}
		dst = append(dst, f[start:]...)
	}
	return append(dst, '\n')
}

func (cw *CopyWriter) appendCSVRow(dst []byte, fields [][]byte, header bool) []byte {
	o := &cw.opts
	delim, q, e := o.Delimiter, o.Quote, o.Escape
	null := *o.Null
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, delim)
		}
		if f == nil {
			dst = append(dst, null...)
			continue
		}
		quote := !header && (o.ForceQuoteAll || (i < len(o.ForceQuote) && o.ForceQuote[i]))
		if !quote && string(f) == null {
			quote = true
		}
		if !quote {
			if len(fields) == 1 && isEndMarker(f) {
				quote = true
			} else {
				for _, c := range f {
					if c == delim || c == q || c == '\n' || c == '\r' {
						quote = true
						break
					}
				}
			}
		}
		if !quote {
			dst = append(dst, f...)
			continue
		}
		dst = append(dst, q)
		for _, c := range f {
			if c == q || c == e {
				dst = append(dst, e)
			}
			dst = append(dst, c)
		}
		dst = append(dst, q)
	}
	return append(dst, '\n')
}

const copyWriteFlush = 64 << 10

// WriteHeader writes AppendHeader's bytes.
func (cw *CopyWriter) WriteHeader(names []string) error {
	cw.buf = cw.AppendHeader(cw.buf, names)
	return cw.maybeFlush()
}

// WriteRow buffers one row and writes when the buffer is large.
func (cw *CopyWriter) WriteRow(fields [][]byte) error {
	cw.buf = cw.AppendRow(cw.buf, fields)
	return cw.maybeFlush()
}

func (cw *CopyWriter) maybeFlush() error {
	if len(cw.buf) >= copyWriteFlush {
		return cw.Flush()
	}
	return nil
}

// Flush writes buffered rows.
func (cw *CopyWriter) Flush() error {
	if len(cw.buf) == 0 {
		return nil
	}
	_, err := cw.w.Write(cw.buf)
	cw.buf = cw.buf[:0]
	return err
}

// Close writes the trailer and flushes.
func (cw *CopyWriter) Close() error {
	cw.buf = cw.AppendTrailer(cw.buf)
	return cw.Flush()
}
