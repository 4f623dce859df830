--
-- PRIMARY KEY enforced: INSERT, INSERT ... SELECT, COPY, UPDATE of key
-- columns, MERGE, in and out of transaction blocks and savepoints; INSERT
-- ... ON CONFLICT DO NOTHING with and without a conflict target; ALTER
-- TABLE ... ADD PRIMARY KEY over rows that repeat the key; keys freed by
-- DELETE. (An UPDATE whose rows would collide only in some row order is
-- not here: PostgreSQL checks row by row, bsdb-pg per statement.)
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
SET client_min_messages = notice;

CREATE SCHEMA regress_uk;
SET search_path = regress_uk;

CREATE TABLE uk1 (id int PRIMARY KEY, v text);
INSERT INTO uk1 VALUES (1, 'a'), (2, 'b');
INSERT INTO uk1 VALUES (1, 'x');
INSERT INTO uk1 VALUES (3, 'c'), (3, 'd');
INSERT INTO uk1 VALUES (NULL, 'n');
SELECT * FROM uk1 ORDER BY id;

-- ON CONFLICT DO NOTHING
INSERT INTO uk1 VALUES (3, 'c') ON CONFLICT DO NOTHING;
INSERT INTO uk1 VALUES (1, 'dup'), (4, 'd'), (4, 'e') ON CONFLICT (id) DO NOTHING RETURNING *;
INSERT INTO uk1 VALUES (5, 'c') ON CONFLICT (v) DO NOTHING;
INSERT INTO uk1 VALUES (5, 'c') ON CONFLICT ON CONSTRAINT nope DO NOTHING;
INSERT INTO uk1 VALUES (5, 'e'), (2, 'f') ON CONFLICT ON CONSTRAINT uk1_pkey DO NOTHING;
INSERT INTO uk1 SELECT g, 'g' FROM generate_series(1, 8) g ON CONFLICT DO NOTHING;
SELECT * FROM uk1 ORDER BY id;

-- a deleted key can be inserted again; an UPDATE may move a key to a free
-- one, not to a taken one
DELETE FROM uk1 WHERE id = 1;
INSERT INTO uk1 VALUES (1, 'again');
UPDATE uk1 SET id = 2 WHERE id = 1;
UPDATE uk1 SET id = 10 WHERE id = 1;
UPDATE uk1 SET id = 11, v = 'eleven' WHERE id = 10 RETURNING *;
UPDATE uk1 SET v = 'same key' WHERE id = 2;
UPDATE uk1 SET id = id WHERE id < 5;
UPDATE uk1 SET id = 12 WHERE id IN (7, 8);
SELECT * FROM uk1 ORDER BY id;

-- transaction blocks and savepoints
BEGIN;
INSERT INTO uk1 VALUES (20, 'a');
INSERT INTO uk1 VALUES (20, 'b');
ROLLBACK;
BEGIN;
INSERT INTO uk1 VALUES (20, 'a');
SAVEPOINT s1;
INSERT INTO uk1 VALUES (21, 'x');
ROLLBACK TO s1;
INSERT INTO uk1 VALUES (21, 'y');
INSERT INTO uk1 VALUES (20, 'z') ON CONFLICT DO NOTHING;
SAVEPOINT s2;
INSERT INTO uk1 VALUES (21, 'w');
ROLLBACK TO s2;
DELETE FROM uk1 WHERE id = 2;
INSERT INTO uk1 VALUES (2, 'b2');
COMMIT;
SELECT * FROM uk1 WHERE id IN (2, 20, 21) ORDER BY id;
INSERT INTO uk1 VALUES (21, 'committed');

-- COPY
COPY uk1 FROM STDIN;
30	thirty
31	thirty-one
\.
COPY uk1 FROM STDIN;
32	thirty-two
30	again
\.
COPY uk1 (id, v) FROM STDIN (FORMAT csv, HEADER true);
id,v
33,x
33,y
\.
SELECT count(*) FROM uk1 WHERE id >= 30;

-- MERGE
MERGE INTO uk1 USING (VALUES (30, 'm'), (40, 'n')) s(id, v) ON uk1.id = s.id
  WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v);
MERGE INTO uk1 USING (VALUES (31, 30)) s(id, nid) ON uk1.id = s.id
  WHEN MATCHED THEN UPDATE SET id = s.nid;
MERGE INTO uk1 USING (VALUES (41, 'a'), (41, 'b')) s(id, v) ON uk1.id = s.id
  WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v);
SELECT * FROM uk1 WHERE id >= 30 ORDER BY id;

-- composite keys of several types; a NULL in a key never conflicts
CREATE TABLE uk2 (u uuid, n numeric(10,2), d date, t text, PRIMARY KEY (u, n, d, t));
INSERT INTO uk2 VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.5, '2024-01-01', 'x');
INSERT INTO uk2 VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 1.50, '2024-01-01', 'x');
INSERT INTO uk2 VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.5, '2024-01-01', 'x ');
INSERT INTO uk2 VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.5, '2024-01-02', 'x') ON CONFLICT (t, d, n, u) DO NOTHING;
INSERT INTO uk2 VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.5, '2024-01-02', 'x') ON CONFLICT (u, n) DO NOTHING;
SELECT * FROM uk2 ORDER BY d, t;
CREATE TABLE uk3 (a int, b int);
INSERT INTO uk3 VALUES (1, NULL), (1, NULL), (NULL, NULL);
INSERT INTO uk3 VALUES (2, 2) ON CONFLICT DO NOTHING;
SELECT count(*) FROM uk3;

-- ALTER TABLE ... ADD PRIMARY KEY checks the rows; DROP CONSTRAINT ends
-- the check; RENAME CONSTRAINT renames it in the errors
CREATE TABLE uk4 (id bigint NOT NULL, v text);
INSERT INTO uk4 VALUES (1, 'a'), (1, 'b'), (2, 'c');
ALTER TABLE uk4 ADD PRIMARY KEY (id);
DELETE FROM uk4 WHERE v = 'b';
ALTER TABLE uk4 ADD CONSTRAINT uk4_id PRIMARY KEY (id);
INSERT INTO uk4 VALUES (2, 'again');
ALTER TABLE uk4 RENAME CONSTRAINT uk4_id TO uk4_renamed;
INSERT INTO uk4 VALUES (2, 'again');
ALTER TABLE uk4 DROP CONSTRAINT uk4_renamed;
INSERT INTO uk4 VALUES (2, 'again');
SELECT * FROM uk4 ORDER BY id, v;
INSERT INTO uk4 VALUES (3, 'x') ON CONFLICT (id) DO NOTHING;

-- many rows at once
CREATE TABLE uk5 (a int PRIMARY KEY);
INSERT INTO uk5 SELECT g FROM generate_series(1, 50000) g;
INSERT INTO uk5 SELECT g FROM generate_series(49999, 50001) g;
INSERT INTO uk5 SELECT g FROM generate_series(49999, 50002) g ON CONFLICT DO NOTHING;
SELECT count(*), max(a) FROM uk5;

SET client_min_messages = warning;
DROP SCHEMA regress_uk CASCADE;
