--
-- CREATE INDEX and DROP INDEX: recorded in the catalogs (pg_class,
-- pg_index, pg_indexes, psql's \d and \di), as migrations and tools see them
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
-- the notices of IF [NOT] EXISTS are part of what is compared
SET client_min_messages = notice;

CREATE SCHEMA regress_idx;
SET search_path = regress_idx;

CREATE TABLE it (id bigint NOT NULL, a int, b text, c date, PRIMARY KEY (id));
INSERT INTO it VALUES (1, 10, 'x', '2024-01-01'), (2, 20, 'Y', NULL);
-- generated names, numbered when taken
CREATE INDEX ON it (a);
CREATE INDEX ON it (a);
CREATE INDEX ON it (a, b);
CREATE INDEX ON it (lower(b));
-- named, with options, methods, INCLUDE and a predicate
CREATE INDEX it_b_lower ON it (lower(b), a DESC);
CREATE INDEX it_desc ON it (a DESC NULLS LAST, c NULLS FIRST);
CREATE INDEX it_part ON it USING hash (b) WHERE a > 0;
CREATE INDEX it_inc ON it (a) INCLUDE (b, c);
CREATE INDEX it_brin ON it USING brin (c);
CREATE INDEX CONCURRENTLY it_conc ON it (c);
CREATE INDEX IF NOT EXISTS it_b_lower ON it (b);
-- errors
CREATE INDEX it_b_lower ON it (b);
CREATE INDEX it ON it (b);
CREATE INDEX it_x ON it (nosuch);
CREATE INDEX it_x ON it (a) INCLUDE (nosuch);
CREATE INDEX ON nosuch (a);
CREATE INDEX ON it USING nosuch (a);
-- what tools read
\d it
\di
SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'regress_idx' ORDER BY 1;
SELECT c.relname, c.relkind, i.indnatts, i.indnkeyatts, i.indkey, i.indisunique, i.indisprimary, i.indpred IS NOT NULL AS partial
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'it'::regclass ORDER BY 1;
SELECT relname, relhasindex FROM pg_class WHERE relname = 'it';
SELECT pg_get_indexdef('it_part'::regclass), pg_get_indexdef('it_part'::regclass, 0, true);
-- REINDEX checks its object and has nothing to rebuild
REINDEX INDEX it_b_lower;
REINDEX INDEX regress_idx.it_pkey;
REINDEX INDEX nosuch;
REINDEX TABLE it;
REINDEX TABLE CONCURRENTLY it;
REINDEX TABLE nosuch;
REINDEX SCHEMA regress_idx;
REINDEX SCHEMA nosuch;
-- the index does not change what queries return
SELECT id, a FROM it WHERE a = 20;
-- DROP INDEX
DROP INDEX it_a_idx;
DROP INDEX IF EXISTS it_a_idx;
DROP INDEX it_a_idx;
DROP INDEX it_pkey;
DROP INDEX regress_idx.it_a_idx1, it_inc;
SELECT indexname FROM pg_indexes WHERE schemaname = 'regress_idx' ORDER BY 1;
-- a dropped index's name is free again; a table's name is taken by an index
CREATE INDEX it_a_idx ON it (a);
CREATE TABLE it_brin (x int);
-- the indexes go with their table
DROP TABLE it;
SELECT count(*) FROM pg_indexes WHERE schemaname = 'regress_idx';
CREATE INDEX it_a_idx ON nosuch (a);
-- a temporary table's indexes are the session's, and go with it
CREATE TEMP TABLE tt (a int, b text);
CREATE INDEX ON tt (a);
CREATE INDEX tt_b ON tt (b DESC) WHERE a > 0;
CREATE INDEX tt_b ON tt (a);
SELECT indexname, regexp_replace(indexdef, 'pg_temp_\d+', 'pg_temp') AS indexdef FROM pg_indexes WHERE tablename = 'tt' ORDER BY 1;
DROP INDEX tt_b;
DROP INDEX tt_b;
DROP TABLE tt;
SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'tt%';
DROP SCHEMA regress_idx;
