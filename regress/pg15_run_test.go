package regress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL 15's own regression suite (pg15/, see pg15/README.md), run the
// way pg_regress runs it. This file is the runner: schedule, environment,
// database, the setup adaptations, psql under a timeout, and the watch over
// the server. pg15_report_test.go measures and reports; pg15_test.go holds
// the tests and the regression gate.

// pg15Dir holds the vendored files: sql/, expected/, data/, parallel_schedule.
const pg15Dir = "pg15"

// pg15Core are the files measured and reported: PostgreSQL's core tests of
// types, tables and queries.
var pg15Core = []string{
	"boolean", "char", "varchar", "text", "int2", "int4", "int8", "float4", "float8", "numeric",
	"strings", "copy", "insert", "create_table", "select", "select_distinct", "select_having",
	"subselect", "union", "case", "join", "aggregates", "window", "limit", "with",
}

// pg15Setup are the files of the schedule that create what the core files
// read; they run first (in schedule order, like every file) and are reported
// apart.
var pg15Setup = map[string]string{
	"test_setup":       "the shared tables (onek, tenk1, int4_tbl, person, emp, road, ...) nearly every file reads",
	"create_misc":      "a_star ... f_star (join, with)",
	"create_index":     "the indexes whose plans EXPLAIN prints (select, select_distinct, subselect, union, join, aggregates, limit)",
	"create_aggregate": "newavg, newsum, newcnt, oldcnt, sum2, aggfns, aggfstr, least_agg, cleast_agg (aggregates)",
}

// pg15Database is the database pg_regress creates; its name is part of no
// output but is what the files connect to.
const pg15Database = "regression"

// pg15Adaptation is one mechanical substitution in a setup file, applied to
// its input and to the psql echo of that input in its expected output, the
// same on every server. Core files are never adapted.
type pg15Adaptation struct {
	File string // setup file (without .sql)
	Why  string
	From string // occurs exactly once in sql/File.sql and in expected/File.out
	To   string // "@abs_srcdir@" is replaced by the source directory of the run
}

// pg15Adaptations is the complete list. Server-side files: bsdb-pg refuses
// COPY to or from a file on the server (PostgreSQL allows it to
// superusers), so the setup's loads run as psql \copy of the same file
// (\copy interpolates no variables, hence the literal path). C functions:
// regress.so is not installed (Debian ships no regress.so) and no core file
// calls them, so they are not created.
var pg15Adaptations = []pg15Adaptation{
	{"test_setup", "server-side file", "COPY onek FROM :'filename';", `\copy onek FROM '@abs_srcdir@/data/onek.data'`},
	{"test_setup", "server-side file", "COPY tenk1 FROM :'filename';", `\copy tenk1 FROM '@abs_srcdir@/data/tenk.data'`},
	{"test_setup", "server-side file", "COPY person FROM :'filename';", `\copy person FROM '@abs_srcdir@/data/person.data'`},
	{"test_setup", "server-side file", "COPY emp FROM :'filename';", `\copy emp FROM '@abs_srcdir@/data/emp.data'`},
	{"test_setup", "server-side file", "COPY student FROM :'filename';", `\copy student FROM '@abs_srcdir@/data/student.data'`},
	{"test_setup", "server-side file", "COPY stud_emp FROM :'filename';", `\copy stud_emp FROM '@abs_srcdir@/data/stud_emp.data'`},
	{"test_setup", "server-side file", "COPY road FROM :'filename';", `\copy road FROM '@abs_srcdir@/data/streets.data'`},
	{"create_index", "server-side file", "COPY slow_emp4000 FROM :'filename';", `\copy slow_emp4000 FROM '@abs_srcdir@/data/rect.data'`},
	{"create_index", "server-side file", "COPY array_index_op_test FROM :'filename';", `\copy array_index_op_test FROM '@abs_srcdir@/data/array.data'`},
	{"test_setup", "C function", "CREATE FUNCTION binary_coercible(oid, oid)\n    RETURNS bool\n    AS :'regresslib', 'binary_coercible'\n    LANGUAGE C STRICT STABLE PARALLEL SAFE;\n",
		"-- not created here: binary_coercible, a C function of regress.so\n"},
	{"test_setup", "C function", "CREATE FUNCTION ttdummy ()\n    RETURNS trigger\n    AS :'regresslib'\n    LANGUAGE C;\n",
		"-- not created here: ttdummy, a C function of regress.so\n"},
	{"test_setup", "C function", "CREATE FUNCTION get_columns_length(oid[])\n    RETURNS int\n    AS :'regresslib'\n    LANGUAGE C STRICT STABLE PARALLEL SAFE;\n",
		"-- not created here: get_columns_length, a C function of regress.so\n"},
}

