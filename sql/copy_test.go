package sql

import (
	"reflect"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func TestCopy(t *testing.T) {
	cases := []struct {
		q    string
		want Copy
	}{
		{"COPY t FROM STDIN", Copy{Table: QualifiedName{"", "t"}, From: true, Format: CopyText, Delimiter: "\t", Null: `\N`}},
		{"COPY s.t (a, b) TO STDOUT WITH (FORMAT csv, HEADER)", Copy{Table: QualifiedName{"s", "t"}, Columns: []string{"a", "b"}, Format: CopyCSV, Delimiter: ",", Quote: `"`, Escape: `"`, Header: true}},
		{"COPY t FROM STDIN WITH (FORMAT csv, DELIMITER ';', NULL 'NA', QUOTE '''', ESCAPE '\\', FORCE_NOT_NULL (a))", Copy{Table: QualifiedName{"", "t"}, From: true, Format: CopyCSV, Delimiter: ";", Null: "NA", Quote: "'", Escape: `\`, ForceNotNull: []string{"a"}}},
		{"COPY t TO STDOUT (FORMAT binary)", Copy{Table: QualifiedName{"", "t"}, Format: CopyBinary}},
		{"COPY t TO STDOUT CSV FORCE QUOTE *", Copy{Table: QualifiedName{"", "t"}, Format: CopyCSV, Delimiter: ",", Quote: `"`, Escape: `"`, ForceQuoteAll: true}},
		{"COPY t FROM STDIN WITH DELIMITER '|' NULL ''", Copy{Table: QualifiedName{"", "t"}, From: true, Format: CopyText, Delimiter: "|", Null: ""}},
		{"COPY t TO STDOUT (HEADER false)", Copy{Table: QualifiedName{"", "t"}, Format: CopyText, Delimiter: "\t", Null: `\N`}},
	}
	for _, c := range cases {
		got, err := TranslateCopy(mustParse1(t, c.q).Tree)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.q, *got, c.want)
		}
	}
	got, err := TranslateCopy(mustParse1(t, "COPY (SELECT 1) TO STDOUT").Tree)
	if err != nil || got.Query.GetSelectStmt() == nil {
		t.Errorf("copy query: %+v %v", got, err)
	}
}

func TestCopyErrors(t *testing.T) {
	cases := []struct{ q, code, msg string }{
		{"COPY t FROM '/etc/passwd'", pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_read_server_files role to COPY from a file"},
		{"COPY t TO '/tmp/x'", pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_write_server_files role to COPY to a file"},
		{"COPY t FROM PROGRAM 'ls'", pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program"},
		{"COPY t FROM STDIN (FORMAT xml)", pgerr.InvalidParameterValue, `COPY format "xml" not recognized`},
		{"COPY t FROM STDIN (DELIMITER '||')", pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character"},
		{"COPY t FROM STDIN (QUOTE '\"')", pgerr.FeatureNotSupported, "COPY quote available only in CSV mode"},
		{"COPY t FROM STDIN (FORMAT binary, NULL 'x')", pgerr.SyntaxError, "cannot specify NULL in BINARY mode"},
		{"COPY t FROM STDIN (FORMAT csv, FORMAT text)", pgerr.SyntaxError, "conflicting or redundant options"},
		{"COPY t FROM STDIN (FORMAT csv, DELIMITER '\"')", pgerr.InvalidParameterValue, "COPY delimiter and quote must be different"},
		{"COPY t FROM STDIN (FORMAT csv, FORCE_QUOTE (a))", pgerr.FeatureNotSupported, "COPY force quote only available using COPY TO"},
		{"COPY t FROM STDIN (bogus 1)", pgerr.SyntaxError, `option "bogus" not recognized`},
		{"COPY (INSERT INTO t VALUES (1)) TO STDOUT", pgerr.FeatureNotSupported, "COPY (INSERT) TO is not supported"},
	}
	for _, c := range cases {
		_, err := TranslateCopy(mustParse1(t, c.q).Tree)
		e, ok := pgerr.As(err)
		if !ok || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.q, err, c.code, c.msg)
		}
	}
}
