// Package pgref starts a throwaway reference PostgreSQL server for
// differential tests: tests run the same input through bsdb-pg code and
// through a real PostgreSQL and compare the bytes.
//
// # Use
//
// In a test:
//
//	url := pgref.Start(t) // "postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable"
//
// To share one server between all tests of a package (initdb costs a few
// seconds), wrap the package's TestMain:
//
//	func TestMain(m *testing.M) { pgref.Main(m) }
//
// With Main, Start returns the process-wide server (started lazily by the
// first test that needs it, stopped and deleted after m.Run). Without Main,
// Start starts a server per calling test and stops it in t.Cleanup. Tests
// that mutate global state should use NewDatabase(t, url) to get a fresh
// database of their own.
//
// # Environment
//
//   - BSDB_PG_URL: use this existing server instead of starting one (Start
//     returns it verbatim; NewDatabase still creates databases in it, so the
//     role needs CREATEDB).
//   - BSDB_PG_BIN: directory holding initdb and postgres. Default: the
//     newest of /usr/lib/postgresql/{17,16,15}/bin, else $PATH.
//   - BSDB_REQUIRE_PG=1 (CI sets it): a missing or unstartable PostgreSQL
//     is a test failure (t.Fatal). Otherwise the test is skipped (t.Skip).
//
// # How the server is run
//
// initdb --no-locale -E UTF8 -U postgres -A trust into a fresh directory
// under os.TempDir(); postgres listens on 127.0.0.1 at a free port with its
// unix socket in the same directory, fsync off (the data is thrown away).
// PostgreSQL refuses to run as root: when the test runs as root the server
// runs as the system user "pgtest" (created with useradd if missing) and the
// directory is chowned to it. The postmaster gets SIGQUIT (immediate
// shutdown) if the test process dies (Linux parent-death signal), so a
// killed test binary leaves no server behind. Its log is kept in the data
// directory and its tail is included in any start failure.
package pgref