// adaptPG15 applies the adaptations of file name to its input and to one
// expected output. Each From must occur exactly once in both, so a changed
// vendored file cannot silently leave a substitution unapplied.
func adaptPG15(name, srcdir string, input, expected []byte) ([]byte, []byte, error) {
	for _, a := range pg15Adaptations {
		if a.File != name {
			continue
		}
		to := strings.ReplaceAll(a.To, "@abs_srcdir@", srcdir)
		for _, part := range []struct {
			what string
			b    *[]byte
		}{{"sql/" + name + ".sql", &input}, {"expected/" + name + ".out", &expected}} {
			if n := bytes.Count(*part.b, []byte(a.From)); n != 1 {
				return nil, nil, fmt.Errorf("adaptation %q: found %d times in %s, want exactly 1", firstLine(a.From), n, part.what)
			}
			*part.b = bytes.Replace(*part.b, []byte(a.From), []byte(to), 1)
		}
	}
	return input, expected, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// pg15Schedule returns the setup and core files in the order of
// parallel_schedule (pg_regress runs a group's files concurrently; we run
// them one after the other, in the order they are listed).
func pg15Schedule() ([]string, error) {
	f, err := os.Open(filepath.Join(pg15Dir, "parallel_schedule"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, n := range pg15Core {
		want[n] = true
	}
	for n := range pg15Setup {
		want[n] = true
	}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[0] != "test:" {
			continue
		}
		for _, n := range fields[1:] {
			if want[n] {
				order = append(order, n)
				delete(want, n)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("not in parallel_schedule: %v", want)
	}
	return order, nil
}

// pg15Conn is where psql connects, passed as libpq environment variables as
// pg_regress does (-d names only the database).
type pg15Conn struct {
	Host, Port, User, Password, SSLMode string
}

func pg15ConnFromURL(url string) (pg15Conn, error) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return pg15Conn{}, err
	}
	c := pg15Conn{Host: cfg.Host, Port: fmt.Sprint(cfg.Port), User: cfg.User, Password: cfg.Password}
	if m := regexp.MustCompile(`[?&]sslmode=([a-z-]+)`).FindStringSubmatch(url); m != nil {
		c.SSLMode = m[1]
	}
	return c, nil
}

func (c pg15Conn) url(db string) string {
	u := fmt.Sprintf("postgres://%s@%s:%s/%s", c.User, c.Host, c.Port, db)
	if c.SSLMode != "" {
		u += "?sslmode=" + c.SSLMode
	}
	return u
}

// pg15Env is psql's environment: pg_regress's initialize_environment().
// Inherited PG*, LC_*, LANG, LANGUAGE and PSQLRC are dropped. LANG is pinned
// to C.UTF-8 where pg_regress would inherit it: it only decides psql's
// client encoding ("auto"), the expected files are the same under C and
// C.UTF-8 (checked on PostgreSQL), and the numbers then do not depend on the
// machine.
func pg15Env(c pg15Conn, srcdir, builddir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "LC_") || k == "LANG" || k == "LANGUAGE" || k == "PSQLRC" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PGAPPNAME=pg_regress",
		"PGTZ=America/Los_Angeles",
		"PGDATESTYLE=Postgres, MDY",
		"PGOPTIONS=-c intervalstyle=postgres_verbose",
		"LC_MESSAGES=C",
		"LANG=C.UTF-8",
		"PG_ABS_SRCDIR="+srcdir,
		"PG_ABS_BUILDDIR="+builddir,
		"PG_LIBDIR="+builddir, // pg_regress's --dlpath; regress.so is not there (see pg15Adaptations)
		"PG_DLSUFFIX=.so",
		"PGHOST="+c.Host,
		"PGPORT="+c.Port,
		"PGUSER="+c.User,
	)
	if c.Password != "" {
		env = append(env, "PGPASSWORD="+c.Password)
	}
	if c.SSLMode != "" {
		env = append(env, "PGSSLMODE="+c.SSLMode)
	}
	return env
}

