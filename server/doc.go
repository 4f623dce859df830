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
// Transactions: an autocommit write is one WAL transaction, acknowledged when
// durable. Inside BEGIN ... COMMIT, writes are staged in the planner's mirror
// (visible to the session only) and handed to the table as one WAL
// transaction at COMMIT; a transaction that wrote several tables commits them
// as one (txn.Coordinator: all visible at once, all or none after a crash).
// An error inside
// a block puts it in the failed state: every statement but ROLLBACK/COMMIT
// gets 25P02 until then; COMMIT of a failed block rolls back.
//
// Text encoding: a Bind parameter in text format (of any type) must be
// valid UTF-8 without NUL, as exec_bind_message converts it first; a binary
// one of a text type is verified by pgtypes.ParseBinary; both fail with
// 22021 and CONTEXT "unnamed portal parameter $N". A COPY is verified as it
// is parsed (pgtypes), and fails whole; the fused binary path verifies the
// text it appended as one run per column (checkText) before a batch leaves
// the decoder or another error is reported, so the first error in the
// input is the one reported. INSERT ...
// SELECT verifies the text DuckDB computed. VACUUM FULL (vacuum.go)
// rewrites the data files of tables that hold invalid text written by
// older versions (txn.RepairText).
package server
