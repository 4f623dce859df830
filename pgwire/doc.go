// Package pgwire is the PostgreSQL wire protocol (version 3.0) server of
// bsdb-pg. It owns sockets, TLS, authentication, message framing, the
// extended-protocol object namespace (statements and portals), COPY
// plumbing, cancellation and error reporting. It knows nothing of SQL,
// storage or DuckDB: it declares the interfaces it consumes (Backend,
// Session, Statement, Portal) and the SQL layer implements them; results
// flow back through ResultWriter. Its only project imports are the leaf
// package pgerr; the codec is github.com/jackc/pgx/v5/pgproto3.
//
// # Phases of a connection
//
//  1. Startup (startup.go): length-prefixed startup packets, read by hand so
//     that any protocol version can be answered. SSLRequest gets 'S' and a
//     TLS handshake when Config.TLS is set, else 'N'; GSSENCRequest gets 'N';
//     both loop back to the next packet. Plaintext bytes pipelined after an
//     SSLRequest are refused (CVE-2021-23214). CancelRequest is served and
//     the socket closed without a reply. A major version other than 3 is
//     FATAL 0A000; 3.x with x > 0 or "_pq_." options get
//     NegotiateProtocolVersion (3.0) and proceed. Malformed packets are FATAL
//     08P01. The whole phase is bounded by Config.AuthTimeout.
//  2. Authentication (auth.go, scram.go): trust, cleartext password, md5,
//     SCRAM-SHA-256 (no channel binding), or reject (28000);
//     TrustLoopback admits 127.0.0.0/8 and ::1 first. Unknown users get the
//     same exchange as known ones and the same FATAL 28P01 "password
//     authentication failed for user" as a wrong password. Messages are
//     limited to 16 KiB until authentication succeeds. Passwords come from
//     AuthConfig.Roles (a RoleSource: stored as PostgreSQL stores them, a
//     SCRAM-SHA-256 verifier or an MD5 hash, password.go), or in cleartext
//     from AuthConfig.Users; under md5, a role whose password is a SCRAM
//     verifier authenticates with SCRAM, as in PostgreSQL. Whether the
//     role exists and may log in is the Backend's to say (NewSession).
//  3. Session: AuthenticationOk, Backend.NewSession (an error is FATAL,
//     e.g. 3D000), the session's ParameterStatus list, BackendKeyData (a
//     pid unique among live connections and a random 4-byte secret),
//     ReadyForQuery.
//  4. Command loop (conn.go, commands.go, reading.go): the loop reads the
//     socket itself, decodes each message into a command and executes it
//     before it reads the next. A Bind's parameters are not copied out of
//     the codec's buffer: Session.Bind copies what it keeps. A statement
//     that runs for long watches the socket for the client hanging up.
//  5. End: Terminate, EOF, a FATAL error or Shutdown. Portals, statements
//     and then the Session are closed exactly once.
//
// # Connection limits
//
// As in PostgreSQL (server.go): a connection takes one of
// Config.MaxConnections slots (max_connections) once its startup packet is
// in, before authentication, and holds it until it closes; with none free
// it gets FATAL 53300 "sorry, too many clients already" instead of an
// authentication request. A client stalled in authentication holds its
// slot until AuthTimeout. After authentication, a user that is not a
// superuser (SuperuserChecker) is refused with FATAL 53300 "remaining
// connection slots are reserved for non-replication superuser
// connections" when fewer than Config.ReservedConnections slots would stay
// free. Sockets that have not sent a startup packet hold no slot (SSL and
// cancel requests come first), but each holds a descriptor until
// AuthTimeout: past Config.MaxSockets the accept loop writes the FATAL
// 53300 to a new socket and closes it at once, so idle sockets cannot
// exhaust the process's file descriptors.
//
// # Commands and results
//
// Query runs Session.SimpleQuery and always ends with ReadyForQuery; the
// extended protocol (extended.go) maps Parse/Bind/Describe/Execute/Close to
// Prepare/Bind/Columns/Execute/Close. Invariants:
//
//   - Every command that produces a result ends with exactly one completion
//     message: CommandComplete, EmptyQueryResponse, PortalSuspended or
//     ErrorResponse.
//   - After an error in the extended protocol, messages are skipped until
//     Sync (a flag, not a nested loop); Sync then sends ReadyForQuery.
//   - ReadyForQuery carries Session.TxStatus(), the real I/T/E state. Errors
//     pgwire raises itself (unknown names, bad Bind counts) are reported to
//     sessions that implement ProtocolErrorHandler, so that, as in
//     PostgreSQL, any error inside a transaction block fails it.
//   - The unnamed statement and portal are replaced by the next Parse/Bind;
//     a named duplicate is 42P05 (statement) or 42P03 (portal, PostgreSQL's
//     duplicate_cursor); unknown names are 26000 / 34000. A simple Query
//     drops the unnamed statement.
//   - Portals end with their transaction: at each ReadyForQuery whose
//     status is 'I' all portals are closed. An implicit transaction ends at
//     Sync; sessions that implement Syncer are told at each Sync.
//   - Output is buffered and reaches the socket at ReadyForQuery, Flush,
//     CopyInResponse, ErrorResponse, or when 32 KiB accumulate, as in
//     PostgreSQL.
//   - COPY FROM STDIN: the reader from ResultWriter.CopyIn takes CopyData
//     from the same queue; CopyDone is io.EOF, CopyFail is 57014, Flush and
//     Sync are ignored (libpq sends them), anything else is 08P01. CopyData,
//     CopyDone and CopyFail arriving outside COPY (the tail of a failed COPY)
//     are ignored. COPY TO STDOUT: each Write is one CopyData; Complete sends
//     CopyDone then CommandComplete.
//
// # Text encoding
//
// Every string of a message (a Query's or Parse's query text, statement
// and portal names) must be valid UTF-8 without NUL, as PostgreSQL's
// pq_getmsgstring converts it from the client encoding: otherwise ERROR
// 22021 (pgerr.CheckText) before the statement reaches the Session, the
// whole string checked, comments too; inside a block the error fails it
// (ProtocolErrorHandler). Bind parameters are the Session's to check: their
// format decides (server.Bind).
//
// # Errors and robustness
//
// An *pgerr.Error becomes an ErrorResponse with its SQLSTATE, message,
// detail, hint, position and where; any other error is XX000. A canceled
// statement is 57014 "canceling statement due to user request"; Shutdown
// sends FATAL 57P01 to every connection. A malformed message (bad length,
// unknown type, truncated body) or one larger than Config.MaxMessageSize
// is FATAL 08P01 and the connection closes; other connections are not
// affected. A panic in any Session, Statement or Portal method is
// recovered, logged with its stack, reported to that client as FATAL
// XX000, and that connection closed (PanicError). FuzzServerMessages
// checks that arbitrary bytes after startup never crash the server;
// crashers live in testdata/fuzz/.
//
// # Cancellation
//
// Each statement runs under a context derived from the connection's,
// shared by the statements of one command cycle (up to ReadyForQuery) and
// replaced after one that was canceled (conn.withStmt). CancelRequest (matching pid and secret, compared in constant time)
// cancels only the command running at that moment; a cancel that arrives
// while idle does nothing. Shutdown cancels connection contexts with
// errShutdown, closes listeners, and after its context expires closes the
// remaining sockets (unblocking writers stuck on a client that does not
// read).
//
// # Debugging
//
// Server.Sessions is pg_stat_activity. Wire transcripts: the tests print
// exchanges as letter strings ("1 2 D(1) s Z(I)"), see msgLetter in
// helpers_test.go. Lock order: Server.mu before conn.mu; conn.mu guards
// only what other goroutines read (the running statement's cancel func and
// the pg_stat_activity fields); everything else belongs to the command
// loop goroutine.
//
// Known design debt: the reader reads ahead at most 64 messages; while
// that queue is full it does not notice a closed socket. SCRAM passwords
// are not SASLprep-normalized (identical for ASCII). Protocol 3.2 (longer
// cancel keys) is negotiated down to 3.0.
package pgwire
