--
-- INSERT: multi-row VALUES, column lists, defaults, INSERT ... SELECT, RETURNING
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE ins (
    id integer,
    name text DEFAULT 'anon',
    score numeric(6,2) DEFAULT 0,
    active boolean DEFAULT true
);

INSERT INTO ins VALUES (1, 'alice', 10.5, false);
INSERT INTO ins VALUES (2, 'bob', 7, true), (3, 'carol', 99.99, NULL), (4, 'dave', -1, false);
-- column lists in any order; the others take their defaults
INSERT INTO ins (score, id) VALUES (1.25, 5);
INSERT INTO ins (id) VALUES (6), (7);
INSERT INTO ins (id, name) VALUES (8, DEFAULT);
INSERT INTO ins DEFAULT VALUES;
SELECT * FROM ins ORDER BY id NULLS LAST;

-- RETURNING
INSERT INTO ins VALUES (10, 'erin', 5, true) RETURNING *;
INSERT INTO ins (id, name) VALUES (11, 'frank'), (12, 'grace') RETURNING id, upper(name) AS shout, score;
INSERT INTO ins (id) VALUES (13) RETURNING name || '!' AS greeting;

-- INSERT ... SELECT
CREATE TABLE ins_copy (id integer, name text);
INSERT INTO ins_copy SELECT id, name FROM ins WHERE id <= 3;
INSERT INTO ins_copy (name, id) SELECT name || '2', id + 100 FROM ins WHERE active ORDER BY id LIMIT 2;
INSERT INTO ins_copy SELECT id * 1000, 'empty' FROM ins WHERE false;
SELECT * FROM ins_copy ORDER BY id;
INSERT INTO ins_copy SELECT max(id) + 1, 'next' FROM ins_copy RETURNING *;

-- implicit casts of literals to the column types
INSERT INTO ins VALUES ('20', 'cast', '3.14159', 'yes');
SELECT * FROM ins WHERE id = 20;

-- errors leave the table unchanged
INSERT INTO ins (id, nosuch) VALUES (30, 1);
INSERT INTO ins (id, id) VALUES (30, 31);
INSERT INTO ins VALUES (30, 'x', 1, true, 'extra');
INSERT INTO ins (id, name) VALUES (30);
INSERT INTO ins VALUES ('thirty');
INSERT INTO ins VALUES (30, 'x'), (31, 'y', 'bad score');
SELECT count(*) FROM ins WHERE id >= 30;
SELECT count(*) AS total FROM ins;

DROP TABLE ins, ins_copy;

-- INSERT ... SELECT with an empty select list: one row of defaults per
-- source row; with a column list, PostgreSQL's 42601
CREATE TABLE ie (a int, b text DEFAULT 'd', c int NOT NULL DEFAULT 7);
INSERT INTO ie SELECT FROM generate_series(1, 2);
INSERT INTO ie (a) SELECT FROM generate_series(1, 2);
INSERT INTO ie SELECT FROM generate_series(1, 0);
SELECT * FROM ie ORDER BY 1;
CREATE TABLE ie2 (a int NOT NULL);
INSERT INTO ie2 SELECT FROM generate_series(1, 2);
DROP TABLE ie, ie2;
-- a NOT NULL violation shows the row with every column's text, defaults
-- of date and time types included
CREATE TABLE nnr (a int NOT NULL, ts timestamptz DEFAULT '2024-02-29 12:00:00+00', d date DEFAULT '2024-01-01',
  i interval DEFAULT '1 day', n numeric(5,2) DEFAULT 1.5, b bytea DEFAULT '\x01', u uuid DEFAULT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
INSERT INTO nnr (ts) VALUES (DEFAULT);
INSERT INTO nnr (b, i) VALUES ('\x0203', '-1 mon 2 hours');
DROP TABLE nnr;

-- a string literal assigned by INSERT ... SELECT, UPDATE or MERGE is read
-- with the column type's input syntax (PostgreSQL's, not the engine's)
CREATE TABLE lit (id int, ts timestamptz, t timestamp, d date, b bool, by bytea, iv interval, u uuid);
INSERT INTO lit SELECT 1, '2024-01-01 12:00+02', '2024-01-01 12:00', 'Jan 2 2024', 'on', '\x0102', '1 day 02:00', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11';
UPDATE lit SET ts = '2024-01-01 12:00+05', b = 'off', iv = '2 hours' WHERE id = 1;
UPDATE lit SET ts = 'nonsense' WHERE id = 1;
MERGE INTO lit USING (VALUES (1), (4)) s(id) ON lit.id = s.id WHEN MATCHED THEN UPDATE SET ts = '2030-01-01 00:00-01'
  WHEN NOT MATCHED THEN INSERT (id, ts, d) VALUES (s.id, '2031-01-01 00:00+01', 'Feb 3 2024');
SELECT * FROM lit ORDER BY id;
DROP TABLE lit;
