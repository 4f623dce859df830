package pgtypes

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Format is format(formatstr, args...), PostgreSQL's text_format
// (varlena.c): %s (NULL as empty), %I (an identifier, quoted by
// quoteIdent), %L (a literal, NULL unquoted) and %%, each with an optional
// argument position (%2$s), the - flag and a width (digits, * for the next
// argument, or *n$). args are the arguments' text, nil for NULL; argument
// n of the format string is args[n-1]. The parse follows PostgreSQL's step
// by step, so every malformed specifier gets its error and none indexes
// outside args (FuzzFormat).
func Format(format string, args []*string, quoteIdent func(string) string) (string, error) {
	f := formatter{format: format, args: args}
	var b strings.Builder
	// arg is PostgreSQL's running argument number: 1 is the first
	// argument after the format string.
	arg := 1
	for f.i = 0; f.i < len(format); f.i++ {
		if format[f.i] != '%' {
			b.WriteByte(format[f.i])
			continue
		}
		if err := f.advance(); err != nil {
			return "", err
		}
		if format[f.i] == '%' {
			b.WriteByte('%')
			continue
		}
		spec, err := f.parseSpec()
		if err != nil {
			return "", err
		}
		// The conversion is checked before any argument is fetched, as
		// PostgreSQL does, for the least confusing error.
		conv := format[f.i]
		if conv != 's' && conv != 'I' && conv != 'L' {
			r, _ := utf8.DecodeRuneInString(format[f.i:])
			s := string(r)
			if r == utf8.RuneError {
				s = format[f.i : f.i+1]
			}
			return "", formatErrHint("unrecognized format() type specifier \"%s\"", s)
		}
		width := spec.width
		if spec.widthPos >= 0 {
			if spec.widthPos > 0 {
				arg = spec.widthPos
			}
			w, err := f.arg(arg)
			if err != nil {
				return "", err
			}
			arg++
			width = 0 // a NULL width is no width
			if w != nil {
				// PostgreSQL converts a width of another type than
				// integer through its text (pg_strtoint32); the
				// arguments here are all text.
				v, err := ParseIntText([]byte(*w), 32)
				if err != nil {
					return "", err
				}
				width = int(v)
			}
		}
		if spec.argPos > 0 {
			arg = spec.argPos
		}
		v, err := f.arg(arg)
		if err != nil {
			return "", err
		}
		arg++
		var s string
		switch conv {
		case 's':
			if v != nil {
				s = *v
			}
		case 'I':
			if v == nil {
				return "", pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = quoteIdent(*v)
		case 'L':
			s = "NULL"
			if v != nil {
				s = QuoteLiteral(*v)
			}
		}
		if err := appendPadded(&b, s, width, spec.minus); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// formatter is the parse state of one format string.
type formatter struct {
	format string
	args   []*string
	i      int
}

// formatSpec is what text_format_parse_format reads between the % and
// the conversion: argPos and widthPos are -1 when absent, widthPos 0 for a
// bare * (the next argument).
type formatSpec struct {
	argPos, widthPos, width int
	minus                   bool
}

func formatErr(msg string, a ...any) *pgerr.Error {
	return pgerr.New(pgerr.InvalidParameterValue, msg, a...)
}

func formatErrHint(msg string, a ...any) *pgerr.Error {
	e := formatErr(msg, a...)
	e.Hint = `For a single "%" use "%%".`
	return e
}

// advance is ADVANCE_PARSE_POINTER: a specifier may not end the string.
func (f *formatter) advance() error {
	f.i++
	if f.i >= len(f.format) {
		return formatErrHint("unterminated format() type specifier")
	}
	return nil
}

// arg is argument n (1-based, as PostgreSQL numbers them after the format
// string).
func (f *formatter) arg(n int) (*string, error) {
	if n < 1 || n > len(f.args) {
		return nil, formatErr("too few arguments for format()")
	}
	return f.args[n-1], nil
}

// digits is text_format_parse_digits: a decimal number at the cursor, if
// any, which may not end the string nor overflow an int32.
func (f *formatter) digits() (n int, found bool, err error) {
	for f.format[f.i] >= '0' && f.format[f.i] <= '9' {
		n = n*10 + int(f.format[f.i]-'0')
		if n > 1<<31-1 {
			return 0, false, pgerr.New(pgerr.NumericValueOutOfRange, "number is out of range")
		}
		found = true
		if err := f.advance(); err != nil {
			return 0, false, err
		}
	}
	return n, found, nil
}

// parseSpec is text_format_parse_format, the cursor on the character after
// the %; it leaves the cursor on the conversion character.
func (f *formatter) parseSpec() (formatSpec, error) {
	spec := formatSpec{argPos: -1, widthPos: -1}
	n, ok, err := f.digits()
	if err != nil {
		return spec, err
	}
	if ok {
		if f.format[f.i] != '$' {
			spec.width = n // a width and then the conversion
			return spec, nil
		}
		if n == 0 {
			return spec, formatErr("format specifies argument 0, but arguments are numbered from 1")
		}
		spec.argPos = n
		if err := f.advance(); err != nil {
			return spec, err
		}
	}
	for f.format[f.i] == '-' {
		spec.minus = true
		if err := f.advance(); err != nil {
			return spec, err
		}
	}
	if f.format[f.i] != '*' {
		n, ok, err := f.digits()
		if err != nil {
			return spec, err
		}
		if ok {
			spec.width = n
		}
		return spec, nil
	}
	if err := f.advance(); err != nil {
		return spec, err
	}
	n, ok, err = f.digits()
	if err != nil {
		return spec, err
	}
	if !ok {
		spec.widthPos = 0
		return spec, nil
	}
	if f.format[f.i] != '$' {
		return spec, formatErr("width argument position must be ended by \"$\"")
	}
	if n == 0 {
		return spec, formatErr("format specifies argument 0, but arguments are numbered from 1")
	}
	spec.widthPos = n
	return spec, f.advance()
}

// appendPadded is text_format_append_string: s padded with spaces to width
// characters, on the right for the - flag or a negative width. The output
// is bounded as PostgreSQL's string buffers are (MaxAllocSize): a width
// near 2^31 is refused rather than allocated.
func appendPadded(b *strings.Builder, s string, width int, minus bool) error {
	left := minus
	if width < 0 {
		if width <= -1<<31 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "number is out of range")
		}
		left, width = true, -width
	}
	pad := max(0, width-utf8.RuneCountInString(s))
	if pad > 0 && !left {
		if err := appendRoom(b, pad); err != nil {
			return err
		}
		b.WriteString(strings.Repeat(" ", pad))
	}
	if err := appendRoom(b, len(s)); err != nil {
		return err
	}
	b.WriteString(s)
	if pad > 0 && left {
		if err := appendRoom(b, pad); err != nil {
			return err
		}
		b.WriteString(strings.Repeat(" ", pad))
	}
	return nil
}

// appendRoom is enlargeStringInfo's check: b may grow by more bytes only
// while it stays under MaxAllocSize.
func appendRoom(b *strings.Builder, more int) error {
	if more < maxCopyFieldBytes-b.Len() {
		return nil
	}
	e := pgerr.New(pgerr.ProgramLimitExceeded, "out of memory")
	e.Detail = fmt.Sprintf("Cannot enlarge string buffer containing %d bytes by %d more bytes.", b.Len(), more)
	return e
}
