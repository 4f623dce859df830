package sql

import (
	"sync"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/sql/resolve"
)

// builtinCatalog is resolve.Catalog over package pgcatalog: PostgreSQL
// 15's built-in types, functions, operators and casts, generated from
// PostgreSQL. The rows are converted once, on first use.
type builtinCatalog struct {
	once   sync.Once
	types  map[uint32]*resolve.Type
	byName map[string]*resolve.Type
	procs  map[string][]*resolve.Proc
	byOID  map[uint32]*resolve.Proc
	opers  map[string][]*resolve.Oper // key: kind + name
}

var (
	_ resolve.Catalog      = (*builtinCatalog)(nil)
	_ resolve.RangeCatalog = (*builtinCatalog)(nil)
)

// Builtins is the resolver over PostgreSQL 15's built-in catalogs.
var Builtins = resolve.New(&builtinCatalog{})

func (c *builtinCatalog) load() {
	c.once.Do(func() {
		c.types, c.byName = map[uint32]*resolve.Type{}, map[string]*resolve.Type{}
		for _, t := range pgcatalog.Types() {
			elem := t.Elem
			if t.Subscript != "array_subscript_handler" {
				elem = 0 // name, point: subscripted, but no arrays
			}
			rt := &resolve.Type{OID: t.OID, Name: t.Name, Category: t.Category, Preferred: t.Preferred,
				TypType: t.TypType, Len: int32(t.Len), Elem: elem, Array: t.Array, BaseType: t.BaseType, RelID: t.RelID}
			if elem != 0 && t.Len != -1 {
				rt.Elem = 0
			}
			c.types[t.OID] = rt
			c.byName[t.Name] = rt
		}
		c.procs, c.byOID = map[string][]*resolve.Proc{}, map[uint32]*resolve.Proc{}
		for _, f := range pgcatalog.Funcs() {
			p := &resolve.Proc{OID: f.OID, Name: f.Name, Args: f.ArgTypes, Variadic: f.Variadic,
				NArgDefaults: f.NArgDefaults, Ret: f.RetType, RetSet: f.RetSet, Kind: f.Kind, ArgNames: inputArgNames(f)}
			c.procs[f.Name] = append(c.procs[f.Name], p)
			c.byOID[f.OID] = p
		}
		c.opers = map[string][]*resolve.Oper{}
		for _, o := range pgcatalog.Operators() {
			ro := &resolve.Oper{OID: o.OID, Name: o.Name, Kind: o.Kind, Left: o.Left, Right: o.Right, Result: o.Result, Proc: o.Code}
			key := string(o.Kind) + o.Name
			c.opers[key] = append(c.opers[key], ro)
		}
	})
}

// inputArgNames are the names of f's input arguments (proargnames lists
// the output ones too when proargmodes says there are some), or nil.
func inputArgNames(f *pgcatalog.Func) []string {
	if len(f.ArgNames) == 0 {
		return nil
	}
	if f.ArgModes == nil {
		if len(f.ArgNames) != len(f.ArgTypes) {
			return nil
		}
		return f.ArgNames
	}
	var out []string
	for i, m := range f.ArgModes {
		if (m == 'i' || m == 'b' || m == 'v') && i < len(f.ArgNames) {
			out = append(out, f.ArgNames[i])
		}
	}
	if len(out) != len(f.ArgTypes) {
		return nil
	}
	return out
}

func (c *builtinCatalog) Type(oid uint32) *resolve.Type {
	c.load()
	return c.types[oid]
}

func (c *builtinCatalog) TypeByName(name string) *resolve.Type {
	c.load()
	return c.byName[name]
}

func (c *builtinCatalog) Procs(name string) []*resolve.Proc {
	c.load()
	return c.procs[name]
}

// Proc is the function of an OID (the operator's function's retset).
func (c *builtinCatalog) Proc(oid uint32) *resolve.Proc {
	c.load()
	return c.byOID[oid]
}

func (c *builtinCatalog) Opers(name string, kind byte) []*resolve.Oper {
	c.load()
	return c.opers[string(kind)+name]
}

func (c *builtinCatalog) Cast(source, target uint32) *resolve.Cast {
	k := pgcatalog.CastBetween(source, target)
	if k == nil {
		return nil
	}
	return &resolve.Cast{Source: k.Source, Target: k.Target, Func: k.Func, Context: k.Context, Method: k.Method}
}

func (c *builtinCatalog) FormatType(oid uint32) string {
	if t := pgcatalog.TypeByOID(oid); t != nil {
		return t.FormatType
	}
	return "???"
}

func (c *builtinCatalog) RangeSubtype(oid uint32) uint32 {
	if r := pgcatalog.RangeByType(oid); r != nil {
		return r.Subtype
	}
	return 0
}

func (c *builtinCatalog) RangeMultirange(oid uint32) uint32 {
	if r := pgcatalog.RangeByType(oid); r != nil {
		return r.Multirange
	}
	return 0
}

func (c *builtinCatalog) MultirangeRange(oid uint32) uint32 {
	if r := pgcatalog.RangeByMultirange(oid); r != nil {
		return r.Type
	}
	return 0
}
