package pgcatalog

import (
	"testing"
)

// TestBinderLookups spot-checks the lookups of parse analysis against
// values read from PostgreSQL 15 (TestCatalogsMatchReference compares
// every row with a running one).
func TestBinderLookups(t *testing.T) {
	// oper(): int4 + int4 is operator 551, int4pl (177), its own commutator.
	if o := OperatorExact("+", 23, 23); o == nil || o.OID != 551 || o.Result != 23 || o.Code != 177 || o.Com != 551 || o.Negate != 0 || o.Kind != 'b' {
		t.Errorf("OperatorExact(+, int4, int4) = %+v", o)
	}
	if o := OperatorExact("-", 0, 20); o == nil || o.OID != 484 || o.Kind != 'l' {
		t.Errorf("prefix -(bigint) = %+v", o)
	}
	if OperatorExact("+", 23, 25) != nil {
		t.Error("OperatorExact(+, int4, text) found an operator")
	}
	if n := len(OperatorsByName("-")); n != 47 {
		t.Errorf("OperatorsByName(-): %d operators, PostgreSQL has 47", n)
	}
	if got := RegprocOut(OperatorByOID(551).Code); got != "int4pl" {
		t.Errorf("oprcode of 551 prints %q", got)
	}
	if got, want := RegoperOut(551)+" "+RegoperatorOut(551)+" "+RegoperatorOut(484)+" "+RegoperOut(0), "pg_catalog.+ +(integer,integer) -(NONE,bigint) 0"; got != want {
		t.Errorf("regoper/regoperator texts %q, want %q", got, want)
	}

	// find_coercion_pathway's pg_cast lookups.
	for _, c := range []struct {
		src, dst uint32
		fn       uint32
		ctx, m   byte
	}{{23, 20, 481, 'i', 'f'}, {25, 1043, 0, 'i', 'b'}, {1043, 1043, 669, 'i', 'f'}} {
		if got := CastBetween(c.src, c.dst); got == nil || got.Func != c.fn || got.Context != c.ctx || got.Method != c.m {
			t.Errorf("CastBetween(%d, %d) = %+v, want func %d context %c method %c", c.src, c.dst, got, c.fn, c.ctx, c.m)
		}
	}
	if CastBetween(25, 23) != nil {
		t.Error("a text -> int4 cast in pg_cast (PostgreSQL coerces through I/O)")
	}
	for _, c := range []struct {
		src, dst uint32
		want     bool
	}{{25, 1043, true}, {1043, 25, true}, {23, 20, false}, {1007, OIDAnyArray, true}, {23, OIDAnyArray, false},
		{23, OIDAnyNonArray, true}, {3904, OIDAnyRange, true}, {23, OIDAny, true}, {19, OIDAnyArray, false}} {
		if got := IsBinaryCoercible(c.src, c.dst); got != c.want {
			t.Errorf("IsBinaryCoercible(%d, %d) = %v", c.src, c.dst, got)
		}
	}

	// TypeCategory / IsPreferredType / arrays / ranges.
	if TypeCategory(23) != 'N' || TypeCategory(25) != 'S' || TypeCategory(1007) != 'A' || TypeCategory(999999) != 0 {
		t.Errorf("TypeCategory: int4 %c text %c int4[] %c", TypeCategory(23), TypeCategory(25), TypeCategory(1007))
	}
	if !IsPreferredType('N', 701) || IsPreferredType('N', 23) || IsPreferredType('S', 701) || !IsPreferredType(0, 25) {
		t.Error("IsPreferredType: float8 is N's preferred type, text S's; int4 is not")
	}
	if ElementType(1007) != 23 || ElementType(19) != 0 || ElementType(600) != 0 || ElementType(22) != 21 || ArrayType(23) != 1007 {
		t.Errorf("ElementType(int4[]) %d, (name) %d, (point) %d, (int2vector) %d; ArrayType(int4) %d",
			ElementType(1007), ElementType(19), ElementType(600), ElementType(22), ArrayType(23))
	}
	if ty := TypeByName("int4"); ty == nil || ty.OID != 23 || ty.FormatType != "integer" || TypeByName("integer") != nil {
		t.Errorf("TypeByName(int4) = %+v (integer is a grammar alias, not a pg_type name)", ty)
	}
	if b, m := BaseType(23, 7); b != 23 || m != 7 {
		t.Errorf("BaseType(int4) = %d, %d", b, m)
	}
	if r := RangeByType(3904); r == nil || r.Subtype != 23 || r.Multirange != 4451 || RangeByMultirange(4451) != r || RangeByType(23) != nil {
		t.Errorf("RangeByType(int4range) = %+v", r)
	}

	// lookup_type_cache's default btree opclasses and their members.
	for _, c := range []struct {
		typ  uint32
		want uint32
	}{{23, 1978}, {25, 3126}, {1043, 3126}, {1007, 10000}, {1042, 10004}} {
		if got := DefaultOpClass(c.typ, OIDBtreeAM); got == nil || got.OID != c.want {
			t.Errorf("DefaultOpClass(%d, btree) = %+v, want %d", c.typ, got, c.want)
		}
	}
	if DefaultOpClass(600, OIDBtreeAM) != nil {
		t.Error("point has a default btree opclass")
	}
	fam := DefaultOpClass(23, OIDBtreeAM).Family
	if lt, eq, gt := OpfamilyMember(fam, 23, 23, 1), OpfamilyMember(fam, 23, 23, 3), OpfamilyMember(fam, 23, 23, 5); lt != 97 || eq != 96 || gt != 521 {
		t.Errorf("integer_ops members <, =, > = %d %d %d", lt, eq, gt)
	}
	if p := OpfamilyProc(fam, 23, 23, 1); p != 351 || RegprocOut(p) != "btint4cmp" {
		t.Errorf("integer_ops support 1 = %d", p)
	}
	if ops := AmOpsOfOperator(97); len(ops) == 0 {
		t.Error("int4 < is in no operator family")
	}

	// ParseFuncOrColumn's aggregate lookups.
	for _, c := range []struct {
		fn     uint32
		kind   byte
		trans  uint32
		sortop uint32
		init   string
	}{{2108, 'n', 20, 0, "NULL"}, {2116, 'n', 23, 521, "NULL"}, {2803, 'n', 20, 0, "0"}, {3972, 'o', 2281, 0, "NULL"}, {3986, 'h', 2281, 0, "NULL"}} {
		a := AggregateByFunc(c.fn)
		init := "NULL"
		if a != nil && a.InitVal != nil {
			init = *a.InitVal
		}
		if a == nil || a.Kind != c.kind || a.TransType != c.trans || a.SortOp != c.sortop || init != c.init {
			t.Errorf("AggregateByFunc(%d) = %+v", c.fn, a)
		}
	}
	if AggregateByFunc(177) != nil {
		t.Error("int4pl is an aggregate")
	}

	// func_get_detail's candidates and their facts.
	if n := len(FuncsByName("abs")); n != 6 {
		t.Errorf("FuncsByName(abs): %d, PostgreSQL has 6", n)
	}
	if f := FuncByOID(3539); f == nil || f.Name != "format" || f.Variadic != OIDAny || len(f.ArgTypes) != 2 || f.ArgTypes[1] != OIDAny || f.Kind != 'f' {
		t.Errorf("format(text, VARIADIC \"any\") = %+v", f)
	}
	if f := FuncByOID(3464); f == nil || f.NArgDefaults != 7 || len(f.ArgDefaults) != 7 || f.ArgDefaults[0] != "0" || f.ArgDefaults[6] != "0.0" ||
		len(f.ArgNames) != 7 || f.ArgNames[6] != "secs" || f.ArgModes != nil {
		t.Errorf("make_interval = %+v", f)
	}
	if f := FuncByOID(1299); f == nil || f.Volatile != 's' || !f.Strict || f.RetType != 1184 || f.RetSet {
		t.Errorf("now() = %+v", f)
	}
	if f := FuncByOID(1067); f == nil || !f.RetSet {
		t.Errorf("generate_series(int4, int4) = %+v", f)
	}
	if got := RegprocOut(1397) + " " + RegprocOut(1299) + " " + RegprocOut(0); got != "pg_catalog.abs now -" {
		t.Errorf("RegprocOut: %q", got)
	}
}

