package server

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/wal"
)

// ServerVersion is what we report as server_version (and server_version_num
// 150018, version()): the PostgreSQL release whose catalogs, functions and
// behaviour we reproduce, so that version-checking clients (pg_dump 15,
// drivers) accept us.
const ServerVersion = "15.18"

// Version is bsdb-pg's own version.
const Version = "0.1.0"

type guc struct {
	name     string // canonical spelling
	def      string
	reported bool // sent as ParameterStatus when it changes
	readOnly bool
	desc     string
	check    func(string) (string, error) // normalizes or rejects a value
	// meta is PostgreSQL's description of the parameter (nil: not one of
	// pg_settings', e.g. is_superuser, or a custom one).
	meta *pgSetting
}

var gucs = map[string]*guc{}

func defGUC(g *guc) { gucs[strings.ToLower(g.name)] = g }

func init() {
	for _, g := range []*guc{
		{name: "application_name", def: "", reported: true, desc: "Sets the application name to be reported in statistics and logs."},
		{name: "client_encoding", def: "UTF8", reported: true, desc: "Sets the client's character set encoding.", check: checkEncoding},
		{name: "server_encoding", def: "UTF8", reported: true, readOnly: true, desc: "Shows the server (database) character set encoding."},
		{name: "DateStyle", def: "ISO, MDY", reported: true, desc: "Sets the display format for date and time values.", check: checkDateStyle},
		{name: "IntervalStyle", def: "postgres", reported: true, desc: "Sets the display format for interval values.", check: oneOf("postgres", "postgres_verbose", "sql_standard", "iso_8601")},
		{name: "TimeZone", def: "UTC", reported: true, desc: "Sets the time zone for displaying and interpreting time stamps.", check: checkTimeZone},
		{name: "integer_datetimes", def: "on", reported: true, readOnly: true, desc: "Shows whether datetimes are integer based."},
		{name: "standard_conforming_strings", def: "on", reported: true, desc: "Causes '...' strings to treat backslashes literally.", check: oneOf("on")},
		{name: "is_superuser", def: "on", reported: true, readOnly: true, desc: "Shows whether the current user is a superuser."},
		{name: "session_authorization", def: "", reported: true, readOnly: true, desc: "Sets the session user name."},
		// role and session_authorization change only through SET ROLE / SET
		// SESSION AUTHORIZATION (setrole.go), which check privileges.
		{name: "role", def: "none", readOnly: true, desc: "Sets the current role."},
		{name: "server_version", def: ServerVersion, reported: true, readOnly: true, desc: "Shows the server version."},
		{name: "server_version_num", def: "150018", readOnly: true, desc: "Shows the server version as an integer."},
		{name: "extra_float_digits", def: "1", desc: "Sets the number of digits displayed for floating-point values.", check: intRange("extra_float_digits", -15, 3)},
		{name: "search_path", def: `"$user", public`, desc: "Sets the schema search order for names that are not schema-qualified."},
		{name: "statement_timeout", def: "0", desc: "Sets the maximum allowed duration of any statement.", check: checkDuration},
		{name: "lock_timeout", def: "0", desc: "Sets the maximum allowed duration of any wait for a lock.", check: checkDuration},
		{name: "idle_in_transaction_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when in a transaction.", check: checkDuration},
		{name: "synchronous_commit", def: "on", desc: "Sets the current transaction's synchronization level.", check: oneOf("on", "off", "local", "remote_write", "remote_apply")},
		{name: "client_min_messages", def: "notice", desc: "Sets the message levels that are sent to the client.", check: oneOf("debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error")},
		{name: "bytea_output", def: "hex", desc: "Sets the output format for bytea.", check: oneOf("hex", "escape")},
		{name: "default_transaction_isolation", def: "read committed", desc: "Sets the transaction isolation level of each new transaction."},
		{name: "transaction_isolation", def: "read committed", desc: "Sets the current transaction's isolation level."},
		{name: "default_transaction_read_only", def: "off", desc: "Sets the default read-only status of new transactions."},
		{name: "transaction_read_only", def: "off", desc: "Sets the current transaction's read-only status."},
		{name: "lc_messages", def: "C", desc: "Sets the language in which messages are displayed."},
		{name: "lc_monetary", def: "C", desc: "Sets the locale for formatting monetary amounts."},
		{name: "lc_numeric", def: "C", desc: "Sets the locale for formatting numbers."},
		{name: "lc_time", def: "C", desc: "Sets the locale for formatting date and time values."},
		{name: "lc_collate", def: "C", readOnly: true, desc: "Shows the collation order locale."},
		{name: "lc_ctype", def: "C", readOnly: true, desc: "Shows the character classification and case conversion locale."},
		{name: "max_identifier_length", def: "63", readOnly: true, desc: "Shows the maximum identifier length."},
		{name: "max_connections", def: "100", readOnly: true, desc: "Sets the maximum number of concurrent connections."},
		{name: "superuser_reserved_connections", def: "3", readOnly: true, desc: "Sets the number of connection slots reserved for superusers."},
		{name: "block_size", def: "8192", readOnly: true, desc: "Shows the size of a disk block."},
		{name: "work_mem", def: "4MB", desc: "Sets the maximum memory to be used for query workspaces."},
		{name: "maintenance_work_mem", def: "64MB", desc: "Sets the maximum memory to be used for maintenance operations."},
		{name: "row_security", def: "on", desc: "Enable row security.", check: checkBool("row_security")},
		{name: "jit", def: "off", desc: "Allow JIT compilation.", check: checkBool("jit")},
		{name: "geqo", def: "on", desc: "Enables genetic query optimization.", check: checkBool("geqo")},
		{name: "enable_seqscan", def: "on", desc: "Enables the planner's use of sequential-scan plans.", check: checkBool("enable_seqscan")},
		{name: "timezone_abbreviations", def: "Default", desc: "Selects a file of time zone abbreviations."},
		{name: "default_with_oids", def: "off", desc: "WITH OIDS is no longer supported.", check: checkBool("default_with_oids")},
		{name: "escape_string_warning", def: "on", desc: "Warn about backslash escapes in ordinary string literals.", check: checkBool("escape_string_warning")},
		{name: "xmloption", def: "content", desc: "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments."},
		{name: "password_encryption", def: "scram-sha-256", desc: "Chooses the algorithm for encrypting passwords."},
		{name: "cursor_tuple_fraction", def: "0.1", desc: "Sets the planner's estimate of the fraction of a cursor's rows that will be retrieved."},
		// Accepted and shown, without effect here: what pg_dump's and
		// pg_restore's preambles, ORMs and PostgreSQL's regression scripts
		// set. They tune PostgreSQL's own planner, storage and procedural
		// languages, which this server does not have.
		{name: "check_function_bodies", def: "on", desc: "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE.", check: checkBool("check_function_bodies")},
		{name: "default_tablespace", def: "", desc: "Sets the default tablespace to create tables and indexes in."},
		{name: "temp_tablespaces", def: "", desc: "Sets the tablespace(s) to use for temporary tables and sort files."},
		{name: "default_table_access_method", def: "heap", desc: "Sets the default table access method for new tables."},
		{name: "default_toast_compression", def: "pglz", desc: "Sets the default compression method for compressible values.", check: oneOf("pglz", "lz4")},
		{name: "idle_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when not in a transaction.", check: checkDuration},
		{name: "session_replication_role", def: "origin", desc: "Sets the session's behavior for triggers and rewrite rules.", check: oneOf("origin", "replica", "local")},
		{name: "array_nulls", def: "on", desc: "Enable input of NULL elements in arrays.", check: checkBool("array_nulls")},
		{name: "backslash_quote", def: "safe_encoding", desc: "Sets whether \"\\'\" is allowed in string literals.", check: oneOf("safe_encoding", "on", "off")},
		{name: "quote_all_identifiers", def: "off", desc: "When generating SQL fragments, quote all identifiers.", check: checkBool("quote_all_identifiers")},
		{name: "transform_null_equals", def: "off", desc: "Treats \"expr=NULL\" as \"expr IS NULL\".", check: checkBool("transform_null_equals")},
		{name: "lo_compat_privileges", def: "off", desc: "Enables backward compatibility mode for privilege checks on large objects.", check: checkBool("lo_compat_privileges")},
		{name: "plan_cache_mode", def: "auto", desc: "Controls the planner's selection of custom or generic plan.", check: oneOf("auto", "force_generic_plan", "force_custom_plan")},
		{name: "constraint_exclusion", def: "partition", desc: "Enables the planner to use constraints to optimize queries.", check: oneOf("partition", "on", "off")},
		{name: "force_parallel_mode", def: "off", desc: "Forces use of parallel query facilities.", check: oneOf("off", "on", "regress")},
		{name: "max_parallel_workers_per_gather", def: "2", desc: "Sets the maximum number of parallel processes per executor node.", check: intRange("max_parallel_workers_per_gather", 0, 1024)},
		{name: "from_collapse_limit", def: "8", desc: "Sets the FROM-list size beyond which subqueries are not collapsed.", check: intRange("from_collapse_limit", 1, 2147483647)},
		{name: "join_collapse_limit", def: "8", desc: "Sets the FROM-list size beyond which JOIN constructs are not flattened.", check: intRange("join_collapse_limit", 1, 2147483647)},
		{name: "default_statistics_target", def: "100", desc: "Sets the default statistics target.", check: intRange("default_statistics_target", 1, 10000)},
		{name: "random_page_cost", def: "4", desc: "Sets the planner's estimate of the cost of a nonsequentially fetched disk page."},
		{name: "seq_page_cost", def: "1", desc: "Sets the planner's estimate of the cost of a sequentially fetched disk page."},
		{name: "cpu_tuple_cost", def: "0.01", desc: "Sets the planner's estimate of the cost of processing each tuple (row)."},
		{name: "parallel_setup_cost", def: "1000", desc: "Sets the planner's estimate of the cost of starting up worker processes for parallel query."},
		{name: "parallel_tuple_cost", def: "0.1", desc: "Sets the planner's estimate of the cost of passing each tuple (row) from worker to leader backend."},
		{name: "effective_cache_size", def: "4GB", desc: "Sets the planner's assumption about the total size of the data caches."},
		{name: "hash_mem_multiplier", def: "2", desc: "Multiple of work_mem to use for hash tables."},
		{name: "enable_bitmapscan", def: "on", desc: "Enables the planner's use of bitmap-scan plans.", check: checkBool("enable_bitmapscan")},
		{name: "enable_gathermerge", def: "on", desc: "Enables the planner's use of gather merge plans.", check: checkBool("enable_gathermerge")},
		{name: "enable_hashagg", def: "on", desc: "Enables the planner's use of hashed aggregation plans.", check: checkBool("enable_hashagg")},
		{name: "enable_hashjoin", def: "on", desc: "Enables the planner's use of hash join plans.", check: checkBool("enable_hashjoin")},
		{name: "enable_incremental_sort", def: "on", desc: "Enables the planner's use of incremental sort steps.", check: checkBool("enable_incremental_sort")},
		{name: "enable_indexonlyscan", def: "on", desc: "Enables the planner's use of index-only-scan plans.", check: checkBool("enable_indexonlyscan")},
		{name: "enable_indexscan", def: "on", desc: "Enables the planner's use of index-scan plans.", check: checkBool("enable_indexscan")},
		{name: "enable_material", def: "on", desc: "Enables the planner's use of materialization.", check: checkBool("enable_material")},
		{name: "enable_memoize", def: "on", desc: "Enables the planner's use of memoization.", check: checkBool("enable_memoize")},
		{name: "enable_mergejoin", def: "on", desc: "Enables the planner's use of merge join plans.", check: checkBool("enable_mergejoin")},
		{name: "enable_nestloop", def: "on", desc: "Enables the planner's use of nested-loop join plans.", check: checkBool("enable_nestloop")},
		{name: "enable_parallel_append", def: "on", desc: "Enables the planner's use of parallel append plans.", check: checkBool("enable_parallel_append")},
		{name: "enable_parallel_hash", def: "on", desc: "Enables the planner's use of parallel hash plans.", check: checkBool("enable_parallel_hash")},
		{name: "enable_partition_pruning", def: "on", desc: "Enables plan-time and execution-time partition pruning.", check: checkBool("enable_partition_pruning")},
		{name: "enable_partitionwise_aggregate", def: "off", desc: "Enables partitionwise aggregation and grouping.", check: checkBool("enable_partitionwise_aggregate")},
		{name: "enable_partitionwise_join", def: "off", desc: "Enables partitionwise join.", check: checkBool("enable_partitionwise_join")},
		{name: "enable_sort", def: "on", desc: "Enables the planner's use of explicit sort steps.", check: checkBool("enable_sort")},
		{name: "synchronize_seqscans", def: "on", desc: "Enable synchronized sequential scans.", check: checkBool("synchronize_seqscans")},
		{name: "enable_tidscan", def: "on", desc: "Enables the planner's use of TID scan plans.", check: checkBool("enable_tidscan")},
	} {
		defGUC(g)
	}
	mergePGSettings()
}

