--
-- ALTER TABLE: columns added, dropped, renamed, retyped, their defaults
-- and NOT NULL, as Iceberg schema evolution (the rows already written stay
-- in their files and read through the new schema)
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
-- the notices of IF [NOT] EXISTS are part of what is compared
SET client_min_messages = notice;

CREATE SCHEMA regress_alter;
SET search_path = regress_alter;

CREATE TABLE at1 (a int, b text, n numeric(6,2), f real);
INSERT INTO at1 VALUES (1, 'x', 1.5, 0.5), (2, 'y', NULL, NULL), (3, NULL, 99.99, 3.25);

-- ADD COLUMN: rows written before read the default, computed once
ALTER TABLE at1 ADD COLUMN c int DEFAULT 42;
ALTER TABLE at1 ADD COLUMN d text DEFAULT 'leftover', ADD COLUMN e date;
ALTER TABLE at1 ADD COLUMN ts timestamptz DEFAULT '2024-02-29 12:00:00+00';
ALTER TABLE at1 ADD COLUMN flag boolean NOT NULL DEFAULT true;
SELECT * FROM at1 ORDER BY a;
INSERT INTO at1 (a, b) VALUES (4, 'new');
INSERT INTO at1 VALUES (5, 'all', 5, 5, 5, 'five', '2024-05-05', NULL, false);
SELECT * FROM at1 ORDER BY a;
SELECT a, c + 1 AS c1, upper(d), e IS NULL AS no_e FROM at1 WHERE c = 42 ORDER BY a;
SELECT count(*), sum(c), count(e), count(DISTINCT d) FROM at1;
ALTER TABLE at1 ADD COLUMN c int;
ALTER TABLE at1 ADD COLUMN IF NOT EXISTS c int;
ALTER TABLE at1 ADD COLUMN nn int NOT NULL;
ALTER TABLE at1 ADD COLUMN bad int DEFAULT 'x';
\d at1

-- RENAME COLUMN: the values follow the column
ALTER TABLE at1 RENAME COLUMN b TO label;
ALTER TABLE at1 RENAME label TO lbl;
SELECT a, lbl FROM at1 ORDER BY a;
ALTER TABLE at1 RENAME COLUMN nosuch TO x;
ALTER TABLE at1 RENAME COLUMN lbl TO a;
SELECT b FROM at1;

-- DROP COLUMN: gone, and a new column of the same name starts empty
ALTER TABLE at1 DROP COLUMN d;
SELECT * FROM at1 ORDER BY a;
ALTER TABLE at1 ADD COLUMN d text;
SELECT a, d FROM at1 ORDER BY a;
ALTER TABLE at1 DROP COLUMN d, DROP COLUMN e;
ALTER TABLE at1 DROP COLUMN IF EXISTS nosuch;
ALTER TABLE at1 DROP COLUMN nosuch;
ALTER TABLE IF EXISTS nosuch_table ADD COLUMN x int;
ALTER TABLE nosuch_table ADD COLUMN x int;

-- defaults
ALTER TABLE at1 ALTER COLUMN lbl SET DEFAULT 'dflt';
INSERT INTO at1 (a) VALUES (6);
ALTER TABLE at1 ALTER COLUMN lbl DROP DEFAULT;
INSERT INTO at1 (a) VALUES (7);
SELECT a, lbl FROM at1 WHERE a >= 6 ORDER BY a;
ALTER TABLE at1 ALTER COLUMN nosuch SET DEFAULT 1;
ALTER TABLE at1 ALTER COLUMN c SET DEFAULT 'abc';

-- NOT NULL
ALTER TABLE at1 ALTER COLUMN a SET NOT NULL;
INSERT INTO at1 (lbl) VALUES ('no a');
ALTER TABLE at1 ALTER COLUMN lbl SET NOT NULL;
ALTER TABLE at1 ALTER COLUMN a DROP NOT NULL;
INSERT INTO at1 (lbl) VALUES ('no a');
SELECT count(*) FROM at1 WHERE a IS NULL;

-- TYPE: widening promotions keep the stored values
ALTER TABLE at1 ALTER COLUMN a TYPE bigint;
ALTER TABLE at1 ALTER COLUMN f TYPE double precision;
ALTER TABLE at1 ALTER COLUMN n TYPE numeric(10,2);
ALTER TABLE at1 ALTER COLUMN lbl TYPE varchar(2);
ALTER TABLE at1 ALTER COLUMN lbl TYPE varchar(20);
INSERT INTO at1 (a, lbl) VALUES (8, repeat('x', 21));
ALTER TABLE at1 ALTER COLUMN lbl TYPE varchar(30);
ALTER TABLE at1 ALTER COLUMN lbl TYPE text;
INSERT INTO at1 (a, n, f) VALUES (9000000000, 12345678.12, 1e300);
SELECT a, n, f, pg_typeof(a), pg_typeof(n), pg_typeof(f) FROM at1 ORDER BY a;
\d at1

