package pgcatalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Built-in functions (pg_proc), their descriptions (pg_description) and
// the languages (pg_language), from proc_gen.go.
//
// procLines holds one line per function, fields separated by tabs (\N =
// NULL; \\, \t, \n, \r escaped; array elements joined by ","; "" = an
// empty array; booleans t/f):
//
//	oid proname prolang procost prorows provariadic prosupport prokind
//	prosecdef proleakproof proisstrict proretset provolatile proparallel
//	pronargs pronargdefaults prorettype proargtypes proallargtypes
//	proargmodes proargnames prosrc probin proacl
//	pg_get_function_result pg_get_function_arguments
//	pg_get_function_identity_arguments (\N = same as the arguments)
//	regprocedure-text description
//
// They are parsed on first use (the first catalog query of the process).

// procRow is one built-in function.
type procRow struct {
	f []string // the fields above, unescaped; "\x00" marks NULL
}

const (
	pOID = iota
	pName
	pLang
	pCost
	pRows
	pVariadic
	pSupport
	pKind
	pSecDef
	pLeakProof
	pStrict
	pRetSet
	pVolatile
	pParallel
	pNArgs
	pNArgDefaults
	pRetType
	pArgTypes
	pAllArgTypes
	pArgModes
	pArgNames
	pSrc
	pBin
	pACL
	pResult
	pArgs
	pIdentity
	pSignature
	pDescription
	pFields
)

const nullField = "\x00"

var (
	procsOnce sync.Once
	procList  []procRow
)

// procs returns the built-in functions, ordered by OID.
func procs() []procRow {
	procsOnce.Do(func() {
		for _, f := range parseLines(procLines, pFields) {
			procList = append(procList, procRow{f})
		}
	})
	return procList
}

// parseLines splits generated lines into n unescaped fields each.
func parseLines(text string, n int) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) != n {
			panic(fmt.Sprintf("BUG: pgcatalog: generated line has %d fields, want %d: %.80q", len(fields), n, line))
		}
		for i, s := range fields {
			fields[i] = unescape(s)
		}
		out = append(out, fields)
	}
	return out
}

func unescape(s string) string {
	if s == `\N` {
		return nullField
	}
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func (p procRow) text(i int) any {
	if p.f[i] == nullField {
		return nil
	}
	return p.f[i]
}

func (p procRow) int(i int) int64 {
	n, err := strconv.ParseInt(p.f[i], 10, 64)
	if err != nil {
		panic(fmt.Sprintf("BUG: pgcatalog: proc %s field %d: %v", p.f[pOID], i, err))
	}
	return n
}

func (p procRow) float(i int) float32 {
	x, err := strconv.ParseFloat(p.f[i], 32)
	if err != nil {
		panic(fmt.Sprintf("BUG: pgcatalog: proc %s field %d: %v", p.f[pOID], i, err))
	}
	return float32(x)
}

func (p procRow) bool(i int) bool { return p.f[i] == "t" }

func (p procRow) strings(i int) any {
	switch p.f[i] {
	case nullField:
		return nil
	case "":
		return []string{}
	}
	return strings.Split(p.f[i], ",")
}

func (p procRow) oids(i int) any {
	s, ok := p.strings(i).([]string)
	if !ok {
		return nil
	}
	out := make([]int64, len(s))
	for j, x := range s {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("BUG: pgcatalog: proc %s field %d: %v", p.f[pOID], i, err))
		}
		out[j] = n
	}
	return out
}

// Well-known OIDs of the catalogs that descriptions refer to (classoid).
const (
	OIDPgProcClass     = 1255
	OIDPgTypeClass     = 1247
	OIDPgDatabaseClass = 1262
	OIDPgClassClass    = 1259
	OIDPgAttrdefClass  = 2604
)

func init() {
	register("pg_catalog", "pg_proc", true, `oid:oid proname:name pronamespace:oid proowner:oid prolang:oid procost:float4
		prorows:float4 provariadic:oid prosupport:regproc prokind:char prosecdef:bool proleakproof:bool proisstrict:bool
		proretset:bool provolatile:char proparallel:char pronargs:int2 pronargdefaults:int2 prorettype:oid
		proargtypes:oidvector proallargtypes:oid[] proargmodes:char[] proargnames:text[] proargdefaults:text
		protrftypes:oid[] prosrc:text probin:text prosqlbody:text proconfig:text[] proacl:text[]`, procRows)
	// procfmt: what pg_get_function_result/_arguments/_identity_arguments
	// print, the regproc and regprocedure texts, and the keys
	// regprocedure_in matches (the regprocedure text and the same with
	// internal type names, both without blanks).
	register("bsdb_internal", "procfmt", true, `oid:oid result:text args:text identity:text regproc:text sig:text
		sigkey:text typkey:text`, procFmtRows)
	// pg_description: the built-in objects' descriptions (static) and the
	// ones COMMENT ON gave the session's database's objects.
	register("bsdb_internal", "builtin_descriptions", true, "objoid:oid classoid:oid objsubid:int4 description:text", descriptionRows)
	register("bsdb_internal", "user_descriptions", false, "objoid:oid classoid:oid objsubid:int4 description:text", userDescriptionRows)
	registerView("pg_catalog", "pg_description", "objoid:oid classoid:oid objsubid:int4 description:text", func() string {
		return fmt.Sprintf("SELECT * FROM %s UNION ALL SELECT * FROM %s", tn("bsdb_internal", "builtin_descriptions"), tn("bsdb_internal", "user_descriptions"))
	})
	register("pg_catalog", "pg_shdescription", true, "objoid:oid classoid:oid description:text", func(*Snapshot, *Facts) [][]any {
		return [][]any{
			{int64(1), int64(OIDPgDatabaseClass), "default template for new databases"},
			{int64(4), int64(OIDPgDatabaseClass), "unmodifiable empty database"},
			{int64(5), int64(OIDPgDatabaseClass), "default administrative connection database"},
		}
	})
	// PostgreSQL 15's languages (plpgsql's OIDs are those initdb gave the
	// generator's server; its handler functions are in proc_gen.go).
	register("pg_catalog", "pg_language", true, `oid:oid lanname:name lanowner:oid lanispl:bool lanpltrusted:bool
		lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:text[]`, func(*Snapshot, *Facts) [][]any {
		return [][]any{
			{int64(12), "internal", int64(OIDBootstrapUser), false, false, int64(0), int64(0), int64(2246), nil},
			{int64(13), "c", int64(OIDBootstrapUser), false, false, int64(0), int64(0), int64(2247), nil},
			{int64(14), "sql", int64(OIDBootstrapUser), false, true, int64(0), int64(0), int64(2248), nil},
			{int64(13563), "plpgsql", int64(OIDBootstrapUser), true, true, int64(13560), int64(13561), int64(13562), nil},
		}
	})
}

