// Package clients holds the real-client compatibility matrix: end-to-end
// tests that run unmodified PostgreSQL clients (psql, pgjdbc, psycopg2,
// psqlODBC, node-postgres, pgbench, pg_dump, pg_restore) against a bsdb-pg server started by the
// test (internal/testserver), asserting the values each client reads.
//
// It has no non-test code. Each client test:
//
//   - finds its client (a binary, a jar, a Python module, an npm package);
//     when it is missing the test is skipped, or fails loudly when
//     BSDB_REQUIRE_CLIENTS=1 (CI sets it: .ci/run installs every client);
//   - starts its own server, creates its tables through the client itself,
//     and checks actual values, not just "no error";
//   - where output shape matters (psql's backslash commands), compares with
//     a real PostgreSQL (internal/pgref) holding the same tables.
//
// The differential catalog test (catalog_diff_test.go) runs the catalog
// queries psql's \d family, pgjdbc's DatabaseMetaData and psqlODBC send —
// captured from the clients (psql -E, and the server's statement log) — on
// both servers and compares the rows, with OID-valued columns masked.
//
// pgdump_test.go round-trips databases through pg_dump and pg_restore (both
// directions, compared with PostgreSQL's dumps and restores);
// settings_test.go compares SET/SHOW of the parameters the clients send and
// pg_settings with PostgreSQL's transcript.
//
// Run: go test -tags duckdb_arrow ./clients/ (about a minute: the server
// binary is built once per run; BSDB_TEST_BINARY reuses a prebuilt one).
package clients
