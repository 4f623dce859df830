package pgcatalog

import "sync"

// Access methods, operator families and classes (pg_am, pg_opfamily,
// pg_opclass, pg_amop, pg_amproc, from opclass_gen.go): the relations and
// the lookups behind lookup_type_cache's equality / ordering / hash
// operators (GetDefaultOpClass, get_opfamily_member, get_opfamily_proc)
// and get_ordering_op_properties / get_op_btree_interpretation.

// AccessMethod is one pg_am row.
type AccessMethod struct {
	OID     uint32
	Name    string // amname
	Handler uint32 // amhandler (function OID)
	Type    byte   // amtype: 'i' index, 't' table
}

// OpFamily is one built-in pg_opfamily row (schema pg_catalog).
type OpFamily struct {
	OID    uint32
	Method uint32 // opfmethod
	Name   string // opfname
}

// OpClass is one built-in pg_opclass row (schema pg_catalog).
type OpClass struct {
	OID       uint32
	Method    uint32 // opcmethod
	Name      string // opcname
	Family    uint32 // opcfamily
	InputType uint32 // opcintype
	Default   bool   // opcdefault
	KeyType   uint32 // opckeytype: 0 = same as InputType
}

// AmOp is one pg_amop row: an operator's place in a family.
type AmOp struct {
	OID        uint32
	Family     uint32 // amopfamily
	Left       uint32 // amoplefttype
	Right      uint32 // amoprighttype
	Strategy   int16  // amopstrategy (btree: 1 <, 2 <=, 3 =, 4 >=, 5 >)
	Purpose    byte   // amoppurpose: 's' search, 'o' ordering
	Operator   uint32 // amopopr
	Method     uint32 // amopmethod
	SortFamily uint32 // amopsortfamily (ordering operators)
}

// AmProc is one pg_amproc row: a support function of a family.
type AmProc struct {
	OID    uint32
	Family uint32 // amprocfamily
	Left   uint32 // amproclefttype
	Right  uint32 // amprocrighttype
	Num    int16  // amprocnum (btree: 1 comparison, 2 sortsupport, ...; hash: 1 hash, 2 extended hash)
	Proc   uint32 // amproc (function OID)
}

// Access method OIDs.
const (
	OIDHashAM = 405
)

type amopKey struct {
	family, left, right uint32
	n                   int16
}

var (
	opcOnce      sync.Once
	amList       []*AccessMethod
	amsByName    map[string]*AccessMethod
	opfList      []*OpFamily
	opfsByOID    map[uint32]*OpFamily
	opcList      []*OpClass
	opcsByMethod map[uint32][]*OpClass
	amopList     []*AmOp
	amopsByKey   map[amopKey]*AmOp // purpose 's' only (get_opfamily_member)
	amopsByOpr   map[uint32][]*AmOp
	amprocList   []*AmProc
	amprocsByKey map[amopKey]*AmProc
)

func loadOpClasses() {
	opcOnce.Do(func() {
		amsByName = map[string]*AccessMethod{}
		for _, f := range parseLines(amLines, 4) {
			a := &AccessMethod{OID: fieldU32(f[0]), Name: f[1], Handler: fieldU32(f[2]), Type: fieldByte(f[3])}
			amList = append(amList, a)
			amsByName[a.Name] = a
		}
		opfsByOID = map[uint32]*OpFamily{}
		for _, f := range parseLines(opfamilyLines, 3) {
			o := &OpFamily{OID: fieldU32(f[0]), Method: fieldU32(f[1]), Name: f[2]}
			opfList = append(opfList, o)
			opfsByOID[o.OID] = o
		}
		opcsByMethod = map[uint32][]*OpClass{}
		for _, f := range parseLines(opclassLines, 7) {
			o := &OpClass{OID: fieldU32(f[0]), Method: fieldU32(f[1]), Name: f[2], Family: fieldU32(f[3]), InputType: fieldU32(f[4]),
				Default: fieldBool(f[5]), KeyType: fieldU32(f[6])}
			opcList = append(opcList, o)
			opcsByMethod[o.Method] = append(opcsByMethod[o.Method], o)
		}
		amopsByKey, amopsByOpr = map[amopKey]*AmOp{}, map[uint32][]*AmOp{}
		for _, f := range parseLines(amopLines, 9) {
			o := &AmOp{OID: fieldU32(f[0]), Family: fieldU32(f[1]), Left: fieldU32(f[2]), Right: fieldU32(f[3]), Strategy: fieldI16(f[4]),
				Purpose: fieldByte(f[5]), Operator: fieldU32(f[6]), Method: fieldU32(f[7]), SortFamily: fieldU32(f[8])}
			amopList = append(amopList, o)
			if o.Purpose == 's' {
				amopsByKey[amopKey{o.Family, o.Left, o.Right, o.Strategy}] = o
			}
			amopsByOpr[o.Operator] = append(amopsByOpr[o.Operator], o)
		}
		amprocsByKey = map[amopKey]*AmProc{}
		for _, f := range parseLines(amprocLines, 6) {
			p := &AmProc{OID: fieldU32(f[0]), Family: fieldU32(f[1]), Left: fieldU32(f[2]), Right: fieldU32(f[3]), Num: fieldI16(f[4]),
				Proc: fieldU32(f[5])}
			amprocList = append(amprocList, p)
			amprocsByKey[amopKey{p.Family, p.Left, p.Right, p.Num}] = p
		}
	})
}

// AccessMethods returns pg_am's rows ordered by OID (shared: do not modify).
func AccessMethods() []*AccessMethod { loadOpClasses(); return amList }

