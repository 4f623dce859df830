package pgtypes

import (
	"fmt"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// NormalizeJSONB validates JSON text and returns the text jsonb_out would
// print for it: object keys sorted by (length, bytes) with duplicates
// resolved last-wins, ", " and ": " separators, numbers in numeric_out form,
// strings re-escaped (escape_json).
func NormalizeJSONB(text []byte) (string, error) {
	p := jsonParser{s: text}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return "", err
	}
	p.ws()
	if p.i != len(p.s) {
		return "", p.failExpect(expectEnd)
	}
	return string(v.appendTo(nil)), nil
}

type jsonValue struct {
	kind byte // 's' string, 'n' number (text), 'l' literal, 'a' array, 'o' object
	str  string
	arr  []jsonValue
	keys []string
}

type jsonParser struct {
	s []byte
	i int
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

const maxJSONDepth = 6400

func (p *jsonParser) value(depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, pgerr.New(pgerr.ProgramLimitExceeded, "stack depth limit exceeded")
	}
	if p.i >= len(p.s) {
		return jsonValue{}, p.failExpect(expectValue)
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		obj := map[string]jsonValue{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return jsonValue{kind: 'o'}, nil
		}
		keyExpect := expectFirstKey
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return jsonValue{}, p.failExpect(keyExpect)
			}
			k, err := p.str()
			if err != nil {
				return jsonValue{}, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return jsonValue{}, p.failExpect(expectColon)
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return jsonValue{}, err
			}
			obj[k] = v
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				keyExpect = expectKey
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				break
			}
			return jsonValue{}, p.failExpect(expectObjectNext)
		}
		out := jsonValue{kind: 'o', keys: make([]string, 0, len(obj))}
		for k := range obj {
			out.keys = append(out.keys, k)
		}
		sort.Slice(out.keys, func(a, b int) bool {
			ka, kb := out.keys[a], out.keys[b]
			if len(ka) != len(kb) {
				return len(ka) < len(kb)
			}
			return ka < kb
		})
		for _, k := range out.keys {
			out.arr = append(out.arr, obj[k])
		}
		return out, nil
	case c == '[':
		p.i++
		out := jsonValue{kind: 'a'}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return jsonValue{}, err
			}
			out.arr = append(out.arr, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return out, nil
			}
			return jsonValue{}, p.failExpect(expectArrayNext)
		}
	case c == '"':
		s, err := p.str()
		return jsonValue{kind: 's', str: s}, err
	case c == '-' || isDigit(c):
		start := p.i
		if c == '-' {
			p.i++
		}
		if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
			return jsonValue{}, p.invalidToken(start)
		}
		if p.s[p.i] == '0' {
			p.i++
		} else {
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
		}
		if p.i < len(p.s) && p.s[p.i] == '.' {
			p.i++
			if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
				return jsonValue{}, p.invalidToken(start)
			}
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
		}
		if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
			p.i++
			if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
				p.i++
			}
			if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
				return jsonValue{}, p.invalidToken(start)
			}
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
		}
		n, err := ParseNumeric(p.s[start:p.i])
		if err != nil {
			return jsonValue{}, err
		}
		return jsonValue{kind: 'n', str: n.String()}, nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(p.s)-p.i >= len(lit) && string(p.s[p.i:p.i+len(lit)]) == lit {
				p.i += len(lit)
				return jsonValue{kind: 'l', str: lit}, nil
			}
		}
		return jsonValue{}, p.failExpect(expectValue)
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.s[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++ // opening quote
	var out []byte
	for {
		if p.i >= len(p.s) {
			return "", p.invalidToken(start)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return "", p.jsonError(p.i, fmt.Sprintf("Character with value 0x%02x must be escaped.", c))
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			return "", p.invalidToken(start)
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.jsonError(min(p.i+4, len(p.s)), `"\u" must be followed by four hexadecimal digits.`)
			}
			if r == 0 {
				e := p.jsonError(p.i, "\\u0000 cannot be converted to text.")
				e.Code, e.Message = pgerr.UntranslatableCharacter, "unsupported Unicode escape sequence"
				return "", e
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || p.i+2 > len(p.s) || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
					return "", p.jsonError(p.i, "Unicode low surrogate must follow a high surrogate.")
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return "", p.jsonError(p.i, "Unicode low surrogate must follow a high surrogate.")
				}
				r = utf16.DecodeRune(r, r2)
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", p.jsonError(p.i, fmt.Sprintf("Escape sequence \"\\%c\" is invalid.", e))
		}
	}
}

func (v *jsonValue) appendTo(buf []byte) []byte {
	switch v.kind {
	case 's':
		return appendJSONString(buf, v.str)
	case 'n', 'l':
		return append(buf, v.str...)
	case 'a':
		buf = append(buf, '[')
		for i := range v.arr {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = v.arr[i].appendTo(buf)
		}
		return append(buf, ']')
	default:
		buf = append(buf, '{')
		for i := range v.arr {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJSONString(buf, v.keys[i])
			buf = append(buf, ": "...)
			buf = v.arr[i].appendTo(buf)
		}
		return append(buf, '}')
	}
}

// appendJSONString is escape_json.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '"':
			buf = append(buf, '\\', '"')
		case '\\':
			buf = append(buf, '\\', '\\')
		default:
			if c < 0x20 {
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				buf = append(buf, c)
			}
		}
	}
	return append(buf, '"')
}

// JSONQuote is s as a JSON string, escaped as PostgreSQL's escape_json
// does (to_json of text).
func JSONQuote(s string) string { return string(appendJSONString(nil, s)) }
