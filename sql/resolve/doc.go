// Package resolve is PostgreSQL 15's type rules of parse analysis, as
// pure functions over its catalogs: which function or operator a call
// names (overload resolution with implicit casts, the unknown type of
// untyped literals, polymorphic types), whether and how one type coerces
// to another, and the common type of UNION, CASE, COALESCE, VALUES and
// ARRAY[]. It is the part of the binder that decides types; it knows no
// syntax tree.
//
// Each function follows the PostgreSQL function of the same role, named in
// its comment, from src/backend/parser (parse_func.c, parse_oper.c,
// parse_coerce.c) and src/backend/catalog/namespace.c, so that a
// difference in behaviour can be looked up there. Errors are PostgreSQL's
// (SQLSTATE and message; the caller adds the position).
//
// # Data
//
// The catalogs come through the Catalog interface (pg_proc, pg_operator,
// pg_cast, pg_type rows of PostgreSQL 15's built-in objects): package
// pgcatalog implements it with data generated from PostgreSQL; the tests
// also load it straight from a reference PostgreSQL. There is no search
// path to walk: every built-in function and operator lives in pg_catalog,
// and this project defines none of its own.
//
// # What is not (yet) here
//
// Domains other than the built-in ones, composite and enum types of the
// user (there are none), named-argument calls of variadic functions, and
// the implementation of the coercions: Coercion says which pathway
// PostgreSQL takes, and the emitter writes it for the engine.
package resolve
