package pgcatalog

import "sync"

// Built-in aggregates (pg_aggregate, from agg_gen.go): the relation and
// the lookup of parse_func.c / parse_agg.c.

// Aggregate is one built-in pg_aggregate row. The function fields are
// function OIDs (0 = none; RegprocOut prints them as pg_aggregate shows
// them).
type Aggregate struct {
	FnOID uint32 // aggfnoid: the aggregate's pg_proc row (prokind 'a')
	// Kind is aggkind: 'n' normal, 'o' ordered-set, 'h' hypothetical-set
	// (the last two take WITHIN GROUP).
	Kind          byte
	NumDirectArgs int16 // aggnumdirectargs: direct arguments of an ordered-set aggregate
	TransFn       uint32
	FinalFn       uint32
	CombineFn     uint32
	SerialFn      uint32
	DeserialFn    uint32
	MTransFn      uint32
	MInvTransFn   uint32
	MFinalFn      uint32
	FinalExtra    bool
	MFinalExtra   bool
	FinalModify   byte // 'r' read-only, 's' shareable, 'w' read-write
	MFinalModify  byte
	SortOp        uint32 // aggsortop: the operator of a min/max-like aggregate, 0 if none
	TransType     uint32
	TransSpace    int32
	MTransType    uint32
	MTransSpace   int32
	InitVal       *string // agginitval: nil = NULL (the first input is the initial state)
	MInitVal      *string
}

var (
	aggsOnce  sync.Once
	aggList   []*Aggregate
	aggsByOID map[uint32]*Aggregate
)

func loadAggregates() {
	aggsOnce.Do(func() {
		lines := parseLines(aggLines, 22)
		aggsByOID = make(map[uint32]*Aggregate, len(lines))
		for _, f := range lines {
			a := &Aggregate{FnOID: fieldU32(f[0]), Kind: fieldByte(f[1]), NumDirectArgs: fieldI16(f[2]), TransFn: fieldU32(f[3]),
				FinalFn: fieldU32(f[4]), CombineFn: fieldU32(f[5]), SerialFn: fieldU32(f[6]), DeserialFn: fieldU32(f[7]),
				MTransFn: fieldU32(f[8]), MInvTransFn: fieldU32(f[9]), MFinalFn: fieldU32(f[10]), FinalExtra: fieldBool(f[11]),
				MFinalExtra: fieldBool(f[12]), FinalModify: fieldByte(f[13]), MFinalModify: fieldByte(f[14]), SortOp: fieldU32(f[15]),
				TransType: fieldU32(f[16]), TransSpace: fieldI32(f[17]), MTransType: fieldU32(f[18]), MTransSpace: fieldI32(f[19]),
				InitVal: fieldPtr(f[20]), MInitVal: fieldPtr(f[21])}
			aggList = append(aggList, a)
			aggsByOID[a.FnOID] = a
		}
	})
}

// Aggregates returns the built-in aggregates ordered by function OID
// (shared: do not modify).
func Aggregates() []*Aggregate {
	loadAggregates()
	return aggList
}

// AggregateByFunc is the pg_aggregate row of the aggregate function fnoid,
// nil if it is none: SearchSysCache(AGGFNOID), which ParseFuncOrColumn
// reads for aggkind and aggnumdirectargs (WITHIN GROUP checks) and
// transformAggregateCall / resolve_aggregate_transtype for the transition
// type.
func AggregateByFunc(fnoid uint32) *Aggregate {
	loadAggregates()
	return aggsByOID[fnoid]
}

func init() {
	register("pg_catalog", "pg_aggregate", true, `aggfnoid:regproc aggkind:char aggnumdirectargs:int2 aggtransfn:regproc
		aggfinalfn:regproc aggcombinefn:regproc aggserialfn:regproc aggdeserialfn:regproc aggmtransfn:regproc
		aggminvtransfn:regproc aggmfinalfn:regproc aggfinalextra:bool aggmfinalextra:bool aggfinalmodify:char
		aggmfinalmodify:char aggsortop:oid aggtranstype:oid aggtransspace:int4 aggmtranstype:oid aggmtransspace:int4
		agginitval:text aggminitval:text`, func(*Snapshot, *Facts) [][]any {
		as := Aggregates()
		rows := make([][]any, 0, len(as))
		for _, a := range as {
			rows = append(rows, []any{RegprocOut(a.FnOID), string(a.Kind), a.NumDirectArgs, RegprocOut(a.TransFn),
				RegprocOut(a.FinalFn), RegprocOut(a.CombineFn), RegprocOut(a.SerialFn), RegprocOut(a.DeserialFn),
				RegprocOut(a.MTransFn), RegprocOut(a.MInvTransFn), RegprocOut(a.MFinalFn), a.FinalExtra, a.MFinalExtra,
				string(a.FinalModify), string(a.MFinalModify), int64(a.SortOp), int64(a.TransType), a.TransSpace,
				int64(a.MTransType), a.MTransSpace, strPtr(a.InitVal), strPtr(a.MInitVal)})
		}
		return rows
	})
}

// strPtr is a nullable text as a relation's value.
func strPtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
