package sql

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// duckTypeToPG spells DuckDB's internal and SQL type names the way
// PostgreSQL's messages do.
// decimalTypeRE finds the target DECIMAL(p,s) in a DuckDB cast error.
var decimalTypeRE = regexp.MustCompile(`DECIMAL\((\d+),\s*(\d+)\)`)

var duckTypeToPG = map[string]string{
	"INT8": "smallint", "TINYINT": "smallint", "INT16": "smallint", "SMALLINT": "smallint",
	"INT32": "integer", "INTEGER": "integer", "INTEGER_LITERAL": "integer",
	"INT64": "bigint", "BIGINT": "bigint", "INT128": "numeric", "HUGEINT": "numeric",
	"UINT8": "smallint", "UINT16": "integer", "UINT32": "bigint", "UINT64": "numeric",
	"FLOAT": "real", "DOUBLE": "double precision", "DECIMAL": "numeric",
	"VARCHAR": "text", "STRING_LITERAL": "unknown", "BOOL": "boolean", "BOOLEAN": "boolean",
	"DATE": "date", "TIME": "time without time zone", "TIMESTAMP": "timestamp without time zone",
	"TIMESTAMP WITH TIME ZONE": "timestamp with time zone", "TIMESTAMPTZ": "timestamp with time zone",
	"INTERVAL": "interval", "UUID": "uuid", "BLOB": "bytea", "JSON": "json", "NULL": "unknown",
}

func pgTypeName(duck string) string {
	d := strings.ToUpper(strings.TrimSpace(duck))
	if strings.HasPrefix(d, "DECIMAL") {
		return "numeric"
	}
	if strings.HasSuffix(d, "[]") {
		return pgTypeName(strings.TrimSuffix(d, "[]")) + "[]"
	}
	if s, ok := duckTypeToPG[d]; ok {
		return s
	}
	return strings.ToLower(d)
}

// inputTypeName is the type name in PostgreSQL's "invalid input syntax for
// type X" messages (which say "timestamp", not "timestamp without time zone").
func inputTypeName(duck string) string {
	switch t := pgTypeName(duck); t {
	case "timestamp without time zone":
		return "timestamp"
	case "time without time zone":
		return "time"
	case "numeric":
		if strings.ToUpper(duck) == "INT128" {
			return "uuid" // DuckDB parses UUIDs as INT128; no PostgreSQL cast targets hugeint
		}
		return t
	default:
		return t
	}
}

// overflowMessage is PostgreSQL's "<type> out of range" spelling.
func overflowMessage(duck string) string {
	switch pgTypeName(duck) {
	case "smallint":
		return "smallint out of range"
	case "integer":
		return "integer out of range"
	case "bigint":
		return "bigint out of range"
	case "numeric":
		return "numeric field overflow"
	case "double precision", "real":
		return "value out of range: overflow"
	}
	return "value out of range"
}

type errRule struct {
	re  *regexp.Regexp
	fn  func(m []string, query string) *pgerr.Error
	pos bool // find m[1] in the query text for Position
}

