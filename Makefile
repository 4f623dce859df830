# bsdb-pg workflows. Every go command runs with the duckdb_arrow build tag
# (DuckDB's Arrow interface); it is exported through GOFLAGS so that plain
# `go test` / `go vet` invoked by these targets see the same build.
#
#   make build            bin/bsdb-pg
#   make run              build and run with defaults (127.0.0.1:5433, ./bsdb-data)
#   make test             vet + gofmt check + all tests, then -race on the concurrent packages
#   make testrace         only the -race run
#   make regress          the pg_regress-style suite against bsdb-pg
#   make regress-update   regenerate regress/expected from a real PostgreSQL (PGURL=... optional)
#   make pgregress        PostgreSQL 15's own regression files against bsdb-pg: regress/pg15/REPORT.md
#   make pgregress-update the same, and record this run as the gate (regress/pg15/passing.txt, floor.txt)
#   make fuzz             each fuzz target for FUZZTIME (default 2m)
#   make bench            benchmarks, BENCHCOUNT runs each, into bench.txt (compare with benchstat)
#   make lint             gofmt -l, go vet, staticcheck when installed

GO         ?= go
export GOFLAGS := $(strip -tags=duckdb_arrow $(GOFLAGS))

BIN        := bin/bsdb-pg
# 2 cores here: one package at a time per core.
P          ?= 2
TIMEOUT    ?= 25m
FUZZTIME   ?= 2m
BENCHCOUNT ?= 6
PGURL      ?=
# The packages with concurrent code, run again under the race detector
# (planner: lazy and parallel mirroring; server: sessions, cursors).
# Only those that exist yet (a missing directory would fail `go test`).
RACE_PKGS  := $(foreach d,wal txn storage pgwire planner server,$(if $(wildcard $(d)/*),./$(d)/...))
# Fuzz targets as package:Target.
FUZZ_TARGETS := ./wal:FuzzSegmentReader ./pgwire:FuzzServerMessages ./pgtypes:FuzzFormat ./server:FuzzStatements

.PHONY: all build run test vet fmtcheck gotest testrace regress regress-update fuzz bench lint clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/bsdb-pg

run: build
	./$(BIN)

# The end-to-end tests (regress/, crash tests) run the binary built here
# instead of compiling their own (internal/testserver honours BSDB_TEST_BINARY).
test: vet fmtcheck build gotest testrace

gotest:
	BSDB_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -p $(P) -timeout $(TIMEOUT) ./...

testrace:
	$(if $(RACE_PKGS),$(GO) test -count=1 -race -p $(P) -timeout $(TIMEOUT) $(RACE_PKGS),@echo "testrace: no concurrent packages yet")

vet:
	$(GO) vet ./...

fmtcheck:
	@out="$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

regress: build
	BSDB_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout $(TIMEOUT) -run 'TestRegress$$' ./regress

# Expected files come from PostgreSQL, never from bsdb-pg. Without PGURL the
# test uses BSDB_PG_URL, else starts a private cluster (internal/pgref).
regress-update:
	$(GO) test -count=1 -timeout 10m -run 'TestRegressAgainstPostgres$$' ./regress -update $(if $(PGURL),-pgurl '$(PGURL)')

# PostgreSQL 15's own regression files (regress/pg15) against bsdb-pg, run
# as pg_regress runs them; `make test` runs the same test as a regression
# gate. The report is regress/pg15/REPORT.md, the outputs and diffs
# regress/results/pg15/bsdb-pg/.
.PHONY: pgregress pgregress-update
pgregress: build
	BSDB_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m -v -run 'TestPG15Regress$$' ./regress -args -report

pgregress-update: build
	BSDB_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m -v -run 'TestPG15Regress$$' ./regress -args -report -update

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$fn in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s $$pkg; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) -timeout 60m ./... | tee bench.txt
	@command -v benchstat >/dev/null && benchstat bench.txt || echo "install golang.org/x/perf/cmd/benchstat to compare runs"

lint: fmtcheck vet
	@if command -v staticcheck >/dev/null; then staticcheck ./...; else echo "staticcheck not installed; skipped"; fi

clean:
	rm -rf bin regress/results bench.txt

# Benchmarks against PostgreSQL and DuckDB (bench/doc.go). bench-compare is
# the full run (< 20 min on 2 cores) and writes bench/RESULTS.md, which the
# README quotes; profiles of bsdb-pg go to bench/profiles/. bench-smoke is
# the 1-minute end-to-end check of the harness.
.PHONY: bench-compare bench-smoke
bench-compare: build
	$(GO) run ./bench -server $(BIN) -out bench/RESULTS.md -profile bench/profiles

bench-smoke: build
	$(GO) run ./bench -smoke -server $(BIN) -out ''

# Figure 7 alone (issue 21): bulk DELETE, UPDATE by key c1/c64 and scans
# before and after deletes, on a DML_ROWS-row table (10M: ~10 min here).
# Prints the table; profiles of bsdb-pg go to bench/profiles/.
DML_ROWS ?= 10000000
.PHONY: bench-dml
bench-dml: build
	$(GO) run ./bench -only dml -dml-rows $(DML_ROWS) -server $(BIN) -out '' -profile bench/profiles

# Long crash verification: sustained SIGKILL + linearizable reads for SOAK
# (default 10m) against bin/bsdb-pg; totals printed, full log path printed.
SOAK ?= 10m
.PHONY: soak
soak: build
	BSDB_TEST_BINARY=$(CURDIR)/$(BIN) scripts/soak.sh $(SOAK)
