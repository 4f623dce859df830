//go:build !duckdb_arrow

package planner

// bsdb-pg needs DuckDB's Arrow interface: build with -tags duckdb_arrow
// (the Makefile sets GOFLAGS=-tags=duckdb_arrow).
var _ = buildWithTag_duckdb_arrow
