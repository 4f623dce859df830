#!/usr/bin/env bash
# A long-lived reference PostgreSQL for development, so that repeated
# `go test ./regress` runs or `make regress-update` do not initdb each time:
#
#   scripts/refpg.sh start     # initdb (once) and start on 127.0.0.1:${PORT:-5499}
#   export BSDB_PG_URL="$(scripts/refpg.sh url)"
#   scripts/refpg.sh stop
#   scripts/refpg.sh destroy   # stop and delete the cluster
#
# The cluster lives in ${REFPG_DIR:-/tmp/bsdb-refpg}, runs as the non-root
# user pgtest when invoked as root (PostgreSQL refuses root), uses trust auth
# on loopback, the C locale and UTF8, and fsync=off: it holds nothing worth
# keeping. Tests do not need it: without BSDB_PG_URL they start their own
# (internal/pgref).
set -euo pipefail

PORT="${PORT:-5499}"
DIR="${REFPG_DIR:-/tmp/bsdb-refpg}"
DATA="$DIR/data"

bindir() {
	if [ -n "${BSDB_PG_BIN:-}" ]; then echo "$BSDB_PG_BIN"; return; fi
	local d
	for v in 17 16 15; do
		d="/usr/lib/postgresql/$v/bin"
		if [ -x "$d/postgres" ]; then echo "$d"; return; fi
	done
	dirname "$(command -v postgres)"
}

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		id pgtest >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin pgtest
		su pgtest -s /bin/sh -c "$*"
	else
		sh -c "$*"
	fi
}

url() { echo "postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"; }

start() {
	local bin
	bin="$(bindir)"
	mkdir -p "$DIR"
	[ "$(id -u)" = 0 ] && { id pgtest >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin pgtest; chown pgtest "$DIR"; }
	if [ ! -f "$DATA/PG_VERSION" ]; then
		as_owner "'$bin/initdb' -D '$DATA' -U postgres -A trust -E UTF8 --no-locale >'$DIR/initdb.log' 2>&1" ||
			{ cat "$DIR/initdb.log" >&2; exit 1; }
	fi
	if as_owner "'$bin/pg_ctl' -D '$DATA' status" >/dev/null 2>&1; then
		echo "already running: $(url)"
		return
	fi
	as_owner "'$bin/pg_ctl' -D '$DATA' -l '$DIR/postgres.log' -w -t 60 -o \"-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories='$DIR' -c fsync=off\" start" >/dev/null ||
		{ tail -20 "$DIR/postgres.log" >&2; exit 1; }
	echo "started: $(url)"
}

stop() {
	[ -f "$DATA/PG_VERSION" ] || return 0
	as_owner "'$(bindir)/pg_ctl' -D '$DATA' -m fast -w stop" >/dev/null 2>&1 || true
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) url ;;
destroy) stop; rm -rf "$DIR" ;;
*) echo "usage: $0 start|stop|url|destroy" >&2; exit 2 ;;
esac
