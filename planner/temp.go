package planner

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/storage/vfs"
	"github.com/bsdb/bsdb-pg/txn"
)

// Temporary tables (CREATE TEMP TABLE) are table handles like any other
// (a txn.Table and its DuckDB mirror, so that reads, INSERT, COPY and
// transaction blocks work unchanged), but on a memory object store and a
// memory WAL, never flushed: their rows live in memory, nothing reaches
// the warehouse, its catalog or a WAL on disk. They are in no catalog:
// the session that created one holds it and drops it (DropTempTable).

// tempOIDs hands out the OIDs of temporary tables: process-local, above
// any OID the warehouse's counter will reach, so no catalog write is
// needed and no OID of a stored relation is ever taken.
var tempOIDs atomic.Uint32

const firstTempOID = 4_000_000_000

// TempOID hands out an OID for a temporary object (a temporary view).
func TempOID() uint32 { return firstTempOID + tempOIDs.Add(1) }

// CreateTempTable creates a temporary table named id with schema sch.
func (e *Engine) CreateTempTable(ctx context.Context, id catalog.TableID, sch *schema.Schema, owner uint32) (*Table, error) {
	n := tempOIDs.Add(1)
	if n >= math.MaxUint32-firstTempOID {
		return nil, fmt.Errorf("planner: temporary table OIDs exhausted")
	}
	oid := firstTempOID + n
	prefix := fmt.Sprintf("_temp/%d", oid)
	opts := txn.Options{
		Store:           objstore.NewMem(),
		Prefix:          prefix,
		WALDir:          "/wal",
		WALFS:           vfs.NewMem(),
		Preallocate:     -1,
		UnsafeNoSync:    true,
		FlushBytes:      math.MaxInt64 / 4, // never committed to Parquet: the buffer is the table (waitForRoom doubles it)
		FlushInterval:   -1,
		RefreshInterval: -1,
		TxLog:           e.coord.Log(), // a block may write it with other tables
		Logger:          e.log,
	}
	tt, err := txn.Create(ctx, opts, sch)
	if err != nil {
		return nil, err
	}
	ent := &catalog.Entry{ID: id, OID: oid, Owner: owner}
	return e.attach(ctx, id, ent, tt)
}

// DropTempTable drops a temporary table: its rows and its mirror.
func (e *Engine) DropTempTable(ctx context.Context, t *Table) {
	t.drop(ctx)
	e.coord.Log().ResolveTable(t.T.Prefix(), nil)
}

// IsTemp reports whether t is a temporary table.
func (t *Table) IsTemp() bool { return t.Entry.Prefix == "" }