// OpFamilies returns the built-in operator families ordered by OID.
func OpFamilies() []*OpFamily { loadOpClasses(); return opfList }

// OpClasses returns the built-in operator classes ordered by OID.
func OpClasses() []*OpClass { loadOpClasses(); return opcList }

// AmOps returns pg_amop's rows ordered by OID.
func AmOps() []*AmOp { loadOpClasses(); return amopList }

// AmProcs returns pg_amproc's rows ordered by OID.
func AmProcs() []*AmProc { loadOpClasses(); return amprocList }

// AccessMethodByName is the access method named name (btree, hash, ...),
// nil if none: get_am_oid.
func AccessMethodByName(name string) *AccessMethod {
	loadOpClasses()
	return amsByName[name]
}

// OpFamilyByOID is the built-in operator family of this OID, nil if none.
func OpFamilyByOID(oid uint32) *OpFamily {
	loadOpClasses()
	return opfsByOID[oid]
}

// DefaultOpClass is indexcmds.c's GetDefaultOpClass: the default operator
// class of access method am for type typ (a domain's base type), nil if
// there is none or it is ambiguous. An exact input type wins; else a
// unique binary-coercible one, a preferred type of typ's category first
// (varchar takes text_ops, int4[] array_ops). lookup_type_cache takes a
// type's equality / ordering operators from its default btree class (and
// its hash support from the default hash class) through OpfamilyMember and
// OpfamilyProc.
func DefaultOpClass(typ, am uint32) *OpClass {
	loadOpClasses()
	typ, _ = BaseType(typ, -1)
	category := TypeCategory(typ)
	var result *OpClass
	nexact, ncompatible, ncompatiblePreferred := 0, 0, 0
	for _, c := range opcsByMethod[am] {
		if !c.Default {
			continue
		}
		switch {
		case c.InputType == typ:
			nexact++
			result = c
		case nexact == 0 && IsBinaryCoercible(typ, c.InputType):
			if IsPreferredType(category, c.InputType) {
				ncompatiblePreferred++
				result = c
			} else if ncompatiblePreferred == 0 {
				ncompatible++
				result = c
			}
		}
	}
	if nexact == 1 || nexact == 0 && (ncompatiblePreferred == 1 || ncompatiblePreferred == 0 && ncompatible == 1) {
		return result
	}
	return nil
}

// OpfamilyMember is lsyscache.c's get_opfamily_member: the search operator
// of family for (left, right) at strategy, 0 if none.
func OpfamilyMember(family, left, right uint32, strategy int16) uint32 {
	loadOpClasses()
	if o := amopsByKey[amopKey{family, left, right, strategy}]; o != nil {
		return o.Operator
	}
	return 0
}

// OpfamilyProc is lsyscache.c's get_opfamily_proc: support function num
// of family for (left, right), 0 if none.
func OpfamilyProc(family, left, right uint32, num int16) uint32 {
	loadOpClasses()
	if p := amprocsByKey[amopKey{family, left, right, num}]; p != nil {
		return p.Proc
	}
	return 0
}

// AmOpsOfOperator is every pg_amop row of operator op (any family,
// purpose, method): SearchSysCacheList1(AMOPOPID), which
// get_ordering_op_properties (ORDER BY ... USING), get_mergejoin_opfamilies
// and get_op_btree_interpretation read.
func AmOpsOfOperator(op uint32) []*AmOp {
	loadOpClasses()
	return amopsByOpr[op]
}

func init() {
	register("pg_catalog", "pg_am", true, "oid:oid amname:name amhandler:regproc amtype:char", func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, a := range AccessMethods() {
			rows = append(rows, []any{int64(a.OID), a.Name, RegprocOut(a.Handler), string(a.Type)})
		}
		return rows
	})
	register("pg_catalog", "pg_opfamily", true, "oid:oid opfmethod:oid opfname:name opfnamespace:oid opfowner:oid", func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, o := range OpFamilies() {
			rows = append(rows, []any{int64(o.OID), int64(o.Method), o.Name, int64(OIDPgCatalog), int64(OIDBootstrapUser)})
		}
		return rows
	})
	register("pg_catalog", "pg_opclass", true, `oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid opcfamily:oid
		opcintype:oid opcdefault:bool opckeytype:oid`, func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, o := range OpClasses() {
			rows = append(rows, []any{int64(o.OID), int64(o.Method), o.Name, int64(OIDPgCatalog), int64(OIDBootstrapUser),
				int64(o.Family), int64(o.InputType), o.Default, int64(o.KeyType)})
		}
		return rows
	})
	register("pg_catalog", "pg_amop", true, `oid:oid amopfamily:oid amoplefttype:oid amoprighttype:oid amopstrategy:int2
		amoppurpose:char amopopr:oid amopmethod:oid amopsortfamily:oid`, func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, o := range AmOps() {
			rows = append(rows, []any{int64(o.OID), int64(o.Family), int64(o.Left), int64(o.Right), o.Strategy, string(o.Purpose),
				int64(o.Operator), int64(o.Method), int64(o.SortFamily)})
		}
		return rows
	})
	register("pg_catalog", "pg_amproc", true, `oid:oid amprocfamily:oid amproclefttype:oid amprocrighttype:oid amprocnum:int2
		amproc:regproc`, func(*Snapshot, *Facts) [][]any {
		var rows [][]any
		for _, p := range AmProcs() {
			rows = append(rows, []any{int64(p.OID), int64(p.Family), int64(p.Left), int64(p.Right), p.Num, RegprocOut(p.Proc)})
		}
		return rows
	})
}
