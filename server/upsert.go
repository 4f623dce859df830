package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// INSERT ... ON CONFLICT (key) DO UPDATE SET ... [WHERE ...]: the proposed
// rows whose arbiter key exists update the row that has it, the others
// are inserted, in one transaction (the session's, or one of its own).
//
// The key check (keys.go) splits the rows: it waits for transactions that
// insert the same keys, as PostgreSQL's speculative insertion does, and
// refuses a key proposed twice (21000). The rows in conflict become a
// relation of the session's query engine, EXCLUDED, and the update is the
// UPDATE t SET ... FROM excluded WHERE t.key = excluded.key [AND ...]
// that bsql.Insert.ConflictUpdate writes, run as any UPDATE (its own key
// check included, should it change key columns).

// excludedRelation is the name the DO UPDATE's UPDATE reads the proposed
// rows in conflict under (a temporary table of the session's connection).
const excludedRelation = "__bsdb_excluded"

func (p *insertPlan) upsert(ctx context.Context, recs []arrow.RecordBatch, maxRows int, w pgwire.ResultWriter) (bool, error) {
	s := p.s
	own := s.tx == nil
	if own {
		s.tx = &txState{implicit: true, start: s.statementStart()}
	}
	n, ids, err := p.upsertRows(ctx, recs)
	if own {
		if err != nil {
			s.rollback()
		} else {
			if p.ret != nil {
				p.t.HoldMirror() // the rows stay readable until RETURNING read them
				defer p.t.ReleaseMirror()
			}
			err = s.commit(ctx)
		}
	}
	if err != nil {
		return false, err
	}
	if p.ret == nil {
		return false, w.Complete(insertTag(n))
	}
	if err := s.returningView(ctx, p.t, ids); err != nil {
		return false, err
	}
	p.ret.tag = "INSERT 0"
	return p.ret.execute(ctx, maxRows, w)
}

// upsertRows inserts or updates the proposed rows in the session's
// transaction: the count of rows inserted or updated and their batch ids.
func (p *insertPlan) upsertRows(ctx context.Context, recs []arrow.RecordBatch) (int64, []uint64, error) {
	s := p.s
	skip, _, err := s.checkKeys(ctx, p.t, recs, keyOptions{doUpdate: true, arbiters: p.arbiters})
	if err != nil {
		return 0, nil, err
	}
	var fresh, conflict []arrow.RecordBatch
	defer func() { releaseAll(fresh); releaseAll(conflict) }()
	for i, r := range recs {
		var in, out []int
		for j := 0; j < int(r.NumRows()); j++ {
			if skip != nil && skip[i] != nil && skip[i][j] {
				in = append(in, j)
			} else {
				out = append(out, j)
			}
		}
		for _, part := range []struct {
			drop []int
			to   *[]arrow.RecordBatch
		}{{in, &fresh}, {out, &conflict}} {
			r.Retain()
			kept, err := keepRows(r, part.drop)
			r.Release()
			if err != nil {
				return 0, nil, err
			}
			if kept != nil {
				*part.to = append(*part.to, kept)
			}
		}
	}
	var n int64
	var ids []uint64
	// The updates first: RETURNING then gives the rows in the order of a
	// statement whose rows in conflict come first (PostgreSQL's: the
	// proposed rows' order).
	if len(conflict) > 0 {
		updated, uids, err := p.updateConflicts(ctx, conflict)
		if err != nil {
			return 0, nil, err
		}
		n += updated
		ids = append(ids, uids...)
	}
	if len(fresh) > 0 {
		got, err := s.writeIDs(ctx, p.t, fresh, true)
		if err != nil {
			return 0, nil, err
		}
		if p.ret != nil {
			if err := p.t.MirrorWritten(ctx, got, fresh); err != nil {
				return 0, nil, err
			}
		}
		ids = append(ids, got...)
		for _, r := range fresh {
			n += r.NumRows()
		}
	}
	return n, ids, nil
}

// updateConflicts runs the DO UPDATE over the proposed rows in conflict.
func (p *insertPlan) updateConflicts(ctx context.Context, rows []arrow.RecordBatch) (int64, []uint64, error) {
	s := p.s
	key := p.arbiterKey()
	if key == nil {
		return 0, nil, fmt.Errorf("BUG: upsert: no arbiter key among %v", p.arbiters)
	}
	if err := s.excludedTable(ctx, p.t, rows); err != nil {
		return 0, nil, err
	}
	defer func() { _ = s.execDuck(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp."+excludedRelation) }()
	cols := make([]string, len(p.t.Schema.Columns))
	for i := range cols {
		cols[i] = p.t.Schema.Columns[i].Name
	}
	info := *tableInfo(p.t)
	info.Columns = append([]bsql.ColumnInfo(nil), info.Columns...)
	for i := range info.Columns {
		info.Columns[i].Name = bsql.ExcludedColumn(info.Columns[i].Name)
		info.Columns[i].NotNull, info.Columns[i].Default, info.Columns[i].Identity = false, "", ""
	}
	info.Schema, info.Name, info.FromSQL, info.NoColumnsFromSQL, info.OID = "", excludedRelation, "temp."+excludedRelation, "", 0
	defer s.setPseudo(excludedRelation, &info)()
	tree, err := p.ins.ConflictUpdate(excludedRelation, cols, key.Columns)
	if err != nil {
		return 0, nil, err
	}
	st := &bsql.Statement{Tree: tree, Kind: bsql.KindUpdate}
	mp := &modifyPlan{s: s, st: st, paramOIDs: nil}
	res, err := mp.run(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer res.release()
	if p.ret != nil && len(res.retIDs) > 0 {
		if err := p.t.MirrorWritten(ctx, res.retIDs, res.retRecs); err != nil {
			return 0, nil, err
		}
	}
	return res.count, res.retIDs, nil
}

// arbiterKey is the key whose conflicts DO UPDATE resolves.
func (p *insertPlan) arbiterKey() *planner.KeyDef {
	for _, k := range p.t.Keys() {
		for _, a := range p.arbiters {
			if k.Name == a {
				return &k
			}
		}
	}
	return nil
}

// excludedTable makes rows (the table's columns) the session's temporary
// table excludedRelation, its columns named by bsql.ExcludedColumn.
func (s *session) excludedTable(ctx context.Context, t *planner.Table, rows []arrow.RecordBatch) error {
	sel := make([]string, len(t.Schema.Columns))
	for i := range t.Schema.Columns {
		c := &t.Schema.Columns[i]
		sel[i] = fmt.Sprintf("CAST(%s AS %s) AS %s", quoteIdentPG(c.Name), planner.DuckType(c), quoteIdentPG(bsql.ExcludedColumn(c.Name)))
	}
	recs := make([]arrow.RecordBatch, len(rows))
	for i, r := range rows {
		recs[i] = planner.DuckFriendly(r)
	}
	defer releaseAll(recs)
	return planner.ExecWithArrow(ctx, s.conn, recs, excludedRelation+"_in", func(view string) string {
		return fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT %s FROM %s", excludedRelation, strings.Join(sel, ", "), view)
	})
}
