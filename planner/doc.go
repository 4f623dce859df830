// Package planner executes statements over the storage engine: it owns the
// open table handles (txn.Table), the catalog of databases, schemas and
// tables, and the embedded DuckDB instance that runs every query.
//
// # How a SELECT sees a table
//
// Each open table has a mirror in DuckDB: a native table "__bsdb_buf_<oid>"
// holding the rows of every buffered batch with the batch id in an extra
// column. A write appends its batches to the mirror before the WAL append
// (txn.WriteOptions.BeforeAppend), so by the time the txn layer makes a
// batch visible its rows are in the mirror. A statement takes a linearizable
// txn snapshot of each table it reads and substitutes, for the table, the
// DuckDB relation
//
//	(SELECT cols FROM bsdb_cache."__bsdb_files_<oid>" WHERE __bsdb_file < N  -- files in the native cache
//	 UNION ALL
//	 SELECT cols FROM read_parquet([the manifest's other files])
//	 UNION ALL
//	 SELECT cols FROM "__bsdb_buf_<oid>" WHERE __bsdb_batch IN <snapshot's batch ids>)
//
// The native cache (filecache.go) holds committed files loaded in the
// background into DuckDB's own storage; a file is read from it once loaded.
//
// so the mirror may safely hold more than the snapshot (batches of writes in
// flight, of failed writes, of commits not yet collected): only the
// snapshot's batch ids are read. Rows of committed batches are deleted from
// the mirror when a commit event names them, under the table's gc lock,
// which every running statement holds shared from its snapshot until its
// DuckDB query is done — a statement never loses rows of its snapshot.
//
// Arrow batches are moved into DuckDB through RegisterView + INSERT ... SELECT *
// of every column (the batch id is appended as a last Arrow column): a view
// that a query projects partially returns wrong values (duckdb-go issue 24),
// so no query ever reads a registered view directly.
//
// # Transactions
//
// Writes inside BEGIN ... COMMIT get batch ids allocated from the table
// handle and are mirrored by the session's first read; the session's own
// statements add its pending batch ids to the snapshot (read your own
// writes), other sessions never see them. COMMIT hands every table's
// batches to Engine.Commit as one transaction (txn.Coordinator: one WAL
// transaction per table, one commit record); ROLLBACK deletes them from the
// mirror. A statement binds the tables it reads under the coordinator's
// read lock, so a multi-table commit is in all of its snapshots or none.
package planner
