--
-- Views, CREATE TABLE AS and SELECT INTO
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE SCHEMA regress_views;
SET search_path = regress_views, public;

CREATE TABLE emp (id int, name text, dept varchar(10), salary numeric(10,2));
INSERT INTO emp VALUES (1, 'ann', 'eng', 100.50), (2, 'bob', 'eng', 90), (3, 'cid', 'ops', 70.25), (4, 'dee', NULL, NULL);

-- views: queried like tables
CREATE VIEW eng AS SELECT id, name, salary FROM emp WHERE dept = 'eng';
SELECT * FROM eng ORDER BY id;
CREATE VIEW eng_names (who) AS SELECT upper(name) FROM eng;
SELECT * FROM eng_names ORDER BY 1;
SELECT e.name, n.who FROM eng e JOIN eng_names n ON upper(e.name) = n.who ORDER BY 1;
SELECT name FROM emp WHERE id IN (SELECT id FROM eng) ORDER BY 1;
SELECT count(*), sum(salary) FROM eng;
SELECT q.x FROM eng AS q (x) ORDER BY 1;
WITH emp AS (SELECT 1 AS id) SELECT count(*) FROM eng;
CREATE VIEW by_dept AS SELECT dept, count(*) AS n, max(salary) AS top FROM emp GROUP BY dept;
SELECT * FROM by_dept ORDER BY dept;
PREPARE p(int) AS SELECT name FROM eng WHERE id = $1;
EXECUTE p(2);
DEALLOCATE p;

-- names: relations share one namespace
CREATE VIEW eng AS SELECT 1;
CREATE VIEW emp AS SELECT 1;
CREATE TABLE eng (x int);

-- CREATE OR REPLACE: only new columns at the end
CREATE OR REPLACE VIEW emp AS SELECT 1;
CREATE OR REPLACE VIEW eng AS SELECT id, name FROM emp;
CREATE OR REPLACE VIEW eng AS SELECT id, dept AS name, salary FROM emp;
CREATE OR REPLACE VIEW eng AS SELECT id, name AS nm, salary FROM emp;
CREATE OR REPLACE VIEW eng AS SELECT id, name, salary::int FROM emp;
CREATE OR REPLACE VIEW eng AS SELECT id, name, salary, dept FROM emp WHERE dept = 'eng';
SELECT * FROM eng ORDER BY id;
CREATE VIEW toomany (a, b, c) AS SELECT 1, 2;
\d eng
\dv

-- catalogs
SELECT table_name, table_type FROM information_schema.tables
 WHERE table_schema = 'regress_views' ORDER BY table_name;
SELECT viewname, viewowner FROM pg_views WHERE schemaname = 'regress_views' ORDER BY 1;
SELECT relname, relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE nspname = 'regress_views' ORDER BY relname;
SELECT table_name FROM information_schema.views WHERE table_schema = 'regress_views' ORDER BY 1;

-- DROP: kinds and dependencies
DROP TABLE eng;
DROP VIEW emp;
DROP VIEW nope;
DROP VIEW IF EXISTS nope;
DROP TABLE emp;
DROP VIEW eng;
DROP VIEW eng_names, eng;
DROP VIEW by_dept;

-- CREATE TABLE AS, SELECT INTO
CREATE TABLE emp2 AS SELECT id, name, dept, salary, salary * 2 AS double_pay, id + 1 AS next_id,
  'x' AS lit, 2.50 AS num FROM emp;
\d emp2
SELECT * FROM emp2 ORDER BY id;
CREATE TABLE emp2 AS SELECT 1;
CREATE TABLE IF NOT EXISTS emp2 AS SELECT 1;
CREATE TABLE emp3 (a, b) AS SELECT id, name FROM emp WHERE id < 3;
SELECT * FROM emp3 ORDER BY a;
CREATE TABLE emp4 (a, b, c) AS SELECT id, name FROM emp;
CREATE TABLE emp5 AS SELECT id FROM emp WITH NO DATA;
SELECT count(*) FROM emp5;
SELECT id, name INTO emp6 FROM emp WHERE dept = 'ops';
SELECT * FROM emp6;
SELECT id INTO TABLE emp7 FROM emp;
SELECT count(*) FROM emp7;
-- a failing query leaves no table
CREATE TABLE bad AS SELECT 10 / (id - 3) AS q FROM emp;
SELECT * FROM bad;
SELECT 1 / 0 AS q INTO bad;
SELECT * FROM bad;

DROP SCHEMA regress_views CASCADE;
RESET search_path;
