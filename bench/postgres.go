package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// startPostgres starts the reference cluster: durable (fsync, synchronous
// commit, full-page writes: PostgreSQL's defaults), sized for this machine.
// pgref's defaults are for throwaway test servers; every one that matters
// for a benchmark is overridden here (a later -c wins).
func startPostgres() (*pgref.Server, error) {
	sb := sharedBuffersMB()
	return pgref.StartServer(pgref.Options{Settings: map[string]string{
		"fsync":                "on",
		"synchronous_commit":   "on",
		"full_page_writes":     "on",
		"wal_level":            "replica",
		"max_wal_senders":      "10",
		"max_connections":      "120",
		"shared_buffers":       strconv.Itoa(sb) + "MB",
		"effective_cache_size": strconv.Itoa(sb*3) + "MB",
		"work_mem":             "64MB",
		"maintenance_work_mem": "256MB",
		"max_wal_size":         "4GB",
		"checkpoint_timeout":   "15min",
	}})
}

// sharedBuffersMB is the usual 25% of RAM, capped at 4 GB (the largest table
// of the full run is ~1.2 GB in PostgreSQL).
func sharedBuffersMB() int {
	mb := memTotalMB() / 4
	if mb > 4096 {
		mb = 4096
	}
	if mb < 128 {
		mb = 128
	}
	return mb
}

func memTotalMB() int {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 1024
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if kb, err := strconv.Atoi(f[0]); err == nil {
					return kb >> 10
				}
			}
		}
	}
	return 1024
}
