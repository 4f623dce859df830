// Package seq hands out sequence values: nextval, setval and the log-ahead
// that makes them durable.
//
// # Where the state lives
//
// A sequence's definition and its durable state are one record of the
// warehouse catalog (catalog.Sequence, _catalog/sequences/{db}/{schema}/
// {name}.json), changed only by compare-and-swap. We chose the catalog over
// the WAL and over a local state file because the catalog is the one place
// every process sharing a warehouse agrees on (two servers may write one
// table): a range reserved by CAS is reserved for all of them, on local
// disk and on S3 alike, and the record is where CREATE/ALTER/DROP already
// go. The WALs are per table and pruned with their table's commits; a
// sequence belongs to no table's commit.
//
// # Log-ahead (PostgreSQL's SEQ_LOG_VALS)
//
// As in PostgreSQL's nextval_internal, the in-memory state of a sequence
// is (last_value, is_called, log_cnt): log_cnt values past last_value are
// already covered by the durable record. When a call needs more than
// log_cnt values, the record is first advanced (CAS, durable before
// anything is returned) to cover the call plus SEQ_LOG_VALS (32) more (up
// to MaxLogAhead more while the log-aheads come within a second of each
// other: a catalog write costs milliseconds, a WAL record in PostgreSQL
// microseconds);
// a bulk call (an INSERT of many rows, a COPY batch) reserves its whole
// count at once, so a serial key costs one catalog write per batch, not a
// round trip per row. After a crash the process restarts from the record
// (is_called, last_value = the logged value): no value is ever handed out
// twice; the values logged but not handed out are a gap, as in PostgreSQL.
//
// # Several processes
//
// Gen counts the writes of a record. A process that finds, at its next
// log-ahead, a record written by someone else (another process's
// log-ahead, setval or ALTER) adopts it and continues after it. Until
// then it keeps handing out the values it reserved (at most its last
// log-ahead), as PostgreSQL backends keep their CACHE: values are
// distinct across processes, not ordered. A sequence dropped by another
// process fails at the next log-ahead.
//
// # Locks
//
// Manager.mu protects the maps; each sequence's mu its state, and is held
// across its log-ahead write (one catalog write per SEQ_LOG_VALS values).
// Order: Manager.mu is never held while taking a sequence's mu.
package seq
