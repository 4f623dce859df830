package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// CopyFormat is a COPY data format.
type CopyFormat int

// COPY formats.
const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

func (f CopyFormat) String() string {
	switch f {
	case CopyText:
		return "text"
	case CopyCSV:
		return "csv"
	case CopyBinary:
		return "binary"
	}
	return fmt.Sprintf("CopyFormat(%d)", int(f))
}

// Copy is a translated COPY ... FROM STDIN / TO STDOUT with PostgreSQL's
// option defaults filled in (text: tab and \N; csv: comma, empty string,
// double quote, escape = quote).
type Copy struct {
	Table   QualifiedName  // the table (Query == nil)
	Query   *pg_query.Node // COPY (query) TO STDOUT: a SelectStmt for TranslateQuery
	Columns []string       // explicit column list, or nil = all columns
	From    bool           // FROM STDIN (else TO STDOUT)
	Format  CopyFormat
	// Delimiter, Null, Quote and Escape are single bytes except Null.
	Delimiter, Null, Quote, Escape string
	Header                         bool
	ForceQuote                     []string
	ForceQuoteAll                  bool
	ForceNotNull                   []string
	ForceNull                      []string
}

// TranslateCopy translates COPY. Only STDIN/STDOUT are supported: a file or
// a program is refused with 42501 as PostgreSQL does for a role without
// pg_read_server_files / pg_write_server_files / pg_execute_server_program.
func TranslateCopy(stmt *pg_query.Node) (*Copy, error) {
	cs := stmt.GetCopyStmt()
	if cs == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateCopy on %T", stmt.GetNode())
	}
	c := &Copy{From: cs.IsFrom}
	if cs.IsProgram {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program").
			WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
	}
	if cs.Filename != "" {
		if cs.IsFrom {
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_read_server_files role to COPY from a file").
				WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
		}
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_write_server_files role to COPY to a file").
			WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
	}
	if cs.WhereClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM ... WHERE is not supported")
	}
	if cs.Query != nil {
		if cs.Query.GetSelectStmt() == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY (%s) TO is not supported", strings.TrimSuffix(otherTagOrKind(cs.Query), " "))
		}
		c.Query = cs.Query
	} else {
		c.Table = QualifiedName{Schema: cs.Relation.Schemaname, Name: cs.Relation.Relname}
	}
	for _, a := range cs.Attlist {
		c.Columns = append(c.Columns, a.GetString_().GetSval())
	}
	seen := map[string]bool{}
	var delim, null, quote, escape *string
	for _, o := range cs.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if seen[d.Defname] {
			return nil, pgerr.New(pgerr.SyntaxError, "conflicting or redundant options").WithPosition(int(d.Location) + 1)
		}
		seen[d.Defname] = true
		switch d.Defname {
		case "format":
			switch s := strings.ToLower(defString(d.Arg)); s {
			case "text":
				c.Format = CopyText
			case "csv":
				c.Format = CopyCSV
			case "binary":
				c.Format = CopyBinary
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", s).WithPosition(int(d.Location) + 1)
			}
		case "delimiter":
			s := defString(d.Arg)
			delim = &s
		case "null":
			s := defString(d.Arg)
			null = &s
		case "quote":
			s := defString(d.Arg)
			quote = &s
		case "escape":
			s := defString(d.Arg)
			escape = &s
		case "header":
			b, err := defBool(d)
			if err != nil {
				return nil, err
			}
			c.Header = b
		case "force_quote":
			if d.Arg.GetAStar() != nil {
				c.ForceQuoteAll = true
			} else {
				c.ForceQuote = defNames(d.Arg)
			}
		case "force_not_null":
			c.ForceNotNull = defNames(d.Arg)
		case "force_null":
			c.ForceNull = defNames(d.Arg)
		case "encoding":
			if e := strings.ToUpper(strings.ReplaceAll(defString(d.Arg), "-", "")); e != "UTF8" && e != "UNICODE" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY encoding %s is not supported (only UTF8)", defString(d.Arg))
			}
		case "freeze":
			// Accepted and ignored: every COPY is one atomic write.
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "option \"%s\" not recognized", d.Defname).WithPosition(int(d.Location) + 1)
		}
	}
	if c.Format == CopyBinary {
		for _, o := range []struct {
			set  bool
			name string
		}{{delim != nil, "DELIMITER"}, {null != nil, "NULL"}} {
			if o.set {
				return nil, pgerr.New(pgerr.SyntaxError, "cannot specify %s in BINARY mode", o.name)
			}
		}
		if c.Header {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot specify HEADER in BINARY mode")
		}
	}
	if c.Format != CopyCSV {
		switch {
		case quote != nil:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY quote available only in CSV mode")
		case escape != nil:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY escape available only in CSV mode")
		case c.ForceQuoteAll || c.ForceQuote != nil:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force quote available only in CSV mode")
		case c.ForceNotNull != nil:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force not null available only in CSV mode")
		case c.ForceNull != nil:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force null available only in CSV mode")
		}
	}
	if (c.ForceQuoteAll || c.ForceQuote != nil) && c.From {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force quote only available using COPY TO")
	}
	if (c.ForceNotNull != nil || c.ForceNull != nil) && !c.From {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force not null only available using COPY FROM")
	}
	// Defaults.
	switch c.Format {
	case CopyText:
		c.Delimiter, c.Null = "\t", `\N`
	case CopyCSV:
		c.Delimiter, c.Null, c.Quote = ",", "", `"`
	}
	if delim != nil {
		c.Delimiter = *delim
	}
	if null != nil {
		c.Null = *null
	}
	if quote != nil {
		c.Quote = *quote
	}
	if c.Format == CopyCSV {
		c.Escape = c.Quote
		if escape != nil {
			c.Escape = *escape
		}
	}
	if c.Format != CopyBinary {
		if len(c.Delimiter) != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		if c.Delimiter == "\r" || c.Delimiter == "\n" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
		}
		if strings.ContainsAny(c.Null, "\r\n") {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
		}
	}
	if c.Format == CopyCSV {
		if len(c.Quote) != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY quote must be a single one-byte character")
		}
		if len(c.Escape) != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY escape must be a single one-byte character")
		}
		if c.Delimiter == c.Quote {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter and quote must be different")
		}
	}
	return c, nil
}

func otherTagOrKind(n *pg_query.Node) string {
	_, tag := classify(n)
	return tag
}

func defString(n *pg_query.Node) string {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_String_:
		return v.String_.Sval
	case *pg_query.Node_Integer:
		return fmt.Sprint(v.Integer.Ival)
	case *pg_query.Node_Boolean:
		if v.Boolean.Boolval {
			return "true"
		}
		return "false"
	case *pg_query.Node_TypeName:
		return typeNameString(v.TypeName)
	}
	return ""
}

func defBool(d *pg_query.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	if b := d.Arg.GetBoolean(); b != nil {
		return b.Boolval, nil
	}
	if i := d.Arg.GetInteger(); i != nil {
		if i.Ival == 0 || i.Ival == 1 {
			return i.Ival == 1, nil
		}
	}
	switch strings.ToLower(defString(d.Arg)) {
	case "true", "on", "1", "yes":
		return true, nil
	case "false", "off", "0", "no":
		return false, nil
	case "match":
		return false, pgerr.New(pgerr.FeatureNotSupported, "HEADER MATCH is not supported")
	}
	return false, pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", d.Defname)
}

func defNames(n *pg_query.Node) []string {
	var out []string
	for _, it := range n.GetList().GetItems() {
		out = append(out, it.GetString_().GetSval())
	}
	if out == nil {
		out = []string{}
	}
	return out
}
