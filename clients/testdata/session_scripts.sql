-- Each section runs on one fresh connection to bsdb-pg and to PostgreSQL;
-- each line is one Query message (it may hold several statements). The
-- transcripts (columns, rows, command tags, errors with SQLSTATE) must match.

-- cursor basics
CREATE TABLE cur_t (id integer, name text)
INSERT INTO cur_t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')
DECLARE c CURSOR FOR SELECT id FROM cur_t ORDER BY id
BEGIN
DECLARE c SCROLL CURSOR FOR SELECT id, name FROM cur_t ORDER BY id
FETCH c
FETCH NEXT FROM c
FETCH 2 IN c
FETCH FORWARD 0 FROM c
MOVE 1 c
FETCH ALL FROM c
FETCH c
FETCH FORWARD ALL FROM c
MOVE ALL c
DECLARE c CURSOR FOR SELECT 1
FETCH nosuch
CLOSE c
CLOSE c
COMMIT
FETCH c
DECLARE "Mixed" CURSOR FOR SELECT 1

-- cursor lifetime and HOLD
CREATE TABLE cur_h (id integer)
INSERT INTO cur_h VALUES (1), (2), (3)
BEGIN
DECLARE h CURSOR WITH HOLD FOR SELECT id FROM cur_h ORDER BY id
DECLARE w CURSOR WITHOUT HOLD FOR SELECT id FROM cur_h ORDER BY id
FETCH 1 FROM h
COMMIT
FETCH 1 FROM w
FETCH ALL FROM h
CLOSE h
DECLARE h2 CURSOR WITH HOLD FOR SELECT id * 10 AS x FROM cur_h ORDER BY id
FETCH 2 FROM h2
INSERT INTO cur_h VALUES (4)
FETCH ALL FROM h2
CLOSE ALL
FETCH h2
BEGIN
DECLARE r CURSOR WITH HOLD FOR SELECT id FROM cur_h ORDER BY id
ROLLBACK
FETCH r
BEGIN
DECLARE f CURSOR FOR SELECT id FROM cur_h ORDER BY id
SELECT 1/0
FETCH f
ROLLBACK
DECLARE m1 CURSOR FOR SELECT 1 AS one; FETCH m1; CLOSE m1
FETCH m1

-- scroll cursors
CREATE TABLE cur_s (id integer)
INSERT INTO cur_s VALUES (1), (2), (3), (4), (5)
BEGIN
DECLARE s SCROLL CURSOR FOR SELECT id FROM cur_s ORDER BY id
FETCH 2 FROM s
FETCH PRIOR FROM s
FETCH BACKWARD 5 FROM s
FETCH ABSOLUTE 3 FROM s
FETCH RELATIVE -1 FROM s
FETCH RELATIVE 0 FROM s
FETCH LAST FROM s
FETCH NEXT FROM s
FETCH BACKWARD ALL FROM s
FETCH FIRST FROM s
FETCH ABSOLUTE -2 FROM s
MOVE BACKWARD ALL IN s
FETCH -1 FROM s
FETCH 3 FROM s
FETCH ABSOLUTE 0 FROM s
FETCH 1 FROM s
DECLARE n NO SCROLL CURSOR FOR SELECT id FROM cur_s ORDER BY id
FETCH 2 FROM n
FETCH PRIOR FROM n
ROLLBACK
BEGIN
DECLARE n NO SCROLL CURSOR FOR SELECT id FROM cur_s ORDER BY id
FETCH 3 FROM n
FETCH ABSOLUTE 1 FROM n
ROLLBACK
BEGIN
DECLARE n NO SCROLL CURSOR FOR SELECT id FROM cur_s ORDER BY id
MOVE 2 IN n
FETCH ABSOLUTE 4 FROM n
FETCH RELATIVE 1 FROM n
FETCH 5 FROM n
MOVE 0 IN n
ROLLBACK
BEGIN
DECLARE e CURSOR FOR SELECT id FROM cur_s WHERE id > 100
FETCH e
FETCH ALL FROM e
MOVE 0 e
COMMIT

