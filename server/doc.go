// Package server is the SQL session layer: it implements pgwire.Backend
// over the planner. A session owns one DuckDB connection, its settings
// (DateStyle, TimeZone, search_path, extra_float_digits, ...), its
// transaction state (idle, in block, failed) and its prepared statements and
// portals. Every statement is parsed by package sql (PostgreSQL's own
// grammar), dispatched by kind, and its results are encoded by pgtypes in
// PostgreSQL's exact text or binary format.
//
// Startup (startup.go): the settings of the startup packet are applied when
// the session is created, as PostgreSQL's process_startup_options does:
// first the backend command line of the "options" parameter (PGOPTIONS:
// -c name=value, --name=value), then the packet's other parameters; a bad
// one refuses the connection with FATAL.
//
// Results stream (duckstream.go): a query runs as a DuckDB streaming
// result, fetched a chunk (2048 rows) at a time as the rows are sent, so a
// client that reads slowly holds the query in its socket write and memory
// stays bounded by a chunk, whatever the size of the result, in the simple
// and the extended protocol, for portals suspended by a row limit and for
// cursors. DuckDB keeps one open streaming result per connection: before
// the session's connection runs anything else, an open one (a suspended
// portal, a cursor between FETCHes) is read into memory.
//
// Transactions: an autocommit write is one WAL transaction, acknowledged when
// durable. Inside BEGIN ... COMMIT, writes are staged in the planner's mirror
// (visible to the session only) and handed to the table as one WAL
// transaction at COMMIT; a transaction that wrote several tables commits them
// as one (txn.Coordinator: all visible at once, all or none after a crash).
// An error inside
// a block puts it in the failed state: every statement but ROLLBACK/COMMIT
// gets 25P02 until then; COMMIT of a failed block rolls back.
package server
