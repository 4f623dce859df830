package resolve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

func TestMain(m *testing.M) { pgref.Main(m) }

// liveCatalog is a Catalog read from a running PostgreSQL: the tests check
// the rules against the very server whose answers they compare with.
type liveCatalog struct {
	types   map[uint32]*Type
	byName  map[string]*Type
	procs   map[string][]*Proc
	procOID map[uint32]*Proc
	opers   map[string][]*Oper
	casts   map[[2]uint32]*Cast
	format  map[uint32]string
	ranges  map[uint32][2]uint32 // range -> subtype, multirange
}

func (c *liveCatalog) Type(oid uint32) *Type           { return c.types[oid] }
func (c *liveCatalog) TypeByName(n string) *Type       { return c.byName[n] }
func (c *liveCatalog) Procs(n string) []*Proc          { return c.procs[n] }
func (c *liveCatalog) Proc(oid uint32) *Proc           { return c.procOID[oid] }
func (c *liveCatalog) Cast(s, t uint32) *Cast          { return c.casts[[2]uint32{s, t}] }
func (c *liveCatalog) FormatType(oid uint32) string    { return c.format[oid] }
func (c *liveCatalog) RangeSubtype(r uint32) uint32    { return c.ranges[r][0] }
func (c *liveCatalog) RangeMultirange(r uint32) uint32 { return c.ranges[r][1] }
func (c *liveCatalog) MultirangeRange(m uint32) uint32 {
	for r, v := range c.ranges {
		if v[1] == m {
			return r
		}
	}
	return 0
}
func (c *liveCatalog) Opers(n string, kind byte) []*Oper {
	var out []*Oper
	for _, o := range c.opers[n] {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// loadCatalog reads PostgreSQL's built-in catalogs (OID < 16384).
func loadCatalog(t testing.TB, conn *pgx.Conn) *liveCatalog {
	t.Helper()
	ctx := context.Background()
	c := &liveCatalog{types: map[uint32]*Type{}, byName: map[string]*Type{}, procs: map[string][]*Proc{},
		procOID: map[uint32]*Proc{}, opers: map[string][]*Oper{}, casts: map[[2]uint32]*Cast{},
		format: map[uint32]string{}, ranges: map[uint32][2]uint32{}}
	rows, err := conn.Query(ctx, `SELECT oid::int8, typname::text, typcategory::text, typispreferred, typtype::text,
		typlen::int4, typelem::int8, typarray::int8, typbasetype::int8, typrelid::int8, format_type(oid, NULL)
		FROM pg_type WHERE oid < 16384`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var oid, elem, arr, base, rel int64
		var name, cat, tt, f string
		var pref bool
		var l int32
		if err := rows.Scan(&oid, &name, &cat, &pref, &tt, &l, &elem, &arr, &base, &rel, &f); err != nil {
			t.Fatal(err)
		}
		ty := &Type{OID: uint32(oid), Name: name, Category: cat[0], Preferred: pref, TypType: tt[0], Len: l,
			Elem: uint32(elem), Array: uint32(arr), BaseType: uint32(base), RelID: uint32(rel)}
		c.types[ty.OID] = ty
		c.byName[name] = ty
		c.format[ty.OID] = f
	}
	rows, err = conn.Query(ctx, `SELECT oid::int8, proname::text, proargtypes::int8[], coalesce(proargnames[1:pronargs], '{}')::text[],
		provariadic::int8, pronargdefaults::int4, prorettype::int8, proretset, prokind::text
		FROM pg_proc WHERE oid < 16384 AND pronamespace = 'pg_catalog'::regnamespace ORDER BY oid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var oid, va, ret int64
		var name, kind string
		var args []int64
		var names []string
		var ndef int32
		var retset bool
		if err := rows.Scan(&oid, &name, &args, &names, &va, &ndef, &ret, &retset, &kind); err != nil {
			t.Fatal(err)
		}
		p := &Proc{OID: uint32(oid), Name: name, Variadic: uint32(va), NArgDefaults: int(ndef), Ret: uint32(ret), RetSet: retset, Kind: kind[0]}
		for _, a := range args {
			p.Args = append(p.Args, uint32(a))
		}
		if len(names) == len(args) {
			p.ArgNames = names
		}
		c.procs[name] = append(c.procs[name], p)
		c.procOID[p.OID] = p
	}
	rows, err = conn.Query(ctx, `SELECT oid::int8, oprname::text, oprkind::text, oprleft::int8, oprright::int8, oprresult::int8, oprcode::oid::int8
		FROM pg_operator WHERE oid < 16384 ORDER BY oid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var oid, l, r, res, code int64
		var name, kind string
		if err := rows.Scan(&oid, &name, &kind, &l, &r, &res, &code); err != nil {
			t.Fatal(err)
		}
		c.opers[name] = append(c.opers[name], &Oper{OID: uint32(oid), Name: name, Kind: kind[0], Left: uint32(l), Right: uint32(r), Result: uint32(res), Proc: uint32(code)})
	}
	rows, err = conn.Query(ctx, `SELECT castsource::int8, casttarget::int8, castfunc::int8, castcontext::text, castmethod::text FROM pg_cast`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s, tg, f int64
		var ctxs, m string
		if err := rows.Scan(&s, &tg, &f, &ctxs, &m); err != nil {
			t.Fatal(err)
		}
		c.casts[[2]uint32{uint32(s), uint32(tg)}] = &Cast{Source: uint32(s), Target: uint32(tg), Func: uint32(f), Context: ctxs[0], Method: m[0]}
	}
	rows, err = conn.Query(ctx, `SELECT rngtypid::int8, rngsubtype::int8, rngmultitypid::int8 FROM pg_range`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r, s, m int64
		if err := rows.Scan(&r, &s, &m); err != nil {
			t.Fatal(err)
		}
		c.ranges[uint32(r)] = [2]uint32{uint32(s), uint32(m)}
	}
	return c
}

// pgAnswer runs "SELECT pg_typeof(expr)" on PostgreSQL: the type's
// format_type name, or the error's SQLSTATE and message.
func pgAnswer(t testing.TB, conn *pgx.Conn, expr string) (typ, code, msg string) {
	t.Helper()
	ctx := context.Background()
	var s string
	err := conn.QueryRow(ctx, "SELECT pg_typeof("+expr+")::text").Scan(&s)
	if err == nil {
		return s, "", ""
	}
	if pe := pgErr(err); pe != nil {
		return "", pe.Code, pe.Message
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "SRF", "" // a set-returning call over NULL: no row, no type
	}
	t.Fatalf("%s: %v", expr, err)
	return "", "", ""
}

func connect(t testing.TB) *pgx.Conn {
	t.Helper()
	url := pgref.Start(t)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// sqlType spells an OID as a cast target PostgreSQL parses.
func sqlType(c *liveCatalog, oid uint32) string {
	return strings.TrimSpace(c.format[oid])
}