// pg15Target is the server under test.
type pg15Target struct {
	Name string // "bsdb-pg" or "postgres": the results subdirectory
	Conn pg15Conn
	// Restart replaces a dead or stuck server by a fresh process on the same
	// data (nil: it cannot be restarted, a dead server ends the run).
	Restart func()
	// Log returns everything the server has written so far (nil: unknown).
	Log func() string
}

// pg15Runner runs the schedule against one target.
type pg15Runner struct {
	psql     string
	target   pg15Target
	srcdir   string // abs_srcdir: a world-readable copy of pg15/data
	builddir string // abs_builddir: scratch files of COPY TO, writable by the server
	outDir   string // results/pg15/<target>: outputs, diffs, server logs
	timeout  time.Duration
	env      []string
	diffs    bytes.Buffer // regression.diffs
}

// newPG15Runner stages abs_srcdir and abs_builddir in a temporary directory
// that the server's own user can read and write: the reference PostgreSQL
// runs as an unprivileged user (internal/pgref) and reads data/agg.data
// (aggregates) and writes results/*.csv (copy) itself, wherever the
// checkout is. stage is removed by the caller.
func newPG15Runner(psql string, target pg15Target, stage string, timeout time.Duration) (*pg15Runner, error) {
	r := &pg15Runner{
		psql:     psql,
		target:   target,
		srcdir:   filepath.Join(stage, "src"),
		builddir: filepath.Join(stage, "build"),
		outDir:   filepath.Join(resultsDir, "pg15", target.Name),
		timeout:  timeout,
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, err
	}
	if err := copyTree(filepath.Join(pg15Dir, "data"), filepath.Join(r.srcdir, "data")); err != nil {
		return nil, err
	}
	for _, d := range []string{r.builddir, filepath.Join(r.builddir, "results")} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			return nil, err
		}
		if err := os.Chmod(d, 0o777); err != nil { // past the umask
			return nil, err
		}
	}
	if err := os.RemoveAll(r.outDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		return nil, err
	}
	r.env = pg15Env(target.Conn, r.srcdir, r.builddir)
	return r, nil
}

// copyTree copies the regular files of src into dst (created 0755, files
// 0644).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			return os.Chmod(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
}

// pg15Settings are what pg_regress's ALTER DATABASE ... SET and its
// environment give every session of the regression database.
var pg15Settings = [][2]string{
	{"lc_messages", "C"}, {"lc_monetary", "C"}, {"lc_numeric", "C"}, {"lc_time", "C"},
	{"bytea_output", "hex"}, {"timezone_abbreviations", "Default"},
	{"TimeZone", "America/Los_Angeles"}, {"DateStyle", "Postgres, MDY"}, {"IntervalStyle", "postgres_verbose"},
}

// pg15DB is how the regression database differs from pg_regress's.
type pg15DB struct {
	Refused  []string // pg_regress's statements the server refused
	Settings []string // settings a session of the database gets that differ
}

func (d pg15DB) notes() []string { return append(slices.Clone(d.Refused), d.Settings...) }

