-- Catalog queries compared between bsdb-pg and PostgreSQL by
-- catalog_diff_test.go: captured from pgjdbc 42.5 (DatabaseMetaData, PostgreSQL
-- log_statement=all, $1 replaced by a literal) and psqlODBC 13 (SQLTables,
-- SQLColumns, SQLPrimaryKeys), plus information_schema / function checks.
-- Each query starts with a "-- name" line and ends with ";" at a line end.
-- pgjdbc getColumns
SELECT * FROM (SELECT n.nspname,c.relname,a.attname,a.atttypid,a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) AS attnotnull,a.atttypmod,a.attlen,t.typtypmod,row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, nullif(a.attidentity, '') as attidentity,nullif(a.attgenerated, '') as attgenerated,pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc,dsc.description,t.typbasetype,t.typtype  FROM pg_catalog.pg_namespace n  JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid)  JOIN pg_catalog.pg_attribute a ON (a.attrelid=c.oid)  JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid)  LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum)  LEFT JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)  LEFT JOIN pg_catalog.pg_class dc ON (dc.oid=dsc.classoid AND dc.relname='pg_class')  LEFT JOIN pg_catalog.pg_namespace dn ON (dc.relnamespace=dn.oid AND dn.nspname='pg_catalog')  WHERE c.relkind in ('r','p','v','f','m') and a.attnum > 0 AND NOT a.attisdropped  AND n.nspname LIKE 'public' AND c.relname LIKE 't') c WHERE true  AND attname LIKE '%' ORDER BY nspname,c.relname,attnum;

-- pgjdbc getColumns
SELECT * FROM (SELECT n.nspname,c.relname,a.attname,a.atttypid,a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) AS attnotnull,a.atttypmod,a.attlen,t.typtypmod,row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, nullif(a.attidentity, '') as attidentity,nullif(a.attgenerated, '') as attgenerated,pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc,dsc.description,t.typbasetype,t.typtype  FROM pg_catalog.pg_namespace n  JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid)  JOIN pg_catalog.pg_attribute a ON (a.attrelid=c.oid)  JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid)  LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum)  LEFT JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)  LEFT JOIN pg_catalog.pg_class dc ON (dc.oid=dsc.classoid AND dc.relname='pg_class')  LEFT JOIN pg_catalog.pg_namespace dn ON (dc.relnamespace=dn.oid AND dn.nspname='pg_catalog')  WHERE c.relkind in ('r','p','v','f','m') and a.attnum > 0 AND NOT a.attisdropped  AND n.nspname LIKE 'public' AND c.relname LIKE 'items') c WHERE true  AND attname LIKE '%' ORDER BY nspname,c.relname,attnum;

-- pgjdbc typeInfoIsArray
SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, typname, pg_type.oid   FROM pg_catalog.pg_type   LEFT JOIN (select ns.oid as nspoid, ns.nspname, r.r           from pg_namespace as ns           join ( select s.r, (current_schemas(false))[s.r] as nspname                    from generate_series(1, array_upper(current_schemas(false), 1)) as s(r) ) as r          using ( nspname )        ) as sp     ON sp.nspoid = typnamespace  WHERE pg_type.oid = 1043  ORDER BY sp.r, pg_type.oid DESC;

-- pgjdbc typeInfoSchema
SELECT n.nspname = ANY(current_schemas(true)), n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid WHERE t.oid = 1043;

-- pgjdbc getPrimaryKeys
SELECT        result.TABLE_CAT,        result.TABLE_SCHEM,        result.TABLE_NAME,        result.COLUMN_NAME,        result.KEY_SEQ,        result.PK_NAME FROM      (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM,   ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME,   (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME,   information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct   JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)   JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid)   JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true  AND n.nspname = 'public' AND ct.relname = 't' AND i.indisprimary  ) result where  result.A_ATTNUM = (result.KEYS).x  ORDER BY result.table_name, result.pk_name, result.key_seq;

-- pgjdbc getPrimaryKeys
SELECT        result.TABLE_CAT,        result.TABLE_SCHEM,        result.TABLE_NAME,        result.COLUMN_NAME,        result.KEY_SEQ,        result.PK_NAME FROM      (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM,   ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME,   (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME,   information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct   JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)   JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid)   JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true  AND n.nspname = 's2' AND ct.relname = 'other' AND i.indisprimary  ) result where  result.A_ATTNUM = (result.KEYS).x  ORDER BY result.table_name, result.pk_name, result.key_seq;

