--
-- CHECK constraints: declared by CREATE TABLE (column and table
-- constraints, named or not) and ALTER TABLE ... ADD CONSTRAINT [NOT
-- VALID], enforced on INSERT, INSERT ... SELECT, UPDATE, MERGE and ON
-- CONFLICT (true and NULL pass), shown by psql and the catalogs, checked
-- over existing rows when added or validated, renamed, dropped, and
-- following RENAME COLUMN and DROP COLUMN. (The conditions shown here are
-- ones whose text PostgreSQL prints as written: it adds casts to literals
-- of other types, e.g. 0::numeric, which bsdb-pg does not.)
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
SET client_min_messages = notice;

CREATE SCHEMA regress_ck;
SET search_path = regress_ck;

CREATE TABLE c1 (id int PRIMARY KEY, price int CHECK (price > 0), qty int CONSTRAINT qty_ok CHECK (qty >= 0 AND qty < 1000),
  note text, CHECK (price < 1000 OR qty = 0));
\d c1
INSERT INTO c1 VALUES (1, 5, 1, 'a');
INSERT INTO c1 VALUES (2, -5, 1, 'a');
INSERT INTO c1 VALUES (2, 5, 1000, 'a');
INSERT INTO c1 VALUES (2, NULL, NULL, NULL);
INSERT INTO c1 VALUES (3, 5000, 1, 'x');
INSERT INTO c1 VALUES (4, 1, 1, 'x'), (5, -1, -1, '');
INSERT INTO c1 SELECT g, g - 2, 1, 'g' FROM generate_series(10, 14) g;
INSERT INTO c1 SELECT g, g, 1, 'g' FROM generate_series(10, 14) g;
UPDATE c1 SET qty = -1 WHERE id = 1;
UPDATE c1 SET qty = 5 WHERE id = 1;
UPDATE c1 SET price = price - 11 WHERE id >= 10;
INSERT INTO c1 VALUES (1, -5, 1, 'a') ON CONFLICT DO NOTHING;
INSERT INTO c1 VALUES (1, 5, 1, 'a') ON CONFLICT (id) DO UPDATE SET qty = -3;
INSERT INTO c1 VALUES (1, 5, 1, 'a') ON CONFLICT (id) DO UPDATE SET qty = 3;
MERGE INTO c1 USING (VALUES (1, -1), (20, 1)) s(id, p) ON c1.id = s.id
  WHEN MATCHED THEN UPDATE SET price = s.p WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.p, 0, 'm');
MERGE INTO c1 USING (VALUES (1, 2), (20, 1)) s(id, p) ON c1.id = s.id
  WHEN MATCHED THEN UPDATE SET price = s.p WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.p, 0, 'm');
SELECT conname, contype, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'c1'::regclass ORDER BY conname;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'c1'::regclass AND conname = 'c1_price_check';
SELECT relchecks FROM pg_class WHERE relname = 'c1';
SELECT constraint_name, constraint_type FROM information_schema.table_constraints WHERE table_name = 'c1' AND constraint_name NOT LIKE '%not_null' ORDER BY 1;
SELECT * FROM c1 ORDER BY id;
BEGIN;
INSERT INTO c1 VALUES (30, 1, 1, 'ok');
INSERT INTO c1 VALUES (31, -1, 1, 'bad');
ROLLBACK;
SELECT count(*) FROM c1 WHERE id >= 30;

-- text conditions are enforced too
CREATE TABLE ct (name text CHECK (name <> ''), code varchar(5) CHECK (code ~ '^[A-Z]+$'));
INSERT INTO ct VALUES ('x', 'AB');
INSERT INTO ct VALUES ('', 'AB');
INSERT INTO ct VALUES ('y', 'ab');
SELECT * FROM ct;

-- names, and what a condition may not hold
CREATE TABLE c2 (a int CHECK (b > 0), b int, CHECK (true), CHECK (a > 0), CHECK (a > 1));
\d c2
CREATE TABLE c3 (a int CHECK (a > (SELECT 1)));
CREATE TABLE c3 (a int CHECK (sum(a) > 0));
CREATE TABLE c3 (a int, CONSTRAINT x CHECK (a > 0), CONSTRAINT x CHECK (a > 1));

-- ALTER TABLE
CREATE TABLE c4 (a int, b text);
INSERT INTO c4 VALUES (1, 'x'), (-1, 'y');
ALTER TABLE c4 ADD CHECK (a > 0);
ALTER TABLE c4 ADD CONSTRAINT a_pos CHECK (a > 0) NOT VALID;
INSERT INTO c4 VALUES (-2, 'z');
ALTER TABLE c4 VALIDATE CONSTRAINT a_pos;
DELETE FROM c4 WHERE a < 0;
ALTER TABLE c4 VALIDATE CONSTRAINT a_pos;
ALTER TABLE c4 ADD CONSTRAINT a_pos CHECK (a > 1);
ALTER TABLE c4 ADD CHECK (length(b) < 3);
\d c4
ALTER TABLE c4 RENAME COLUMN b TO bb;
INSERT INTO c4 VALUES (5, 'long');
ALTER TABLE c4 RENAME CONSTRAINT a_pos TO a_positive;
INSERT INTO c4 VALUES (-5, 'ok');
\d c4
ALTER TABLE c4 DROP CONSTRAINT a_positive;
INSERT INTO c4 VALUES (-5, 'ok');
ALTER TABLE c4 DROP COLUMN bb;
\d c4
INSERT INTO c4 VALUES (-6);
ALTER TABLE c4 DROP CONSTRAINT nope;
ALTER TABLE c4 ADD COLUMN c int CHECK (c > 0);
INSERT INTO c4 VALUES (1, 0);
ALTER TABLE c4 ADD COLUMN d int DEFAULT 0 CHECK (d > 0);
ALTER TABLE c4 ADD COLUMN d int DEFAULT 1 CHECK (d > 0) UNIQUE;
DELETE FROM c4 WHERE a <> 1;
ALTER TABLE c4 ADD COLUMN d int DEFAULT 1 CHECK (d > 0) UNIQUE;
\d c4
INSERT INTO c4 VALUES (2, 1, 1);
ALTER TABLE c4 ADD CONSTRAINT c_small CHECK (c < 10), ADD CONSTRAINT c4_pair UNIQUE (a, c);
INSERT INTO c4 VALUES (2, 11, 2);
INSERT INTO c4 VALUES (1, NULL, 2);
\d c4

SET client_min_messages = warning;
DROP SCHEMA regress_ck CASCADE;