func procRows(*Snapshot, *Facts) [][]any {
	ps := procs()
	rows := make([][]any, 0, len(ps))
	for _, p := range ps {
		rows = append(rows, []any{p.int(pOID), p.f[pName], int64(OIDPgCatalog), int64(OIDBootstrapUser), p.int(pLang),
			p.float(pCost), p.float(pRows), p.int(pVariadic), p.f[pSupport], p.f[pKind], p.bool(pSecDef), p.bool(pLeakProof),
			p.bool(pStrict), p.bool(pRetSet), p.f[pVolatile], p.f[pParallel], int16(p.int(pNArgs)), int16(p.int(pNArgDefaults)),
			p.int(pRetType), p.oids(pArgTypes), p.oids(pAllArgTypes), p.strings(pArgModes), p.strings(pArgNames), nil, nil,
			p.text(pSrc), p.text(pBin), nil, nil, p.strings(pACL)})
	}
	return rows
}

func procFmtRows(*Snapshot, *Facts) [][]any {
	ps := procs()
	rows := make([][]any, 0, len(ps))
	for _, p := range ps {
		identity := p.text(pIdentity)
		if identity == nil {
			identity = p.f[pArgs]
		}
		regproc := RegprocOut(uint32(p.int(pOID)))
		var typ []string
		for _, o := range p.oids(pArgTypes).([]int64) {
			_, _, _, _, _, name := typeFacts(uint32(o))
			typ = append(typ, name)
		}
		rows = append(rows, []any{p.int(pOID), p.f[pResult], p.f[pArgs], identity, regproc, p.f[pSignature],
			SignatureKey(p.f[pSignature]), SignatureKey(p.f[pName] + "(" + strings.Join(typ, ",") + ")")})
	}
	return rows
}

// SignatureKey is a function signature as regprocedure_in matches it:
// without "pg_catalog." and blanks, in lower case.
func SignatureKey(s string) string {
	s = strings.TrimPrefix(strings.ToLower(s), "pg_catalog.")
	return strings.Join(strings.Fields(s), "")
}

// userDescriptionRows are the comments of the snapshot's tables, views,
// columns and indexes (COMMENT ON).
func userDescriptionRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range sortedTables(s.Tables) {
		if t.Comment != "" {
			rows = append(rows, []any{int64(t.OID), int64(OIDPgClassClass), int32(0), t.Comment})
		}
		for i, c := range t.Columns {
			if c.Comment != "" {
				rows = append(rows, []any{int64(t.OID), int64(OIDPgClassClass), int32(c.Num(i)), c.Comment})
			}
		}
		for _, x := range t.Indexes {
			if x.Comment != "" {
				rows = append(rows, []any{int64(x.OID), int64(OIDPgClassClass), int32(0), x.Comment})
			}
		}
	}
	return rows
}

func descriptionRows(*Snapshot, *Facts) [][]any {
	var rows [][]any
	for _, p := range procs() {
		if d := p.text(pDescription); d != nil {
			rows = append(rows, []any{p.int(pOID), int64(OIDPgProcClass), int32(0), d})
		}
	}
	for _, f := range parseLines(descLines, 3) {
		class, _ := strconv.ParseInt(f[0], 10, 64)
		obj, _ := strconv.ParseInt(f[1], 10, 64)
		rows = append(rows, []any{obj, class, int32(0), f[2]})
	}
	rows = append(rows, operatorDescriptions()...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][0].(int64) < rows[j][0].(int64) })
	return rows
}

var (
	builtinNamesOnce sync.Once
	builtinNames     map[string]bool
)

// IsBuiltinFunction reports whether PostgreSQL 15 has a function (or
// aggregate, or window function) of this exact name in pg_catalog. The SQL
// guard lets a client call only those (and the project's own).
func IsBuiltinFunction(name string) bool {
	builtinNamesOnce.Do(func() {
		builtinNames = make(map[string]bool, 3000)
		for _, p := range procs() {
			builtinNames[p.f[pName]] = true
		}
	})
	return builtinNames[name]
}
