package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/pgtypes"
)

// queryOutcome is what a client sees of a query: the column types, the
// rows as text, or the error's SQLSTATE and message.
func queryOutcome(c *pgconn.PgConn, q string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rr := c.ExecParams(ctx, q, nil, nil, nil, nil)
	var b strings.Builder
	for _, fd := range rr.FieldDescriptions() {
		b.WriteString(pgtypes.FormatType(fd.DataTypeOID, -1) + ";")
	}
	b.WriteString("\n")
	for rr.NextRow() {
		for _, v := range rr.Values() {
			if v == nil {
				b.WriteString("<NULL>|")
			} else {
				fmt.Fprintf(&b, "%q|", v)
			}
		}
		b.WriteString("\n")
	}
	if _, err := rr.Close(); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return "ERROR " + pe.Code + ": " + pe.Message
		}
		return "ERROR " + err.Error()
	}
	return b.String()
}

// toCharValues are the values to_char formats, per argument type.
var toCharValues = map[string][]string{
	"numeric": {"0", "1", "-1", "7", "-34338492", "4.31", "-4.31", "0.5", "-0.5", "0.0001", "1234567.5678",
		"-7799461.4119", "16397.038491", "93901.57763026", "0.01", "9.99", "99.995", "125", "-0.000123",
		"NaN"},
	"integer":          {"0", "1", "-1", "7", "-34338492", "125", "2147483647", "-2147483648", "3999", "4000", "11", "12", "13", "22"},
	"bigint":           {"0", "1", "-1", "125", "4567890123456789", "-4567890123456789", "3999", "21", "112"},
	"real":             {"0", "1", "-1", "4.31", "-0.5", "0.0001", "1234567", "125", "1e20", "-1e-5", "NaN", "Infinity", "99.995"},
	"double precision": {"0", "1", "-1", "4.31", "-0.5", "0.0001", "12345678901234.5678", "125", "1e20", "-1e-5", "NaN", "-Infinity", "99.995"},
}

// toCharFormats are number pictures (formatting.c's NUM_* patterns).
var toCharFormats = []string{
	"9G999G999G999G999G999", "9G999G999G999G999G999D999G999G999G999G999", "9999999999999999.999999999999999PR",
	"9999999999999999.999999999999999S", "MI9999999999999999.999999999999999", "FMS9999999999999999.999999999999999",
	"FM9999999999999999.999999999999999THPR", "SG9999999999999999.999999999999999th", "0999999999999999.999999999999999",
	"S0999999999999999.999999999999999", "FM0999999999999999.999999999999999", "FM9999999999999999.099999999999999",
	"FM9999999999990999.990999999999999", "FM0999999999999999.999909999999999", "FM9999999990999999.099999999999999",
	"L9999999999999999.099999999999999", "S 9 9 9 9 9 9 9 9 9 . 9 9 9 9", "FMS 9 9 9 9 9 9 9 9 9 . 9 9 9 9",
	`99999 "text" 9999 "9999" 999 "\"text between quote marks\"" 9999`, "999999SG9999999999", "9.999EEEE", "99.99EEEE",
	"MI9999999999.99", "MI99.99", "FM999.9", "FM999.", "FM999", "foo999", `f\oo999`, `f"ool"999`, "9.99", "999",
	"RN", "FMRN", "rn", "9th", "FM99TH", "PL999", "SG99", "999MI", "9999PR", "FM9999PR", "B999", "9V99", "99V9",
	"0000", "FM0000.00", "9,999.99", "FM9D99", ".99", "9.", "S999.99", "999S", "FM9999.9999S", "", "abc",
}

// toCharErrorFormats are pictures PostgreSQL refuses.
var toCharErrorFormats = []string{"99.9.9", "9V9.9", "S9S", "S9MI", "MI9S", "9PR9", "0PR0", "9.9EEEEEEEE", "FM9EEEE", "9EEEE9", "9SPL", "9PRS"}

