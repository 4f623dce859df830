--
-- COPY: FROM STDIN text and csv with options, TO STDOUT, COPY (query) TO STDOUT
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE cp (id integer, name text, amount numeric(8,2), born date, flag boolean);

-- text format: tab-separated, \N is NULL, backslash escapes
COPY cp FROM STDIN;
1	alice	10.50	2001-02-03	t
2	bob	\N	\N	f
3	tab\there	0	1999-12-31	\N
4	back\\slash	-3.25	2000-02-29	true
\.
SELECT * FROM cp ORDER BY id;

-- text format with a column list and options
COPY cp (name, id) FROM STDIN (FORMAT text, DELIMITER '|', NULL 'NULL');
eve|5
NULL|6
\.
SELECT id, name, amount FROM cp WHERE id >= 5 ORDER BY id;

-- csv with a header, quoting, embedded delimiter, quote and newline
COPY cp FROM STDIN (FORMAT csv, HEADER true);
id,name,amount,born,flag
7,"comma, inside",1.00,2020-01-01,t
8,"quote "" inside",2.00,,f
9,"line
break",3.00,2020-03-03,
10,,4.00,2020-04-04,true
11,"",5.00,2020-05-05,false
\.
SELECT id, name, name IS NULL AS name_null, amount, born, flag FROM cp WHERE id BETWEEN 7 AND 11 ORDER BY id;

-- csv with a custom delimiter, quote and NULL marker
COPY cp (id, name) FROM STDIN (FORMAT csv, DELIMITER ';', QUOTE '''', NULL '-');
12;'semi;colon'
13;-
14;'-'
\.
SELECT id, name, name IS NULL AS name_null FROM cp WHERE id BETWEEN 12 AND 14 ORDER BY id;

-- the old syntax
COPY cp (id, name) FROM STDIN WITH CSV;
15,old syntax
\.
SELECT id, name FROM cp WHERE id = 15;

-- a bad row rejects the whole COPY (SQLSTATE only: the CONTEXT line is incidental)
\set VERBOSITY sqlstate
COPY cp (id, name) FROM STDIN;
16	fine
seventeen	bad
\.
COPY cp (id, amount) FROM STDIN (FORMAT csv);
18,1.5,extra
\.
\set VERBOSITY default
SELECT count(*) FROM cp WHERE id >= 16;
SELECT count(*) AS total FROM cp;

-- COPY TO STDOUT: text and csv
COPY (SELECT * FROM cp WHERE id <= 4 ORDER BY id) TO STDOUT;
COPY (SELECT * FROM cp WHERE id BETWEEN 7 AND 14 ORDER BY id) TO STDOUT (FORMAT csv, HEADER);
COPY (SELECT id, name FROM cp WHERE id IN (1, 2, 12) ORDER BY id) TO STDOUT (FORMAT csv, DELIMITER '|', NULL 'NULL', FORCE_QUOTE *);
COPY (SELECT id, name FROM cp WHERE id < 3 ORDER BY id) TO STDOUT (DELIMITER ',', NULL '');

-- COPY table TO STDOUT (rows in insertion order for a table written once)
CREATE TABLE cp_small (a integer, b text);
INSERT INTO cp_small VALUES (1, 'x');
COPY cp_small TO STDOUT;
COPY cp_small (b) TO STDOUT (FORMAT csv, HEADER);

-- COPY of a query with expressions
COPY (SELECT 1 AS one, 'two' AS two, NULL::int AS three, 4.5::float8 AS four) TO STDOUT (FORMAT csv, HEADER);

-- COPY of a table that does not exist
COPY nosuch TO STDOUT;
COPY nosuch (a) TO STDOUT (FORMAT csv);

DROP TABLE cp, cp_small;
