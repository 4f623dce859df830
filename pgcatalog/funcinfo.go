package pgcatalog

import (
	"fmt"
	"strconv"
	"sync"
)

// Functions as PostgreSQL's parse analysis looks them up (parse_func.c,
// namespace.c): the built-in functions of pg_catalog from proc_gen.go,
// with their argument defaults from extra_gen.go, indexed once on first
// use.

// Func is one built-in pg_proc row, as func_get_detail and its callers
// read it.
type Func struct {
	OID       uint32
	Name      string // proname
	Lang      uint32 // prolang: 12 internal, 13 c, 14 sql
	Kind      byte   // prokind: 'f' function, 'a' aggregate, 'w' window, 'p' procedure
	SecDef    bool
	LeakProof bool
	Strict    bool // proisstrict
	RetSet    bool // proretset
	Volatile  byte // provolatile: 'i', 's', 'v'
	Parallel  byte // proparallel: 's', 'r', 'u'
	Cost      float32
	Rows      float32
	Support   string // prosupport (regproc name, "-" for none)
	// Variadic is provariadic: the element type of a VARIADIC array
	// argument, OIDAny for VARIADIC "any", 0 for none. The last entry of
	// ArgTypes is then the array type (or "any").
	Variadic uint32
	ArgTypes []uint32 // proargtypes: the input arguments (pronargs)
	// AllArgTypes, ArgModes ('i', 'o', 'b', 'v', 't') and ArgNames are
	// proallargtypes, proargmodes and proargnames: nil when NULL (all
	// arguments are IN; no names).
	AllArgTypes []uint32
	ArgModes    []byte
	ArgNames    []string
	// NArgDefaults is pronargdefaults; ArgDefaults the default expressions
	// of the last NArgDefaults input arguments, in order, as
	// pg_get_function_arg_default prints them ("0", "'{}'::jsonb").
	NArgDefaults int
	ArgDefaults  []string
	RetType      uint32 // prorettype
	Src          string // prosrc: the C symbol of an internal function
	Description  string // pg_description, "" if none
}

var (
	funcsOnce   sync.Once
	funcList    []*Func
	funcsByOID  map[uint32]*Func
	funcsByName map[string][]*Func
	regprocText map[uint32]string
)

func loadFuncs() {
	funcsOnce.Do(func() {
		defaults := map[uint32][]string{}
		for _, f := range parseLines(argDefaultLines, 2) {
			o := fieldU32(f[0])
			defaults[o] = append(defaults[o], f[1])
		}
		ps := procs()
		funcsByOID = make(map[uint32]*Func, len(ps))
		funcsByName = make(map[string][]*Func, len(ps))
		for _, p := range ps {
			fn := &Func{OID: uint32(p.int(pOID)), Name: p.f[pName], Lang: uint32(p.int(pLang)), Kind: fieldByte(p.f[pKind]),
				SecDef: p.bool(pSecDef), LeakProof: p.bool(pLeakProof), Strict: p.bool(pStrict), RetSet: p.bool(pRetSet),
				Volatile: fieldByte(p.f[pVolatile]), Parallel: fieldByte(p.f[pParallel]), Cost: p.float(pCost), Rows: p.float(pRows),
				Support: p.f[pSupport], Variadic: uint32(p.int(pVariadic)), ArgTypes: oidList(p, pArgTypes),
				AllArgTypes: oidList(p, pAllArgTypes), NArgDefaults: int(p.int(pNArgDefaults)), RetType: uint32(p.int(pRetType)),
				Src: p.f[pSrc]}
			if fn.ArgTypes == nil {
				fn.ArgTypes = []uint32{}
			}
			if s, ok := p.strings(pArgModes).([]string); ok {
				for _, m := range s {
					fn.ArgModes = append(fn.ArgModes, fieldByte(m))
				}
			}
			if s, ok := p.strings(pArgNames).([]string); ok {
				fn.ArgNames = s
			}
			if d, ok := p.text(pDescription).(string); ok {
				fn.Description = d
			}
			fn.ArgDefaults = defaults[fn.OID]
			if len(fn.ArgDefaults) != fn.NArgDefaults {
				panic(fmt.Sprintf("BUG: pgcatalog: function %d has %d defaults, pronargdefaults %d", fn.OID, len(fn.ArgDefaults), fn.NArgDefaults))
			}
			funcList = append(funcList, fn)
			funcsByOID[fn.OID] = fn
			funcsByName[fn.Name] = append(funcsByName[fn.Name], fn)
		}
		// regprocout prints a function's bare name when the name alone
		// finds it (FuncnameGetCandidates gives exactly it), else the name
		// qualified with its schema: every built-in function is in
		// pg_catalog, so an overloaded name is qualified.
		regprocText = make(map[uint32]string, len(ps))
		for _, fn := range funcList {
			if len(funcsByName[fn.Name]) > 1 {
				regprocText[fn.OID] = "pg_catalog." + quoteIdent(fn.Name)
			} else {
				regprocText[fn.OID] = quoteIdent(fn.Name)
			}
		}
	})
}

func oidList(p procRow, i int) []uint32 {
	s, ok := p.oids(i).([]int64)
	if !ok {
		return nil
	}
	out := make([]uint32, len(s))
	for j, o := range s {
		out[j] = uint32(o)
	}
	return out
}

// Funcs returns the built-in functions ordered by OID (shared: do not
// modify).
func Funcs() []*Func {
	loadFuncs()
	return funcList
}

// FuncByOID is the built-in function of this OID, nil if none:
// SearchSysCache(PROCOID), as func_get_detail reads the chosen candidate
// (prorettype, proretset, provariadic, prokind, argument defaults) and
// get_func_retset, get_func_signature, func_volatile, func_strict do.
func FuncByOID(oid uint32) *Func {
	loadFuncs()
	return funcsByOID[oid]
}

// FuncsByName is every built-in function named name, ordered by OID:
// the pg_catalog part of FuncnameGetCandidates (namespace.c), before it
// filters by argument count, expands VARIADIC and defaults, and matches
// named arguments; func_get_detail picks among them.
func FuncsByName(name string) []*Func {
	loadFuncs()
	return funcsByName[name]
}

// RegprocOut is regprocout for a built-in function: its name, qualified
// with pg_catalog when the name is overloaded; "-" for 0; the number for
// an OID that is no built-in function.
func RegprocOut(oid uint32) string {
	if oid == 0 {
		return "-"
	}
	loadFuncs()
	if s, ok := regprocText[oid]; ok {
		return s
	}
	return strconv.FormatUint(uint64(oid), 10)
}