// toNumberCases are to_number's inputs and pictures.
var toNumberCases = [][2]string{
	{"-34,338,492", "99G999G999"}, {"-34,338,492.654,878", "99G999G999D999G999"}, {"<564646.654564>", "999999.999999PR"},
	{"0.00001-", "9.999999S"}, {"5.01-", "FM9.999999S"}, {"5.01-", "FM9.999999MI"}, {"5 4 4 4 4 8 . 7 8", "9 9 9 9 9 9 . 9 9"},
	{".01", "FM9.99"}, {".0", "99999999.99999999"}, {"0", "99.99"}, {".-01", "S99.99"}, {".01-", "99.99S"},
	{" . 0 1-", " 9 9 . 9 9 S"}, {"34,50", "999,99"}, {"123,000", "999G"}, {"123456", "999G999"}, {"$1234.56", "L9,999.99"},
	{"$1234.56", "L99,999.99"}, {"$1,234.56", "L99,999.99"}, {"1234.56", "L99,999.99"}, {"1,234.56", "L99,999.99"},
	{"42nd", "99th"}, {"12345", "999V99"}, {"", "999"}, {"123", ""}, {"1e5", "9EEEE"}, {"12", "RN"}, {"123456", "99"},
	{"-12", "S99"}, {"+12", "99"}, {"12-", "99MI"}, {"12+", "99PL"}, {"1.5", "9.9.9"}, {"abc", "999"}, {"1,2,3", "9,9,9"},
}

// TestToCharNumbersMatchPostgres: to_char of numeric, integer, bigint,
// real and double precision over the pictures of PostgreSQL's own tests,
// and to_number, give PostgreSQL's text, types and errors.
func TestToCharNumbersMatchPostgres(t *testing.T) {
	ours, ref := typeMatrix(t)
	var queries []string
	for _, typ := range []string{"numeric", "integer", "bigint", "real", "double precision"} {
		var vals []string
		for _, v := range toCharValues[typ] {
			vals = append(vals, fmt.Sprintf("('%s'::%s)", v, typ))
		}
		for _, f := range append(append([]string{}, toCharFormats...), toCharErrorFormats...) {
			queries = append(queries, fmt.Sprintf("SELECT to_char(v, %s) FROM (VALUES %s) t(v)", quoteLit(f), strings.Join(vals, ", ")))
		}
	}
	queries = append(queries, "SELECT to_char(2147483647::int2 + 0, '9')", "SELECT to_char(5::smallint, 'FM9th')",
		"SELECT to_char(3000000000::bigint, 'RN')", "SELECT to_char(9223372036854775807, '9V99')",
		"SELECT to_char(2147483647, '9V9')", "SELECT to_char('NaN'::numeric, 'RN')", "SELECT to_char('Infinity'::numeric, '9.9EEEE')",
		"SELECT to_char(1e14::float8, '999999999999999.999')", "SELECT to_char(NULL::numeric, '9')", "SELECT to_char(1.5, NULL)",
		"SELECT to_char(x, '999.99') FROM generate_series(1, 3) x", "SELECT to_char(1.2345::numeric(10,4), '9.99') || 'x'", "SELECT to_char(123456789012345678::numeric, '9G999G999G999G999G999D99')",
		"SELECT to_char(12345678901234.5678::numeric, 'FM9999999999999999.999999999999999')")
	for _, c := range toNumberCases {
		queries = append(queries, fmt.Sprintf("SELECT to_number(%s, %s)", quoteLit(c[0]), quoteLit(c[1])))
	}
	queries = append(queries, "SELECT pg_typeof(to_number('12', '99')), to_number('1.5', '9.9') * 2, to_number(NULL, '9')",
		"SELECT to_number(v, '999.99') FROM (VALUES ('1.5'), ('-2.25'), (NULL)) t(v) ORDER BY 1")
	for _, q := range queries {
		want, got := queryOutcome(ref, q), queryOutcome(ours, q)
		if want != got {
			t.Errorf("%s\n%s", q, lineDiff(got, want))
		}
	}
}

func quoteLit(s string) string {
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// lineDiff shows the lines of got and want that differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return " got " + got + "\nwant " + want
	}
	var b strings.Builder
	for i := range g {
		if g[i] != w[i] {
			fmt.Fprintf(&b, " got %s\nwant %s\n", g[i], w[i])
		}
	}
	return b.String()
}