// TestGeneratedCatalogs: every generated line parses, and the catalogs
// refer to one another consistently (what the binder follows: an
// operator's function, a cast's function, an aggregate's pg_proc row, an
// operator class's family).
func TestGeneratedCatalogs(t *testing.T) {
	counts := map[string]int{"types": len(Types()), "operators": len(Operators()), "casts": len(Casts()),
		"aggregates": len(Aggregates()), "access methods": len(AccessMethods()), "opfamilies": len(OpFamilies()),
		"opclasses": len(OpClasses()), "amops": len(AmOps()), "amprocs": len(AmProcs()), "ranges": len(Ranges()), "funcs": len(Funcs())}
	// PostgreSQL 15.18's counts.
	want := map[string]int{"types": 324, "operators": 799, "casts": 229, "aggregates": 148, "access methods": 7, "opfamilies": 146,
		"opclasses": 177, "amops": 945, "amprocs": 696, "ranges": 6, "funcs": 3233}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%d %s, want %d", counts[k], k, n)
		}
	}
	// Ordered by OID, as the generator promises (the relations and the
	// lists returned keep that order).
	ordered := func(what string, oids func(i int) uint32, n int) {
		for i := 1; i < n; i++ {
			if oids(i-1) >= oids(i) {
				t.Errorf("%s not ordered by OID at %d: %d, %d", what, i, oids(i-1), oids(i))
				return
			}
		}
	}
	ordered("types", func(i int) uint32 { return Types()[i].OID }, len(Types()))
	ordered("funcs", func(i int) uint32 { return Funcs()[i].OID }, len(Funcs()))
	ordered("operators", func(i int) uint32 { return Operators()[i].OID }, len(Operators()))
	ordered("casts", func(i int) uint32 { return Casts()[i].OID }, len(Casts()))
	ordered("aggregates", func(i int) uint32 { return Aggregates()[i].FnOID }, len(Aggregates()))
	ordered("access methods", func(i int) uint32 { return AccessMethods()[i].OID }, len(AccessMethods()))
	ordered("opfamilies", func(i int) uint32 { return OpFamilies()[i].OID }, len(OpFamilies()))
	ordered("opclasses", func(i int) uint32 { return OpClasses()[i].OID }, len(OpClasses()))
	ordered("amops", func(i int) uint32 { return AmOps()[i].OID }, len(AmOps()))
	ordered("amprocs", func(i int) uint32 { return AmProcs()[i].OID }, len(AmProcs()))
	ordered("ranges", func(i int) uint32 { return Ranges()[i].Type }, len(Ranges()))
	fn := func(what string, oid uint32) {
		if oid != 0 && FuncByOID(oid) == nil {
			t.Errorf("%s: function %d is no built-in function", what, oid)
		}
	}
	ty := func(what string, oid uint32) {
		if oid != 0 && TypeByOID(oid) == nil {
			t.Errorf("%s: type %d is no built-in type", what, oid)
		}
	}
	for _, o := range Operators() {
		fn("oprcode", o.Code)
		fn("oprrest", o.Rest)
		fn("oprjoin", o.Join)
		ty("oprleft", o.Left)
		ty("oprright", o.Right)
		ty("oprresult", o.Result)
		if o.Code == 0 || OperatorExact(o.Name, o.Left, o.Right) != o || (o.Kind == 'l') != (o.Left == 0) {
			t.Errorf("operator %d: %+v", o.OID, o)
		}
		if o.Com != 0 && OperatorByOID(o.Com) == nil || o.Negate != 0 && OperatorByOID(o.Negate) == nil {
			t.Errorf("operator %d: commutator or negator missing", o.OID)
		}
	}
	for _, c := range Casts() {
		fn("castfunc", c.Func)
		if (c.Method == 'f') != (c.Func != 0) || CastBetween(c.Source, c.Target) != c {
			t.Errorf("cast %+v", c)
		}
	}
	for _, a := range Aggregates() {
		if f := FuncByOID(a.FnOID); f == nil || f.Kind != 'a' {
			t.Errorf("aggregate %d is not a function of kind a", a.FnOID)
		}
		for _, f := range []uint32{a.TransFn, a.FinalFn, a.CombineFn, a.SerialFn, a.DeserialFn, a.MTransFn, a.MInvTransFn, a.MFinalFn} {
			fn("aggregate", f)
		}
	}
	for _, f := range Funcs() {
		if f.Kind == 'a' && AggregateByFunc(f.OID) == nil {
			t.Errorf("function %d %s has kind a and no pg_aggregate row", f.OID, f.Name)
		}
	}
	for _, c := range OpClasses() {
		if OpFamilyByOID(c.Family) == nil {
			t.Errorf("opclass %d: family %d missing", c.OID, c.Family)
		}
	}
	for _, o := range AmOps() {
		if OperatorByOID(o.Operator) == nil || OpFamilyByOID(o.Family) == nil {
			t.Errorf("amop %+v", o)
		}
	}
	for _, p := range AmProcs() {
		fn("amproc", p.Proc)
	}
	for _, a := range AccessMethods() {
		fn("amhandler", a.Handler)
	}
	for _, r := range Ranges() {
		ty("range", r.Type)
		ty("multirange", r.Multirange)
		fn("rngcanonical", r.Canonical)
		fn("rngsubdiff", r.SubDiff)
	}
}
