package clients

import (
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// sequenceFixture: a serial table, an identity table and sequences with
// options and owners.
var sequenceFixture = []string{
	`CREATE TABLE st (id serial PRIMARY KEY, v text)`,
	`CREATE TABLE gt (id int GENERATED ALWAYS AS IDENTITY (START 5), v text)`,
	`CREATE SEQUENCE s3 AS integer START 5 CYCLE`,
	`CREATE SEQUENCE s4 OWNED BY st.v`,
	`INSERT INTO st (v) VALUES ('a'), ('b')`,
	`INSERT INTO gt (v) VALUES ('a')`,
}

// TestPsqlSequences: psql's \ds, \d of a sequence (type, bounds, owner
// column) and \d of serial and identity tables give PostgreSQL's output.
func TestPsqlSequences(t *testing.T) {
	bin := need(t, "psql")
	ref := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	ours := s.url("postgres")
	execSQL(t, ours, sequenceFixture...)
	execSQL(t, ref, sequenceFixture...)
	cmds := "\\ds\n\\d st_id_seq\n\\d s3\n\\d s4\n\\d st\n\\d gt\n\\d gt_id_seq\nSELECT * FROM st ORDER BY id;\nSELECT * FROM gt;\n\\echo done\n"
	got := psql(t, bin, ours, cmds)
	want := psql(t, bin, ref, cmds)
	if d := lineDiff(got, want); d != "" {
		t.Errorf("psql output differs from PostgreSQL's:\n%s\n--- bsdb-pg output:\n%s", d, got)
	}
}