// regexpCases are calls of the regular expression functions: PostgreSQL's
// own tests (strings.sql) and more, with their errors.
var regexpCases = []string{
	`regexp_replace('1112223333', E'(\\d{3})(\\d{3})(\\d{4})', E'(\\1) \\2-\\3')`,
	`regexp_replace('AAA   BBB   CCC   ', E'\\s+', ' ', 'g')`,
	`regexp_replace('AAA', '^|$', 'Z', 'g')`,
	`regexp_replace('AAA aaa', 'A+', 'Z', 'gi')`,
	`regexp_replace('AAA aaa', 'A+', 'Z', 'z')`,
	`regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 1)`,
	`regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 1, 2)`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 0, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 1, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 2, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 3, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 9, 'i')`,
	`regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 7, 0, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 1, 'g')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', -1, 0, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, -1, 'i')`,
	`regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', '1')`,
	`regexp_replace('abc', 'b', E'[\\&]')`, `regexp_replace('abc', '(b)', E'\\\\x\\9\\')`, `regexp_replace('héllo wörld', 'ö|é', '_', 'g')`,
	`regexp_replace('abc', '', '-', 'g')`, `regexp_replace('abc', 'x*', '-', 'g')`, `regexp_replace('hello', 'l', 'L', 4)`,
	`regexp_count('123123123123123', '(12)3')`, `regexp_count('123123123123', '123', 1)`, `regexp_count('123123123123', '123', 3)`,
	`regexp_count('123123123123', '123', 33)`, `regexp_count('ABCABCABCABC', 'Abc', 1, '')`, `regexp_count('ABCABCABCABC', 'Abc', 1, 'i')`,
	`regexp_count('123123123123', '123', 0)`, `regexp_count('123123123123', '123', -3)`, `regexp_count('abc', 'b*')`,
	`regexp_like('Steven', '^Ste(v|ph)en$')`, `regexp_like('a'||CHR(10)||'d', 'a.d', 'n')`, `regexp_like('a'||CHR(10)||'d', 'a.d', 's')`,
	`regexp_like('abc', ' a . c ', 'x')`, `regexp_like('abc', 'a.c', 'g')`, `regexp_like('ABC', 'abc')`, `regexp_like('ABC', 'abc', 'i')`,
	`regexp_instr('abcdefghi', 'd.f')`, `regexp_instr('abcdefghi', 'd.q')`, `regexp_instr('abcabcabc', 'a.c')`, `regexp_instr('abcabcabc', 'a.c', 2)`,
	`regexp_instr('abcabcabc', 'a.c', 1, 3)`, `regexp_instr('abcabcabc', 'a.c', 1, 4)`, `regexp_instr('abcabcabc', 'A.C', 1, 2, 0, 'i')`,
	`regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 0)`, `regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 2)`,
	`regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 4)`, `regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 5)`,
	`regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 1, 'i', 0)`, `regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 1, 'i', 3)`,
	`regexp_instr('foo', 'foo(bar)?', 1, 1, 0, '', 1)`, `regexp_instr('abcabcabc', 'a.c', 0, 1)`, `regexp_instr('abcabcabc', 'a.c', 1, 0)`,
	`regexp_instr('abcabcabc', 'a.c', 1, 1, -1)`, `regexp_instr('abcabcabc', 'a.c', 1, 1, 2)`, `regexp_instr('abcabcabc', 'a.c', 1, 1, 0, 'g')`,
	`regexp_instr('abcabcabc', 'a.c', 1, 1, 0, '', -1)`, `regexp_instr('ääbcä', 'bc')`, `regexp_instr('ääbcä', 'bc', 1, 1, 1)`,
	`regexp_substr('abcdefghi', 'd.f')`, `regexp_substr('abcdefghi', 'd.q') IS NULL`, `regexp_substr('abcabcabc', 'a.c', 2)`,
	`regexp_substr('abcabcabc', 'a.c', 1, 3)`, `regexp_substr('abcabcabc', 'A.C', 1, 2, 'i')`, `regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 3)`,
	`regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 5) IS NULL`, `regexp_substr('foo', 'foo(bar)?', 1, 1, '', 1) IS NULL`,
	`regexp_substr('abcabcabc', 'a.c', 0, 1)`, `regexp_substr('abcabcabc', 'a.c', 1, 0)`, `regexp_substr('abcabcabc', 'a.c', 1, 1, 'g')`,
	`regexp_substr('abcabcabc', 'a.c', 1, 1, '', -1)`, `regexp_substr('abcd', 'a|ab|abc')`, `regexp_substr('xabcabc', '(abc)+')`,
	`regexp_match('foobarbequebaz', 'bar.*que')`, `regexp_match('foobarbequebaz', 'bar.*zzz')`, `regexp_match('foobarbequebaz', '(bar)(beque)')`,
	`regexp_match('foobarbequebaz', '(bar)(.+)?(beque)')`, `regexp_match('foo', 'x', 'g')`, `regexp_match('abc', '(x)?b')`,
	`regexp_split_to_array('the quick brown fox jumps over the lazy dog', E'\\s+')`, `regexp_split_to_array('the quick brown fox', E'\\s*')`,
	`regexp_split_to_array('the quick brown fox', '')`, `regexp_split_to_array('thE QUick bROWn FOx', 'e', 'i')`,
	`regexp_split_to_array('the quick', 'nomatch')`, `regexp_split_to_array('123456','1')`, `regexp_split_to_array('123456','6')`,
	`regexp_split_to_array('123456','.')`, `regexp_split_to_array('123456','')`, `regexp_split_to_array('123456','(?:)')`,
	`regexp_split_to_array('1','')`, `regexp_split_to_array('thE QUick', 'e', 'iz')`, `regexp_split_to_array('thE QUick', 'e', 'g')`,
	`regexp_like('foobarbequebaz', '(barbeque')`, `regexp_like('foobarbequebaz', '(bar)(beque){2,1}')`, `regexp_like('a', 'a{256}')`,
	`regexp_like('a', '*a')`, `regexp_like('a', 'a**')`, `regexp_like('a', '[a')`, `regexp_like('a', '[[:foo:]]')`, `regexp_like('a', E'\\q')`,
	`regexp_like('a', '[b-a]')`, `regexp_like('a{', 'a{')`, `regexp_like('a{x}', 'a{x}')`, `regexp_like(E'a\nb', '^b', 'n')`, `regexp_like(E'a\nb', '^b')`,
	`regexp_like(E'a\nb', 'a[^x]b', 'n')`, `regexp_like('x.y', 'x.y', 'q')`, `regexp_like('xzy', 'x.y', 'q')`, `regexp_like('xzy', '***=x.y')`,
	`regexp_like('ABC', '(?i)abc')`, `regexp_like('a b', '(?x)a b')`, `regexp_like('foo bar', E'\\yfoo\\y')`, `regexp_like('AbC', '[[:upper:]]b[[.C.]]')`,
	`regexp_like(E'a\tb', E'a\\tb')`, `regexp_like('a5', E'a\\d')`, `regexp_like('a', E'\\u0061')`, `regexp_like('ab', E'[\\w]+')`,
}

