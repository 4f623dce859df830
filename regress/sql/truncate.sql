--
-- TRUNCATE
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE tr1 (id integer, v text);
CREATE TABLE tr2 (id integer);
INSERT INTO tr1 VALUES (1, 'a'), (2, 'b'), (3, 'c');
INSERT INTO tr2 VALUES (1), (2);

TRUNCATE tr1;
SELECT count(*) FROM tr1;
SELECT count(*) FROM tr2;

-- the table stays usable
INSERT INTO tr1 VALUES (4, 'd');
SELECT * FROM tr1 ORDER BY id;

-- several tables at once, TABLE keyword
INSERT INTO tr1 VALUES (5, 'e');
TRUNCATE TABLE tr1, tr2;
SELECT (SELECT count(*) FROM tr1) AS tr1, (SELECT count(*) FROM tr2) AS tr2;

-- truncating an empty table
TRUNCATE tr2;
SELECT count(*) FROM tr2;

-- rows written by COPY are truncated too
COPY tr2 FROM STDIN;
10
11
\.
TRUNCATE tr2;
COPY tr2 FROM STDIN;
12
\.
SELECT * FROM tr2 ORDER BY id;

-- unknown table
TRUNCATE nosuch;

DROP TABLE tr1, tr2;
