package pgtypes

import (
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// parseArrayText is array_in: '{1,2,NULL}', '{{1,2},{3,4}}', quoted
// elements with backslash escapes, '[0:1]={a,b}'. A one-dimensional array
// with lower bound 1 is a []any (nil for NULL), anything else an Array.
// Elements go through the element type's input function.
func parseArrayText(_, elem uint32, typmod int32, text []byte, s *Settings) (any, error) {
	src := string(text)
	malformed := func(detail string) error {
		e := pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", src)
		e.Detail = detail
		return e
	}
	p := strings.TrimLeft(src, " \t\n\r\v\f")
	var lbounds []int32
	var declared []int32
	for strings.HasPrefix(p, "[") {
		if len(lbounds) >= MaxArrayDims {
			return nil, TooManyArrayDims(len(lbounds) + 1)
		}
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return nil, malformed("Missing \"]\" after array dimensions.")
		}
		spec := p[1:end]
		lo, hi := "1", spec
		if i := strings.IndexByte(spec, ':'); i >= 0 {
			lo, hi = spec[:i], spec[i+1:]
		}
		l, err1 := parseInt([]byte(strings.TrimSpace(lo)), 32, "integer")
		h, err2 := parseInt([]byte(strings.TrimSpace(hi)), 32, "integer")
		if err1 != nil || err2 != nil || h < l-1 {
			return nil, malformed("Specified array dimensions do not match array contents.")
		}
		lbounds = append(lbounds, int32(l))
		declared = append(declared, int32(h-l+1))
		p = strings.TrimLeft(p[end+1:], " \t\n\r\v\f")
	}
	if len(lbounds) > 0 {
		if !strings.HasPrefix(p, "=") {
			return nil, malformed("Missing \"=\" after array dimensions.")
		}
		p = strings.TrimLeft(p[1:], " \t\n\r\v\f")
	}
	if !strings.HasPrefix(p, "{") {
		return nil, malformed("Array value must start with \"{\" or dimension information.")
	}
	ap := &arrayParser{p: p, malformed: malformed}
	root, err := ap.list(0)
	if err != nil {
		return nil, err
	}
	if rest := strings.TrimSpace(ap.p[ap.i:]); rest != "" {
		return nil, malformed("Junk after closing right brace.")
	}
	// Dimensions from the first path; every sub-array must match them.
	var dims []int32
	for n := any(root); ; {
		l, ok := n.([]any)
		if !ok {
			break
		}
		dims = append(dims, int32(len(l)))
		if len(l) == 0 {
			break
		}
		n = l[0]
	}
	var elems []any // arrayLeaf or nil (NULL), row-major
	var walk func(n any, d int) error
	walk = func(n any, d int) error {
		l, isList := n.([]any)
		if d == len(dims) {
			if isList {
				return malformed("Multidimensional arrays must have sub-arrays with matching dimensions.")
			}
			elems = append(elems, n)
			return nil
		}
		if !isList || int32(len(l)) != dims[d] {
			return malformed("Multidimensional arrays must have sub-arrays with matching dimensions.")
		}
		for _, c := range l {
			if err := walk(c, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		dims = nil
	}
	if declared != nil && len(elems) > 0 {
		if len(declared) != len(dims) {
			return nil, malformed("Specified array dimensions do not match array contents.")
		}
		for k := range dims {
			if declared[k] != dims[k] {
				return nil, malformed("Specified array dimensions do not match array contents.")
			}
		}
	}
	out := make([]any, len(elems))
	for k, e := range elems {
		if e == nil {
			continue
		}
		v, err := ParseText(elem, typmod, []byte(e.(arrayLeaf).text), s)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	if len(dims) <= 1 && (lbounds == nil || lbounds[0] == 1) {
		return out, nil
	}
	if lbounds == nil {
		lbounds = make([]int32, len(dims))
		for k := range lbounds {
			lbounds[k] = 1
		}
	}
	return Array{Dims: dims, LBound: lbounds, Elems: out}, nil
}

// MaxArrayDims is PostgreSQL's MAXDIM: no array has more dimensions.
const MaxArrayDims = 6

// TooManyArrayDims is PostgreSQL's error for an array of n > MAXDIM
// dimensions (array_in, array_recv, ARRAY[] constructors).
func TooManyArrayDims(n int) *pgerr.Error {
	return pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, MaxArrayDims)
}

type arrayLeaf struct{ text string }

// arrayParser reads the braces of an array literal into nested []any of
// arrayLeaf and nil (an unquoted NULL).
type arrayParser struct {
	p         string
	i         int
	malformed func(string) error
}

func (a *arrayParser) skipSpace() {
	for a.i < len(a.p) && isSpace(a.p[a.i]) {
		a.i++
	}
}

// list reads "{...}" at a.i (depth: how many braces enclose it). As in
// PostgreSQL, only the outermost braces may be empty, and one level holds
// either sub-arrays or elements.
func (a *arrayParser) list(depth int) ([]any, error) {
	a.skipSpace()
	if a.i >= len(a.p) || a.p[a.i] != '{' {
		return nil, a.malformed("Array value must start with \"{\" or dimension information.")
	}
	a.i++
	out := []any{}
	a.skipSpace()
	if a.i < len(a.p) && a.p[a.i] == '}' {
		if depth > 0 {
			return nil, a.malformed("Unexpected \"}\" character.")
		}
		a.i++
		return out, nil
	}
	lists, scalars := false, false
	for {
		a.skipSpace()
		if a.i >= len(a.p) {
			return nil, a.malformed("Unexpected end of input.")
		}
		switch a.p[a.i] {
		case '{':
			if scalars {
				return nil, a.malformed("Unexpected \"{\" character.")
			}
			// As ArrayCount, at the brace that opens one level too many:
			// before the rest is read, so nesting stays bounded.
			if depth+1 >= MaxArrayDims {
				return nil, TooManyArrayDims(depth + 2)
			}
			lists = true
			sub, err := a.list(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub)
		case '}', ',':
			return nil, a.malformed("Unexpected \"" + a.p[a.i:a.i+1] + "\" character.")
		default:
			if lists {
				return nil, a.malformed("Unexpected array element.")
			}
			scalars = true
			e, err := a.element()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		a.skipSpace()
		if a.i >= len(a.p) {
			return nil, a.malformed("Unexpected end of input.")
		}
		switch a.p[a.i] {
		case ',':
			a.i++
		case '}':
			a.i++
			return out, nil
		default:
			return nil, a.malformed("Unexpected array element.")
		}
	}
}

// element reads one element: quoted with backslash escapes, or unquoted
// up to a delimiter (backslashes escape; trailing blanks dropped; NULL).
func (a *arrayParser) element() (any, error) {
	var b strings.Builder
	if a.p[a.i] == '"' {
		a.i++
		for {
			if a.i >= len(a.p) {
				return nil, a.malformed("Unexpected end of input.")
			}
			c := a.p[a.i]
			if c == '\\' && a.i+1 < len(a.p) {
				b.WriteByte(a.p[a.i+1])
				a.i += 2
				continue
			}
			a.i++
			if c == '"' {
				return arrayLeaf{b.String()}, nil
			}
			b.WriteByte(c)
		}
	}
	trailing, escaped := 0, false
	for a.i < len(a.p) {
		c := a.p[a.i]
		if c == ',' || c == '}' {
			break
		}
		if c == '{' || c == '"' {
			return nil, a.malformed("Unexpected \"" + string(c) + "\" character.")
		}
		if c == '\\' && a.i+1 < len(a.p) {
			b.WriteByte(a.p[a.i+1])
			a.i += 2
			trailing, escaped = 0, true
			continue
		}
		if isSpace(c) {
			trailing++
		} else {
			trailing = 0
		}
		b.WriteByte(c)
		a.i++
	}
	str := b.String()
	str = str[:len(str)-trailing]
	if !escaped && strings.EqualFold(str, "NULL") {
		return nil, nil
	}
	return arrayLeaf{str}, nil
}

// ParseParamText is ParseText for a parameter value: arrays of oid, name
// and "char", which ParseText keeps as text (the catalogs' values), are
// parsed by array_in too (t.oid = ANY($1) with $1 '{23,25}', as psycopg 3
// and pgcli send it).
func ParseParamText(oid uint32, typmod int32, text []byte, s *Settings) (any, error) {
	if elem, ok := arrayElem(oid); ok && (elem == OIDOID || elem == OIDName || elem == OIDChar) {
		return parseArrayText(oid, elem, typmod, text, orDefault(s))
	}
	return ParseText(oid, typmod, text, s)
}