// regexpRowCases are the set-returning functions, in the select list and
// in FROM.
var regexpRowCases = []string{
	`SELECT regexp_matches('foobarbequebaz', $re$(bar)(beque)$re$)`,
	`SELECT regexp_matches('foObARbEqUEbAz', $re$(bar)(beque)$re$, 'i')`,
	`SELECT regexp_matches('foobarbequebazilbarfbonk', $re$(b[^b]+)(b[^b]+)$re$, 'g')`,
	`SELECT regexp_matches('foobarbequebaz', $re$(bar)(.*)(beque)$re$)`,
	`SELECT regexp_matches('foobarbequebaz', $re$(bar)(.+)?(beque)$re$)`,
	`SELECT regexp_matches('foobarbequebaz', $re$barbeque$re$)`,
	`SELECT regexp_matches('foo' || chr(10) || 'bar' || chr(10) || 'bequq' || chr(10) || 'baz', '^', 'mg')`,
	`SELECT regexp_matches('foo' || chr(10) || 'bar' || chr(10) || 'bequq' || chr(10) || 'baz', '$', 'mg')`,
	`SELECT regexp_matches('1' || chr(10) || '2' || chr(10) || '3' || chr(10) || '4' || chr(10), '^.?', 'mg')`,
	`SELECT regexp_matches(chr(10) || '1' || chr(10) || '2' || chr(10) || '3' || chr(10) || '4' || chr(10), '.?$', 'mg')`,
	`SELECT regexp_matches(chr(10) || '1' || chr(10) || '2' || chr(10) || '3' || chr(10) || '4', '.?$', 'mg')`,
	`SELECT regexp_matches('foobarbequebaz', $re$(bar)(beque)$re$, 'gz')`,
	`SELECT regexp_matches('foobarbequebaz', $re$(barbeque$re$)`,
	`SELECT regexp_matches('abc', 'b*', 'g')`,
	`SELECT regexp_matches('abcabc', '(a)(x)?', 'g'), 1 AS one`,
	`SELECT foo, length(foo) FROM regexp_split_to_table('the quick brown fox jumps over the lazy dog', $re$\s+$re$) AS foo`,
	`SELECT foo, length(foo) FROM regexp_split_to_table('the quick brown fox', $re$\s*$re$) AS foo`,
	`SELECT foo, length(foo) FROM regexp_split_to_table('thE QUick bROWn FOx', 'e', 'i') AS foo`,
	`SELECT foo, length(foo) FROM regexp_split_to_table('thE QUick', 'e', 'zippy') AS foo`,
	`SELECT foo, length(foo) FROM regexp_split_to_table('thE QUick', 'e', 'g') AS foo`,
	`SELECT regexp_split_to_table('a,b,,c', ',')`,
	`SELECT x, regexp_split_to_table(x, ',') FROM (VALUES ('a,b'), ('c')) t(x) ORDER BY 1, 2`,
	`SELECT x FROM (VALUES ('abc'), ('xyz'), (NULL)) t(x) WHERE regexp_like(x, 'B', 'i')`,
	`SELECT regexp_replace(x, '[aeiou]', '*', 'g'), regexp_count(x, '[aeiou]'), regexp_substr(x, '[a-z]+', 1, 2) FROM (VALUES ('hello world'), (NULL)) t(x) ORDER BY 1`,
}

