package pgcatalog

import (
	"strconv"
	"strings"
	"sync"
)

// Built-in operators (pg_operator, from oper_gen.go): the relation, the
// regoper / regoperator texts, and the lookups of parse_oper.c.

// Operator is one built-in pg_operator row.
type Operator struct {
	OID      uint32
	Name     string // oprname
	Kind     byte   // oprkind: 'b' infix, 'l' prefix
	CanMerge bool
	CanHash  bool
	Left     uint32 // oprleft: 0 for a prefix operator
	Right    uint32 // oprright
	Result   uint32 // oprresult
	Com      uint32 // oprcom: the commutator, 0 if none
	Negate   uint32 // oprnegate: the negator, 0 if none
	Code     uint32 // oprcode: the implementing function's OID (RegprocOut prints it as pg_operator shows it)
	Rest     uint32 // oprrest: restriction selectivity function, 0 if none
	Join     uint32 // oprjoin: join selectivity function, 0 if none
	// Description is the operator's pg_description, "" if none.
	Description string
}

type operKey struct {
	name        string
	left, right uint32
}

var (
	opersOnce   sync.Once
	operList    []*Operator
	opersByOID  map[uint32]*Operator
	opersByName map[string][]*Operator
	opersExact  map[operKey]*Operator
)

func loadOperators() {
	opersOnce.Do(func() {
		lines := parseLines(operLines, 14)
		opersByOID = make(map[uint32]*Operator, len(lines))
		opersByName = map[string][]*Operator{}
		opersExact = make(map[operKey]*Operator, len(lines))
		for _, f := range lines {
			o := &Operator{OID: fieldU32(f[0]), Name: f[1], Kind: fieldByte(f[2]), CanMerge: fieldBool(f[3]), CanHash: fieldBool(f[4]),
				Left: fieldU32(f[5]), Right: fieldU32(f[6]), Result: fieldU32(f[7]), Com: fieldU32(f[8]), Negate: fieldU32(f[9]),
				Code: fieldU32(f[10]), Rest: fieldU32(f[11]), Join: fieldU32(f[12])}
			if f[13] != nullField {
				o.Description = f[13]
			}
			operList = append(operList, o)
			opersByOID[o.OID] = o
			opersByName[o.Name] = append(opersByName[o.Name], o)
			opersExact[operKey{o.Name, o.Left, o.Right}] = o
		}
	})
}

// Operators returns the built-in operators ordered by OID (shared: do not
// modify).
func Operators() []*Operator {
	loadOperators()
	return operList
}

// OperatorByOID is the built-in operator of this OID, nil if none:
// SearchSysCache(OPEROID), as make_op reads the chosen operator
// (oprresult, oprcode) and get_commutator / get_negator / op_hashjoinable
// / op_mergejoinable do.
func OperatorByOID(oid uint32) *Operator {
	loadOperators()
	return opersByOID[oid]
}

// OperatorsByName is every built-in operator named name, ordered by OID:
// the pg_catalog part of OpernameGetCandidates (namespace.c); the caller
// keeps those of the oprkind it resolves ('b' for oper, 'l' for
// left_oper) before func_match_argtypes / func_select_candidate.
func OperatorsByName(name string) []*Operator {
	loadOperators()
	return opersByName[name]
}

// OperatorExact is the built-in operator of this name and exact input
// types (left 0 for a prefix operator), nil if none: OpernameGetOprid, the
// exact-match first step of oper() and left_oper() (binary_oper_exact
// first replaces an unknown-type argument with the other one's type).
func OperatorExact(name string, left, right uint32) *Operator {
	loadOperators()
	return opersExact[operKey{name, left, right}]
}

// RegoperOut is regoperout: the operator's name, qualified with
// pg_catalog when the name alone matches several operators; "0" for 0;
// the number for an OID that is no built-in operator.
func RegoperOut(oid uint32) string {
	o := OperatorByOID(oid)
	if o == nil {
		return strconv.FormatUint(uint64(oid), 10)
	}
	if len(OperatorsByName(o.Name)) > 1 {
		return "pg_catalog." + o.Name
	}
	return o.Name
}

// RegoperatorOut is regoperatorout: name(lefttype,righttype) with the
// types as format_type prints them and NONE for a missing one (the
// built-in operators are visible: unqualified); "0" for 0.
func RegoperatorOut(oid uint32) string {
	o := OperatorByOID(oid)
	if o == nil {
		return strconv.FormatUint(uint64(oid), 10)
	}
	return o.Name + "(" + operArg(o.Left, FormatType) + "," + operArg(o.Right, FormatType) + ")"
}