// createDatabase creates the regression database with pg_regress's
// statements (drop_database_if_exists, create_database), each in its own
// psql -c so that a refusal is attributed to its statement, then checks the
// settings a session of it gets (SHOW). An error means the database cannot
// be used.
func (r *pg15Runner) createDatabase() (pg15DB, error) {
	db := `"` + pg15Database + `"`
	stmts := []string{
		"DROP DATABASE IF EXISTS " + db,
		"CREATE DATABASE " + db + " TEMPLATE=template0",
	}
	for _, s := range pg15Settings[:6] {
		stmts = append(stmts, fmt.Sprintf("ALTER DATABASE %s SET %s TO '%s'", db, s[0], s[1]))
	}
	var d pg15DB
	for _, s := range stmts {
		args := []string{"-X", "-q", "-d", "postgres", "-c", "SET client_min_messages = warning", "-c", s}
		out, err := r.admin(args...)
		if err != nil || strings.Contains(out, "ERROR:") {
			if strings.HasPrefix(s, "CREATE DATABASE") {
				return d, fmt.Errorf("%s: %v\n%s", s, err, out)
			}
			d.Refused = append(d.Refused, fmt.Sprintf("`%s` refused: %s", s, strings.TrimSpace(out)))
		}
	}
	args := []string{"-X", "-q", "-A", "-t", "-d", pg15Database}
	for _, s := range pg15Settings {
		args = append(args, "-c", "SHOW "+s[0])
	}
	out, err := r.admin(args...)
	if err != nil {
		return d, fmt.Errorf("connect to %s: %v\n%s", pg15Database, err, out)
	}
	got := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, s := range pg15Settings {
		v := "(no answer)"
		if i < len(got) {
			v = got[i]
		}
		if v != s[1] {
			d.Settings = append(d.Settings, fmt.Sprintf("%s is `%s`, pg_regress's is `%s`", s[0], v, s[1]))
		}
	}
	return d, nil
}

func (r *pg15Runner) admin(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.psql, args...)
	cmd.Env = r.env
	cmd.Dir = r.builddir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pg15File is one file's run.
type pg15File struct {
	Name     string
	Setup    bool
	Input    []byte            // what psql read (adapted for setup files)
	Expected map[string][]byte // NAME.out and its alternatives NAME_N.out (adapted)
	Output   []byte
	Failure  string // the file did not run to its end: timeout, lost server
	Elapsed  time.Duration
}

// loadPG15File reads a file's input and expected outputs and applies its
// adaptations.
func loadPG15File(name, srcdir string) (*pg15File, error) {
	f := &pg15File{Name: name, Expected: map[string][]byte{}}
	_, f.Setup = pg15Setup[name]
	var err error
	if f.Input, err = os.ReadFile(filepath.Join(pg15Dir, "sql", name+".sql")); err != nil {
		return nil, err
	}
	alts, _ := filepath.Glob(filepath.Join(pg15Dir, "expected", name+"_[0-9].out"))
	for _, p := range append([]string{filepath.Join(pg15Dir, "expected", name+".out")}, alts...) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f.Expected[filepath.Base(p)] = b
	}
	if f.Setup {
		// Setup files have no alternative expected outputs.
		base := name + ".out"
		if f.Input, f.Expected[base], err = adaptPG15(name, srcdir, f.Input, f.Expected[base]); err != nil {
			return nil, err
		}
	} else {
		for _, a := range pg15Adaptations {
			if a.File == name {
				return nil, fmt.Errorf("%s is a core file: core files run unmodified", name)
			}
		}
	}
	return f, nil
}

