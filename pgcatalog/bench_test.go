package pgcatalog

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"
)

// BenchmarkStaticSetup measures the per-connection setup cost.
func BenchmarkStaticSetup(b *testing.B) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	f := Facts{Database: "postgres", User: "u", StartTime: time.Now()}
	for _, q := range SharedSetup() {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range SessionSetup(f) {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		conn.Close()
	}
}

// BenchmarkRefresh measures rebuilding the dynamic relations (per
// statement that reads a system relation).
func BenchmarkRefresh(b *testing.B) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	f := Facts{Database: "postgres", User: "u", StartTime: time.Now()}
	for _, q := range append(SharedSetup(), SessionSetup(f)...) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	snap := sampleSnapshot()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var r Refresher // worst case: nothing cached
		for _, q := range r.Statements(snap, f) {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSharedSetup measures creating the static relations (once per
// database, on the first catalog query: pg_proc's ~3200 rows dominate).
func BenchmarkSharedSetup(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range SharedSetup() {
			if _, err := db.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
	}
}

// BenchmarkBinderLookups measures the lookups a binder makes per
// operator or function call (after the first use built the maps).
func BenchmarkBinderLookups(b *testing.B) {
	OperatorExact("+", 23, 23)
	CastBetween(23, 20)
	FuncsByName("abs")
	TypeByOID(23)
	AggregateByFunc(2108)
	DefaultOpClass(23, OIDBtreeAM)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if OperatorExact("+", 23, 23) == nil || CastBetween(23, 20) == nil || len(FuncsByName("abs")) == 0 ||
			TypeCategory(23) != 'N' || !IsPreferredType('N', 701) || AggregateByFunc(2108) == nil {
			b.Fatal("lookup failed")
		}
	}
}

// BenchmarkBinderFirstUse measures building every map (once per process).
func BenchmarkBinderFirstUse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		typesOnce, funcsOnce, opersOnce, castsOnce, aggsOnce, opcOnce = sync.Once{}, sync.Once{}, sync.Once{}, sync.Once{}, sync.Once{}, sync.Once{}
		typeList, funcList, operList, castList, aggList = nil, nil, nil, nil, nil
		amList, opfList, opcList, amopList, amprocList, rangeList = nil, nil, nil, nil, nil, nil
		loadTypes()
		loadFuncs()
		loadOperators()
		loadCasts()
		loadAggregates()
		loadOpClasses()
	}
}
