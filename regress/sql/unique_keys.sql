--
-- PRIMARY KEY enforced: INSERT, INSERT ... SELECT, COPY, UPDATE of key
-- columns, MERGE, in and out of transaction blocks and savepoints; INSERT
-- ... ON CONFLICT DO NOTHING with and without a conflict target, ON
-- CONFLICT DO UPDATE; ALTER
-- TABLE ... ADD PRIMARY KEY over rows that repeat the key; keys freed by
-- DELETE; UNIQUE constraints and unique indexes. (An UPDATE whose rows
-- would collide only in some row order is not here: PostgreSQL checks row
-- by row, bsdb-pg per statement.)
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

-- UNIQUE constraints (column and table constraints, named or not) and
-- unique indexes: enforced like the primary key, shown by psql and the
-- catalogs, added over existing rows, dropped, renamed
CREATE TABLE u1 (id int PRIMARY KEY, email text UNIQUE, a int, b text, UNIQUE (a, b), CONSTRAINT named_u UNIQUE (b));
\d u1
INSERT INTO u1 VALUES (1, 'x@y', 1, 'p'), (2, NULL, 1, 'q'), (3, NULL, NULL, NULL);
INSERT INTO u1 VALUES (4, 'x@y', 5, 'r');
INSERT INTO u1 VALUES (4, 'z@y', 1, 'p');
INSERT INTO u1 VALUES (4, 'z@y', 1, 's'), (5, 'w@y', 1, 't');
INSERT INTO u1 VALUES (6, 'v@y', 1, 'q');
INSERT INTO u1 VALUES (7, 'x@y', 9, 'z') ON CONFLICT (email) DO NOTHING;
INSERT INTO u1 VALUES (1, 'n@y', 9, 'z') ON CONFLICT (email) DO NOTHING;
INSERT INTO u1 VALUES (1, 'n@y', 9, 'z') ON CONFLICT DO NOTHING;
UPDATE u1 SET email = 'x@y' WHERE id = 4;
UPDATE u1 SET b = 'p' WHERE id = 3;
SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'u1'::regclass ORDER BY conname;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'u1' ORDER BY 1;
SELECT i.indexrelid::regclass, i.indisunique, i.indisprimary FROM pg_index i WHERE i.indrelid = 'u1'::regclass ORDER BY i.indexrelid::regclass::text;
SELECT constraint_name, constraint_type FROM information_schema.table_constraints WHERE table_name = 'u1' AND constraint_type <> 'CHECK' ORDER BY 1;
SELECT constraint_name, column_name, ordinal_position FROM information_schema.key_column_usage WHERE table_name = 'u1' ORDER BY 1, 3;
DROP INDEX u1_email_key;
ALTER TABLE u1 DROP CONSTRAINT u1_email_key;
INSERT INTO u1 VALUES (8, 'x@y', 10, 'zz');
ALTER TABLE u1 ADD UNIQUE (email);
ALTER TABLE u1 ADD CONSTRAINT u1_mail UNIQUE (email);
DELETE FROM u1 WHERE id = 8;
ALTER TABLE u1 ADD CONSTRAINT u1_mail UNIQUE (email);
ALTER TABLE u1 ADD UNIQUE (email);
INSERT INTO u1 VALUES (9, 'x@y', 11, 'zz');
ALTER TABLE u1 RENAME CONSTRAINT u1_mail TO u1_mail2;
INSERT INTO u1 VALUES (9, 'x@y', 11, 'zz');
CREATE UNIQUE INDEX u1_a_uidx ON u1 (a);
CREATE UNIQUE INDEX ON u1 (id, a);
INSERT INTO u1 VALUES (10, 'k@y', 1, 'zzz');
DROP INDEX u1_id_a_idx;
ALTER TABLE u1 RENAME COLUMN email TO mail;
INSERT INTO u1 VALUES (11, 'x@y', 12, 'zzz');
\d u1
ALTER TABLE u1 DROP COLUMN mail;
INSERT INTO u1 VALUES (11, 12, 'zzz');
CREATE TABLE u2 (a int UNIQUE, b int UNIQUE, c int, UNIQUE (a), PRIMARY KEY (c), UNIQUE (c));
\d u2
CREATE TABLE u3 (a int CONSTRAINT u2 UNIQUE);
CREATE TABLE u3 (a int, UNIQUE (a, a));
CREATE TABLE u3 (a int, UNIQUE (nope));
CREATE TEMP TABLE tu (a int UNIQUE, b int);
INSERT INTO tu VALUES (1, 1), (2, 1);
INSERT INTO tu VALUES (1, 3);
CREATE UNIQUE INDEX ON tu (b);
DROP TABLE tu;

-- INSERT ... ON CONFLICT DO UPDATE (upsert)
CREATE TABLE up (id int PRIMARY KEY, v text, n int DEFAULT 0, email text UNIQUE);
INSERT INTO up VALUES (1, 'a', 1, 'a@x'), (2, 'b', 1, 'b@x');
INSERT INTO up VALUES (1, 'A', 5, 'a2@x') ON CONFLICT (id) DO UPDATE SET v = excluded.v, n = up.n + excluded.n;
SELECT * FROM up ORDER BY id;
INSERT INTO up AS u VALUES (2, 'B', 7), (3, 'c', 1) ON CONFLICT (id) DO UPDATE SET n = u.n + 1 RETURNING *;
INSERT INTO up VALUES (3, 'C', 9) ON CONFLICT (id) DO UPDATE SET v = excluded.v WHERE up.n > 5 RETURNING id, v;
INSERT INTO up VALUES (3, 'C', 9) ON CONFLICT (id) DO UPDATE SET v = excluded.v WHERE excluded.n > 5 RETURNING id, v;
INSERT INTO up VALUES (4, 'd'), (4, 'e') ON CONFLICT (id) DO UPDATE SET v = excluded.v;
INSERT INTO up VALUES (5, 'd') ON CONFLICT DO UPDATE SET v = excluded.v;
INSERT INTO up VALUES (1, 'z', 0, 'b@x') ON CONFLICT (id) DO UPDATE SET email = excluded.email;
INSERT INTO up VALUES (1, 'z', 0, 'b@x') ON CONFLICT ON CONSTRAINT up_email_key DO UPDATE SET v = 'via email';
INSERT INTO up VALUES (6, 'z', 0, 'b@x') ON CONFLICT (id) DO UPDATE SET v = 'x';
INSERT INTO up VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET n = n + 100;
INSERT INTO up VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET nope = 1;
INSERT INTO up VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET v = excluded.nope;
INSERT INTO up VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET id = 2;
INSERT INTO up VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET id = 7 RETURNING id, v;
BEGIN;
INSERT INTO up VALUES (10, 'ten');
INSERT INTO up VALUES (10, 'TEN') ON CONFLICT (id) DO UPDATE SET v = excluded.v;
SELECT * FROM up WHERE id = 10;
ROLLBACK;
INSERT INTO up SELECT g, 'g' || g FROM generate_series(1, 12) g ON CONFLICT (id) DO UPDATE SET v = excluded.v || '!';
SELECT * FROM up ORDER BY id;

SET client_min_messages = warning;
DROP SCHEMA regress_uk CASCADE;
