package sql

import (
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgtypes"
)

// Clock is optionally implemented by a Catalog: the start of the session's
// current transaction (what now(), current_timestamp and
// transaction_timestamp() return, constant within a transaction block) and
// of the current statement (statement_timestamp()). Without it both are the
// time of translation.
type Clock interface {
	ClockTimes() (txStart, stmtStart time.Time)
}

// ClockFunc is a date/time function whose value comes from the session's
// clock rather than from its arguments.
type ClockFunc uint8

// Clock functions.
const (
	ClockNone           ClockFunc = iota
	ClockTx                       // now(), current_timestamp, transaction_timestamp(): timestamptz
	ClockStmt                     // statement_timestamp(): timestamptz
	ClockWall                     // clock_timestamp(): timestamptz (per statement here)
	ClockDate                     // current_date: date in the session's TimeZone
	ClockLocalTimestamp           // localtimestamp: timestamp in the session's TimeZone
	ClockLocalTime                // localtime: time
	ClockTimeTZ                   // current_time: timetz
)

// clockFunc recognises a clock function call or SQL value function and
// returns it with its precision (-1: full microseconds).
func clockFunc(n *pg_query.Node) (ClockFunc, int32) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_SqlvalueFunction:
		f := v.SqlvalueFunction
		switch f.Op {
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return ClockTx, f.Typmod
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return ClockDate, -1
		case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			return ClockLocalTimestamp, f.Typmod
		case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			return ClockLocalTime, f.Typmod
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
			return ClockTimeTZ, f.Typmod
		}
	case *pg_query.Node_FuncCall:
		fc := v.FuncCall
		if len(fc.Args) > 0 || fc.AggStar || fc.Over != nil || fc.AggFilter != nil {
			return ClockNone, -1
		}
		schema, name := funcName(fc)
		if schema != "" && schema != "pg_catalog" {
			return ClockNone, -1
		}
		switch strings.ToLower(name) {
		case "now", "transaction_timestamp":
			return ClockTx, -1
		case "statement_timestamp":
			return ClockStmt, -1
		case "clock_timestamp":
			return ClockWall, -1
		}
	}
	return ClockNone, -1
}

// clockType is the type OID of f's value.
func clockType(f ClockFunc) uint32 {
	switch f {
	case ClockDate:
		return OIDDate
	case ClockLocalTimestamp:
		return OIDTimestamp
	case ClockLocalTime:
		return OIDTime
	case ClockTimeTZ:
		return OIDTimetz
	}
	return OIDTimestamptz
}

// ClockValue is the canonical pgtypes value of f (precision prec, -1 for
// full) at the given instants, in the settings' TimeZone.
func ClockValue(f ClockFunc, prec int32, txStart, stmtStart time.Time, ts *pgtypes.Settings) any {
	t := txStart
	switch f {
	case ClockStmt:
		t = stmtStart
	case ClockWall:
		t = time.Now()
	}
	if prec >= 0 && prec < 6 {
		unit := time.Microsecond
		for i := prec; i < 6; i++ {
			unit *= 10
		}
		t = t.Round(unit)
	}
	loc := time.UTC
	if ts != nil && ts.TimeZone != nil {
		loc = ts.TimeZone
	}
	local := t.In(loc)
	switch f {
	case ClockDate:
		return pgtypes.DateFromTime(local)
	case ClockLocalTimestamp:
		return pgtypes.TimestampFromTime(local)
	case ClockLocalTime:
		h, m, s := local.Clock()
		return pgtypes.Time(int64(h)*3600e6 + int64(m)*60e6 + int64(s)*1e6 + int64(local.Nanosecond()/1000))
	case ClockTimeTZ:
		h, m, s := local.Clock()
		_, off := local.Zone()
		return pgtypes.TimeTZ{Micros: int64(h)*3600e6 + int64(m)*60e6 + int64(s)*1e6 + int64(local.Nanosecond()/1000), Offset: int32(off)}
	}
	return pgtypes.TimestampTZFromTime(t)
}

// clockTimes returns the session's transaction and statement start.
func (tr *translator) clockTimes() (time.Time, time.Time) {
	if c, ok := tr.cat.(Clock); ok {
		return c.ClockTimes()
	}
	now := time.Now()
	return now, now
}

// rewriteClock replaces every clock function in n by a literal of its
// value (so that DuckDB folds it and pushes filters on it into the scans:
// ts > now() - interval '1 hour' prunes row groups). DuckDB's own
// current_timestamp is its transaction's start, and a bare current_date in
// a select list is taken for a column reference. It reports whether any was
// replaced: such a translation must not be reused by a later execution.
func (tr *translator) rewriteClock(n *pg_query.Node) (used bool) {
	var tx, stmt time.Time
	walkNodes(n, func(c *pg_query.Node) bool {
		f, prec := clockFunc(c)
		if f == ClockNone {
			return true
		}
		if !used {
			tx, stmt = tr.clockTimes()
			used = true
		}
		val := ClockValue(f, prec, tx, stmt, tr.typeSettings())
		lit, ok, _ := duckLiteral(typ{clockType(f), -1}, val)
		if ok && lit != nil {
			c.Node = lit.Node
		}
		return false
	})
	return used
}
