package pgtypes

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// CopyFormat is the FORMAT option of COPY.
type CopyFormat uint8

// COPY formats.
const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

func (f CopyFormat) String() string { return [...]string{"text", "csv", "binary"}[f] }

// CopyOptions are the COPY options that shape rows. Zero bytes / nil strings
// mean the PostgreSQL default for the format; call Normalize (the
// constructors do) to fill them in and validate.
type CopyOptions struct {
	Format    CopyFormat
	Delimiter byte    // text: '\t', csv: ','
	Null      *string // text: `\N`, csv: "" (unquoted empty)
	Quote     byte    // csv: '"'
	Escape    byte    // csv: same as Quote
	Header    bool    // first line holds column names (skipped on input)
	// ForceQuote (csv output) quotes every non-NULL value of the marked
	// columns; ForceQuoteAll marks all.
	ForceQuote    []bool
	ForceQuoteAll bool
	// ForceNotNull (csv input): an unquoted null string is an empty string.
	ForceNotNull []bool
	// ForceNull (csv input): a quoted value equal to the null string is NULL.
	ForceNull []bool
	// Table and Columns name the target for error CONTEXT lines
	// ("COPY t, line 3, column x: ...").
	Table   string
	Columns []string
}

// binarySignature is the 11-byte COPY BINARY file signature.
const binarySignature = "PGCOPY\n\377\r\n\x00"

func optErr(format string, args ...any) error {
	return pgerr.New(pgerr.InvalidParameterValue, format, args...)
}

// Normalize fills defaults and applies PostgreSQL's ProcessCopyOptions
// checks.
func (o *CopyOptions) Normalize() error {
	csv := o.Format == CopyCSV
	if o.Format == CopyBinary {
		if o.Delimiter != 0 || o.Null != nil || o.Quote != 0 || o.Escape != 0 {
			return pgerr.New(pgerr.SyntaxError, "cannot specify DELIMITER, NULL, QUOTE or ESCAPE in BINARY mode")
		}
		if o.Header {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot specify HEADER in BINARY mode")
		}
		return nil
	}
	if o.Delimiter == 0 {
		o.Delimiter = '\t'
		if csv {
			o.Delimiter = ','
		}
	}
	if o.Null == nil {
		n := `\N`
		if csv {
			n = ""
		}
		o.Null = &n
	}
	if csv {
		if o.Quote == 0 {
			o.Quote = '"'
		}
		if o.Escape == 0 {
			o.Escape = o.Quote
		}
	} else if o.Quote != 0 || o.Escape != 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY quote and escape available only in CSV mode")
	}
	d := o.Delimiter
	if d >= 0x80 {
		return optErr("COPY delimiter must be a single one-byte character")
	}
	if d == '\n' || d == '\r' || strings.ContainsAny(*o.Null, "\r\n") {
		if d == '\n' || d == '\r' {
			return optErr("COPY delimiter cannot be newline or carriage return")
		}
		return optErr("COPY null representation cannot use newline or carriage return")
	}
	if !csv && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, d) >= 0 {
		return optErr("COPY delimiter cannot be \"%c\"", d)
	}
	if csv && d == o.Quote {
		return optErr("COPY delimiter and quote must be different")
	}
	if strings.IndexByte(*o.Null, d) >= 0 {
		return optErr("COPY delimiter must not appear in the NULL specification")
	}
	if csv && strings.IndexByte(*o.Null, o.Quote) >= 0 {
		return optErr("CSV quote character must not appear in the NULL specification")
	}
	return nil
}

// CopyError is a COPY FROM format error with its position. It unwraps to a
// *pgerr.Error (22P04 bad_copy_file_format unless the cause says otherwise)
// whose Where is PostgreSQL's CONTEXT line.
type CopyError struct {
	Line   int64 // 1-based line of the input
	Column int   // 0-based column, -1 if not about one column
	Err    *pgerr.Error
}

func (e *CopyError) Error() string { return fmt.Sprintf("COPY line %d: %v", e.Line, e.Err) }
func (e *CopyError) Unwrap() error { return e.Err }

func (e *CopyError) withHint(h string) *CopyError {
	e.Err.Hint = h
	return e
}

// newCopyError builds a positioned 22P04 error; where is derived from opts.
func (o *CopyOptions) newCopyError(line int64, col int, raw []byte, format string, args ...any) *CopyError {
	e := pgerr.New(pgerr.BadCopyFileFormat, format, args...)
	e.Where = o.Where(line, col, raw)
	return &CopyError{Line: line, Column: col, Err: e}
}

