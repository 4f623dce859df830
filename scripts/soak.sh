#!/bin/sh
# soak.sh DURATION — run the sustained-SIGKILL loops and the linearizability
# checkers of crashtest/ against the real bsdb-pg binary (insert-only and
# with UPDATE/DELETE), each for a quarter of DURATION (a Go duration: 10m,
# 1h), and print their totals.
#
#   scripts/soak.sh 10m        (or: make soak SOAK=10m)
#
# Exit status is non-zero if any row was lost or duplicated or any read
# violated linearizability. Output of the whole run: $SOAK_LOG (default
# ${TMPDIR:-/tmp}/bsdb-soak.PID.log).
set -eu
if [ $# -ne 1 ]; then
	echo "usage: $0 DURATION   (e.g. 10m)" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
export GOFLAGS="-tags=duckdb_arrow"
each=$(go run ./crashtest/halfdur "$1" 2>/dev/null || true)
[ -n "$each" ] && each=$(go run ./crashtest/halfdur "$each" 2>/dev/null || true)
if [ -z "$each" ]; then
	echo "soak: bad duration $1" >&2
	exit 2
fi
log=${SOAK_LOG:-${TMPDIR:-/tmp}/bsdb-soak.$$.log}
bin=${BSDB_TEST_BINARY:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/bsdb-pg
	go build -o "$bin" ./cmd/bsdb-pg
fi
echo "soak: $1 total ($each each for SIGKILL rounds and linearizable reads, with and without UPDATE/DELETE), binary $bin, log $log"
status=0
BSDB_TEST_BINARY=$bin go test -count=1 -p 1 -timeout 0 -v \
	-run '^(TestSustainedSIGKILL|TestLinearizableReads|TestModifySIGKILL|TestLinearizableModify)$' ./crashtest -soak "$each" >"$log" 2>&1 || status=$?
grep -h 'SUMMARY\|violation\|lost\b' "$log" | grep -v '^=== ' | sed 's/^ *//' | grep 'SUMMARY' || true
grep -E '^(--- |ok|FAIL)' "$log" || true
exit $status
