package sql

import "testing"

// TestTagsOfOtherStatements: a statement the server does not run is named
// by PostgreSQL's command tag in its 0A000 ("ALTER DEFAULT PRIVILEGES is
// not supported", not "ALTERDEFAULTPRIVILEGES").
func TestTagsOfOtherStatements(t *testing.T) {
	for q, want := range map[string]string{
		"ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO public":                 "ALTER DEFAULT PRIVILEGES",
		"CREATE POLICY p ON t USING (true)":                                         "CREATE POLICY",
		"CREATE AGGREGATE a (sfunc = int4pl, stype = int4, basetype = int4)":        "CREATE AGGREGATE",
		"CREATE OPERATOR === (procedure = int4eq, leftarg = int4, rightarg = int4)": "CREATE OPERATOR",
		"CREATE TRIGGER tr AFTER INSERT ON t EXECUTE FUNCTION f()":                  "CREATE TRIGGER",
		"CREATE TYPE ty AS (a int)":                                                 "CREATE TYPE",
		"CREATE EXTENSION hstore":                                                   "CREATE EXTENSION",
		"REFRESH MATERIALIZED VIEW mv":                                              "REFRESH MATERIALIZED VIEW",
		"ALTER SYSTEM SET work_mem = '1MB'":                                         "ALTER SYSTEM",
		"CLUSTER t USING i":                                                         "CLUSTER",
	} {
		st, err := Parse(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if st[0].Tag != want {
			t.Errorf("%s: tag %q, want %q", q, st[0].Tag, want)
		}
	}
}
