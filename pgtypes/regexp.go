package pgtypes

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// PostgreSQL's regular expression functions (regexp.c, varlena.c's
// replace_text_regexp) over Go's regexp package: a pattern of PostgreSQL's
// dialect (ARE, with its flags) is translated to Go's syntax (RE2).
//
// What matches as in PostgreSQL: the ARE escapes (\d \s \w and negations,
// \y \Y \A \Z, \m \M as word boundaries, \b \e \cX \uXXXX \xHH octal and
// the other character escapes, \B), bracket expressions with classes,
// [.x.] and [=x=] of one character, bounds up to 255, the flags b c e i g
// m n p q s t w x, embedded options (?flags) and the ***= / ***: prefixes,
// and the choice of the match: a pattern whose quantifiers are all greedy
// takes the longest match at the leftmost position, as PostgreSQL's engine
// does. Known differences (the pattern is refused with SQLSTATE 0A000, or
// matches otherwise): back references (\1 in a pattern) and lookahead /
// lookbehind constraints are refused; a pattern with a non-greedy
// quantifier matches as Perl's do (PostgreSQL takes the shortest match when
// its first quantifier is non-greedy); \m and \M match any word boundary;
// b (basic) and e (extended) patterns are read as AREs.

// reFlags are parse_re_flags' result.
type reFlags struct {
	glob, icase, newline, nlstop, nlanch, quote, expanded bool
}

// parseReFlags is parse_re_flags.
func parseReFlags(opts string) (reFlags, error) {
	var f reFlags
	for i, c := range opts {
		switch c {
		case 'g':
			f.glob = true
		case 'b', 'e':
			f.quote = false
		case 'c':
			f.icase = false
		case 'i':
			f.icase = true
		case 'm', 'n':
			f.nlstop, f.nlanch = true, true
		case 'p':
			f.nlstop, f.nlanch = true, false
		case 'q':
			f.quote = true
		case 's':
			f.nlstop, f.nlanch = false, false
		case 't':
			f.expanded = false
		case 'w':
			f.nlstop, f.nlanch = false, true
		case 'x':
			f.expanded = true
		default:
			_, l := utf8.DecodeRuneInString(opts[i:])
			return f, pgerr.New("22023", "invalid regular expression option: \"%s\"", opts[i:i+l])
		}
	}
	return f, nil
}

// pgRegexp is a compiled pattern.
type pgRegexp struct {
	re    *regexp.Regexp // the pattern (leftmost-longest when greedy)
	first *regexp.Regexp // \A(?s:.)(?s:.*?)(P): the leftmost match after a given character
	anch  *regexp.Regexp // \A(?s:.)(P): the match at a given position
	nsub  int
}

func regexErr(msg string) error {
	return pgerr.New("2201B", "invalid regular expression: %s", msg)
}

func unsupportedRegex(what string) error {
	return pgerr.New("0A000", "regular expression %s are not supported", what)
}

