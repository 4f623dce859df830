--
-- TYPES: values of every supported column type, stored and read back
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE types_int (id integer, s smallint, i integer, b bigint);
INSERT INTO types_int VALUES
    (1, 0, 0, 0),
    (2, -32768, -2147483648, -9223372036854775808),
    (3, 32767, 2147483647, 9223372036854775807),
    (4, NULL, NULL, NULL);
SELECT * FROM types_int ORDER BY id;
SELECT s + 1, i::bigint * 2, b / 2 FROM types_int WHERE id = 1;
-- out of range for the column
INSERT INTO types_int VALUES (5, 32768, 0, 0);
INSERT INTO types_int VALUES (5, 0, 2147483648, 0);
INSERT INTO types_int VALUES (5, 0, 0, 9223372036854775808);
SELECT count(*) FROM types_int;
DROP TABLE types_int;

CREATE TABLE types_float (id integer, r real, d double precision);
INSERT INTO types_float VALUES
    (1, 0, 0),
    (2, 1.5, 1.5),
    (3, 3.14159, 3.141592653589793),
    (4, -1e10, -1e100),
    (5, 1e-5, 1e-300),
    (6, 'NaN', 'NaN'),
    (7, 'Infinity', '-Infinity'),
    (8, 0.1, 0.1),
    (9, NULL, NULL);
SELECT * FROM types_float ORDER BY id;
DROP TABLE types_float;

CREATE TABLE types_numeric (id integer, n numeric(10,2));
INSERT INTO types_numeric VALUES
    (1, 0),
    (2, 1.005),
    (3, -12345678.9),
    (4, 0.1),
    (5, NULL);
SELECT * FROM types_numeric ORDER BY id;
-- too many digits before the point for numeric(10,2)
INSERT INTO types_numeric VALUES (6, 123456789.0);
DROP TABLE types_numeric;

CREATE TABLE types_text (id integer, t text, v varchar(5), c char(4));
INSERT INTO types_text VALUES
    (1, 'hello', 'abc', 'ab'),
    (2, '', '', ''),
    (3, 'it''s', 'x y', 'abcd'),
    (4, 'ünïcödé ✓', 'äöü', 'é'),
    (5, NULL, NULL, NULL);
SELECT id, t, v, c, length(t) AS len_t, octet_length(c) AS octets_c, c || '|' AS c_concat
  FROM types_text ORDER BY id;
-- too long for varchar(5) / char(4)
INSERT INTO types_text VALUES (6, 'x', 'abcdef', 'a');
INSERT INTO types_text VALUES (6, 'x', 'a', 'abcde');
-- trailing spaces beyond the length are silently cut
INSERT INTO types_text VALUES (7, 'x', 'ab   ', 'ab   ');
SELECT id, '[' || v || ']' AS v, '[' || c::text || ']' AS c FROM types_text WHERE id = 7;
DROP TABLE types_text;

CREATE TABLE types_bool (id integer, b boolean);
INSERT INTO types_bool VALUES (1, true), (2, false), (3, 't'), (4, 'no'), (5, NULL);
SELECT * FROM types_bool ORDER BY id;
SELECT id FROM types_bool WHERE b ORDER BY id;
SELECT id FROM types_bool WHERE NOT b ORDER BY id;
INSERT INTO types_bool VALUES (6, 'maybe');
DROP TABLE types_bool;

CREATE TABLE types_bytea (id integer, b bytea);
INSERT INTO types_bytea VALUES
    (1, '\x'),
    (2, '\xdeadbeef'),
    (3, 'abc'),
    (4, '\x00ff10'),
    (5, NULL);
SELECT id, b, length(b) FROM types_bytea ORDER BY id;
DROP TABLE types_bytea;

CREATE TABLE types_uuid (id integer, u uuid);
INSERT INTO types_uuid VALUES
    (1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
    (2, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12'),
    (3, '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a13}'),
    (4, NULL);
SELECT * FROM types_uuid ORDER BY u;
INSERT INTO types_uuid VALUES (5, 'not-a-uuid');
DROP TABLE types_uuid;

CREATE TABLE types_json (id integer, j json, jb jsonb);
INSERT INTO types_json VALUES
    (1, '{"b": 1, "a": [1, 2, {"c": null}]}', '{"b": 1, "a": [1, 2, {"c": null}]}'),
    (2, '[]', '[]'),
    (3, '"text"', '"text"'),
    (4, '  {"z":1,   "z":2}', '  {"z":1,   "z":2}'),
    (5, '3.10', '3.10'),
    (6, NULL, NULL);
SELECT * FROM types_json ORDER BY id;
SELECT id, jb -> 'a' AS a, jb ->> 'b' AS b FROM types_json WHERE id = 1;
INSERT INTO types_json VALUES (7, '{bad', '{}');
DROP TABLE types_json;

CREATE TABLE types_interval (id integer, i interval);
INSERT INTO types_interval VALUES
    (1, '1 year 2 months 3 days 04:05:06'),
    (2, '-1 day'),
    (3, '90 minutes'),
    (4, '0'),
    (5, '1.5 seconds'),
    (6, NULL);
SELECT * FROM types_interval ORDER BY id;
DROP TABLE types_interval;