-- one statement is one change: a failing subcommand leaves everything as it was
ALTER TABLE at1 ADD COLUMN z1 int, DROP COLUMN nosuch;
ALTER TABLE at1 ADD COLUMN z2 int, ADD COLUMN z2 text;
SELECT count(*) FROM information_schema.columns WHERE table_name = 'at1' AND column_name LIKE 'z%';

-- UPDATE and DELETE over rows written in several schema versions
UPDATE at1 SET c = c * 2, lbl = coalesce(lbl, '?') WHERE a <= 3;
DELETE FROM at1 WHERE a = 2;
SELECT a, lbl, c FROM at1 ORDER BY a;

-- the catalogs
SELECT column_name, data_type, is_nullable, column_default, ordinal_position
  FROM information_schema.columns WHERE table_name = 'at1' ORDER BY ordinal_position;

-- RENAME TO and SET SCHEMA: the rows, indexes, comments, the primary key's
-- name and the serial column's sequence follow; views that read the
-- table keep reading it; the old name is free again
CREATE SCHEMA regress_alter2;
CREATE TABLE rt (id serial PRIMARY KEY, v text);
INSERT INTO rt (v) VALUES ('a'), ('b');
CREATE INDEX rt_v ON rt (v);
COMMENT ON TABLE rt IS 'the table';
CREATE VIEW rv AS SELECT rt.id, v FROM rt WHERE rt.id > 0;
CREATE VIEW rv2 AS SELECT * FROM rv;
ALTER TABLE rt RENAME TO rt2;
SELECT * FROM rt2 ORDER BY id;
SELECT * FROM rt;
INSERT INTO rt2 (v) VALUES ('c');
SELECT pg_get_serial_sequence('rt2', 'id');
SELECT * FROM rv2 ORDER BY id;
\d rt2
SELECT obj_description('rt2'::regclass, 'pg_class');
CREATE TABLE rt (x int);
INSERT INTO rt VALUES (1);
SELECT * FROM rt;
ALTER TABLE rt2 RENAME TO rt;
ALTER TABLE rt2 RENAME TO rt_v;
ALTER TABLE IF EXISTS nosuch RENAME TO x;
ALTER TABLE nosuch RENAME TO x;
ALTER TABLE rt2 SET SCHEMA regress_alter2;
SELECT * FROM regress_alter2.rt2 ORDER BY id;
SELECT * FROM rv ORDER BY id;
SELECT * FROM rt2;
ALTER TABLE regress_alter2.rt2 SET SCHEMA nosuch;
ALTER VIEW rv RENAME TO rv_renamed;
SELECT count(*) FROM rv_renamed;
SELECT count(*) FROM rv2;
ALTER VIEW rt RENAME TO q;
ALTER TABLE regress_alter2.rt2 RENAME TO rt3;
INSERT INTO regress_alter2.rt3 (v) VALUES ('d');
SELECT * FROM regress_alter2.rt3 ORDER BY id;
-- (a sequence the table owns stays in its schema: see the README)
SELECT relname, relnamespace::regnamespace FROM pg_class WHERE relname LIKE 'r%' AND relkind <> 'S' AND relnamespace::regnamespace::text LIKE 'regress%' ORDER BY 1;
DROP VIEW rv2, rv_renamed;
DROP TABLE rt, regress_alter2.rt3;
DROP SCHEMA regress_alter2;

-- OWNER TO of a sequence, by ALTER TABLE (as pg_dump writes it) or ALTER
-- SEQUENCE
CREATE ROLE regress_alter_owner;
CREATE SEQUENCE regress_alter2_sq;
ALTER TABLE regress_alter2_sq OWNER TO regress_alter_owner;
SELECT sequenceowner FROM pg_sequences WHERE sequencename = 'regress_alter2_sq';
ALTER SEQUENCE regress_alter2_sq OWNER TO postgres;
SELECT sequenceowner FROM pg_sequences WHERE sequencename = 'regress_alter2_sq';
ALTER SEQUENCE nosuch_sq OWNER TO postgres;
ALTER SEQUENCE IF EXISTS nosuch_sq OWNER TO postgres;
ALTER TABLE nosuch_sq OWNER TO postgres;
DROP SEQUENCE regress_alter2_sq;
DROP ROLE regress_alter_owner;