// translateARE turns an ARE into Go syntax; greedy reports whether no
// quantifier is non-greedy.
func translateARE(p string, f *reFlags) (string, bool, error) {
	switch {
	case strings.HasPrefix(p, "***="):
		return regexp.QuoteMeta(p[4:]), true, nil
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	if f.quote {
		return regexp.QuoteMeta(p), true, nil
	}
	// Embedded options at the start.
	if strings.HasPrefix(p, "(?") && len(p) > 2 && p[2] >= 'a' && p[2] <= 'z' {
		end := strings.IndexByte(p, ')')
		if end < 0 {
			return "", false, regexErr("invalid embedded option")
		}
		for _, c := range p[2:end] {
			if c == 'g' || !strings.ContainsRune("bceimnpqstwx", c) {
				return "", false, regexErr("invalid embedded option")
			}
		}
		g, _ := parseReFlags(p[2:end])
		g.glob = f.glob
		*f = g
		p = p[end+1:]
		if f.quote {
			return regexp.QuoteMeta(p), true, nil
		}
	}
	var b strings.Builder
	greedy := true
	afterAtom := false // a quantifier may follow
	lastQuant := false
	i := 0
	for i < len(p) {
		c := p[i]
		if f.expanded {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				i++
				continue
			}
			if c == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
		}
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return "", false, regexErr(`invalid escape \ sequence`)
			}
			s, n, err := translateEscape(p[i+1:], false)
			if err != nil {
				return "", false, err
			}
			b.WriteString(s)
			i += 1 + n
			afterAtom, lastQuant = true, false
		case '[':
			s, n, err := translateBracket(p[i:], f)
			if err != nil {
				return "", false, err
			}
			b.WriteString(s)
			i += n
			afterAtom, lastQuant = true, false
		case '(':
			if strings.HasPrefix(p[i:], "(?#") {
				end := strings.IndexByte(p[i:], ')')
				if end < 0 {
					return "", false, regexErr("parentheses () not balanced")
				}
				i += end + 1
				continue
			}
			if strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
				strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!") {
				return "", false, unsupportedRegex("lookahead and lookbehind constraints")
			}
			if strings.HasPrefix(p[i:], "(?:") {
				b.WriteString("(?:")
				i += 3
			} else if strings.HasPrefix(p[i:], "(?") {
				return "", false, regexErr("quantifier operand invalid")
			} else {
				b.WriteByte('(')
				i++
			}
			afterAtom, lastQuant = false, false
		case ')':
			b.WriteByte(')')
			i++
			afterAtom, lastQuant = true, false
		case '|':
			b.WriteByte('|')
			i++
			afterAtom, lastQuant = false, false
		case '*', '+', '?':
			if !afterAtom || lastQuant {
				return "", false, regexErr("quantifier operand invalid")
			}
			b.WriteByte(c)
			i++
			if i < len(p) && p[i] == '?' {
				b.WriteByte('?')
				greedy = false
				i++
			}
			lastQuant = true
		case '{':
			// A bound: {m}, {m,}, {m,n}; else a literal brace.
			end := strings.IndexByte(p[i:], '}')
			body := ""
			if end > 0 {
				body = p[i+1 : i+end]
			}
			if end < 0 || !isBound(body) {
				if end < 0 && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '9' {
					return "", false, regexErr("braces {} not balanced")
				}
				if end > 0 && body != "" && body[0] >= '0' && body[0] <= '9' {
					return "", false, regexErr("invalid repetition count(s)")
				}
				b.WriteString(`\{`)
				i++
				afterAtom, lastQuant = true, false
				continue
			}
			if !afterAtom || lastQuant {
				return "", false, regexErr("quantifier operand invalid")
			}
			lo, hi, ok := boundValues(body)
			if !ok {
				return "", false, regexErr("invalid repetition count(s)")
			}
			_ = lo
			_ = hi
			b.WriteString(p[i : i+end+1])
			i += end + 1
			if i < len(p) && p[i] == '?' {
				b.WriteByte('?')
				greedy = false
				i++
			}
			lastQuant = true
		case '^', '$':
			b.WriteByte(c)
			i++
			afterAtom, lastQuant = false, false
		case '.':
			b.WriteByte('.')
			i++
			afterAtom, lastQuant = true, false
		default:
			r, l := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += l
			afterAtom, lastQuant = true, false
		}
	}
	return b.String(), greedy, nil
}

func isBound(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == ',') {
			return false
		}
	}
	return s[0] != ','
}

