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
// Roles and privileges (security.go, privileges.go, roles.go, grant.go,
// setrole.go, privfuncs.go): PostgreSQL 15's model over the storage
// catalog's roles, owners and ACLs. NewSession refuses a user name that is
// no role, a NOLOGIN role, and a role without CONNECT on the database
// (FATAL, as InitPostgres), whatever the authentication method; the
// password methods read the roles' SCRAM verifiers and MD5 hashes
// (Backend implements pgwire.RoleSource). Every statement that turns a
// table name into a table goes through accessTable / lookupTable, which
// check schema USAGE and the table privilege the access needs (SELECT for
// every table a translation binds, INSERT for a write's target, TRUNCATE),
// so no path (subqueries, CTEs, COPY, EXPLAIN, cursors, PREPARE/EXECUTE,
// the extended protocol, a prepared INSERT's cached translation) skips
// them; a statement only described (Parse, PREPARE) checks USAGE and
// leaves table privileges to each execution, as PostgreSQL's parse
// analysis does. DDL checks ownership (table or schema owner for DROP
// TABLE, schema owner, database owner) and CREATE on the schema or
// database. Superusers bypass every check. The catalog is cached
// (security): this server's changes are seen at once, another process's
// within a second.
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