// checkBool is PostgreSQL's parse_bool for a boolean setting: on, off,
// true, false, yes, no, 1, 0 and their unique prefixes, shown as on/off.
func checkBool(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		l := strings.ToLower(strings.TrimSpace(v))
		switch {
		case l == "1" || l != "" && (strings.HasPrefix("true", l) || strings.HasPrefix("yes", l)) || len(l) >= 2 && strings.HasPrefix("on", l):
			return "on", nil
		case l == "0" || l != "" && (strings.HasPrefix("false", l) || strings.HasPrefix("no", l)) || len(l) >= 2 && strings.HasPrefix("off", l):
			return "off", nil
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
	}
}

func oneOf(vals ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		l := strings.ToLower(strings.TrimSpace(v))
		if l == "true" || l == "yes" || l == "1" {
			l = "on"
		}
		if l == "false" || l == "no" || l == "0" {
			l = "off"
		}
		for _, x := range vals {
			if l == x {
				return x, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter: \"%s\"", v)
	}
}

func intRange(name string, lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
		}
		if n < lo || n > hi {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter \"%s\" (%d .. %d)", n, name, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// checkEncoding accepts the names PostgreSQL takes for UTF8 (and
// SQL_ASCII): as its clean_encoding_name, it ignores case and every
// character that is no letter or digit, so 'utf-8', UTF_8 and even
// asyncpg's quoted "'utf-8'" are UTF8.
func checkEncoding(v string) (string, error) {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return -1
	}, v)
	switch clean {
	case "utf8", "unicode":
		return "UTF8", nil
	case "sqlascii":
		return "SQL_ASCII", nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"client_encoding\": \"%s\"", v).WithDetail("only UTF8 is supported")
}

