// Package pgcatalog serves PostgreSQL's system catalogs — pg_catalog and
// information_schema — and the catalog functions clients call, as DuckDB
// relations and macros, so that psql's \d family, pgjdbc's
// DatabaseMetaData, psqlODBC's SQLTables/SQLColumns, psycopg and
// node-postgres get the answers PostgreSQL 15 gives.
//
// # What it owns
//
//   - The relation registry (pg_catalog.go, information_schema.go): for
//     each catalog relation its PostgreSQL column list (names and type
//     OIDs, e.g. oid columns are type oid, relkind is "char") and a row
//     source. Lookup(schema, name) resolves a name (schema "" = the
//     implicit pg_catalog) to its columns and the DuckDB table holding its
//     rows; IsSystemSchema says which schemas are entirely ours.
//   - Static facts generated from a real PostgreSQL by ./gen (regenerate
//     with `go run ./pgcatalog/gen -url postgres://... -dir pgcatalog`):
//     static_gen.go has every built-in pg_type row with its real OID,
//     typinput/typoutput/typreceive/typsend names, typarray, typelem,
//     typcategory, and format_type's spelling; proc_gen.go has pg_proc's
//     ~3200 rows of pg_catalog (with what pg_get_function_result /
//     _arguments / _identity_arguments print, the regprocedure spelling
//     and the description) and the descriptions of the built-in types,
//     schemas, access methods and languages, as compact tab-separated
//     lines parsed on first use (procs.go); oper_gen.go, cast_gen.go,
//     agg_gen.go, opclass_gen.go and extra_gen.go hold pg_operator,
//     pg_cast, pg_aggregate, pg_am / pg_opfamily / pg_opclass / pg_amop /
//     pg_amproc, pg_range, typsubscript / typanalyze, the functions'
//     argument defaults and the keywords quote_ident quotes, in the same
//     form (regproc columns as function OIDs).
//   - The lookups of PostgreSQL's parse analysis, for a binder, built once
//     into maps on first use (typeinfo.go, funcinfo.go, operators.go,
//     casts.go, aggregates.go, opclasses.go; each documents the
//     PostgreSQL function it serves): TypeByOID / TypeByName,
//     TypeCategory, IsPreferredType, ElementType, ArrayType, BaseType,
//     RangeByType / RangeByMultirange; FuncByOID / FuncsByName (the
//     candidates of func_get_detail, with argument defaults); OperatorExact
//     / OperatorsByName / OperatorByOID (oper, left_oper, make_op);
//     CastBetween and IsBinaryCoercible (find_coercion_pathway,
//     find_typmod_coercion_function); AggregateByFunc; DefaultOpClass,
//     OpfamilyMember, OpfamilyProc, AmOpsOfOperator (lookup_type_cache's
//     equality / ordering / hash operators, ORDER BY ... USING);
//     RegprocOut, RegoperOut, RegoperatorOut. They return shared values:
//     callers must not modify them.
//   - Dynamic rows built from a Snapshot (our databases, schemas, tables
//     with columns and primary keys, sessions) and per-connection Facts
//     (database, user, backend pid, server version, start time).
//   - The function macros (macros.go), named MacroPrefix + PostgreSQL name
//     (IsFunction lists them): format_type, pg_get_userbyid,
//     pg_table_is_visible, pg_type_is_visible, pg_get_expr,
//     obj_description, col_description, shobj_description, pg_get_indexdef,
//     pg_get_constraintdef, has_function_privilege, has_sequence_privilege,
//     current_database, pg_get_function_result/_arguments/_identity_arguments,
//     version,
//     pg_backend_pid, pg_encoding_to_char, pg_postmaster_start_time,
//     information_schema._pg_expandarray, array_upper/array_lower, the
//     pg_get_function_* and size functions, and the reg* casts
//     (regclass_in/_out, regtype_in/_out, regnamespace, regrole, regproc,
//     regprocedure, regoper, regoperator), pg_operator_is_visible,
//     pg_opclass_is_visible, pg_opfamily_is_visible.
//     The SQL translator (sql/syscat.go) renames calls and casts to them.
//
// # Where rows live (DuckDB)
//
//   - Static relations (pg_type, pg_proc, pg_description,
//     pg_shdescription, pg_language, pg_operator, pg_cast, pg_aggregate,
//     pg_am, pg_opfamily, pg_opclass, pg_amop, pg_amproc, pg_range,
//     pg_collation, pg_tablespace, pg_extension and the always-empty ones:
//     pg_inherits, pg_enum, pg_policy, pg_trigger, pg_locks, ...) are ordinary tables
//     in schema __bsdb_pgc of the DuckDB database, created once per
//     database by SharedSetup (~0.3 s, on the first catalog query).
//   - Rows are loaded as one text literal per relation that DuckDB splits
//     and casts (relations.go build): a VALUES list of pg_proc's rows
//     would take ~0.8 s to bind.
//   - Dynamic relations (pg_namespace, pg_class, pg_attribute, pg_attrdef,
//     pg_constraint, pg_index, pg_database, pg_roles/pg_user/pg_authid,
//     pg_auth_members,
//     pg_stat_activity, pg_tables, pg_indexes, pg_settings, the
//     information_schema views, and two helper tables: visible oids and
//     index/constraint definitions) are TEMP tables of each connection,
//     created empty with the macros by SessionSetup, and rebuilt by a
//     Refresher before a statement that reads a system relation. The
//     Refresher re-runs only the relations whose rows changed since its
//     last refresh.
//
// # OIDs (stable across restarts)
//
//   - Built-in objects keep PostgreSQL's OIDs (pg_catalog 11, public 2200,
//     bootstrap user 10 "postgres", pg_database_owner 6171, heap 2, btree
//     403, types from static_gen.go, the main catalogs' own OIDs such as
//     pg_class 1259); information_schema is 13000.
//   - Tables: the storage catalog's OID (>= 16384, < 2^30).
//   - Primary key index: table | 1<<31; its constraint: table | 3<<30;
//     column default (pg_attrdef): table | attnum<<32.
//   - User schemas and databases: 1<<30 | FNV-1a(name) & (1<<30-1)
//     ("postgres" keeps 5). Hash collisions between two names are possible
//     but harmless to clients that join on names.
//
// # Invariants
//
//   - Every relation's rows have exactly its column count (build panics
//     with "BUG:" otherwise: a programming error, caught by the tests).
//   - Macro bodies use aliases (_mc, _mn, ...) that cannot capture the
//     caller's: macros are expanded inline, and a body alias "c" would
//     shadow the caller's c in c.oid::regclass.
//   - pg_table_is_visible is true for the first table of a name along the
//     search path, and for every system relation.
//
// # Known gaps
//
//   - pg_proc holds the built-in functions of pg_catalog only (not
//     information_schema's helpers); we have no user functions.
//   - regproc values are names, not OIDs (pg_type.typinput holds
//     "array_in", pg_operator.oprcode "int4pl", as PostgreSQL prints
//     them): 'f'::regproc checks f names exactly one function and gives
//     the name, n::regproc gives the name of function n; a regproc cannot
//     be cast on to oid or regprocedure, nor compared with an oid column:
//     joins such as pg_amproc.amproc = pg_proc.oid (psql's \dAp) or
//     pg_aggregate.aggfnoid = pg_proc.oid fail ("invalid input syntax for
//     type bigint"). obj_description accepts a regproc name. The Go
//     lookups and the generated lines carry the OIDs: storing OIDs instead
//     needs the translator to print regproc values (regprocout).
//   - tableoid is no column of the catalog relations: the translator
//     replaces a reference to it by the relation's OID (RelationOID), so
//     it is not in SELECT *, as in PostgreSQL; tables of ours do not
//     offer it yet.
//   - The catalogs that hold no object of ours (pg_init_privs but for
//     initdb's ACLs, pg_default_acl, pg_ts_*, pg_conversion, pg_transform,
//     pg_subscription, pg_seclabel(s), ...: dump_relations.go) are empty,
//     without PostgreSQL's built-in rows that pg_dump skips anyway.
//   - regoper / regoperator / regtype casts are typed text (::oid int8)
//     in results, not their PostgreSQL types; '-(int8)'::regoperator
//     reports "operator does not exist", not 42P02 "missing argument". regprocedure values are
//     OIDs ('abs(int4)'::regprocedure); its input matches PostgreSQL's
//     spelling of the argument types or their internal names, not mixes
//     or aliases such as int.
//   - Comments on our own objects (COMMENT ON) are not kept: descriptions
//     are those of built-in objects and of the databases postgres,
//     template0 and template1.
//   - pg_database lists template0 and template1 as PostgreSQL does, but
//     they are not databases of ours: connecting to them is refused.
//   - Composite row types of tables are not in pg_type.
//   - int2vector/oidvector columns (indkey, indclass, proargtypes, ...)
//     are DuckDB lists typed int2vector/oidvector: the server prints them
//     as "1 2" (server/values.go); subscripts are shifted by the
//     translator (PostgreSQL's are 0-based).
//   - current_schema(s), set_config, current_setting, txid_current,
//     current_user, session_user and the privilege functions
//     (has_table/schema/database/column/any_column_privilege, pg_has_role)
//     are not macros: they read the session's state and the catalog's
//     ACLs, and the server answers them (sql.SessionFunctions,
//     server/sessionfuncs.go, server/privfuncs.go).
//   - Roles, memberships, owners and ACLs come from the Snapshot (the
//     storage catalog's); the predefined roles (pg_read_all_data, ...) and
//     their memberships are added. relacl, nspacl and datacl are text[]
//     (PostgreSQL: aclitem[]) with the same texts. System relations have
//     a NULL relacl; has_table_privilege answers PostgreSQL's default for
//     them (SELECT for everyone, pg_authid for superusers only).
//   - has_function_privilege and has_sequence_privilege answer true: we
//     have no user functions or sequences, and PUBLIC may execute the
//     built-in ones.
package pgcatalog