// boundValues checks a bound as PostgreSQL does (DUPMAX 255, lo <= hi).
func boundValues(s string) (int, int, bool) {
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return 0, 0, false
	}
	lo, err := strconv.Atoi(parts[0])
	if err != nil || lo > 255 {
		return 0, 0, false
	}
	hi := lo
	if len(parts) == 2 {
		if parts[1] == "" {
			hi = -1
		} else if hi, err = strconv.Atoi(parts[1]); err != nil || hi > 255 || hi < lo {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// translateEscape translates the escape after a backslash (s starts after
// it); inBracket: within a bracket expression. It returns Go syntax and the
// bytes consumed.
func translateEscape(s string, inBracket bool) (string, int, error) {
	c := s[0]
	switch c {
	case 'd', 's', 'w':
		return `\` + string(c), 1, nil
	case 'D', 'S', 'W':
		if inBracket {
			return "", 0, regexErr("invalid escape \\ sequence")
		}
		return `\` + string(c), 1, nil
	case 'a':
		return `\x07`, 1, nil
	case 'b':
		return `\x08`, 1, nil
	case 'B':
		return `\\`, 1, nil
	case 'e':
		return `\x1b`, 1, nil
	case 'f':
		return `\f`, 1, nil
	case 'n':
		return `\n`, 1, nil
	case 'r':
		return `\r`, 1, nil
	case 't':
		return `\t`, 1, nil
	case 'v':
		return `\v`, 1, nil
	case 'c':
		if len(s) < 2 {
			return "", 0, regexErr("invalid escape \\ sequence")
		}
		return `\x{` + strconv.FormatInt(int64(s[1]&037), 16) + `}`, 2, nil
	case 'u', 'U', 'x':
		n := map[byte]int{'u': 4, 'U': 8, 'x': 8}[c]
		j := 1
		for j <= n && j < len(s) && reIsHex(s[j]) {
			j++
		}
		if j == 1 || (c != 'x' && j != n+1) {
			return "", 0, regexErr("invalid escape \\ sequence")
		}
		v, _ := strconv.ParseUint(s[1:j], 16, 32)
		if v > utf8.MaxRune {
			return "", 0, regexErr("invalid escape \\ sequence")
		}
		return `\x{` + strconv.FormatUint(v, 16) + `}`, j, nil
	}
	if !inBracket {
		switch c {
		case 'A':
			return `\A`, 1, nil
		case 'Z':
			return `\z`, 1, nil
		case 'y', 'm', 'M':
			return `\b`, 1, nil
		case 'Y':
			return `\B`, 1, nil
		}
	}
	if c >= '0' && c <= '9' {
		if c != '0' && !inBracket {
			return "", 0, unsupportedRegex("back references")
		}
		// Octal: \0, \0oo
		j := 1
		for j < 3 && j < len(s) && s[j] >= '0' && s[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(s[:j], 8, 32)
		return `\x{` + strconv.FormatUint(v, 16) + `}`, j, nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return "", 0, regexErr("invalid escape \\ sequence")
	}
	r, l := utf8.DecodeRuneInString(s)
	return regexp.QuoteMeta(string(r)), l, nil
}

func reIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// translateBracket translates a bracket expression at the start of s.
func translateBracket(s string, f *reFlags) (string, int, error) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	negated := false
	if i < len(s) && s[i] == '^' {
		b.WriteByte('^')
		negated = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return "", 0, regexErr("brackets [] not balanced")
		}
		c := s[i]
		if c == ']' && !first {
			break
		}
		first = false
		switch {
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return "", 0, regexErr("brackets [] not balanced")
			}
			name := s[i+2 : i+2+end]
			switch name {
			case "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit", "word":
			default:
				return "", 0, regexErr("invalid character class")
			}
			b.WriteString("[:" + name + ":]")
			i += 2 + end + 2
		case c == '[' && i+1 < len(s) && (s[i+1] == '.' || s[i+1] == '='):
			delim := string(s[i+1]) + "]"
			end := strings.Index(s[i+2:], delim)
			if end < 0 {
				return "", 0, regexErr("brackets [] not balanced")
			}
			elem := s[i+2 : i+2+end]
			if utf8.RuneCountInString(elem) != 1 {
				return "", 0, regexErr("invalid collating element")
			}
			b.WriteString(regexp.QuoteMeta(elem))
			i += 2 + end + 2
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, regexErr("brackets [] not balanced")
			}
			t, n, err := translateEscape(s[i+1:], true)
			if err != nil {
				return "", 0, err
			}
			b.WriteString(t)
			i += 1 + n
		case c == '-':
			b.WriteByte('-')
			i++
		default:
			r, l := utf8.DecodeRuneInString(s[i:])
			switch r {
			case '[', ']', '^':
				b.WriteByte('\\')
			}
			b.WriteRune(r)
			i += l
		}
	}
	if negated && f.nlstop {
		b.WriteString(`\n`)
	}
	b.WriteByte(']')
	return b.String(), i + 1, nil
}

// goRegexErr is PostgreSQL's message for a pattern Go refuses.
func goRegexErr(err error) error {
	se, ok := err.(*syntax.Error)
	if !ok {
		return regexErr("invalid regexp (reg version 0.8)")
	}
	switch se.Code {
	case syntax.ErrInvalidCharClass:
		return regexErr("invalid character class")
	case syntax.ErrInvalidCharRange:
		return regexErr("invalid character range")
	case syntax.ErrInvalidEscape, syntax.ErrTrailingBackslash:
		return regexErr("invalid escape \\ sequence")
	case syntax.ErrInvalidRepeatOp, syntax.ErrMissingRepeatArgument:
		return regexErr("quantifier operand invalid")
	case syntax.ErrInvalidRepeatSize:
		return regexErr("invalid repetition count(s)")
	case syntax.ErrMissingBracket:
		return regexErr("brackets [] not balanced")
	case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
		return regexErr("parentheses () not balanced")
	case syntax.ErrInvalidPerlOp:
		return regexErr("invalid embedded option")
	case syntax.ErrNestingDepth, syntax.ErrLarge:
		return regexErr("regular expression is too complex")
	}
	return regexErr("invalid regexp (reg version 0.8)")
}

type reKey struct {
	pattern string
	flags   reFlags
}

var reCache = struct {
	sync.Mutex
	m map[reKey]*pgRegexp
}{m: map[reKey]*pgRegexp{}}

// compileRegexp compiles (and caches) a pattern with its flags.
func compileRegexp(pattern string, f reFlags) (*pgRegexp, error) {
	key := reKey{pattern, f}
	key.flags.glob = false
	reCache.Lock()
	r, ok := reCache.m[key]
	reCache.Unlock()
	if ok {
		return r, nil
	}
	g, greedy, err := translateARE(pattern, &f)
	if err != nil {
		return nil, err
	}
	mods := ""
	if f.icase {
		mods += "i"
	}
	if !f.nlstop {
		mods += "s"
	}
	if f.nlanch {
		mods += "m"
	}
	body := g
	if mods != "" {
		body = "(?" + mods + ":" + g + ")"
	}
	re, err := regexp.Compile(body)
	if err != nil {
		return nil, goRegexErr(err)
	}
	first, err := regexp.Compile(`\A(?s:.)(?s:.*?)(` + body + `)`)
	if err != nil {
		return nil, goRegexErr(err)
	}
	anch, err := regexp.Compile(`\A(?s:.)(` + body + `)`)
	if err != nil {
		return nil, goRegexErr(err)
	}
	if greedy {
		re.Longest()
		anch.Longest()
	}
	r = &pgRegexp{re: re, first: first, anch: anch, nsub: re.NumSubexp()}
	reCache.Lock()
	if len(reCache.m) > 256 {
		reCache.m = map[reKey]*pgRegexp{}
	}
	reCache.m[key] = r
	reCache.Unlock()
	return r, nil
}

// findAt is the match searched from byte offset pos (the text before it
// is the context of ^ and \b), as pg_regexec with search_start: the
// offsets of the match and its groups, or nil.
func (r *pgRegexp) findAt(s string, pos int) []int {
	if pos == 0 {
		return r.re.FindStringSubmatchIndex(s)
	}
	if pos > len(s) {
		return nil
	}
	_, w := utf8.DecodeLastRuneInString(s[:pos])
	base := pos - w
	m := r.first.FindStringSubmatchIndex(s[base:])
	if m == nil {
		return nil
	}
	start := base + m[2]
	// The longest (or preferred) match at that position.
	_, w = utf8.DecodeLastRuneInString(s[:start])
	base = start - w
	a := r.anch.FindStringSubmatchIndex(s[base:])
	if a == nil {
		a = m // cannot happen: the same pattern matched there
		base = pos - w
	}
	out := make([]int, len(a)-2)
	for i := range out {
		if a[i+2] < 0 {
			out[i] = -1
		} else {
			out[i] = a[i+2] + base
		}
	}
	return out
}

// maxMatches bounds the matches one call collects.
const maxMatches = 1 << 24

// allMatches is setup_regexp_matches: the matches from byte offset start,
// every one with glob; ignoreDegenerate drops empty matches at the ends
// and right after a match (for splitting).
func (r *pgRegexp) allMatches(s string, start int, glob, ignoreDegenerate bool) ([][]int, error) {
	var out [][]int
	prevEnd := 0
	for start <= len(s) {
		m := r.findAt(s, start)
		if m == nil {
			break
		}
		if !ignoreDegenerate || (m[0] < len(s) && m[1] > prevEnd) {
			out = append(out, m)
			if len(out) > maxMatches {
				return nil, pgerr.New("54000", "too many regular expression matches")
			}
		}
		prevEnd = m[1]
		if !glob {
			break
		}
		start = m[1]
		if m[0] == m[1] {
			if start >= len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[start:])
			start += w
		}
	}
	return out, nil
}

// charOffset is the byte offset of the n-th character (0-based) of s, or
// len(s)+1 past its end.
func charOffset(s string, n int) int {
	i := 0
	for k := 0; k < n; k++ {
		if i >= len(s) {
			return len(s) + 1
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

func badParam(name string, v int64) error {
	return pgerr.New("22023", "invalid value for parameter \"%s\": %d", name, v)
}

func noGlobal(fn string) error {
	return pgerr.New("22023", "%s does not support the \"global\" option", fn)
}

// RegexpLike is regexp_like(string, pattern [, flags]) and the ~ family.
func RegexpLike(s, pattern, flags string) (bool, error) {
	f, err := parseReFlags(flags)
	if err != nil {
		return false, err
	}
	if f.glob {
		return false, noGlobal("regexp_like()")
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return false, err
	}
	return r.re.MatchString(s), nil
}

// matchArray is the match's groups (the whole match without groups), NULL
// for a group that took no part.
func matchArray(s string, m []int, nsub int) []*string {
	if nsub == 0 {
		v := s[m[0]:m[1]]
		return []*string{&v}
	}
	out := make([]*string, nsub)
	for i := 1; i <= nsub; i++ {
		if m[2*i] >= 0 {
			v := s[m[2*i]:m[2*i+1]]
			out[i-1] = &v
		}
	}
	return out
}

// RegexpMatch is regexp_match(string, pattern [, flags]): nil for no match.
func RegexpMatch(s, pattern, flags string) ([]*string, error) {
	f, err := parseReFlags(flags)
	if err != nil {
		return nil, err
	}
	if f.glob {
		return nil, noGlobal("regexp_match()").(*pgerr.Error).WithHint("Use the regexp_matches function instead.")
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return nil, err
	}
	m := r.findAt(s, 0)
	if m == nil {
		return nil, nil
	}
	return matchArray(s, m, r.nsub), nil
}

// RegexpMatches is regexp_matches(string, pattern [, flags]): a row per
// match (every match with 'g').
func RegexpMatches(s, pattern, flags string) ([][]*string, error) {
	f, err := parseReFlags(flags)
	if err != nil {
		return nil, err
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return nil, err
	}
	ms, err := r.allMatches(s, 0, f.glob, false)
	if err != nil {
		return nil, err
	}
	out := make([][]*string, len(ms))
	for i, m := range ms {
		out[i] = matchArray(s, m, r.nsub)
	}
	return out, nil
}

// RegexpSplit is regexp_split_to_array / regexp_split_to_table (fn names
// the function in errors).
func RegexpSplit(s, pattern, flags, fn string) ([]string, error) {
	f, err := parseReFlags(flags)
	if err != nil {
		return nil, err
	}
	if f.glob {
		return nil, noGlobal(fn + "()")
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return nil, err
	}
	ms, err := r.allMatches(s, 0, true, true)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ms)+1)
	prev := 0
	for _, m := range ms {
		out = append(out, s[prev:m[0]])
		prev = m[1]
	}
	return append(out, s[prev:]), nil
}

// RegexpCount is regexp_count(string, pattern [, start [, flags]]).
func RegexpCount(s, pattern string, start int64, flags string) (int32, error) {
	if start <= 0 {
		return 0, badParam("start", start)
	}
	f, err := parseReFlags(flags)
	if err != nil {
		return 0, err
	}
	if f.glob {
		return 0, noGlobal("regexp_count()")
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return 0, err
	}
	ms, err := r.allMatches(s, charOffset(s, int(min64(start-1, int64(len(s)+1)))), true, false)
	return int32(len(ms)), err
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// nthMatch is the match (or group) regexp_instr and regexp_substr select:
// byte offsets, ok=false for none.
func nthMatch(s, pattern string, start, n int64, flags string, subexpr int64, fn string) (int, int, bool, error) {
	if start <= 0 {
		return 0, 0, false, badParam("start", start)
	}
	if n <= 0 {
		return 0, 0, false, badParam("n", n)
	}
	if subexpr < 0 {
		return 0, 0, false, badParam("subexpr", subexpr)
	}
	f, err := parseReFlags(flags)
	if err != nil {
		return 0, 0, false, err
	}
	if f.glob {
		return 0, 0, false, noGlobal(fn)
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return 0, 0, false, err
	}
	ms, err := r.allMatches(s, charOffset(s, int(min64(start-1, int64(len(s)+1)))), true, false)
	if err != nil || n > int64(len(ms)) || subexpr > int64(r.nsub) {
		return 0, 0, false, err
	}
	m := ms[n-1]
	so, eo := m[2*subexpr], m[2*subexpr+1]
	if so < 0 || eo < 0 {
		return 0, 0, false, nil
	}
	return so, eo, true, nil
}

// RegexpInstr is regexp_instr(string, pattern [, start [, N [, endoption
// [, flags [, subexpr]]]]]): a character position, 0 for none.
func RegexpInstr(s, pattern string, start, n, endoption int64, flags string, subexpr int64) (int32, error) {
	if endoption != 0 && endoption != 1 && start > 0 && n > 0 {
		return 0, badParam("endoption", endoption)
	}
	so, eo, ok, err := nthMatch(s, pattern, start, n, flags, subexpr, "regexp_instr()")
	if err != nil || !ok {
		return 0, err
	}
	if endoption == 1 {
		return int32(utf8.RuneCountInString(s[:eo])) + 1, nil
	}
	return int32(utf8.RuneCountInString(s[:so])) + 1, nil
}

// RegexpSubstr is regexp_substr(string, pattern [, start [, N [, flags [,
// subexpr]]]]): ok=false for NULL.
func RegexpSubstr(s, pattern string, start, n int64, flags string, subexpr int64) (string, bool, error) {
	so, eo, ok, err := nthMatch(s, pattern, start, n, flags, subexpr, "regexp_substr()")
	if err != nil || !ok {
		return "", false, err
	}
	return s[so:eo], true, nil
}

// RegexpReplace is regexp_replace(source, pattern, replacement [, start
// [, N]] [, flags]); without N (hasN false) the flags decide: all
// matches with 'g', else the first; N = 0 replaces all.
func RegexpReplace(s, pattern, repl string, start, n int64, hasN bool, flags string) (string, error) {
	if start <= 0 {
		return "", badParam("start", start)
	}
	if hasN && n < 0 {
		return "", badParam("n", n)
	}
	f, err := parseReFlags(flags)
	if err != nil {
		return "", err
	}
	if !hasN {
		n = 1
		if f.glob {
			n = 0
		}
	}
	r, err := compileRegexp(pattern, f)
	if err != nil {
		return "", err
	}
	pos := charOffset(s, int(min64(start-1, int64(len(s)+1))))
	var b strings.Builder
	dataPos := 0
	count := int64(0)
	for pos <= len(s) {
		m := r.findAt(s, pos)
		if m == nil {
			break
		}
		count++
		if n > 0 && count != n {
			pos = m[1]
			if m[0] == m[1] {
				if pos >= len(s) {
					break
				}
				_, w := utf8.DecodeRuneInString(s[pos:])
				pos += w
			}
			continue
		}
		b.WriteString(s[dataPos:m[0]])
		appendReplacement(&b, repl, s, m)
		dataPos = m[1]
		if n > 0 {
			break
		}
		pos = m[1]
		if m[0] == m[1] {
			if pos >= len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
		}
	}
	b.WriteString(s[dataPos:])
	return b.String(), nil
}

// RegexpReplaceFlagsCheck is textregexreplace's check of a fourth argument
// given as text: flags that look like a number get a hint.
func RegexpReplaceFlagsCheck(flags string) error {
	if flags != "" && flags[0] >= '0' && flags[0] <= '9' {
		_, l := utf8.DecodeRuneInString(flags)
		return pgerr.New("22023", "invalid regular expression option: \"%s\"", flags[:l]).WithHint(
			"If you meant to use regexp_replace() with a start parameter, cast the fourth argument to integer explicitly.")
	}
	return nil
}

// appendReplacement is appendStringInfoRegexpSubstr: \1..\9 and \& are
// the groups and the match, \\ a backslash, any other backslash itself.
func appendReplacement(b *strings.Builder, repl, s string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(repl) {
			b.WriteByte('\\')
			break
		}
		d := repl[i+1]
		idx := -1
		switch {
		case d >= '1' && d <= '9':
			idx = int(d - '0')
		case d == '&':
			idx = 0
		case d == '\\':
			b.WriteByte('\\')
			i++
			continue
		default:
			b.WriteByte('\\')
			continue
		}
		i++
		if 2*idx+1 < len(m) && m[2*idx] >= 0 && m[2*idx+1] >= 0 {
			b.WriteString(s[m[2*idx]:m[2*idx+1]])
		}
	}
}

// SimilarEscape is similar_to_escape(pattern [, escape]) (regexp.c's
// similar_escape_internal): a SQL regular expression (SIMILAR TO) as an
// ARE; hasEsc false is the default escape, the backslash; an empty escape
// is none.
func SimilarEscape(pat, esc string, hasEsc bool) (string, error) {
	parts, err := similarParts(pat, esc, hasEsc)
	if err != nil {
		return "", err
	}
	switch len(parts) {
	case 1:
		return "^(?:" + parts[0] + ")$", nil
	case 2:
		return "^(?:" + parts[0] + "){1,1}?(" + parts[1] + ")$", nil
	}
	return "^(?:" + parts[0] + "){1,1}?(" + parts[1] + "){1,1}(?:" + parts[2] + ")$", nil
}

// similarParts is similar_escape_internal's translation of the parts of
// the pattern that its escape-double-quotes separate (one to three).
func similarParts(pat, esc string, hasEsc bool) ([]string, error) {
	e := `\`
	if hasEsc {
		e = esc
		if utf8.RuneCountInString(e) > 1 {
			return nil, pgerr.New("22025", "invalid escape string").WithHint("Escape string must be empty or one character.")
		}
	}
	var parts []string
	var r strings.Builder
	afterEscape := false
	nquotes, bracketDepth, charclassPos := 0, 0, 0
	for len(pat) > 0 {
		c, l := utf8.DecodeRuneInString(pat)
		ch := pat[:l]
		pat = pat[l:]
		switch {
		case afterEscape:
			if c == '"' && bracketDepth < 1 {
				if nquotes >= 2 {
					return nil, pgerr.New("2200C", "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				parts = append(parts, r.String())
				r.Reset()
				nquotes++
			} else {
				r.WriteString(`\` + ch)
				charclassPos = 3
			}
			afterEscape = false
		case e != "" && ch == e:
			afterEscape = true
		case bracketDepth > 0:
			if c == '\\' {
				r.WriteByte('\\')
			}
			r.WriteString(ch)
			switch {
			case c == ']' && charclassPos > 2:
				bracketDepth--
			case c == '[':
				bracketDepth++
				charclassPos = 3
			case c == '^':
				charclassPos++
			default:
				charclassPos = 3
			}
		case c == '[':
			r.WriteByte('[')
			bracketDepth, charclassPos = 1, 1
		case c == '%':
			r.WriteString(".*")
		case c == '_':
			r.WriteByte('.')
		case c == '(':
			r.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			r.WriteString(`\` + ch)
		default:
			r.WriteString(ch)
		}
	}
	return append(parts, r.String()), nil
}

// RegexpSubstring is substring(string from pattern) (textregexsubstr): the
// first parenthesized subexpression's match, or the whole match; ok=false
// for NULL.
func RegexpSubstring(s, pattern string) (string, bool, error) {
	r, err := compileRegexp(pattern, reFlags{})
	if err != nil {
		return "", false, err
	}
	m := r.findAt(s, 0)
	if m == nil {
		return "", false, nil
	}
	if r.nsub > 0 {
		m = m[2:]
	}
	if m[0] < 0 || m[1] < 0 {
		return "", false, nil
	}
	return s[m[0]:m[1]], true, nil
}

// maxSimilarLen bounds the exact search of SimilarSubstring (quadratic in
// the string's length).
const maxSimilarLen = 4096

// SimilarSubstring is substring(string similar pattern escape esc): the
// part between the escape-double-quotes of a pattern matching the whole
// string, with the SQL standard's choice (the part before it as short as
// possible, the part itself as long as possible) that PostgreSQL's
// "{1,1}?" / "{1,1}" markers give; ok=false for NULL.
func SimilarSubstring(s, pat, esc string, hasEsc bool) (string, bool, error) {
	parts, err := similarParts(pat, esc, hasEsc)
	if err != nil {
		return "", false, err
	}
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	whole, err := SimilarEscape(pat, esc, hasEsc)
	if err != nil {
		return "", false, err
	}
	full, err := compileRegexp(whole, reFlags{})
	if err != nil {
		return "", false, err
	}
	m := full.findAt(s, 0)
	if m == nil {
		return "", false, nil
	}
	if full.nsub == 0 {
		return s, true, nil // no separators: the whole string
	}
	if len(s) > maxSimilarLen {
		if m[2] < 0 {
			return "", false, nil
		}
		return s[m[2]:m[3]], true, nil
	}
	anch := func(p string) (*pgRegexp, error) { return compileRegexp("^(?:"+p+")$", reFlags{}) }
	a1, err := anch(parts[0])
	if err != nil {
		return "", false, err
	}
	a2, err := anch(parts[1])
	if err != nil {
		return "", false, err
	}
	a3, err := anch(parts[2])
	if err != nil {
		return "", false, err
	}
	rest, err := anch("(?:" + parts[1] + ")(?:" + parts[2] + ")")
	if err != nil {
		return "", false, err
	}
	for i := 0; i <= len(s); i++ {
		if i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
			continue
		}
		if !a1.re.MatchString(s[:i]) || !rest.re.MatchString(s[i:]) {
			continue
		}
		for j := len(s); j >= i; j-- {
			if j < len(s) && j > i && !utf8.RuneStart(s[j]) {
				continue
			}
			if a2.re.MatchString(s[i:j]) && a3.re.MatchString(s[j:]) {
				return s[i:j], true, nil
			}
		}
	}
	return s[m[2]:m[3]], true, nil
}