func checkDateStyle(v string) (string, error) {
	st := pgtypes.DefaultSettings()
	if err := st.SetDateStyle(v); err != nil {
		return "", err
	}
	return st.DateStyleString(), nil
}

func checkTimeZone(v string) (string, error) {
	if _, err := pgtypes.LoadZone(strings.TrimSpace(v)); err != nil {
		return "", err
	}
	return strings.TrimSpace(v), nil
}

func checkDuration(v string) (string, error) {
	if _, err := parseDurationMS(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(v), nil
}

// parseDurationMS parses a time GUC: a number of ms or a number with a unit.
func parseDurationMS(v string) (time.Duration, error) {
	s := strings.TrimSpace(strings.ToLower(v))
	num := strings.TrimRightFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r == ' ' })
	unit := strings.TrimSpace(s[len(num):])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"statement_timeout\": \"%s\"", v)
	}
	mult := time.Millisecond
	switch unit {
	case "", "ms":
	case "us":
		mult = time.Microsecond
	case "s":
		mult = time.Second
	case "min":
		mult = time.Minute
	case "h":
		mult = time.Hour
	case "d":
		mult = 24 * time.Hour
	default:
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"statement_timeout\": \"%s\"", v).WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
	}
	return time.Duration(f * float64(mult)), nil
}

