// Command bsdb-pg is a PostgreSQL-compatible server whose tables are
// Parquet files and Apache Iceberg snapshots, with a write-ahead log of
// Arrow IPC segments for durability.
//
// Every setting is a flag and a BSDB_* environment variable (the flag wins);
// with none it serves 127.0.0.1:5433 on ./bsdb-data, trusting the roles
// of its catalog (a fresh one has the superuser "postgres") on loopback.
// Run `bsdb-pg --help` for the list.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // BSDB_PPROF
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // time zones even on machines without zoneinfo

	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/server"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/wal"
)

type setting struct {
	flag, env, def, help string
	val                  *string
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("bsdb-pg", flag.ContinueOnError)
	var settings []*setting
	def := func(name, env, dflt, help string) *string {
		s := &setting{flag: name, env: env, def: dflt, help: help, val: new(string)}
		settings = append(settings, s)
		fs.StringVar(s.val, name, "", fmt.Sprintf("%s (env %s, default %q)", help, env, dflt))
		return s.val
	}
	listen := def("listen", "BSDB_LISTEN", "127.0.0.1:5433", "address to serve the PostgreSQL protocol on")
	dataDir := def("data-dir", "BSDB_DATA_DIR", "./bsdb-data", "local data directory (catalog, tables, WAL, caches)")
	warehouse := def("warehouse", "BSDB_WAREHOUSE", "", "where tables live: a local path or s3://bucket/prefix (default: DATA_DIR/warehouse)")
	walDir := def("wal-dir", "BSDB_WAL_DIR", "", "WAL directory (default: each table's _wal/ on a local warehouse, a temp dir for S3)")
	durability := def("wal-durability", "BSDB_WAL_DURABILITY", "sync", "sync: acknowledge writes after fdatasync; async: after the append, synced in the background")
	syncBatch := def("wal-sync-batch-size", "BSDB_WAL_SYNC_BATCH_SIZE", "10", "async durability: sync every N batches")
	syncInterval := def("wal-sync-interval-ms", "BSDB_WAL_SYNC_INTERVAL_MS", "100", "async durability: sync at least every N ms")
	compactMB := def("wal-compact-mb", "BSDB_WAL_COMPACT_MB", "64", "compact WAL segments larger than this at recovery")
	preallocMB := def("wal-preallocate-mb", "BSDB_WAL_PREALLOCATE_MB", "16", "disk space reserved ahead of each table's active WAL segment, so that a commit's fdatasync carries no size change; 0 = off")
	cacheGB := def("cache-gb", "BSDB_CACHE_GB", "0.25", "buffered data per table (GB) that triggers a commit to Parquet")
	flushMS := def("flush-interval-ms", "BSDB_FLUSH_INTERVAL_MS", "5000", "commit buffered writes at most this long after they arrive")
	copyDirectMB := def("copy-direct-mb", "BSDB_COPY_DIRECT_MB", "16", "an autocommit COPY larger than this (MB of rows) streams into Parquet files, committed in one manifest commit when it ends, instead of the WAL (0 = never)")
	parquetDelta := def("parquet-delta", "BSDB_PARQUET_DELTA", "on", "write integer and time columns that arrive in order (ids, timestamps) with Parquet's DELTA_BINARY_PACKED encoding: smaller files, cheaper COPY; off for Spark on Iceberg before 1.10 with vectorized reads, which cannot decode it")
	maxConc := def("max-concurrency", "BSDB_MAX_CONCURRENCY", "0", "query engine threads (0 = all cores)")
	nativeGB := def("native-cache-gb", "BSDB_NATIVE_CACHE_GB", "4", "disk budget (GB) of the native cache: committed Parquet files of open tables are also loaded into the query engine's own storage (DATA_DIR/cache), where lookups and aggregations run several times faster; kept across restarts; 0 = off")
	nativeReserve := def("native-cache-reserve-gb", "BSDB_NATIVE_CACHE_RESERVE_GB", "", "free disk space (GB) the native cache leaves on its file system: it loads no file that would leave less (default: 1 GB or 5% of the file system, whichever is larger; 0 = none)")
	memLimit := def("memory-limit", "BSDB_MEMORY_LIMIT", "", "query engine memory limit, e.g. 4GB (default: DuckDB's)")
	maxConns := def("max-connections", "BSDB_MAX_CONNECTIONS", "100", "max_connections: connections past their startup packet at once (authenticating or in a session); 3 of them are kept for superusers; sockets beyond 2x this + 32 are refused at accept")
	auth := def("auth", "BSDB_AUTH", "trust", "authentication: trust (loopback only), password, md5 or scram-sha-256")
	users := def("users", "BSDB_USERS", "", "user:password[,user:password...]: roles created at start if missing (LOGIN SUPERUSER), and the password of those without one")
	tlsCert := def("tls-cert", "BSDB_TLS_CERT", "", "TLS certificate file (enables SSL)")
	tlsKey := def("tls-key", "BSDB_TLS_KEY", "", "TLS key file")
	s3Endpoint := def("s3-endpoint", "BSDB_S3_ENDPOINT", "", "S3 endpoint URL (for S3-compatible servers)")
	s3Region := def("s3-region", "BSDB_S3_REGION", "us-east-1", "S3 region")
	s3Key := def("s3-access-key", "BSDB_S3_ACCESS_KEY", "", "S3 access key (default: the AWS environment)")
	s3Secret := def("s3-secret-key", "BSDB_S3_SECRET_KEY", "", "S3 secret key")
	logLevel := def("log-level", "BSDB_LOG_LEVEL", "info", "debug, info, warn or error")
	pprofAddr := def("pprof", "BSDB_PPROF", "", "serve Go pprof profiles on this address (e.g. 127.0.0.1:6060); empty = off")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: bsdb-pg [flags]\n\nA PostgreSQL-compatible server storing tables as Parquet + Apache Iceberg.\nEvery flag is also an environment variable; the flag wins.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	for _, s := range settings {
		if *s.val == "" {
			if v, ok := os.LookupEnv(s.env); ok {
				*s.val = v
			} else {
				*s.val = s.def
			}
		}
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(*logLevel))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "bsdb-pg: "+format+"\n", a...)
		return 1
	}
	dur, err := wal.ParseDurability(*durability)
	if err != nil {
		return fail("%v", err)
	}
	atoi := func(name, v string) int {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bsdb-pg: bad %s %q\n", name, v)
			os.Exit(2)
		}
		return n
	}
	gb, err := strconv.ParseFloat(*cacheGB, 64)
	if err != nil || gb <= 0 {
		return fail("bad cache-gb %q", *cacheGB)
	}
	nativeCache, err := strconv.ParseFloat(*nativeGB, 64)
	if err != nil || nativeCache < 0 {
		return fail("bad native-cache-gb %q", *nativeGB)
	}
	var nativeReserveBytes int64 // 0: the planner's default
	if *nativeReserve != "" {
		gb, err := strconv.ParseFloat(*nativeReserve, 64)
		if err != nil || gb < 0 {
			return fail("bad native-cache-reserve-gb %q", *nativeReserve)
		}
		nativeReserveBytes = int64(gb * (1 << 30))
		if nativeReserveBytes == 0 {
			nativeReserveBytes = -1 // none
		}
	}
	maxConnections := atoi("max-connections", *maxConns)
	if maxConnections < 1 {
		return fail("bad max-connections %q (want at least 1)", *maxConns)
	}
	switch *parquetDelta {
	case "on", "true", "1":
	case "off", "false", "0":
		parquet.SetDeltaEncoding(false)
	default:
		return fail("bad parquet-delta %q (want on or off)", *parquetDelta)
	}
	cfg := planner.Config{
		NativeCacheBytes: int64(nativeCache * (1 << 30)),
		DataDir:          *dataDir,
		Warehouse:        *warehouse,
		WALDir:           *walDir,
		Durability:       dur,
		SyncBatchSize:    atoi("wal-sync-batch-size", *syncBatch),
		SyncInterval:     time.Duration(atoi("wal-sync-interval-ms", *syncInterval)) * time.Millisecond,
		CompactBytes:     int64(atoi("wal-compact-mb", *compactMB)) << 20,
		WALPreallocate:   walPreallocate(atoi("wal-preallocate-mb", *preallocMB)),
		FlushBytes:       int64(gb * (1 << 30)),
		FlushInterval:    time.Duration(atoi("flush-interval-ms", *flushMS)) * time.Millisecond,
		MaxConcurrency:   atoi("max-concurrency", *maxConc),
		MemoryLimit:      *memLimit,
		Logger:           log,
		S3: objstore.S3Config{
			Endpoint: *s3Endpoint, Region: *s3Region, AccessKey: *s3Key, SecretKey: *s3Secret, PathStyle: *s3Endpoint != "",
		},
	}
	cfg.NativeCacheReserveBytes = nativeReserveBytes
	if *pprofAddr != "" {
		go func() {
			if err := http.ListenAndServe(*pprofAddr, nil); err != nil {
				log.Error("pprof listener", "err", err)
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	eng, err := planner.Open(ctx, cfg)
	if err != nil {
		return fail("%v", err)
	}
	authCfg := pgwire.AuthConfig{Method: pgwire.AuthMethod(*auth), Users: map[string]string{}}
	switch authCfg.Method {
	case pgwire.AuthTrust:
		// Trust is for loopback only; anyone else is refused.
		authCfg = pgwire.AuthConfig{Method: pgwire.AuthReject, TrustLoopback: true, Users: authCfg.Users}
	case pgwire.AuthPassword, pgwire.AuthMD5, pgwire.AuthSCRAM:
	default:
		return fail("unknown auth method %q (trust, password, md5, scram-sha-256)", *auth)
	}
	for _, up := range strings.Split(*users, ",") {
		// "user:password", or "user" alone for a role without a password
		// (trust on loopback).
		if u, p, _ := strings.Cut(strings.TrimSpace(up), ":"); u != "" {
			authCfg.Users[u] = p
		}
	}
	backend := server.NewBackend(eng, log)
	// Roles live in the catalog; BSDB_USERS only creates missing ones
	// (LOGIN SUPERUSER) and gives a password to those without one.
	if err := backend.BootstrapUsers(ctx, authCfg.Users); err != nil {
		eng.Close(context.Background())
		return fail("BSDB_USERS: %v", err)
	}
	authCfg.Users = nil
	authCfg.Roles = backend
	pcfg := pgwire.Config{
		Listen:         *listen,
		Auth:           authCfg,
		ServerVersion:  server.ServerVersion,
		Logger:         log,
		MaxConnections: maxConnections,
	}
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fail("TLS: %v", err)
		}
		pcfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if mb := atoi("copy-direct-mb", *copyDirectMB); mb > 0 {
		backend.CopyDirectBytes = int64(mb) << 20
	} else {
		backend.CopyDirectBytes = -1
	}
	srv := pgwire.NewServer(pcfg, backend)
	backend.Server = func() *pgwire.Server { return srv }
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		eng.Close(context.Background())
		return fail("listen: %v", err)
	}
	log.Info("listening on "+ln.Addr().String(), "data_dir", cfg.DataDir, "durability", dur.String(), "version", server.Version)
	fmt.Fprintf(os.Stderr, "listening on %s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-errc:
		if err != nil {
			log.Error("server stopped", "err", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := eng.Close(sctx); err != nil {
		log.Error("closing tables", "err", err)
		return 1
	}
	log.Info("stopped cleanly")
	return 0
}

// walPreallocate maps the MB setting to wal.Options.Preallocate (where 0
// means the default and a negative value off).
func walPreallocate(mb int) int64 {
	if mb <= 0 {
		return -1
	}
	return int64(mb) << 20
}
