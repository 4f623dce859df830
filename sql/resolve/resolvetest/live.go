package resolvetest

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/sql/resolve"
)

// Live is a resolve.Catalog read from a running PostgreSQL: the tests check
// the rules against the very server whose answers they compare with.
type Live struct {
	types   map[uint32]*resolve.Type
	byName  map[string]*resolve.Type
	procs   map[string][]*resolve.Proc
	procOID map[uint32]*resolve.Proc
	opers   map[string][]*resolve.Oper
	casts   map[[2]uint32]*resolve.Cast
	format  map[uint32]string
	ranges  map[uint32][2]uint32 // range -> subtype, multirange
}

func (c *Live) Type(oid uint32) *resolve.Type     { return c.types[oid] }
func (c *Live) TypeByName(n string) *resolve.Type { return c.byName[n] }
func (c *Live) Procs(n string) []*resolve.Proc    { return c.procs[n] }
func (c *Live) Proc(oid uint32) *resolve.Proc     { return c.procOID[oid] }
func (c *Live) Cast(s, t uint32) *resolve.Cast    { return c.casts[[2]uint32{s, t}] }
func (c *Live) FormatType(oid uint32) string      { return c.format[oid] }
func (c *Live) RangeSubtype(r uint32) uint32      { return c.ranges[r][0] }
func (c *Live) RangeMultirange(r uint32) uint32   { return c.ranges[r][1] }
func (c *Live) MultirangeRange(m uint32) uint32 {
	for r, v := range c.ranges {
		if v[1] == m {
			return r
		}
	}
	return 0
}
func (c *Live) Opers(n string, kind byte) []*resolve.Oper {
	var out []*resolve.Oper
	for _, o := range c.opers[n] {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// LoadLive reads PostgreSQL's built-in catalogs (OID < 16384).
func LoadLive(t testing.TB, conn *pgx.Conn) *Live {
	t.Helper()
	ctx := context.Background()
	c := &Live{types: map[uint32]*resolve.Type{}, byName: map[string]*resolve.Type{}, procs: map[string][]*resolve.Proc{},
		procOID: map[uint32]*resolve.Proc{}, opers: map[string][]*resolve.Oper{}, casts: map[[2]uint32]*resolve.Cast{},
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
		ty := &resolve.Type{OID: uint32(oid), Name: name, Category: cat[0], Preferred: pref, TypType: tt[0], Len: l,
			Elem: uint32(elem), Array: uint32(arr), BaseType: uint32(base), RelID: uint32(rel)}
		c.types[ty.OID] = ty
		c.byName[name] = ty
		c.format[ty.OID] = f
	}
	rows, err = conn.Query(ctx, `SELECT oid::int8, proname::text, proargtypes::int8[], coalesce(proargnames, '{}')::text[], coalesce(proargmodes::text[], '{}'),
		provariadic::int8, pronargdefaults::int4, prorettype::int8, proretset, prokind::text
		FROM pg_proc WHERE oid < 16384 AND pronamespace = 'pg_catalog'::regnamespace ORDER BY oid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var oid, va, ret int64
		var name, kind string
		var args []int64
		var names, modes []string
		var ndef int32
		var retset bool
		if err := rows.Scan(&oid, &name, &args, &names, &modes, &va, &ndef, &ret, &retset, &kind); err != nil {
			t.Fatal(err)
		}
		p := &resolve.Proc{OID: uint32(oid), Name: name, Variadic: uint32(va), NArgDefaults: int(ndef), Ret: uint32(ret), RetSet: retset, Kind: kind[0]}
		for _, a := range args {
			p.Args = append(p.Args, uint32(a))
		}
		p.ArgNames = inputNames(names, modes, len(args))
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
		c.opers[name] = append(c.opers[name], &resolve.Oper{OID: uint32(oid), Name: name, Kind: kind[0], Left: uint32(l), Right: uint32(r), Result: uint32(res), Proc: uint32(code)})
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
		c.casts[[2]uint32{uint32(s), uint32(tg)}] = &resolve.Cast{Source: uint32(s), Target: uint32(tg), Func: uint32(f), Context: ctxs[0], Method: m[0]}
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

// Connect connects to the reference PostgreSQL (internal/pgref).
func Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	url := pgref.Start(t)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// inputNames are the names of the input arguments: proargnames lists the
// output ones too when proargmodes says there are some.
func inputNames(names, modes []string, nargs int) []string {
	if len(names) == 0 {
		return nil
	}
	if len(modes) == 0 {
		if len(names) != nargs {
			return nil
		}
		return names
	}
	var out []string
	for i, m := range modes {
		if (m == "i" || m == "b" || m == "v") && i < len(names) {
			out = append(out, names[i])
		}
	}
	if len(out) != nargs {
		return nil
	}
	return out
}