// Where is PostgreSQL's COPY error CONTEXT line: `COPY t, line 3, column x:
// "abc"` for a value, `COPY t, line 3: "raw line"` for a row (raw nil
// omits the quoted part).
func (o *CopyOptions) Where(line int64, col int, raw []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "COPY %s, line %d", o.Table, line)
	if col >= 0 {
		name := fmt.Sprintf("%d", col+1)
		if col < len(o.Columns) {
			name = o.Columns[col]
		}
		fmt.Fprintf(&b, ", column %s", name)
		if raw == nil {
			b.WriteString(": null input")
			return b.String()
		}
	}
	if raw != nil {
		const max = 100
		s := string(raw)
		if len(s) > max {
			s = s[:max] + "..."
		}
		fmt.Fprintf(&b, ": \"%s\"", s)
	}
	return b.String()
}

// CopyReader reads COPY FROM rows. Fields returned by Next alias internal
// buffers and are valid only until the next call; nil is NULL.
type CopyReader struct {
	opts   CopyOptions
	r      *bufio.Reader
	ncols  int
	line   int64
	fields [][]byte
	attr   []byte // de-escaped field bytes of the current row
	lbuf   []byte // the current line when it spans bufio's buffer
	raw    []byte // the current raw line (for error context)
	done   bool
	// verifier verifies text and CSV input as it is read (nil: binary).
	verifier *textVerifier
	// binary state
	headerDone bool
	hdr        [4]byte
	spans      []copySpan
}

// copyReadBufSize is the read buffer: large enough that typical rows are
// parsed in place without copying.
const copyReadBufSize = 256 << 10

// NewCopyReader reads rows of ncols columns (0 = any count) from r.
func NewCopyReader(r io.Reader, opts CopyOptions, ncols int) (*CopyReader, error) {
	if err := opts.Normalize(); err != nil {
		return nil, err
	}
	cr := &CopyReader{opts: opts, ncols: ncols}
	if opts.Format != CopyBinary {
		cr.verifier = &textVerifier{r: r}
		r = cr.verifier
	}
	cr.r = bufio.NewReaderSize(r, copyReadBufSize)
	return cr, nil
}

// Line is the 1-based input line of the row last returned (for binary, the
// row number), as PostgreSQL's CONTEXT reports it.
func (cr *CopyReader) Line() int64 { return cr.line }

// Raw is the raw text of the row last returned (text and CSV formats).
func (cr *CopyReader) Raw() []byte { return cr.raw }

// Options returns the normalized options.
func (cr *CopyReader) Options() *CopyOptions { return &cr.opts }

// Where is the CONTEXT line for a conversion error in column col of the
// current row, with the column's raw value (nil for NULL). A binary value
// is not shown, as in PostgreSQL ("can't usefully display the data"): it
// may not even be text.
func (cr *CopyReader) Where(col int, value []byte) string {
	if cr.opts.Format == CopyBinary {
		return cr.opts.WhereColumn(cr.line, col)
	}
	return cr.opts.Where(cr.line, col, value)
}

// WhereColumn is the CONTEXT line that names a column without its value:
// "COPY t, line 3, column x" (binary COPY).
func (o *CopyOptions) WhereColumn(line int64, col int) string {
	return strings.TrimSuffix(o.Where(line, col, nil), ": null input")
}

// Next returns the next row, or io.EOF after the end marker or the end of
// input. Errors are *CopyError (22P04) or the reader's I/O error.
func (cr *CopyReader) Next() ([][]byte, error) {
	if cr.done {
		return nil, io.EOF
	}
	switch cr.opts.Format {
	case CopyBinary:
		return cr.nextBinary()
	case CopyCSV:
		return cr.nextCSV()
	default:
		return cr.nextText()
	}
}

func (cr *CopyReader) checkCount(n int) error {
	if cr.ncols == 0 {
		return nil
	}
	if n > cr.ncols {
		return cr.opts.newCopyError(cr.line, -1, cr.raw, "extra data after last expected column")
	}
	if n < cr.ncols {
		name := fmt.Sprintf("%d", n+1)
		if n < len(cr.opts.Columns) {
			name = cr.opts.Columns[n]
		}
		return cr.opts.newCopyError(cr.line, -1, cr.raw, "missing data for column \"%s\"", name)
	}
	return nil
}
