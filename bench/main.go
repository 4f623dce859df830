package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config is one benchmark run. Full() and Smoke() are the two presets.
type Config struct {
	Seed         int64
	CopyRows     []int64 // figure 1 sizes; the last one is the table of figures 3 and 5
	InsertConns  []int   // figure 2 connection counts
	InsertDur    time.Duration
	FsyncDur     time.Duration
	Runs         int // alternating runs per system (A B A B)
	QueryReps    int // timed repetitions per query and system
	FreshProbes  int
	RestartWALMB int    // figure 6; 0 skips it
	DMLRows      int64  // figure 7's table; 0 skips figure 7
	UpdateConns  []int  // figure 7's UPDATE connection counts
	Only         string // "restart": figure 6 alone; "copy": figures 1 and 5 alone; "" = every figure
	WorkDir      string
	ServerBin    string
	ProfileDir   string // CPU + allocation profiles of bsdb-pg; "" = none
	StartTimeout time.Duration
	Out          io.Writer // value and ratio lines
}

// Full is the complete comparison (`make bench-compare`, < 20 min on 2 cores).
func Full() Config {
	return Config{Seed: 1, CopyRows: []int64{1_000_000, 10_000_000}, InsertConns: []int{1, 8, 64},
		InsertDur: 15 * time.Second, FsyncDur: 3 * time.Second, Runs: 2, QueryReps: 5, FreshProbes: 200,
		RestartWALMB: 1024, DMLRows: 10_000_000, UpdateConns: []int{1, 64}, StartTimeout: 10 * time.Minute}
}

// Smoke checks the harness end to end in about a minute (`make bench-smoke`).
func Smoke() Config {
	return Config{Seed: 1, CopyRows: []int64{2_000, 5_000}, InsertConns: []int{1, 8, 64},
		InsertDur: 2 * time.Second, FsyncDur: time.Second, Runs: 2, QueryReps: 2, FreshProbes: 20,
		RestartWALMB: 2, DMLRows: 20_000, UpdateConns: []int{1, 64}, StartTimeout: 2 * time.Minute}
}

func (c *Config) path(name string) string { return filepath.Join(c.WorkDir, name) }

var logOut io.Writer = os.Stderr

func logf(format string, args ...any) {
	fmt.Fprintf(logOut, "bench: "+format+"\n", args...)
}

func main() {
	smoke := flag.Bool("smoke", false, "tiny sizes: check the harness end to end (about 1 minute)")
	bin := flag.String("server", "bin/bsdb-pg", "the bsdb-pg binary (make build)")
	out := flag.String("out", "bench/RESULTS.md", "write the Markdown table here (\"\" = stdout only)")
	work := flag.String("workdir", "", "directory for data of every system (default: a new temp dir, removed at the end)")
	prof := flag.String("profile", "", "write bsdb-pg CPU and allocation profiles into this directory")
	seed := flag.Int64("seed", 1, "data generator seed")
	walMB := flag.Int("restart-wal-mb", -1, "figure 6: MB of unflushed WAL to replay (default 1024, smoke 2; 0 skips)")
	copyRows := flag.String("copy-rows", "", "figure 1 sizes, comma-separated (default 1000000,10000000)")
	runs := flag.Int("runs", 0, "alternating runs per system (default 2)")
	insertDur := flag.Duration("insert-duration", 0, "figure 2 duration per connection count (default 15s)")
	only := flag.String("only", "", `"restart": figure 6 alone (profiling WAL replay); "copy": figures 1 and 5; "analytics": figure 3 against DuckDB only (no PostgreSQL); "insert": figures 2 and 4; "dml": figure 7 (UPDATE and DELETE)`)
	dmlRows := flag.Int64("dml-rows", -1, "figure 7: rows of the UPDATE/DELETE table (default 10000000, smoke 20000; 0 skips)")
	flag.Parse()

	cfg := Full()
	if *smoke {
		cfg = Smoke()
	}
	cfg.Seed, cfg.ServerBin, cfg.ProfileDir, cfg.Out = *seed, *bin, *prof, os.Stdout
	if *only != "" && *only != "restart" && *only != "copy" && *only != "analytics" && *only != "insert" && *only != "dml" {
		fmt.Fprintf(os.Stderr, "bench: -only: unknown figure set %q\n", *only)
		os.Exit(2)
	}
	cfg.Only = *only
	if *walMB >= 0 {
		cfg.RestartWALMB = *walMB
	}
	if *dmlRows >= 0 {
		cfg.DMLRows = *dmlRows
	}
	if *copyRows != "" {
		cfg.CopyRows = nil
		for _, f := range strings.Split(*copyRows, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil || n <= 0 {
				fmt.Fprintf(os.Stderr, "bench: -copy-rows: bad size %q\n", f)
				os.Exit(2)
			}
			cfg.CopyRows = append(cfg.CopyRows, n)
		}
	}
	if *runs > 0 {
		cfg.Runs = *runs
	}
	if *insertDur > 0 {
		cfg.InsertDur = *insertDur
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mainErr(ctx, cfg, *work, *out); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

func mainErr(ctx context.Context, cfg Config, work, out string) error {
	var err error
	if cfg.ServerBin, err = filepath.Abs(cfg.ServerBin); err != nil {
		return err
	}
	if work == "" {
		if work, err = os.MkdirTemp("", "bsdb-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	cfg.WorkDir = work
	if cfg.ProfileDir != "" {
		if err := os.MkdirAll(cfg.ProfileDir, 0o755); err != nil {
			return err
		}
	}
	hdr := header(&cfg) // the commit and date the run started from
	res, err := Run(ctx, &cfg)
	if res != nil {
		res.WriteLines(cfg.Out)
		md := &strings.Builder{}
		res.WriteMarkdown(md, hdr)
		fmt.Fprintln(cfg.Out)
		fmt.Fprint(cfg.Out, md.String())
		if out != "" {
			if werr := os.WriteFile(out, []byte(md.String()), 0o644); werr != nil && err == nil {
				err = werr
			}
		}
	}
	return err
}

// header names the date, machine and commit of a run.
func header(cfg *Config) string {
	commit := "unknown"
	if b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(b))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			commit += " (dirty tree)"
		}
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("Benchmark of %s, commit %s, on %s: %d cores, %d MB RAM, %s/%s. Sizes: COPY %v rows, INSERT %v for %v, DML table %d rows, UPDATE %v for %v, %d alternating runs per system (medians), %d query repetitions. Ratios are bsdb-pg's speedups (> 1: bsdb-pg better). Command: `%s`.",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit, host, runtime.NumCPU(), memTotalMB(), runtime.GOOS, runtime.GOARCH,
		cfg.CopyRows, cfg.InsertConns, cfg.InsertDur, cfg.DMLRows, cfg.UpdateConns, cfg.InsertDur, cfg.Runs, cfg.QueryReps, strings.Join(os.Args, " "))
}

func httpToFile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
