package pgcatalog

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/acl"
)

func sampleSnapshot() *Snapshot {
	return &Snapshot{
		Database: "postgres", User: "alice", SearchPath: []string{"public"},
		Databases: []string{"postgres", "sales"}, Schemas: []string{"public", "s2"},
		Tables: []Table{
			{OID: 16390, Schema: "public", Name: "t", PrimaryKey: []string{"id"}, Owner: 16383, ACL: []string{"alice=arwdDxt/alice", "=r/alice"}, Columns: []Column{
				{Name: "id", TypeOID: 23, TypeMod: -1, NotNull: true},
				{Name: "name", TypeOID: 1043, TypeMod: 24, NotNull: true, Default: "'x'"},
				{Name: "v", TypeOID: 1700, TypeMod: 10<<16 | 2 + 4},
			}},
			{OID: 16400, Schema: "s2", Name: "t", Columns: []Column{{Name: "a", TypeOID: 25, TypeMod: -1}}},
		},
		Settings: []Setting{{Name: "DateStyle", Value: "ISO, MDY", Default: "ISO, MDY"}, {Name: "search_path", Value: "s2", Default: `"$user", public`}},
		Sessions: []Session{{PID: 7, Database: "postgres", User: "alice", State: "active", Query: "select 1", BackendStart: time.Unix(1700000000, 0)}},
		Roles: []Role{{OID: 10, Name: "postgres", Super: true, Inherit: true, Login: true, ConnLimit: -1, Password: "md5x"},
			{OID: 16383, Name: "alice", Inherit: true, Login: true, ConnLimit: -1}, {OID: 16384, Name: "grp", Inherit: true, ConnLimit: -1}},
		Members:     []Member{{Role: 16384, Member: 16383, Grantor: 10}},
		DatabaseACL: map[string]Object{"sales": {Owner: 16383, ACL: []string{"=c/alice", "alice=CTc/alice"}}},
		SchemaACL:   map[string]Object{"s2": {Owner: 16383}},
	}
}

// openDuck returns a DuckDB connection with the static setup and a refresh
// of sampleSnapshot applied.
func openDuck(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	f := Facts{Database: "postgres", User: "alice", PID: 7, ServerVersion: "15.18", StartTime: time.Unix(1700000000, 0)}
	var r Refresher
	for _, q := range append(append(SharedSetup(), SessionSetup(f)...), r.Statements(sampleSnapshot(), f)...) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	return conn
}

