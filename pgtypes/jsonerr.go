package pgtypes

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// JSON input errors in PostgreSQL's words (src/common/jsonapi.c
// json_errdetail and utils/adt/jsonfuncs.c report_json_context): every
// error is 22P02 "invalid input syntax for type json" with a DETAIL naming
// the offending token or the expectation, and a CONTEXT quoting the input
// line up to the end of that token:
//
//	DETAIL:  Token "bad" is invalid.
//	CONTEXT:  JSON data, line 1: {bad

// What the parser expected where it failed (json_errdetail's cases).
const (
	expectValue      = "JSON value"
	expectFirstKey   = `string or "}"`
	expectKey        = "string"
	expectColon      = `":"`
	expectObjectNext = `"," or "}"`
	expectArrayNext  = `"," or "]"`
	expectEnd        = "end of input"
)

// isJSONDelim reports the characters that end a bare word in PostgreSQL's
// JSON lexer (json_lex: whitespace and the structural characters).
func isJSONDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '{', '}', '[', ']', ',', ':', '"':
		return true
	}
	return false
}

// tokenEnd is where the lexer's token starting at i ends.
func (p *jsonParser) tokenEnd(i int) int {
	if i >= len(p.s) {
		return i
	}
	switch p.s[i] {
	case '{', '}', '[', ']', ',', ':':
		return i + 1
	case '"':
		for j := i + 1; j < len(p.s); j++ {
			switch p.s[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(p.s)
	}
	j := i
	for j < len(p.s) && !isJSONDelim(p.s[j]) {
		j++
	}
	if j == i {
		j = i + 1
	}
	return j
}

// failExpect reports the token at the current position when something
// else was expected. A token the lexer itself rejects (a bare word other
// than true/false/null, a malformed number) is reported as invalid first,
// as PostgreSQL's lexer runs before its parser.
func (p *jsonParser) failExpect(expect string) error {
	if p.i >= len(p.s) {
		return p.jsonError(len(p.s), "The input string ended unexpectedly.")
	}
	end := p.tokenEnd(p.i)
	tok := string(p.s[p.i:end])
	switch c := p.s[p.i]; {
	case c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':' || c == '"':
	case tok == "true" || tok == "false" || tok == "null" || validJSONNumber(tok):
	default:
		return p.invalidToken(p.i)
	}
	return p.jsonError(end, fmt.Sprintf("Expected %s, but found \"%s\".", expect, tok))
}

// invalidToken reports the lexer token starting at start as invalid.
func (p *jsonParser) invalidToken(start int) error {
	end := p.tokenEnd(start)
	return p.jsonError(end, fmt.Sprintf("Token \"%s\" is invalid.", p.s[start:end]))
}

// jsonError builds the error; end is the end of the offending token.
func (p *jsonParser) jsonError(end int, detail string) *pgerr.Error {
	if end > len(p.s) {
		end = len(p.s)
	}
	lineStart, line := 0, 1
	for i := 0; i < end; i++ {
		if p.s[i] == '\n' {
			lineStart, line = i+1, line+1
		}
	}
	start := lineStart
	for end-start >= 50 {
		_, n := utf8.DecodeRune(p.s[start:end])
		start += n
	}
	prefix, suffix := "", ""
	if start > lineStart {
		prefix = "..."
	}
	if end < len(p.s) && p.s[end] != '\n' && p.s[end] != '\r' {
		suffix = "..."
	}
	e := pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type json").
		WithDetail("%s", detail)
	e.Where = "JSON data, line " + fmt.Sprint(line) + ": " + prefix + strings.ToValidUTF8(string(p.s[start:end]), "") + suffix
	return e
}

// validJSONNumber reports whether tok is a complete JSON number.
func validJSONNumber(tok string) bool {
	q := jsonParser{s: []byte(tok)}
	if len(tok) == 0 || !(tok[0] == '-' || isDigit(tok[0])) {
		return false
	}
	_, err := q.value(0)
	return err == nil && q.i == len(tok)
}