// settings is a session's configuration parameters.
type settings struct {
	vals map[string]string // lower-case name -> value
	// base is what RESET returns to: the built-in defaults overridden by
	// the server's configuration and the session's startup packet, as
	// PostgreSQL's reset_val (nil: the built-in defaults).
	base map[string]string
	// source says where a value that is not the default came from, as
	// pg_settings.source: "client" (the startup packet), "session" (SET).
	source map[string]string
	// derived
	types   pgtypes.Settings
	timeout time.Duration
}

// newSettings makes a session's settings: the built-in defaults, with the
// server's own defaults (lower-case name -> value, e.g. synchronous_commit
// from BSDB_WAL_DURABILITY) over them.
func newSettings(user string, serverDefaults map[string]string) *settings {
	s := &settings{vals: map[string]string{}}
	for k, g := range gucs {
		s.vals[k] = g.def
	}
	for k, v := range serverDefaults {
		s.vals[k] = v
	}
	s.vals["session_authorization"] = user
	s.derive()
	s.markBase()
	return s
}

// markBase makes the current values what RESET returns to (called once the
// startup packet's settings are applied).
func (s *settings) markBase() {
	for k, src := range s.source {
		if src == "session" {
			s.source[k] = "client" // from the startup packet
		}
	}
	s.base = make(map[string]string, len(s.vals))
	for k, v := range s.vals {
		s.base[k] = v
	}
}