-- prepared statements
CREATE TABLE prep_t (id integer, name text)
PREPARE ins (integer, text) AS INSERT INTO prep_t VALUES ($1, $2)
EXECUTE ins(1, 'one')
EXECUTE ins(2 + 1, 'th' || 'ree')
EXECUTE ins('4', NULL)
PREPARE sel AS SELECT id, name FROM prep_t WHERE id >= $1 ORDER BY id
EXECUTE sel(2)
EXECUTE sel(1)
PREPARE sel AS SELECT 1
EXECUTE sel
EXECUTE sel(1, 2)
EXECUTE nosuch(1)
PREPARE two (int, int) AS SELECT $1 + $2 AS s
EXECUTE two(40, 2)
EXECUTE two('x', 1)
DEALLOCATE two
EXECUTE two(1, 2)
DEALLOCATE two
DEALLOCATE PREPARE sel
PREPARE q1 AS SELECT 'q1' AS x
PREPARE q2 AS SELECT 'q2' AS x
DEALLOCATE ALL
EXECUTE q1
PREPARE q1 AS SELECT 'again' AS x
EXECUTE q1
BEGIN
DECLARE pc CURSOR FOR SELECT id FROM prep_t ORDER BY id
PREPARE f AS FETCH 2 FROM pc
COMMIT

-- settings functions
SELECT current_setting('application_name') AS app
SELECT set_config('application_name', 'diff app', false) AS set
SELECT current_setting('application_name') AS app
SHOW application_name
SELECT current_setting('nosuch.setting')
SELECT current_setting('nosuch_setting')
SELECT current_setting('nosuch_setting', true) IS NULL AS missing
SELECT set_config('my.custom', 'v1', false), current_setting('my.custom')
SELECT set_config('server_version', '1', false)
SELECT set_config('nosuch_setting', '1', false)
SELECT set_config('extra_float_digits', '7', false)
SELECT current_setting('search_path') AS sp
SELECT current_schema()::text, current_schemas(false)::text[], current_schemas(true)::text[]
CREATE SCHEMA sp2
SET search_path = sp2, public
SELECT current_schema()::text, current_schemas(false)::text[], current_schemas(true)::text[]
SELECT set_config('search_path', 'nosuch, public', false)
SELECT current_schema()::text, current_schemas(false)::text[]
SET search_path = nosuch
SELECT current_schema() IS NULL AS nul, current_schemas(true)::text[]
RESET search_path
SELECT current_schema::text, current_schemas(true)::text[]
BEGIN
SELECT set_config('statement_timeout', '5s', true)
SHOW statement_timeout
COMMIT

-- regclass naming and errors
CREATE TABLE rc_t (id integer)
CREATE SCHEMA rc_s
CREATE TABLE rc_s.rc_u (id integer)
SELECT 'rc_t'::regclass::text AS a, 'rc_s.rc_u'::regclass::text AS b, 'public.rc_t'::regclass::text AS c
SELECT c.relname, c.oid::regclass::text AS name FROM pg_class c WHERE c.relname IN ('rc_t', 'rc_u') ORDER BY 1
SET search_path = rc_s, public
SELECT 'rc_u'::regclass::text AS a, 'rc_t'::regclass::text AS b
SELECT c.relname, c.oid::regclass::text AS name FROM pg_class c WHERE c.relname IN ('rc_t', 'rc_u') ORDER BY 1
SELECT 'nosuch'::regclass
SELECT 'nosuch'::regtype
SELECT 'nosuch'::regnamespace
SELECT 'nosuch'::regrole
SELECT 'int4'::regtype::text AS t, 'pg_catalog'::regnamespace::text AS n
SELECT 'nosuch_fn'::regproc
SELECT 'abs'::regproc
-- catalog arrays and advisory locks
SELECT '{23,25}'::oid[] AS a, '{a,b}'::name[] AS b, '{r,v}'::"char"[] AS c, '{-1}'::oid[] AS d;
SELECT typname FROM pg_type WHERE oid = ANY('{23,25}'::oid[]) ORDER BY 1;
SELECT count(*) FROM pg_class WHERE relkind = ANY('{r}') AND relname = 'nosuch';
SELECT '{x}'::oid[];
SELECT '{4294967296}'::oid[];
SELECT count(*) FILTER (WHERE p.prorettype::regtype = 'trigger'::regtype) FROM pg_proc p WHERE proname LIKE 'pg_advisory%';
SELECT pg_advisory_lock(1), pg_try_advisory_lock(2, 3), pg_advisory_unlock(1), pg_advisory_unlock(2, 3), pg_advisory_unlock(1);
SELECT pg_advisory_unlock_all();
UNLISTEN *;
-- CASE operand comparisons
SELECT CASE 'x'::text WHEN 1 THEN 'a' END;
SELECT CASE 1 WHEN 1.0 THEN 'a' END, CASE 2::bigint WHEN 2 THEN 'b' ELSE 'c' END, CASE 'a'::varchar WHEN 'a'::text THEN 1 END;
SELECT CASE now() WHEN 1 THEN 1 END;