var errRules = []errRule{
	{re: regexp.MustCompile(`^Invalid Input Error: (value too long for type .*)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.StringDataRightTruncation, "%s", firstLine(m[1]))
	}},
	{re: regexp.MustCompile(`^Invalid Input Error: (null value in column .* violates not-null constraint)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NotNullViolation, "%s", firstLine(m[1]))
	}},
	{re: regexp.MustCompile(`^Invalid Input Error: value out of range: overflow`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}},
	{re: regexp.MustCompile(`^Invalid Input Error: (smallint|integer|bigint) out of range`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", m[1])
	}},
	{re: regexp.MustCompile(`^Invalid Input Error: division by zero`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.DivisionByZero, "division by zero")
	}},
	// generate_series with a zero step: DuckDB's (integers, timestamps)
	// and the numeric table macro's error().
	{re: regexp.MustCompile(`^(?:Binder|Invalid Input) Error: (?:interval cannot be 0!|step size cannot equal zero)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}},
	// unnest where DuckDB cannot evaluate it (a set-returning function
	// in a clause the translator did not catch: srf.go).
	{re: regexp.MustCompile(`^Binder Error: UNNEST not supported here`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not supported here")
	}},
	// error() of the pgcatalog macros: 'x'::regclass and the other reg* casts.
	{re: regexp.MustCompile(`^Invalid Input Error: ((relation|type|schema|role) ".*" does not exist)$`), fn: func(m []string, _ string) *pgerr.Error {
		code := map[string]string{"relation": pgerr.UndefinedTable, "type": pgerr.UndefinedObject,
			"schema": pgerr.InvalidSchemaName, "role": pgerr.UndefinedObject}[m[2]]
		return pgerr.New(code, "%s", m[1])
	}},
	// width_bucket's errors (setup.go's macro).
	{re: regexp.MustCompile(`^Invalid Input Error: (count must be greater than zero|lower bound cannot equal upper bound)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New("2201G", "%s", m[1])
	}},
	// A data file with text that is not UTF-8, written before the inputs
	// refused it: say which file, and the statement that repairs it.
	{re: regexp.MustCompile(`Invalid string encoding found in Parquet file "([^"]*)"`), fn: func(m []string, _ string) *pgerr.Error {
		e := pgerr.New(pgerr.DataCorrupted, "invalid byte sequence for encoding \"UTF8\" in data file \"%s\"", m[1])
		e.Hint = "An older version stored text that is not valid UTF-8. VACUUM FULL of the table rewrites its files with U+FFFD in place of the invalid bytes."
		return e
	}},
	// A Go function of ours failed with a PostgreSQL error (planner's
	// withSQLState).
	{re: regexp.MustCompile("SQLSTATE ([0-9A-Z]{5}): ([^\x1f]*)(?:\x1f([^\x1f]*)\x1f([^\x1f]*))?"), fn: func(m []string, _ string) *pgerr.Error {
		e := pgerr.New(m[1], "%s", m[2])
		e.Detail, e.Hint = m[3], m[4]
		return e
	}},
	{re: regexp.MustCompile(`^Invalid Input Error: (function ".*" does not exist)$`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedFunction, "%s", m[1])
	}},
	{re: regexp.MustCompile(`^Invalid Input Error: (more than one function named ".*")$`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.AmbiguousFunction, "%s", m[1])
	}},
	{re: regexp.MustCompile(`Overflow in (?:addition|subtraction|multiplication|negation|division)[^(]* of (\w+)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NumericValueOutOfRange, "%s", overflowMessage(m[1]))
	}},
	{re: regexp.MustCompile(`Could not convert string ['"](.*)['"] to (\w+(?: WITH TIME ZONE)?)`), fn: func(m []string, _ string) *pgerr.Error {
		t := inputTypeName(m[2])
		code := pgerr.InvalidTextRepresentation
		if t == "date" || t == "interval" || strings.HasPrefix(t, "time") {
			code = pgerr.InvalidDatetimeFormat
		}
		return pgerr.New(code, "invalid input syntax for type %s: \"%s\"", t, m[1])
	}},
	// DuckDB does not say whether the target was TIMESTAMP or TIMESTAMPTZ:
	// both are reported as "timestamp" (a known gap).
	{re: regexp.MustCompile(`(?:invalid )?(date|timestamp|time) field (?:format|value out of range): "(.*)", expected`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", m[1], m[2])
	}},
	{re: regexp.MustCompile(`(?:Type \w+ with value \S+ can't be cast because the value is out of range for the destination type|value is out of range for the destination type) (\w+)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NumericValueOutOfRange, "%s", overflowMessage(m[1]))
	}},
	{re: regexp.MustCompile(`Casting value "?[^"]*"? to type (DECIMAL\(\d+,\s*\d+\)) failed: value is out of range|Could not cast value \S+ to (DECIMAL)|out of range for.*DECIMAL`), fn: func(m []string, _ string) *pgerr.Error {
		e := pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow")
		if d := decimalTypeRE.FindStringSubmatch(m[0]); d != nil {
			p, _ := strconv.Atoi(d[1])
			s, _ := strconv.Atoi(d[2])
			if p-s > 0 {
				e = e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", p, s, p-s)
			} else {
				e = e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 1.", p, s)
			}
		}
		return e
	}},
	{re: regexp.MustCompile(`Referenced column "([^"]+)" not found`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", m[1])
	}},
	{re: regexp.MustCompile(`Referenced table "([^"]+)" not found`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", m[1])
	}},
	{re: regexp.MustCompile(`Values list "([^"]+)" does not have a column named "([^"]+)"`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", m[1], m[2])
	}},
	{re: regexp.MustCompile(`Ambiguous reference to column name "([^"]+)"`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", m[1])
	}},
	{re: regexp.MustCompile(`column "([^"]+)" must appear in the GROUP BY clause`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.GroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", m[1])
	}},
	{re: regexp.MustCompile(`(?:Scalar|Aggregate|Table) Function with name "?(\w+)"? does not exist`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", m[1]).WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}},
	{re: regexp.MustCompile(`No function matches the given name and argument types '(\w+)\(([^)]*)\)'`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		var args []string
		for _, a := range strings.Split(m[2], ",") {
			if a = strings.TrimSpace(a); a != "" {
				args = append(args, pgTypeName(a))
			}
		}
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", m[1], strings.Join(args, ", ")).WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}},
	{re: regexp.MustCompile(`Cannot compare values of type (\S+) and (?:type )?(\S+)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s = %s", pgTypeName(m[1]), pgTypeName(m[2]))
	}},
	{re: regexp.MustCompile(`Cannot mix values of type (\S+) and (\S+)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.DatatypeMismatch, "types %s and %s cannot be matched", pgTypeName(m[1]), pgTypeName(m[2]))
	}},
	{re: regexp.MustCompile(`Table with name "?([\w.]+)"? does not exist`), pos: true, fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", m[1])
	}},
	{re: regexp.MustCompile(`NOT NULL constraint failed: (?:\w+\.)?(\w+)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NotNullViolation, "null value in column \"%s\" violates not-null constraint", m[1])
	}},
	{re: regexp.MustCompile(`^INTERRUPT Error|Interrupted!`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}},
	{re: regexp.MustCompile(`^Out of Memory Error`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.OutOfMemory, "out of memory")
	}},
	{re: regexp.MustCompile(`More than one row returned by a subquery`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
	}},
	// DuckDB's own bound on expression nesting (max_expression_depth).
	{re: regexp.MustCompile(`Max expression depth limit of \d+ exceeded`), fn: func(m []string, _ string) *pgerr.Error {
		return StackDepthError()
	}},
	// A call guard.go refused, on a path that did not report it itself.
	// (DuckDB reads two name parts as schema.function and says "Scalar
	// Function with name f does not exist", matched below; three as
	// catalog.schema.function.)
	{re: regexp.MustCompile(`Catalog "` + undefinedFunctionCatalog + `" does not exist`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedFunction, "function does not exist").WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}},
	// nextval/currval of a name that is no sequence (DuckDB's namesakes;
	// there are no sequences yet): PostgreSQL looks the relation up.
	{re: regexp.MustCompile(`Sequence with name "?([\w.]+)"? does not exist`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", m[1])
	}},
	{re: regexp.MustCompile(`Invalid escape string\. Escape string must be empty or one character`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").WithHint("Escape string must be empty or one character.")
	}},
	// A cast to one of PostgreSQL's types that the engine does not have
	// (pg_lsn, money, ...).
	{re: regexp.MustCompile(`Type with name "?(\w+)"? does not exist`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", m[1])
	}},
	// The driver cannot read a struct with unnamed fields: a row value
	// (anonymous record) that reached the select list through a subquery,
	// VALUES or a set operation (names.go refuses the direct form).
	{re: regexp.MustCompile(`database/sql/driver: API error: empty name`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.FeatureNotSupported, "row values in the select list are not supported")
	}},
	// Errors of DuckDB's functions and windows, in PostgreSQL's words.
	{re: regexp.MustCompile(`ATANH is undefined outside \[-1,1\]`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range")
	}},
	{re: regexp.MustCompile(`divison by zero in based logarithm`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.DivisionByZero, "division by zero")
	}},
	// abs of the most negative value: its width names the type.
	{re: regexp.MustCompile(`Overflow on abs\((-\d+)\)`), fn: func(m []string, _ string) *pgerr.Error {
		t := "bigint"
		switch m[1] {
		case "-32768":
			t = "smallint"
		case "-2147483648":
			t = "integer"
		}
		return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", t)
	}},
	{re: regexp.MustCompile(`RANGE frames must have only one ORDER BY expression`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}},
	{re: regexp.MustCompile(`Invalid (?:RANGE|ROWS|GROUPS) (?:PRECEDING|FOLLOWING) value`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New("22013", "invalid preceding or following size in window function")
	}},
	{re: regexp.MustCompile(`^Parser Error: (.*)`), fn: func(m []string, _ string) *pgerr.Error {
		return pgerr.New(pgerr.SyntaxError, "%s", m[1])
	}},
}

// duckPrefix matches DuckDB's error class prefix ("Binder Error: ").
var duckPrefix = regexp.MustCompile(`^[A-Z][A-Za-z ]* Error: `)

// MapError converts a DuckDB error into a *pgerr.Error with PostgreSQL's
// SQLSTATE and message where we know them, else XX000 with DuckDB's text
// stripped of its class prefix and LINE/caret lines. query is the
// statement's PostgreSQL text (Statement.Text, for Position: 1 + byte
// offset, converted by Statement.Locate), or "". An error that already is a
// *pgerr.Error is returned unchanged; nil stays nil.
func MapError(err error, query string) error {
	if err == nil {
		return nil
	}
	if _, ok := pgerr.As(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return pgerr.Wrap(err, pgerr.QueryCanceled, "canceling statement due to user request")
	}
	msg := err.Error()
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i] // DuckDB appends LINE/caret lines
	}
	for _, r := range errRules {
		m := r.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		e := r.fn(m, query)
		e.Err = err
		if r.pos && len(m) > 1 && query != "" {
			if p := identPosition(query, m[1]); p > 0 {
				e.Position = p
			}
		}
		return e
	}
	first := msg
	if i := strings.Index(first, "\n"); i >= 0 {
		first = first[:i]
	}
	first = strings.TrimSpace(duckPrefix.ReplaceAllString(first, ""))
	return pgerr.Wrap(err, pgerr.InternalError, "%s", first)
}

// identPosition finds name as a whole word in query (case-insensitively,
// outside quotes) and returns 1 + its byte offset, or 0 (see
// Statement.QueryPosition).
func identPosition(query, name string) int {
	lq := strings.ToLower(query)
	ln := strings.ToLower(name)
	if i := strings.LastIndex(ln, "."); i >= 0 {
		ln = ln[i+1:]
	}
	if ln == "" {
		return 0
	}
	inStr := false
	for i := 0; i+len(ln) <= len(lq); i++ {
		if lq[i] == '\'' {
			inStr = !inStr
			continue
		}
		if inStr || !strings.HasPrefix(lq[i:], ln) {
			continue
		}
		before := i == 0 || !isIdentByte(lq[i-1])
		after := i+len(ln) == len(lq) || !isIdentByte(lq[i+len(ln)])
		if before && after {
			return i + 1
		}
	}
	return 0
}

func isIdentByte(b byte) bool {
	return b == '_' || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b >= 0x80
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