-- identity columns added, changed and dropped (pg_dump restores identity
-- columns with ADD GENERATED ... (SEQUENCE NAME ...))
CREATE TABLE idt (id int NOT NULL, v text);
INSERT INTO idt VALUES (100, 'pre');
ALTER TABLE idt ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME idt_custom_seq START WITH 5 INCREMENT BY 2);
INSERT INTO idt (v) VALUES ('a'), ('b');
INSERT INTO idt VALUES (1, 'x');
SELECT * FROM idt ORDER BY id;
\d idt
SELECT sequencename, start_value, increment_by FROM pg_sequences WHERE sequencename LIKE 'idt%';
ALTER TABLE idt ALTER COLUMN id SET GENERATED BY DEFAULT;
INSERT INTO idt VALUES (1, 'x');
ALTER TABLE idt ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
ALTER TABLE idt ALTER COLUMN v ADD GENERATED ALWAYS AS IDENTITY;
ALTER TABLE idt ALTER COLUMN id DROP IDENTITY;
ALTER TABLE idt ALTER COLUMN id DROP IDENTITY;
ALTER TABLE idt ALTER COLUMN id DROP IDENTITY IF EXISTS;
SELECT count(*) FROM pg_sequences WHERE sequencename LIKE 'idt%';
\d idt
CREATE TABLE idt2 (id bigint GENERATED BY DEFAULT AS IDENTITY (SEQUENCE NAME idt2_s), w int);
INSERT INTO idt2 (w) VALUES (1);
SELECT * FROM idt2;
CREATE TABLE idt3 (id int DEFAULT 1 NOT NULL);
ALTER TABLE idt3 ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
CREATE TABLE idt4 (id text NOT NULL);
ALTER TABLE idt4 ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
DROP TABLE idt, idt2, idt3, idt4;

-- ALTER INDEX ... RENAME TO, ALTER TABLE ... RENAME CONSTRAINT
CREATE TABLE ri (id int PRIMARY KEY, v text);
CREATE TABLE ri2 (id int, r int REFERENCES ri);
CREATE INDEX ri_v ON ri (v);
ALTER INDEX ri_v RENAME TO ri_v2;
ALTER INDEX ri_v RENAME TO ri_v3;
ALTER INDEX IF EXISTS ri_v RENAME TO ri_v3;
ALTER INDEX ri_v2 RENAME TO ri2;
ALTER INDEX ri_pkey RENAME TO ri_key;
\d ri
ALTER TABLE ri2 RENAME CONSTRAINT ri2_r_fkey TO ri2_parent;
ALTER TABLE ri2 RENAME CONSTRAINT nosuch TO x;
ALTER TABLE ri RENAME CONSTRAINT ri_key TO ri_pk;
ALTER TABLE ri2 RENAME CONSTRAINT ri2_parent TO ri2_parent;
\d ri
\d ri2
SELECT conname FROM pg_constraint WHERE conrelid IN ('ri'::regclass, 'ri2'::regclass) ORDER BY 1;
DROP TABLE ri2, ri;

-- a column a view reads is not dropped without CASCADE (which drops the
-- views, and the views of those views)
CREATE TABLE dv (a int, b text, c int);
CREATE VIEW dv_b AS SELECT a, b FROM dv;
CREATE VIEW dv_star AS SELECT * FROM dv WHERE a > 0;
CREATE VIEW dv_b2 AS SELECT b FROM dv_b;
ALTER TABLE dv DROP COLUMN b;
ALTER TABLE dv DROP COLUMN c;
DROP VIEW dv_star;
ALTER TABLE dv DROP COLUMN c;
ALTER TABLE dv DROP COLUMN b CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'dv%' ORDER BY 1;
DROP TABLE dv;

-- a renamed serial column keeps its sequence; a table of the same name in
-- another schema keeps its own
CREATE TABLE sr (id serial, v int);
CREATE TABLE regress_alter2_sr_other (x int);
CREATE SCHEMA regress_alter3;
CREATE TABLE regress_alter3.sr (id serial, v int);
ALTER TABLE sr RENAME COLUMN id TO key;
SELECT pg_get_serial_sequence('sr', 'key'), pg_get_serial_sequence('regress_alter3.sr', 'id');
INSERT INTO regress_alter3.sr (v) VALUES (1);
SELECT * FROM regress_alter3.sr;
DROP TABLE sr, regress_alter2_sr_other, regress_alter3.sr;
DROP SCHEMA regress_alter3;

-- storage parameters: checked, kept nowhere
ALTER TABLE dflt_sp_nosuch SET (parallel_workers = 4);
CREATE TABLE sp (a int);
ALTER TABLE sp SET (parallel_workers = 4, fillfactor = 90);
ALTER TABLE sp RESET (parallel_workers);
ALTER TABLE sp SET (toast.autovacuum_enabled = false);
ALTER TABLE sp SET (nosuch = 1);
ALTER TABLE sp ADD COLUMN t text;
ALTER TABLE sp ALTER COLUMN t SET STORAGE EXTERNAL;
ALTER TABLE sp ALTER COLUMN a SET STORAGE EXTERNAL;
ALTER TABLE sp ALTER COLUMN a SET STORAGE PLAIN;
ALTER TABLE sp ALTER COLUMN a SET STATISTICS 500;
ALTER TABLE sp ALTER COLUMN nosuch SET STATISTICS 500;
DROP TABLE sp;

-- a quoted integer default is shown as the constant it became (alembic's
-- server_default='0')
CREATE TABLE dflt (a int DEFAULT '100', b int DEFAULT '-5', c bigint DEFAULT '7', d smallint DEFAULT '3', e int DEFAULT ' 12 ', f text DEFAULT 'x');
ALTER TABLE dflt ALTER COLUMN b SET DEFAULT '0';
\d dflt
DROP TABLE dflt;

DROP TABLE at1;
DROP SCHEMA regress_alter;