-- pgjdbc getSchemas
SELECT nspname AS TABLE_SCHEM, NULL AS TABLE_CATALOG FROM pg_catalog.pg_namespace  WHERE nspname <> 'pg_toast' AND (nspname !~ '^pg_temp_'  OR nspname = (pg_catalog.current_schemas(true))[1]) AND (nspname !~ '^pg_toast_temp_'  OR nspname = replace((pg_catalog.current_schemas(true))[1], 'pg_temp_', 'pg_toast_temp_'))  ORDER BY TABLE_SCHEM;

-- psqlODBC SQLTables
select relname, nspname, relkind from pg_catalog.pg_class c, pg_catalog.pg_namespace n where relkind in ('r', 'v', 'm', 'f', 'p') and nspname like 'public' and nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'pg_temp_1') and n.oid = relnamespace order by nspname, relname;
-- psqlODBC SQLColumns
select n.nspname, c.relname, a.attname, a.atttypid, t.typname, a.attnum, a.attlen, a.atttypmod, a.attnotnull, c.relhasrules, c.relkind, c.oid, pg_get_expr(d.adbin, d.adrelid), case t.typtype when 'd' then t.typbasetype else 0 end, t.typtypmod, 0, attidentity, c.relhassubclass from (((pg_catalog.pg_class c inner join pg_catalog.pg_namespace n on n.oid = c.relnamespace and c.relname like 't' and n.nspname like 'public') inner join pg_catalog.pg_attribute a on (not a.attisdropped) and a.attnum > 0 and a.attrelid = c.oid) inner join pg_catalog.pg_type t on t.oid = a.atttypid) left outer join pg_attrdef d on a.atthasdef and d.adrelid = a.attrelid and d.adnum = a.attnum order by n.nspname, c.relname, attnum;
-- psqlODBC SQLPrimaryKeys
select ta.attname, ia.attnum, ic.relname, n.nspname, tc.relname from pg_catalog.pg_attribute ta, pg_catalog.pg_attribute ia, pg_catalog.pg_class tc, pg_catalog.pg_index i, pg_catalog.pg_namespace n, pg_catalog.pg_class ic where tc.relname = 't' AND n.nspname = 'public' AND tc.oid = i.indrelid AND n.oid = tc.relnamespace AND i.indisprimary = 't' AND ia.attrelid = i.indexrelid AND ta.attrelid = i.indrelid AND ta.attnum = i.indkey[ia.attnum-1] AND (NOT ta.attisdropped) AND (NOT ia.attisdropped) AND ic.oid = i.indexrelid order by ia.attnum;
-- information_schema.tables
SELECT table_catalog = current_database(), table_schema, table_name, table_type, is_insertable_into, is_typed FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 2, 3;
-- information_schema.columns
SELECT table_schema, table_name, column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, datetime_precision, udt_name, is_identity, is_generated, is_updatable FROM information_schema.columns WHERE table_schema IN ('public', 's2') ORDER BY 1, 2, 4;
-- information_schema.schemata
SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT LIKE 'pg_toast%' AND schema_name NOT LIKE 'pg_temp%' ORDER BY 1;
-- information_schema.table_constraints
SELECT constraint_schema, constraint_type, table_schema, table_name, is_deferrable, initially_deferred, enforced FROM information_schema.table_constraints WHERE table_schema IN ('public', 's2') ORDER BY 3, 4, 2, 1;
-- information_schema.key_column_usage
SELECT constraint_name, table_schema, table_name, column_name, ordinal_position FROM information_schema.key_column_usage WHERE table_schema IN ('public', 's2') ORDER BY 2, 3, 1, 5;
-- pg_tables / pg_indexes
SELECT schemaname, tablename, tableowner, hasindexes FROM pg_catalog.pg_tables WHERE schemaname IN ('public', 's2') ORDER BY 1, 2;
-- pg_indexes
SELECT schemaname, tablename, indexname, indexdef FROM pg_catalog.pg_indexes WHERE schemaname IN ('public', 's2') ORDER BY 1, 2, 3;
-- functions
SELECT current_database(), current_schema(), current_schemas(true), current_user, session_user, pg_catalog.pg_encoding_to_char(6), pg_catalog.format_type(1700, 655366), pg_catalog.format_type('character varying'::regtype, 24), 't'::regclass::text, 's2.other'::regclass::text, has_table_privilege('t', 'SELECT'), has_schema_privilege('public', 'USAGE'), obj_description('t'::regclass, 'pg_class'), pg_catalog.pg_get_userbyid(10), 'int4'::regtype::text, 'integer'::regtype = 23, pg_table_is_visible('t'::regclass);
-- pg_attribute of a table by regclass
SELECT attname, atttypid::regtype::text, atttypmod, attnotnull, attnum, atthasdef FROM pg_catalog.pg_attribute WHERE attrelid = 'items'::regclass AND attnum > 0 ORDER BY attnum;
-- pg_type facts
SELECT oid, typname, typlen, typbyval, typtype, typcategory, typelem, typarray, typinput::text, typoutput::text, typreceive::text, typsend::text FROM pg_catalog.pg_type WHERE oid IN (16, 17, 20, 21, 23, 25, 700, 701, 1043, 1082, 1114, 1184, 1700, 2950, 3802, 1007, 1015) ORDER BY oid;
-- pg_namespace and pg_database
SELECT n.nspname, pg_catalog.pg_get_userbyid(n.nspowner) FROM pg_catalog.pg_namespace n WHERE n.nspname !~ '^pg_' ORDER BY 1;
-- version
SELECT substr(version(), 1, 11), pg_backend_pid() > 0, pg_postmaster_start_time() <= now();
-- pg_proc rows of built-in functions (psql \df, pgjdbc getFunctions)
SELECT proname, pronargs, proargtypes, proargnames, proallargtypes, proargmodes, prorettype, proretset, provolatile, prokind, prolang, proisstrict, pronamespace, proowner, prosrc, pg_get_function_arguments(oid), pg_get_function_result(oid), pg_get_function_identity_arguments(oid), obj_description(oid, 'pg_proc') FROM pg_catalog.pg_proc WHERE proname IN ('abs', 'length', 'generate_series', 'now', 'count', 'string_agg', 'make_interval', 'pg_get_keywords') ORDER BY oid;
-- regproc and regprocedure casts
SELECT 'now'::regproc::text, 'pg_catalog.now'::regproc::text, 1299::regproc::text, 'abs(integer)'::regprocedure::text, 'abs(int4)'::regprocedure::oid = 1397, 1397::regprocedure::text, t.typinput = 'pg_catalog.array_in'::regproc, t.typinput::text FROM pg_catalog.pg_type t WHERE t.oid = 1007;
-- pg_database with the template databases
SELECT datname, datdba, encoding, datlocprovider, datistemplate, datallowconn, datconnlimit, datcollate, datctype, datacl, pg_catalog.shobj_description(d.oid, 'pg_database') FROM pg_catalog.pg_database d WHERE datname IN ('postgres', 'template0', 'template1') ORDER BY 1;
-- descriptions of built-in objects
SELECT obj_description(23, 'pg_type'), obj_description('pg_catalog'::regnamespace, 'pg_namespace'), obj_description(403, 'pg_am'), obj_description(14, 'pg_language'), obj_description(1299), obj_description(1299, 'pg_type'), col_description('t'::regclass, 1);
-- pg_language
SELECT lanname, lanowner, lanispl, lanpltrusted FROM pg_catalog.pg_language ORDER BY 1;
-- GORM Migrator HasTable
SELECT count(*) FROM information_schema.tables WHERE table_schema = CURRENT_SCHEMA() AND table_name = 't' AND table_type = 'BASE TABLE';
-- GORM Migrator ColumnTypes columns
SELECT c.column_name, c.is_nullable = 'YES', c.udt_name, c.character_maximum_length, c.numeric_precision, c.numeric_precision_radix, c.numeric_scale, c.datetime_precision, 8 * typlen, c.column_default, pd.description, c.identity_increment FROM information_schema.columns AS c JOIN pg_type AS pgt ON c.udt_name = pgt.typname LEFT JOIN pg_catalog.pg_description as pd ON pd.objsubid = c.ordinal_position AND pd.objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = c.table_name AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = c.table_schema)) where table_catalog = current_database() AND table_schema = CURRENT_SCHEMA() AND table_name = 't' ORDER BY c.ordinal_position;
-- GORM Migrator ColumnTypes primary and unique keys
SELECT c.column_name, constraint_name, constraint_type FROM information_schema.table_constraints tc JOIN information_schema.constraint_column_usage AS ccu USING (constraint_schema, constraint_catalog, table_name, constraint_name) JOIN information_schema.columns AS c ON c.table_schema = tc.constraint_schema AND tc.table_name = c.table_name AND ccu.column_name = c.column_name WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE') AND c.table_catalog = current_database() AND c.table_schema = CURRENT_SCHEMA() AND c.table_name = 't';
-- information_schema constraint_column_usage
SELECT table_schema, table_name, column_name, constraint_schema, constraint_name, table_catalog = current_database() AS cat FROM information_schema.constraint_column_usage WHERE table_schema IN ('public', 's2') ORDER BY table_schema, table_name, column_name;
