--
-- DATETIME_INFINITY: 'infinity' and '-infinity' dates and timestamps, each
-- written by every path (VALUES, a column default, INSERT ... SELECT, COPY),
-- print, compare and sort as in PostgreSQL.
--
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE dinf (id integer, d date, ts timestamp, tstz timestamptz DEFAULT '-infinity');
INSERT INTO dinf VALUES (1, 'infinity', 'infinity', 'infinity');
INSERT INTO dinf VALUES (2, '-infinity', '-infinity', '-infinity');
INSERT INTO dinf VALUES (3, '2024-02-29', '2024-02-29 12:00:00', '2024-02-29 12:00:00+00');
INSERT INTO dinf (id, d) VALUES (4, '-infinity');
INSERT INTO dinf SELECT 5, '-infinity'::date, 'infinity'::timestamp, '-infinity'::timestamptz;
COPY dinf FROM STDIN;
6	infinity	-infinity	infinity
7	-infinity	infinity	-infinity
\.
COPY dinf FROM STDIN WITH (FORMAT csv);
8,-infinity,-infinity,infinity
\.
SELECT * FROM dinf ORDER BY id;
SELECT id, d, ts, tstz FROM dinf ORDER BY tstz, id;
SELECT id, d = 'infinity', ts < '2000-01-01', tstz > '2100-01-01' FROM dinf ORDER BY id;
SELECT min(d), max(d), min(ts), max(ts), min(tstz), max(tstz) FROM dinf;
SELECT count(*) FROM dinf WHERE tstz = '-infinity' AND ts = '-infinity';
COPY (SELECT * FROM dinf WHERE id IN (1, 2) ORDER BY id) TO STDOUT;
SELECT 'infinity'::timestamptz AS inf, '-infinity'::timestamp AS ninf, '-infinity'::date AS ndate;
DROP TABLE dinf;