// run runs the file through psql exactly as pg_regress's psql_start_test:
//
//	psql -X -a -q -d regression -v HIDE_TABLEAM=on -v HIDE_TOAST_COMPRESSION=on < NAME.sql > NAME.out 2>&1
//
// bounded by the runner's timeout (SIGINT: psql sends a CancelRequest and a
// script stops; SIGKILL 10 s later). It then checks that the server still
// answers; a timeout or a server that died or stopped answering is the
// file's failure, and the server is restarted for the next file.
func (r *pg15Runner) run(f *pg15File) {
	logStart := 0
	if r.target.Log != nil {
		logStart = len(r.target.Log())
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.psql, "-X", "-a", "-q", "-d", pg15Database,
		"-v", "HIDE_TABLEAM=on", "-v", "HIDE_TOAST_COMPRESSION=on")
	cmd.Env = r.env
	cmd.Dir = r.builddir
	cmd.Stdin = bytes.NewReader(f.Input)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	f.Elapsed = time.Since(start)
	f.Output = out.Bytes()

	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		f.Failure = fmt.Sprintf("timed out after %v", r.timeout)
	case err != nil && !errors.As(err, &ee):
		f.Failure = fmt.Sprintf("psql: %v", err)
	case ee != nil && ee.ExitCode() == 2:
		f.Failure = "psql lost the connection (exit 2)"
	}
	if f.Failure == "" {
		if perr := r.probe(); perr != nil {
			f.Failure = fmt.Sprintf("the server no longer answers: %v", perr)
		}
	}
	if f.Failure == "" {
		return
	}
	if r.target.Log != nil {
		if log := r.target.Log()[logStart:]; log != "" {
			p := filepath.Join(r.outDir, f.Name+".server.log")
			_ = os.WriteFile(p, []byte(log), 0o644)
			f.Failure += "; server log: " + p
		} else {
			f.Failure += "; the server logged nothing"
		}
	}
	if r.target.Restart != nil {
		r.target.Restart()
		f.Failure += "; server restarted"
	}
}

// probe connects to the regression database and runs SELECT 1.
func (r *pg15Runner) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg, err := pgconn.ParseConfig(r.target.Conn.url(pg15Database))
	if err != nil {
		return err
	}
	if r.target.Conn.Password != "" {
		cfg.Password = r.target.Conn.Password
	}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "SELECT 1").ReadAll()
	return err
}

// runAll creates the database and runs the schedule. Results are in
// schedule order.
func (r *pg15Runner) runAll(logf func(string, ...any)) (files []*pg15File, db pg15DB, err error) {
	order, err := pg15Schedule()
	if err != nil {
		return nil, db, err
	}
	if db, err = r.createDatabase(); err != nil {
		return nil, db, err
	}
	for _, name := range order {
		f, err := loadPG15File(name, r.srcdir)
		if err != nil {
			return files, db, err
		}
		r.run(f)
		if f.Failure != "" && r.target.Restart == nil {
			if perr := r.probe(); perr != nil {
				return append(files, f), db, fmt.Errorf("%s: %s, and the server cannot be restarted: %v", name, f.Failure, perr)
			}
		}
		logf("%-16s %6.1fs %s", name, f.Elapsed.Seconds(), f.Failure)
		files = append(files, f)
	}
	return files, db, nil
}

// save writes the file's output, its adapted input and expected output (if
// adapted), and its diff against the closest expected file; the diff is
// also appended to regression.diffs, and its first hunk kept in m.
func (r *pg15Runner) save(f *pg15File, m *pg15Measure) error {
	act := filepath.Join(r.outDir, f.Name+".out")
	if err := os.WriteFile(act, f.Output, 0o644); err != nil {
		return err
	}
	exp := filepath.Join(pg15Dir, "expected", m.Expected)
	if f.Setup && slices.ContainsFunc(pg15Adaptations, func(a pg15Adaptation) bool { return a.File == f.Name }) {
		dir := filepath.Join(r.outDir, "adapted")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		exp = filepath.Join(dir, m.Expected)
		if err := os.WriteFile(exp, f.Expected[m.Expected], 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name+".sql"), f.Input, 0o644); err != nil {
			return err
		}
	}
	if m.Exact {
		return nil
	}
	d := unifiedDiff(exp, act, f.Expected[m.Expected], f.Output)
	// The staged directories change from run to run: the report names
	// them as the psql variables do.
	stable := strings.NewReplacer(r.srcdir, "@abs_srcdir@", r.builddir, "@abs_builddir@")
	m.FirstDiff = stable.Replace(firstHunk(d, 16))
	m.AddedErrors = addedErrors(stable.Replace(d))
	if err := os.WriteFile(filepath.Join(r.outDir, f.Name+".diff"), []byte(d), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(&r.diffs, "diff -U3 %s %s\n%s", exp, act, d)
	return nil
}

func (r *pg15Runner) writeDiffs() error {
	return os.WriteFile(filepath.Join(r.outDir, "regression.diffs"), r.diffs.Bytes(), 0o644)
}