// TestRegexpFunctionsMatchPostgres: the regular expression functions give
// PostgreSQL's results, types and errors.
func TestRegexpFunctionsMatchPostgres(t *testing.T) {
	ours, ref := typeMatrix(t)
	queries := append([]string{}, regexpRowCases...)
	for _, c := range regexpCases {
		queries = append(queries, "SELECT "+c)
	}
	for _, q := range queries {
		want, got := queryOutcome(ref, q), queryOutcome(ours, q)
		if want != got {
			t.Errorf("%s\n%s", q, lineDiff(got, want))
		}
	}
}

// miscFuncCases are numeric's scale functions, div, unistr, the float
// send functions, bytea's byte functions, overlay and the comparison
// functions PostgreSQL's tests call by name.
var miscFuncCases = []string{
	"SELECT scale(numeric 'NaN'), scale(numeric 'inf'), scale(NULL::numeric), scale(1.12), scale(0), scale(0.00), scale(1.12345), scale(110123.12475871856128), scale(-13.000000000000000)",
	"SELECT min_scale(numeric 'NaN') IS NULL, min_scale(0), min_scale(0.00), min_scale(1.0), min_scale(1.1), min_scale(1.12), min_scale(1.123), min_scale(1.1234), min_scale(1.12345), min_scale(110123.12475871856128), min_scale(-1123.12471856128), min_scale(-13.000000000000000)",
	"SELECT trim_scale(numeric 'NaN'), trim_scale(numeric 'inf'), trim_scale(1.120), trim_scale(0), trim_scale(0.00), trim_scale(1.1234500), trim_scale(110123.12475871100000000), trim_scale(-1123.124718561280000000), trim_scale(-13.000000000000000000)",
	"SELECT pg_typeof(trim_scale(1.50)), trim_scale(1.50) + 1, pg_typeof(scale(1.5)), pg_typeof(div(5, 2))",
	"SELECT div(999999999999999999999::numeric, 1000000000000000000000), div(-9999999999999999999999::numeric, 1000000000000000000000), div(12345678901234567890, 123)",
	"SELECT div('inf'::numeric, '0')", "SELECT div('-inf'::numeric, '0')", "SELECT div('nan'::numeric, '0')", "SELECT div('0'::numeric, '0')",
	"SELECT div('inf'::numeric, 2), div('-inf'::numeric, 2), div('inf'::numeric, -2), div(2, 'inf'::numeric), div('inf'::numeric, 'inf'), div(7.5, -2), div(-7.5, 2.5)",
	"SELECT x, scale(x), min_scale(x), trim_scale(x), div(x, 3) FROM (VALUES (1.50), (-7.25), (10.00)) t(x) ORDER BY 1",
	`SELECT unistr('\0064at\+0000610')`, `SELECT unistr('d\u0061t\U000000610')`, `SELECT unistr('a\\b')`,
	`SELECT unistr('wrong: \db99')`, `SELECT unistr('wrong: \db99\0061')`, `SELECT unistr('wrong: \+00db99\+000061')`,
	`SELECT unistr('wrong: \+2FFFFF')`, `SELECT unistr('wrong: \udb99\u0061')`, `SELECT unistr('wrong: \U0000db99\U00000061')`,
	`SELECT unistr('wrong: \U002FFFFF')`, `SELECT unistr('wrong: \xyz')`, `SELECT unistr('\d83d\de00 ok')`,
	"SELECT float4send('5e-20'::float4), float4send('67e14'::float4), float4send('1.17549435e-38'::float4), float4send('-0'::float4), float4send('NaN'::float4)",
	"SELECT float8send('2.2250738585072014E-308'::float8), float8send(1.5::float8), float8send('-Infinity'::float8)",
	`SELECT get_byte('\x1234567890abcdef00'::bytea, 4), get_byte('\x1234'::bytea, 0)`,
	`SELECT get_byte('\x1234'::bytea, 2)`, `SELECT get_byte('\x1234'::bytea, -1)`, `SELECT set_byte('\x1234567890abcdef00'::bytea, 7, 11)`,
	`SELECT set_byte('\x1234'::bytea, 2, 11)`,
	"SELECT OVERLAY('abcdef' PLACING '45' FROM 4), OVERLAY('yabadoo' PLACING 'daba' FROM 5), OVERLAY('yabadoo' PLACING 'daba' FROM 5 FOR 0), OVERLAY('babosa' PLACING 'ubb' FROM 2 FOR 4)",
	"SELECT overlay('abcdef' placing 'xyz' from 2 for -1), overlay('héllo' placing 'X' from 2), overlay('abc' placing 'XY' from 10)",
	"SELECT overlay('abc' placing 'X' from 0)", "SELECT overlay('abc' placing 'X' from 2147483647 for 5)",
	`SELECT overlay('\x1234567890'::bytea placing '\x0203'::bytea from 2 for 3), overlay('\x1234'::bytea placing '\xff'::bytea from 2)`,
	"SELECT booleq(true, false), boolne(true, false), booleq(bool 'false', 'f'), int4eq(1, 1), int8lt(1, 2), texteq('a', 'a')",
	"SELECT pg_client_encoding(), pg_typeof(pg_client_encoding())",
	`SELECT substr('\x1234567890'::bytea, 3), substr('\x1234567890'::bytea, 3, 2), substring('\x1234567890'::bytea from 3 for 2), substr('\x1234567890'::bytea, -1, 3), substring('\x12'::bytea from 5)`,
	`SELECT substr('\x1234567890'::bytea, 3, -1)`,
	"SELECT 'abcdefg' SIMILAR TO '_bcd%' AS t, 'abcdefg' SIMILAR TO 'bcd%' AS f, 'abcdefg' SIMILAR TO '_bcd#%' ESCAPE '#' AS f2, 'abcd%' SIMILAR TO '_bcd#%' ESCAPE '#' AS t2",
	`SELECT 'abcdefg' SIMILAR TO '_bcd\%' AS f, 'abcd\efg' SIMILAR TO '_bcd\%' ESCAPE '' AS t, 'abcdefg' SIMILAR TO '_bcd%' ESCAPE NULL AS n, 'abc' NOT SIMILAR TO 'a(b|c)+' AS nt`,
	"SELECT 'abcdefg' SIMILAR TO '_bcd#%' ESCAPE '##'",
	"SELECT x FROM (VALUES ('foo'), ('bar'), ('f[o]'), (NULL)) t(x) WHERE x SIMILAR TO '[a-f]%' ORDER BY 1",
	"SELECT similar_to_escape('a%b_c'), similar_to_escape('a#%b', '#'), similar_to_escape('[%_]x', '')",
	"SELECT 'abc' ~ 'b' AS a, 'abc' ~* 'B' AS b, 'abc' !~ 'x' AS c, 'abc' !~* 'A' AS d, E'a\nb' ~ 'a.b' AS e, 'abcd' ~ '^(ab|abc)d$' AS f",
	"SELECT * FROM regexp_matches('abcabc', 'b', 'g')", "SELECT * FROM regexp_split_to_table('a b', ' ')",
	`SELECT SUBSTRING('abcdefg' SIMILAR 'a#"(b_d)#"%' ESCAPE '#') AS "bcd", SUBSTRING('abcdefg' FROM 'a#"(b_d)#"%' FOR '#') AS "bcd2"`,
	`SELECT SUBSTRING('abcdefg' SIMILAR '#"(b_d)#"%' ESCAPE '#') IS NULL, SUBSTRING('abcdefg' SIMILAR '%' ESCAPE NULL) IS NULL, SUBSTRING(NULL SIMILAR '%' ESCAPE '#') IS NULL, SUBSTRING('abcdefg' SIMILAR NULL ESCAPE '#') IS NULL`,
	`SELECT SUBSTRING('abcdefg' SIMILAR 'a#"%#"g' ESCAPE '#'), SUBSTRING('abcdefg' SIMILAR 'a*#"%#"g*' ESCAPE '#'), SUBSTRING('abcdefg' SIMILAR 'a|b#"%#"g' ESCAPE '#')`,
	`SELECT SUBSTRING('abcdefg' SIMILAR 'a#"%#"x|g' ESCAPE '#'), SUBSTRING('abcdefg' SIMILAR 'a#"%|ab#"g' ESCAPE '#'), SUBSTRING('abcdefg' SIMILAR 'a#"%g' ESCAPE '#'), SUBSTRING('abcdefg' SIMILAR 'a%g' ESCAPE '#')`,
	`SELECT SUBSTRING('abcdefg' SIMILAR 'a*#"%#"g*#"x' ESCAPE '#')`,
	`SELECT SUBSTRING('aaXbbXcc' SIMILAR '%#"X%#"%' ESCAPE '#'), SUBSTRING('aaXbbXcc' SIMILAR '%X#"%#"X%' ESCAPE '#')`,
	"SELECT lpad('hi', 5, 'xy'), lpad('hi', 5), lpad('hi', -5, 'xy'), lpad('hello', 2), lpad('hi', 5, ''), rpad('hi', 5, 'xy'), rpad('hi', 5), rpad('hi', -5, 'xy'), rpad('hello', 2), rpad('hi', 5, ''), lpad('héllo', 7, 'ö')",
	`SELECT trim(E'\\000'::bytea from E'\\000Tom\\000'::bytea), trim(leading E'\\000'::bytea from E'\\000Tom\\000'::bytea), trim(trailing E'\\000'::bytea from E'\\000Tom\\000'::bytea)`,
	`SELECT btrim(E'\\000trim\\000'::bytea, E'\\000'::bytea), btrim(''::bytea, E'\\000'::bytea), btrim(E'\\000trim\\000'::bytea, ''::bytea), ltrim('\x0102'::bytea, '\x01'::bytea), rtrim('\x0102'::bytea, '\x02'::bytea)`,
	`SELECT bit_count('\x1234567890'::bytea), get_bit('\x1234567890abcdef00'::bytea, 43), set_bit('\x1234567890abcdef00'::bytea, 43, 0)`,
	`SELECT get_bit('\x1234567890abcdef00'::bytea, 99)`, `SELECT set_bit('\x1234567890abcdef00'::bytea, 99, 0)`, `SELECT set_bit('\x12'::bytea, 1, 2)`,
	"SELECT sha224(''), sha224('The quick brown fox jumps over the lazy dog.'), sha384(''), sha512('abc'::bytea)",
	`SELECT SUBSTRING('abcdefg' FROM 'c.e'), SUBSTRING('abcdefg' FROM 'b(.*)f'), SUBSTRING('foo' FROM 'foo(bar)?') IS NULL, substring('abc' from 'x'), substring('abc', '(')`,
}

// TestMiscFunctionsMatchPostgres: the functions of miscFuncCases give
// PostgreSQL's results, types and errors.
func TestMiscFunctionsMatchPostgres(t *testing.T) {
	ours, ref := typeMatrix(t)
	for _, q := range miscFuncCases {
		want, got := queryOutcome(ref, q), queryOutcome(ours, q)
		if want != got {
			t.Errorf("%s\n%s", q, lineDiff(got, want))
		}
	}
}