func (s *settings) get(name string) (string, *guc, error) {
	k := strings.ToLower(name)
	g, ok := gucs[k]
	if !ok {
		if v, ok := s.vals[k]; ok && strings.Contains(k, ".") {
			return v, &guc{name: name}, nil
		}
		return "", nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	return s.vals[k], g, nil
}

// set validates and stores a value; it returns the guc (for reporting).
func (s *settings) set(name, value string, startup bool) (*guc, error) {
	k := strings.ToLower(name)
	g, ok := gucs[k]
	if !ok {
		if strings.Contains(k, ".") { // custom "class.name" parameters are free
			s.vals[k] = value
			return &guc{name: name}, nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if g.meta != nil && !startup && (g.readOnly || g.meta.context != "user") {
		if err := g.meta.settable(s.vals["is_superuser"] == "on"); err != nil {
			return nil, err
		}
	}
	if g.readOnly && !startup {
		return nil, pgerr.New("55P02", "parameter \"%s\" cannot be changed", g.name)
	}
	if g.check != nil {
		v, err := g.check(value)
		if err != nil {
			return nil, err
		}
		value = v
	}
	s.vals[k] = value
	if s.source == nil {
		s.source = map[string]string{}
	}
	if startup {
		s.source[k] = "client"
	} else {
		s.source[k] = "session"
	}
	s.derive()
	return g, nil
}

func (s *settings) reset(name string) (*guc, error) {
	k := strings.ToLower(name)
	g, ok := gucs[k]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if v, ok := s.base[k]; ok {
		s.vals[k] = v
	} else {
		s.vals[k] = g.def
	}
	if s.source[k] == "session" {
		delete(s.source, k)
	}
	s.derive()
	return g, nil
}

func (s *settings) derive() {
	t := pgtypes.DefaultSettings()
	_ = t.SetDateStyle(s.vals["datestyle"])
	if err := t.SetTimeZone(s.vals["timezone"]); err != nil {
		t.TimeZone, t.TimeZoneName = time.UTC, "UTC"
	}
	if is, err := pgtypes.ParseIntervalStyle(s.vals["intervalstyle"]); err == nil {
		t.IntervalStyle = is
	}
	t.ExtraFloatDigits, _ = strconv.Atoi(s.vals["extra_float_digits"])
	if s.vals["bytea_output"] == "escape" {
		t.ByteaOutput = pgtypes.ByteaEscape
	}
	s.types = *t
	s.timeout, _ = parseDurationMS(s.vals["statement_timeout"])
}

func (s *settings) durability() wal.Durability {
	if s.vals["synchronous_commit"] == "off" {
		return wal.DurabilityAsync
	}
	return wal.DurabilitySync
}

func (s *settings) searchPath() []string {
	var out []string
	for _, p := range strings.Split(s.vals["search_path"], ",") {
		p = strings.TrimSpace(p)
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		if p == "" || p == "$user" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// pathEntry is one entry of search_path: a schema name, or "$user".
type pathEntry struct {
	name string
	user bool
}

// searchPathEntries lists search_path's entries in order, "$user" kept as
// such (the session resolves it to its current role).
func (s *settings) searchPathEntries() []pathEntry {
	var out []pathEntry
	for _, p := range strings.Split(s.vals["search_path"], ",") {
		p = strings.TrimSpace(p)
		quoted := strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2
		if quoted {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		switch {
		case p == "":
		case p == "$user":
			out = append(out, pathEntry{user: true})
		default:
			out = append(out, pathEntry{name: p})
		}
	}
	return out
}

// sortedNames lists the settings for SHOW ALL.
func sortedNames() []*guc {
	out := make([]*guc, 0, len(gucs))
	for _, g := range gucs {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// messageLevels orders client_min_messages values.
var messageLevels = map[string]int{
	"debug5": 1, "debug4": 2, "debug3": 3, "debug2": 4, "debug1": 5, "debug": 5,
	"log": 6, "info": 7, "notice": 8, "warning": 9, "error": 10,
}

// wantsMessage reports whether a notice of this severity reaches the
// client under client_min_messages (INFO is always sent, as in PostgreSQL).
func (s *settings) wantsMessage(severity string) bool {
	sev := strings.ToLower(severity)
	if sev == "" {
		sev = "notice"
	}
	if sev == "info" {
		return true
	}
	return messageLevels[sev] >= messageLevels[s.vals["client_min_messages"]]
}
