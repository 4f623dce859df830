package clients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// dumpFixture is the database pg_dump round-trips: the column types bsdb-pg
// stores, a primary key, NOT NULL, defaults, and values that need quoting
// or escaping in COPY and INSERT form.
var dumpFixture = []string{
	`CREATE TABLE kinds (id integer NOT NULL PRIMARY KEY, big bigint NOT NULL DEFAULT 0, small smallint,
		label text DEFAULT 'none', code varchar(12), fixed char(3), amount numeric(12,3), ok boolean DEFAULT true,
		day date, at timestamp, atz timestamptz, ratio double precision, r4 real, raw bytea, doc json, docb jsonb,
		u uuid, span interval, tod time)`,
	`INSERT INTO kinds VALUES
		(1, 9007199254740993, -32768, 'plain', 'abc', 'xy', 12345.678, true, '2024-02-29', '2024-02-29 13:14:15.123456',
		 '2024-02-29 13:14:15+02', 0.1, 1.5, '\x00ff10', '{"a": [1, 2]}', '{"b": {"c": null}}',
		 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:03:04', '23:59:59.5'),
		(2, -1, 0, E'tab\there\nnewline \\ backslash ''quote''', 'ünï', NULL, -0.001, false, '0001-01-01', '1999-12-31 23:59:59',
		 '1970-01-01 00:00:00+00', -1.5e300, 'Infinity', '', '[]', '"s"', NULL, '-1 mons', '00:00:00'),
		(3, 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	`CREATE SCHEMA other`,
	`CREATE TABLE other.pairs (k bigint NOT NULL, v text NOT NULL, PRIMARY KEY (k))`,
	`INSERT INTO other.pairs VALUES (10, 'ten'), (20, 'twenty')`,
	`CREATE TABLE nokey (a integer, b text)`,
	`INSERT INTO nokey VALUES (1, 'x'), (NULL, NULL)`,
	`CREATE INDEX nokey_a_idx ON nokey (a)`,
	`CREATE INDEX kinds_label ON kinds (lower(label), day DESC) WHERE ok`,
	`CREATE INDEX ON other.pairs USING hash (v)`,
	`COMMENT ON TABLE nokey IS 'no key here'`,
	`COMMENT ON COLUMN kinds.label IS 'the label''s text'`,
	`COMMENT ON INDEX nokey_a_idx IS 'by a'`,
	// serial columns: their sequences, OWNED BY, the defaults as ALTER
	// TABLE ... SET DEFAULT after the sequences, and setval of the state
	`CREATE TABLE events (id serial PRIMARY KEY, note text DEFAULT 'n', seq bigserial)`,
	`INSERT INTO events (note) VALUES ('a'), ('b')`,
	`CREATE TABLE other.counters (k bigserial, v int)`,
	`INSERT INTO other.counters (v) VALUES (5)`,
	// foreign keys (recorded, not enforced): ALTER TABLE ONLY ... ADD
	// CONSTRAINT ... FOREIGN KEY after the data and the keys
	`CREATE TABLE other.refs (k bigint REFERENCES other.pairs, e int, CONSTRAINT refs_event FOREIGN KEY (e) REFERENCES events ON DELETE CASCADE)`,
	`INSERT INTO other.refs VALUES (10, 1), (20, NULL)`,
}

// dumpTables are the fixture's tables, read back with COPY to compare.
var dumpTables = []string{"public.kinds", "other.pairs", "public.nokey", "public.events", "other.counters", "other.refs"}

// normalizeDump drops the lines of a plain dump that differ between runs
// and servers: the version comments and psql's \restrict keys.
func normalizeDump(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, `\restrict `) || strings.HasPrefix(l, `\unrestrict `) ||
			strings.HasPrefix(l, "-- Dumped from database version") || strings.HasPrefix(l, "-- Dumped by pg_dump version") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// tableData is every fixture table's rows as COPY prints them (UTC).
func tableData(t *testing.T, psqlBin, url string) string {
	t.Helper()
	args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "SET TimeZone = 'UTC'"}
	for _, tb := range dumpTables {
		args = append(args, "-c", `\echo `+tb, "-c", "COPY (SELECT * FROM "+tb+" ORDER BY 1, 2) TO STDOUT")
	}
	return runCmd(t, nil, "", psqlBin, append(args, url)...)
}

// TestPgDumpRestore: pg_dump 15 dumps a bsdb-pg database (plain,
// --schema-only, --data-only --inserts, custom format), and each dump
// restores with psql -v ON_ERROR_STOP=1 or pg_restore --exit-on-error into a
// fresh database of bsdb-pg and of PostgreSQL 15: the restored rows equal
// the originals, and pg_dump of each restored database is the first dump
// (but for the version lines); --clean dumps restore over the tables they
// drop. Then the reverse: PostgreSQL's own dump of
// the same schema restores into bsdb-pg and dumps back identical.
func TestPgDumpRestore(t *testing.T) {
	pgDump, pgRestore, psqlBin := need(t, "pg_dump"), need(t, "pg_restore"), need(t, "psql")
	refBase := pgref.Start(t)
	s := startServer(t)
	execSQL(t, s.url("postgres"), "CREATE DATABASE dumpsrc")
	src := s.url("dumpsrc")
	execSQL(t, src, dumpFixture...)
	dump := func(url string, args ...string) string {
		t.Helper()
		return runCmd(t, nil, "", pgDump, append(args, "-d", url)...)
	}

	plain := dump(src)
	schemaOnly := dump(src, "--schema-only")
	inserts := dump(src, "--data-only", "--inserts")
	custom := filepath.Join(t.TempDir(), "dumpsrc.dump")
	dump(src, "-Fc", "-f", custom)
	want := tableData(t, psqlBin, src)
	for _, frag := range []string{"ALTER TABLE ONLY public.kinds\n    ADD CONSTRAINT kinds_pkey PRIMARY KEY (id);",
		"ALTER TABLE ONLY other.pairs\n    ADD CONSTRAINT pairs_pkey PRIMARY KEY (k);",
		"    label text DEFAULT 'none'::text,", "    big bigint DEFAULT 0 NOT NULL,", "    code character varying(12),",
		"    amount numeric(12,3),", "COPY public.kinds (id, big, small, label",
		"CREATE INDEX nokey_a_idx ON public.nokey USING btree (a);",
		"CREATE INDEX kinds_label ON public.kinds USING btree (lower(label), day DESC) WHERE ok;",
		"CREATE INDEX pairs_v_idx ON other.pairs USING hash (v);",
		"COMMENT ON TABLE public.nokey IS 'no key here';", "COMMENT ON COLUMN public.kinds.label IS 'the label''s text';",
		"COMMENT ON INDEX public.nokey_a_idx IS 'by a';",
		"ALTER SEQUENCE public.events_id_seq OWNED BY public.events.id;",
		"ALTER TABLE ONLY public.events ALTER COLUMN id SET DEFAULT nextval('public.events_id_seq'::regclass);",
		"ALTER TABLE ONLY other.counters ALTER COLUMN k SET DEFAULT nextval('other.counters_k_seq'::regclass);",
		"SELECT pg_catalog.setval('public.events_seq_seq', 2, true);",
		"ALTER TABLE ONLY other.refs\n    ADD CONSTRAINT refs_event FOREIGN KEY (e) REFERENCES public.events(id) ON DELETE CASCADE;",
		"ALTER TABLE ONLY other.refs\n    ADD CONSTRAINT refs_k_fkey FOREIGN KEY (k) REFERENCES other.pairs(k);"} {
		if !strings.Contains(plain, frag) {
			t.Errorf("the dump lacks %q:\n%s", frag, plain)
		}
	}
	if strings.Contains(schemaOnly, "COPY ") || !strings.Contains(schemaOnly, "CREATE TABLE public.kinds") {
		t.Errorf("--schema-only dump:\n%s", schemaOnly)
	}
	if !strings.Contains(inserts, "INSERT INTO other.pairs VALUES (10, 'ten');") || strings.Contains(inserts, "CREATE TABLE") {
		t.Errorf("--data-only --inserts dump:\n%s", inserts)
	}

	n := 0
	targets := []struct {
		name  string
		fresh func() string
	}{
		{"bsdb-pg", func() string {
			n++
			db := "restored" + string(rune('a'+n))
			execSQL(t, s.url("postgres"), "CREATE DATABASE "+db)
			return s.url(db)
		}},
		{"PostgreSQL", func() string { return pgref.NewDatabase(t, refBase) }},
	}
	psqlFile := func(url, script string) {
		t.Helper()
		runCmd(t, nil, script, psqlBin, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-", "-d", url)
	}
	for _, tg := range targets {
		for _, how := range []string{"plain", "custom", "schema+inserts"} {
			url := tg.fresh()
			switch how {
			case "plain":
				psqlFile(url, plain)
			case "custom":
				runCmd(t, nil, "", pgRestore, "--exit-on-error", "-d", url, custom)
			case "schema+inserts":
				psqlFile(url, schemaOnly)
				psqlFile(url, inserts)
			}
			if got := tableData(t, psqlBin, url); got != want {
				t.Errorf("%s, %s restore: rows differ from the original's:\n%s", tg.name, how, lineDiff(got, want))
			}
			if got := dump(url); normalizeDump(got) != normalizeDump(plain) {
				t.Errorf("%s, %s restore: its dump differs from the original's:\n%s", tg.name, how, lineDiff(normalizeDump(got), normalizeDump(plain)))
			}
		}
	}

	// --clean dumps drop what they restore (the key first): restored twice
	// over a database that has the tables, the rows are the same.
	url := targets[0].fresh()
	psqlFile(url, plain)
	psqlFile(url, dump(src, "--clean", "--if-exists"))
	runCmd(t, nil, "", pgRestore, "--exit-on-error", "--clean", "--if-exists", "-d", url, custom)
	if got := tableData(t, psqlBin, url); got != want {
		t.Errorf("restores with --clean: rows differ from the original's:\n%s", lineDiff(got, want))
	}
	if got := dump(url); normalizeDump(got) != normalizeDump(plain) {
		t.Errorf("restores with --clean: the dump differs from the original's:\n%s", lineDiff(normalizeDump(got), normalizeDump(plain)))
	}

	// pg_dumpall --globals-only reads the roles and tablespaces.
	if out := runCmd(t, nil, "", need(t, "pg_dumpall"), "--globals-only", "-d", s.url("postgres")); !strings.Contains(out, "CREATE ROLE postgres;") {
		t.Errorf("pg_dumpall --globals-only:\n%s", out)
	}

	// PostgreSQL's dump of the same schema restores into bsdb-pg.
	ref := pgref.NewDatabase(t, refBase)
	execSQL(t, ref, dumpFixture...)
	refDump := dump(ref)
	if normalizeDump(refDump) != normalizeDump(plain) {
		t.Errorf("bsdb-pg's dump differs from PostgreSQL's of the same schema:\n%s", lineDiff(normalizeDump(plain), normalizeDump(refDump)))
	}
	url = targets[0].fresh()
	psqlFile(url, refDump)
	if got, refData := tableData(t, psqlBin, url), tableData(t, psqlBin, ref); got != refData {
		t.Errorf("PostgreSQL's dump restored into bsdb-pg: rows differ:\n%s", lineDiff(got, refData))
	}
	if got := dump(url); normalizeDump(got) != normalizeDump(refDump) {
		t.Errorf("PostgreSQL's dump restored into bsdb-pg dumps back differently:\n%s", lineDiff(normalizeDump(got), normalizeDump(refDump)))
	}
	_ = os.Remove(custom)
}

// TestDumpStatementsMatchPostgres: what bsdb-pg accepts of pg_dump's
// scripts and catalog queries (ADD/DROP CONSTRAINT of a primary key, LOCK
// TABLE, tableoid, acldefault, ...) gives PostgreSQL's transcript
// (testdata/dump_statements.sql).
func TestDumpStatementsMatchPostgres(t *testing.T) {
	b, err := os.ReadFile("testdata/dump_statements.sql")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "--") {
			lines = append(lines, l)
		}
	}
	script := strings.Join(lines, "\n")
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	_, refDB := hostAndDB(t, refURL)
	s := startServer(t)
	execSQL(t, s.url("postgres"), "CREATE DATABASE dumpstmts")
	want := strings.ReplaceAll(transcript(t, refURL, script), refDB, "dumpstmts")
	got := transcript(t, s.url("dumpstmts"), script)
	if got != want {
		t.Errorf("transcripts differ (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg's transcript:\n%s", lineDiff(got, want), got)
	}
}
