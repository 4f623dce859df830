--
-- ERRORS: every error is reported with its SQLSTATE, and the session keeps
-- working after it. Most checks print only the SQLSTATE (the message text of
-- runtime errors is checked by the pgx tests where it matters); syntax errors
-- show message, position and caret exactly as PostgreSQL does.
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE err (id integer, v text, n smallint);
INSERT INTO err VALUES (1, 'one', 1);

-- syntax errors, with position
SELEC 1;
SELECT 1;
SELECT * FROM err WHERE;
SELECT id FROM err ORDER BY id;
SELECT 1 +;
SELECT 2;
SELECT * FROM;
INSERT INTO err VALUES (1,, 2);
SELECT 3;

\set VERBOSITY sqlstate

-- unknown table, column, function, schema
SELECT * FROM nosuch_table;
SELECT id FROM err;
SELECT nosuch_column FROM err;
SELECT id FROM err;
SELECT nosuch_function(1);
SELECT * FROM nosuch_schema.err;
INSERT INTO nosuch_table VALUES (1);
SELECT count(*) FROM err;

-- division by zero
SELECT 1 / 0;
SELECT 1.5 / 0;
SELECT 7 % 0;
SELECT id / (n - 1) FROM err;
SELECT 1 / 1;

-- overflow
SELECT 32767::smallint + 1::smallint;
INSERT INTO err VALUES (2, 'two', 40000);
SELECT 10000000000::integer;
SELECT n FROM err ORDER BY id;

-- invalid input
SELECT 'abc'::integer;
SELECT '1.5'::integer;
SELECT ''::integer;
SELECT 'xyz'::numeric;
SELECT 'maybe'::boolean;
SELECT '2024-13-01'::date;
SELECT '\xZZ'::bytea;
SELECT '{"a":'::jsonb;
INSERT INTO err VALUES ('two', 'two', 2);
SELECT '42'::integer;

-- wrong types
SELECT 'a'::text + 1;
SELECT id FROM err WHERE v = 1;
SELECT id FROM err WHERE v = '1';

-- ambiguous and grouping errors
SELECT id FROM err a, err b;
SELECT id, count(*) FROM err;
SELECT a.id FROM err a, err b ORDER BY a.id;

-- a subquery returning more than one row
INSERT INTO err VALUES (3, 'three', 3);
SELECT (SELECT id FROM err);
SELECT (SELECT id FROM err ORDER BY id LIMIT 1);

-- the table is intact
\set VERBOSITY default
SELECT * FROM err ORDER BY id;
DROP TABLE err;

-- NOT NULL violations describe the failing row, as PostgreSQL does, from
-- every INSERT path (VALUES, INSERT ... SELECT, prepared, defaults)
CREATE TABLE nn (col1 int4, col2 int4 NOT NULL, col3 text DEFAULT 'testing', d date, b boolean, f float8, t timestamptz, i interval);
INSERT INTO nn (col1, col2, col3) VALUES (DEFAULT, DEFAULT, DEFAULT);
INSERT INTO nn VALUES (1, NULL, repeat('x', 100), '2024-01-02', true, 1.5, '2024-01-02 03:04:05+00', '1 day 2 hours');
INSERT INTO nn VALUES (1, 2), (3, NULL);
INSERT INTO nn SELECT 1, NULL, 'a', NULL, false, 'NaN';
INSERT INTO nn (col1) VALUES (5);
PREPARE nnp(int) AS INSERT INTO nn VALUES ($1, $1);
EXECUTE nnp(NULL);
SELECT count(*) FROM nn;
DROP TABLE nn;