func queryStrings(t *testing.T, conn *sql.Conn, q string) [][]string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if v.Valid {
				row[i] = v.String
			} else {
				row[i] = "NULL"
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFunctionsAndRelations(t *testing.T) {
	conn := openDuck(t)
	cases := []struct{ q, want string }{
		{"SELECT __bsdb_f_format_type(1043, 24), __bsdb_f_format_type(1700, 655366), __bsdb_f_format_type(23, -1), __bsdb_f_format_type(1007, NULL)",
			"[[character varying(20) numeric(10,2) integer integer[]]]"},
		{"SELECT __bsdb_f_pg_get_userbyid(10), __bsdb_f_pg_get_userbyid(16383), __bsdb_f_pg_get_userbyid(99)", "[[postgres alice unknown (OID=99)]]"},
		{"SELECT __bsdb_f_pg_table_is_visible(16390), __bsdb_f_pg_table_is_visible(16400)", "[[true false]]"},
		{"SELECT __bsdb_f_regclass_in('t'), __bsdb_f_regclass_in('s2.t'), __bsdb_f_regclass_out(16400), __bsdb_f_regclass_out(16390)", "[[16390 16400 s2.t t]]"},
		// Macro bodies must not capture the caller's aliases (c, n, t, ...).
		{"SELECT __bsdb_f_regclass_out(c.oid), __bsdb_f_pg_get_userbyid(r.oid), __bsdb_f_format_type(x.oid, -1) FROM temp.__bsdb_pgc_pg_class c, temp.__bsdb_pgc_pg_roles r, __bsdb_pgc.__bsdb_pgc_pg_type x WHERE c.oid = 16400 AND r.oid = 10 AND x.oid = 25",
			"[[s2.t postgres text]]"},
		{"SELECT typname FROM __bsdb_pgc.__bsdb_pgc_pg_type WHERE typinput = __bsdb_f_regproc_in('pg_catalog.array_in') AND oid = 1007", "[[_int4]]"},
		{"SELECT __bsdb_f_regtype_in('integer'), __bsdb_f_regtype_in('int4'), __bsdb_f_regtype_out(1043)", "[[23 23 character varying]]"},
		{"SELECT __bsdb_f_pg_get_indexdef(" + itoa(PKIndexOID(16390)) + "), __bsdb_f_pg_get_constraintdef(" + itoa(PKConstraintOID(16390)) + ", true)",
			"[[CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id) PRIMARY KEY (id)]]"},
		{"SELECT adbin FROM temp.__bsdb_pgc_pg_attrdef", "[['x'::character varying]]"},
		{"SELECT relname, relkind FROM temp.__bsdb_pgc_pg_class WHERE oid >= 16384 ORDER BY oid", "[[t r] [t r] [t_pkey i]]"},
		{"SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, is_nullable FROM temp.__bsdb_isc_columns WHERE table_schema = 'public' ORDER BY ordinal_position",
			"[[id integer NULL 32 0 NO] [name character varying 20 NULL NULL NO] [v numeric NULL 10 2 YES]]"},
		{"SELECT count(*) FROM __bsdb_pgc.__bsdb_pgc_pg_type WHERE oid IN (16, 23, 25, 1043, 1700, 3802, 2950)", "[[7]]"},
		{"SELECT usename, usesysid, pid, state, query FROM temp.__bsdb_pgc_pg_stat_activity", "[[alice 16383 7 active select 1]]"},
		{"SELECT relowner, CAST(relacl AS VARCHAR) FROM temp.__bsdb_pgc_pg_class WHERE oid = 16390", "[[16383 ['alice=arwdDxt/alice', '=r/alice']]]"},
		{"SELECT nspname, nspowner, CAST(nspacl AS VARCHAR) FROM temp.__bsdb_pgc_pg_namespace WHERE nspname IN ('public', 's2') ORDER BY 1",
			"[[public 6171 ['pg_database_owner=UC/pg_database_owner', '=U/pg_database_owner']] [s2 16383 NULL]]"},
		{"SELECT datname, datdba FROM temp.__bsdb_pgc_pg_database WHERE datname IN ('postgres', 'sales') ORDER BY 1", "[[postgres 10] [sales 16383]]"},
		{"SELECT tablename, tableowner FROM temp.__bsdb_pgc_pg_tables ORDER BY 1, 2", "[[t alice] [t postgres]]"},
		{"SELECT count(*), count(*) FILTER (WHERE rolname LIKE 'pg\\_%' ESCAPE '\\'), max(rolpassword) FROM temp.__bsdb_pgc_pg_roles", "[[15 12 ********]]"},
		{"SELECT rolname, rolpassword FROM temp.__bsdb_pgc_pg_authid WHERE rolpassword IS NOT NULL", "[[postgres md5x]]"},
		{"SELECT usename FROM temp.__bsdb_pgc_pg_user ORDER BY 1", "[[alice] [postgres]]"},
		{"SELECT table_schema, table_name FROM temp.__bsdb_isc_tables ORDER BY 1, 2", "[[public t] [s2 t]]"},
		{"SELECT roleid, member, admin_option FROM temp.__bsdb_pgc_pg_auth_members ORDER BY 1, 2", "[[3374 3373 false] [3375 3373 false] [3377 3373 false] [16384 16383 false]]"},
		{"SELECT name, setting, source FROM temp.__bsdb_pgc_pg_settings ORDER BY name", "[[DateStyle ISO, MDY default] [search_path s2 session]]"},
		{"SELECT __bsdb_f_version() LIKE 'PostgreSQL 15.18 (bsdb-pg)%', __bsdb_f_current_database(), __bsdb_f_pg_backend_pid()", "[[true postgres 7]]"},
	}
	for _, c := range cases {
		if got := fmtRows(queryStrings(t, conn, c.q)); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, n := range [][2]string{{"", "pg_class"}, {"pg_catalog", "pg_type"}, {"information_schema", "columns"}} {
		if _, _, ok := Lookup(n[0], n[1]); !ok {
			t.Errorf("Lookup(%q, %q) not found", n[0], n[1])
		}
	}
	if _, _, ok := Lookup("", "pg_nonexistent"); ok {
		t.Error("unknown relation found")
	}
	if _, _, ok := Lookup("information_schema", "pg_class"); ok {
		t.Error("pg_class found in information_schema")
	}
}

// TestRefresherRebuildsOnlyChanges: a second refresh of the same snapshot
// runs nothing; a new table rebuilds the relations listing tables (and the
// new rows are visible), pg_stat_activity alone changes with the sessions.
func TestRefresherRebuildsOnlyChanges(t *testing.T) {
	conn := openDuck(t)
	f := Facts{Database: "postgres", User: "alice"}
	var r Refresher
	snap := sampleSnapshot()
	run := func(stmts []string) {
		for _, q := range stmts {
			if _, err := conn.ExecContext(context.Background(), q); err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
		}
	}
	run(r.Statements(snap, f))
	if again := r.Statements(snap, f); len(again) != 0 {
		t.Errorf("unchanged snapshot re-ran %d statements", len(again))
	}
	snap.Sessions[0].State = "idle"
	stmts := r.Statements(snap, f)
	if len(stmts) == 0 || !strings.Contains(strings.Join(stmts, "\n"), "pg_stat_activity") || strings.Contains(strings.Join(stmts, "\n"), "pg_class") {
		t.Errorf("session change: %d statements, want only pg_stat_activity's", len(stmts))
	}
	run(stmts)
	snap.Tables = append(snap.Tables, Table{OID: 16500, Schema: "public", Name: "newt", Columns: []Column{{Name: "x", TypeOID: 20, TypeMod: -1}}})
	run(r.Statements(snap, f))
	if got := fmtRows(queryStrings(t, conn, "SELECT relname FROM temp.__bsdb_pgc_pg_class WHERE oid = 16500")); got != "[[newt]]" {
		t.Errorf("new table after refresh: %s", got)
	}
	if got := fmtRows(queryStrings(t, conn, "SELECT state FROM temp.__bsdb_pgc_pg_stat_activity")); got != "[[idle]]" {
		t.Errorf("session state after refresh: %s", got)
	}
	// Reset forgets: everything is rebuilt.
	r.Reset()
	if n := len(r.Statements(snap, f)); n < 10 {
		t.Errorf("after Reset: %d statements", n)
	}
}

// TestInformationSchemaRestricted: for a role that is no superuser, the
// information_schema views show the tables and schemas it holds a
// privilege on, as PostgreSQL's view definitions filter them.
func TestInformationSchemaRestricted(t *testing.T) {
	snap := sampleSnapshot()
	snap.Tables[0].Restricted, snap.Tables[0].Privileges = true, acl.Truncate // not a column privilege
	snap.Tables[1].Restricted = true                                          // nothing
	snap.SchemaACL["s2"] = Object{Owner: 16384, Restricted: true}
	snap.SchemaACL["public"] = Object{Owner: OIDDatabaseOwner, Restricted: true, Privileges: acl.Usage}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	f := Facts{Database: "postgres", User: "alice"}
	var r Refresher
	for _, q := range append(append(SharedSetup(), SessionSetup(f)...), r.Statements(snap, f)...) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT table_schema, table_name FROM temp.__bsdb_isc_tables ORDER BY 1, 2", "[[public t]]"},
		{"SELECT count(*) FROM temp.__bsdb_isc_columns", "[[0]]"},
		{"SELECT schema_name FROM temp.__bsdb_isc_schemata WHERE schema_name IN ('public', 's2')", "[[public]]"},
		{"SELECT count(*) FROM temp.__bsdb_isc_table_constraints WHERE table_name = 't'", "[[3]]"},
	} {
		if got := fmtRows(queryStrings(t, conn, c.q)); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}