func operArg(t uint32, name func(uint32, int32) string) string {
	if t == 0 {
		return "NONE"
	}
	return name(t, -1)
}

// operKeys are the keys regoperator_in matches for an operator: its
// regoperator text and the same with internal type names, lower case and
// without blanks.
func operKeys(o *Operator) (sig, typ string) {
	internal := func(t uint32, _ int32) string {
		if ty := TypeByOID(t); ty != nil {
			return ty.Name
		}
		return strconv.FormatUint(uint64(t), 10)
	}
	sig = strings.ToLower(RegoperatorOut(o.OID))
	typ = strings.ToLower(o.Name + "(" + operArg(o.Left, internal) + "," + operArg(o.Right, internal) + ")")
	return strings.Join(strings.Fields(sig), ""), typ
}

// OIDPgOperatorClass is pg_operator's OID (pg_description.classoid of an
// operator's description).
const OIDPgOperatorClass = 2617

func init() {
	register("pg_catalog", "pg_operator", true, `oid:oid oprname:name oprnamespace:oid oprowner:oid oprkind:char
		oprcanmerge:bool oprcanhash:bool oprleft:oid oprright:oid oprresult:oid oprcom:oid oprnegate:oid
		oprcode:regproc oprrest:regproc oprjoin:regproc`, operatorRows)
	// operfmt: what regoper / regoperator print for each operator, and the
	// keys regoperator_in matches (see operKeys).
	register("bsdb_internal", "operfmt", true, "oid:oid regoper:text regoperator:text name:text sigkey:text typkey:text", operFmtRows)
}

func operatorRows(*Snapshot, *Facts) [][]any {
	ops := Operators()
	rows := make([][]any, 0, len(ops))
	for _, o := range ops {
		rows = append(rows, []any{int64(o.OID), o.Name, int64(OIDPgCatalog), int64(OIDBootstrapUser), string(o.Kind), o.CanMerge,
			o.CanHash, int64(o.Left), int64(o.Right), int64(o.Result), int64(o.Com), int64(o.Negate), RegprocOut(o.Code),
			RegprocOut(o.Rest), RegprocOut(o.Join)})
	}
	return rows
}

func operFmtRows(*Snapshot, *Facts) [][]any {
	ops := Operators()
	rows := make([][]any, 0, len(ops))
	for _, o := range ops {
		sig, typ := operKeys(o)
		rows = append(rows, []any{int64(o.OID), RegoperOut(o.OID), RegoperatorOut(o.OID), o.Name, sig, typ})
	}
	return rows
}

// operatorDescriptions are pg_description's rows of the operators.
func operatorDescriptions() [][]any {
	var rows [][]any
	for _, o := range Operators() {
		if o.Description != "" {
			rows = append(rows, []any{int64(o.OID), int64(OIDPgOperatorClass), int32(0), o.Description})
		}
	}
	return rows
}

// OperatorOfFunc says whether every built-in function named name
// implements a built-in operator (is its oprcode), all of one operator
// name and kind: then a call f(a, b) means a op b (booleq(x, y) is x = y,
// int4pl(x, y) is x + y), and the operator's resolution finds the same
// function for the same argument types. prefix is true for a prefix
// operator (f(a) is op a).
func OperatorOfFunc(name string) (op string, prefix, ok bool) {
	opersOfFuncsOnce.Do(func() {
		loadOperators()
		byCode := map[uint32]*Operator{}
		for _, o := range operList {
			byCode[o.Code] = o
		}
		opersOfFuncs = map[string]*Operator{}
		conflict := map[string]bool{}
		for _, f := range Funcs() {
			o := byCode[f.OID]
			prev, seen := opersOfFuncs[f.Name]
			switch {
			case conflict[f.Name]:
			case o == nil || seen && (prev.Name != o.Name || prev.Kind != o.Kind):
				conflict[f.Name] = true
				delete(opersOfFuncs, f.Name)
			default:
				opersOfFuncs[f.Name] = o
			}
		}
	})
	o, ok := opersOfFuncs[name]
	if !ok {
		return "", false, false
	}
	return o.Name, o.Kind == 'l', true
}

var (
	opersOfFuncsOnce sync.Once
	opersOfFuncs     map[string]*Operator
)
