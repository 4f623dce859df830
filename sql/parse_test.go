package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func TestParseClassify(t *testing.T) {
	cases := []struct {
		q    string
		kind Kind
		tag  string
	}{
		{"SELECT 1", KindSelect, "SELECT"},
		{"VALUES (1)", KindSelect, "SELECT"},
		{"SELECT 1 UNION SELECT 2", KindSelect, "SELECT"},
		{"TABLE t", KindSelect, "SELECT"},
		{"INSERT INTO t VALUES (1)", KindInsert, "INSERT"},
		{"UPDATE t SET a = 1", KindUpdate, "UPDATE"},
		{"DELETE FROM t", KindDelete, "DELETE"},
		{"COPY t FROM STDIN", KindCopy, "COPY"},
		{"CREATE TABLE t (a int)", KindCreateTable, "CREATE TABLE"},
		{"DROP TABLE t", KindDropTable, "DROP TABLE"},
		{"TRUNCATE t", KindTruncate, "TRUNCATE TABLE"},
		{"CREATE SCHEMA s", KindCreateSchema, "CREATE SCHEMA"},
		{"DROP SCHEMA s", KindDropSchema, "DROP SCHEMA"},
		{"CREATE DATABASE d", KindCreateDatabase, "CREATE DATABASE"},
		{"DROP DATABASE d", KindDropDatabase, "DROP DATABASE"},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE", KindBegin, "BEGIN"},
		{"START TRANSACTION", KindBegin, "START TRANSACTION"},
		{"COMMIT", KindCommit, "COMMIT"},
		{"END", KindCommit, "COMMIT"},
		{"ROLLBACK", KindRollback, "ROLLBACK"},
		{"ABORT", KindRollback, "ROLLBACK"},
		{"SAVEPOINT a", KindSavepoint, "SAVEPOINT"},
		{"SET search_path = a, b", KindSet, "SET"},
		{"SET TIME ZONE 'UTC'", KindSet, "SET"},
		{"SHOW TimeZone", KindShow, "SHOW"},
		{"RESET ALL", KindReset, "RESET"},
		{"EXPLAIN SELECT 1", KindExplain, "EXPLAIN"},
		{"PREPARE p(int) AS SELECT $1", KindPrepare, "PREPARE"},
		{"EXECUTE p(1)", KindExecute, "EXECUTE"},
		{"DEALLOCATE ALL", KindDeallocate, "DEALLOCATE ALL"},
		{"DISCARD ALL", KindDiscard, "DISCARD ALL"},
		{"CREATE INDEX i ON t (a)", KindOther, "CREATE INDEX"},
		{"ALTER TABLE t ADD COLUMN b int", KindOther, "ALTER TABLE"},
		{"DROP VIEW v", KindOther, "DROP VIEW"},
		{"SELECT * INTO t2 FROM t", KindOther, "SELECT INTO"},
	}
	for _, c := range cases {
		st, err := Parse(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if len(st) != 1 || st[0].Kind != c.kind || st[0].Tag != c.tag {
			t.Errorf("%s: got %v %q, want %v %q", c.q, st[0].Kind, st[0].Tag, c.kind, c.tag)
		}
	}
	if got := KindCreateTable.String(); got != "CreateTable" {
		t.Errorf("String() = %q", got)
	}
	st, _ := Parse("CREATE INDEX i ON t (a)")
	if e := st[0].Unsupported(); e.Code != pgerr.FeatureNotSupported || e.Message != "CREATE INDEX is not supported" {
		t.Errorf("Unsupported() = %+v", e)
	}
}

func TestParseSplit(t *testing.T) {
	q := "SELECT 1; INSERT INTO t VALUES ('a;b');\n  SELECT 'é' ;"
	st, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SELECT 1", "INSERT INTO t VALUES ('a;b')", "SELECT 'é'"}
	if len(st) != len(want) {
		t.Fatalf("got %d statements", len(st))
	}
	for i, w := range want {
		if st[i].Text != w {
			t.Errorf("statement %d text %q, want %q", i, st[i].Text, w)
		}
	}
	for _, q := range []string{"", " ; ", "-- only a comment"} {
		st, err := Parse(q)
		if err != nil || len(st) != 1 || st[0].Kind != KindEmpty {
			t.Errorf("%q: %v %v", q, st, err)
		}
	}
}

func TestParseSyntaxError(t *testing.T) {
	cases := []struct {
		q, msg string
		pos    int
	}{
		{"SELECT FROM WHERE", `syntax error at or near "WHERE"`, 13},
		{"SELEC 1", `syntax error at or near "SELEC"`, 1},
		{"SELECT 'é', x FROM", `syntax error at end of input`, 19}, // characters, not bytes
		{"SELECT 'abc", `unterminated quoted string at or near "'abc"`, 8},
	}
	for _, c := range cases {
		_, err := Parse(c.q)
		e, ok := pgerr.As(err)
		if !ok {
			t.Errorf("%s: %v is not a *pgerr.Error", c.q, err)
			continue
		}
		if e.Code != pgerr.SyntaxError || e.Message != c.msg || e.Position != c.pos {
			t.Errorf("%s: got %s %q pos %d, want 42601 %q pos %d", c.q, e.Code, e.Message, e.Position, c.msg, c.pos)
		}
	}
}

func TestStatementPositions(t *testing.T) {
	q := "SELECT 1;\n  /* c */ SELECT 'é' FROM nosuch"
	st, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	s := st[1]
	if s.Text != "/* c */ SELECT 'é' FROM nosuch" || s.Query != q || q[s.Offset:] != s.Text {
		t.Fatalf("text %q offset %d", s.Text, s.Offset)
	}
	_, err = TranslateQuery(s.Tree, unitCat, nil)
	e, ok := pgerr.As(err)
	if !ok || e.Code != pgerr.UndefinedTable {
		t.Fatalf("got %v", err)
	}
	// Position relative to Text in bytes ('é' is 2 bytes), then Locate
	// gives PostgreSQL's character position in the whole query.
	if want := len("/* c */ SELECT 'é' FROM ") + 1; e.Position != want {
		t.Errorf("position in Text = %d, want %d", e.Position, want)
	}
	le, _ := pgerr.As(s.Locate(err))
	if want := CharPosition(q, strings.Index(q, "nosuch")); le.Position != want {
		t.Errorf("Locate position = %d, want %d", le.Position, want)
	}
	// MapError positions follow the same convention.
	me, _ := pgerr.As(s.Locate(MapError(errors.New(`Binder Error: Referenced column "nosuch" not found in FROM clause!`), s.Text)))
	if want := CharPosition(q, strings.Index(q, "nosuch")); me == nil || me.Position != want {
		t.Errorf("MapError+Locate = %+v, want position %d", me, want)
	}
}
