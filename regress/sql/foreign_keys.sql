--
-- FOREIGN KEY constraints: declared by CREATE TABLE (REFERENCES, FOREIGN
-- KEY) or ALTER TABLE ... ADD CONSTRAINT, checked when declared, shown by
-- psql, pg_constraint and information_schema, kept through DROP and
-- renames. (Rows are not checked against the referenced table: this
-- script inserts only rows that satisfy their keys.)
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
-- the notices of IF [NOT] EXISTS and CASCADE are part of what is compared
SET client_min_messages = notice;

CREATE SCHEMA regress_fk;
SET search_path = regress_fk;

CREATE TABLE fk_parent (id int PRIMARY KEY, name text);
CREATE TABLE fk_child (id int PRIMARY KEY, parent_id int REFERENCES fk_parent, note text);
CREATE TABLE fk_child2 (id bigint, pid int,
  CONSTRAINT my_fk FOREIGN KEY (pid) REFERENCES fk_parent (id) ON DELETE CASCADE ON UPDATE SET NULL DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE fk_self (id int PRIMARY KEY, parent int REFERENCES fk_self (id));
CREATE TABLE fk_multi_parent (a int, b text, PRIMARY KEY (a, b));
CREATE TABLE fk_multi (x int, y varchar(10), FOREIGN KEY (x, y) REFERENCES fk_multi_parent (a, b) MATCH FULL ON DELETE RESTRICT);
CREATE TABLE fk_multi2 (x int, y text, FOREIGN KEY (y, x) REFERENCES fk_multi_parent (b, a) ON DELETE SET DEFAULT);
INSERT INTO fk_parent VALUES (1, 'one'), (2, 'two');
INSERT INTO fk_child VALUES (10, 1, 'a'), (11, NULL, 'b');
SELECT c.id, p.name FROM fk_child c LEFT JOIN fk_parent p ON p.id = c.parent_id ORDER BY c.id;
\d fk_parent
\d fk_child
\d fk_child2
\d fk_self
\d fk_multi
\d fk_multi_parent
SELECT conname, contype, conrelid::regclass, confrelid::regclass, conkey, confkey, confupdtype, confdeltype,
  confmatchtype, condeferrable, condeferred, convalidated, pg_get_constraintdef(oid)
  FROM pg_constraint WHERE connamespace = 'regress_fk'::regnamespace AND contype = 'f' ORDER BY conname;
SELECT constraint_name, table_name, constraint_type, is_deferrable, initially_deferred
  FROM information_schema.table_constraints
  WHERE constraint_schema = 'regress_fk' AND constraint_type <> 'CHECK' ORDER BY 1;
SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint
  FROM information_schema.key_column_usage WHERE constraint_schema = 'regress_fk' ORDER BY 1, 4;
SELECT constraint_name, unique_constraint_schema, unique_constraint_name, match_option, update_rule, delete_rule
  FROM information_schema.referential_constraints WHERE constraint_schema = 'regress_fk' ORDER BY 1;
SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage
  WHERE constraint_schema = 'regress_fk' ORDER BY 3, 1, 2;

-- checked when declared
CREATE TABLE fk_bad (a int REFERENCES nosuch);
CREATE TABLE fk_bad (a int REFERENCES fk_parent (name));
CREATE TABLE fk_bad (a text REFERENCES fk_parent);
CREATE TABLE fk_bad (a int, b int, FOREIGN KEY (a, b) REFERENCES fk_parent);
CREATE TABLE fk_nokey (a int);
CREATE TABLE fk_bad (a int REFERENCES fk_nokey);
CREATE TABLE fk_bad (a int, FOREIGN KEY (zz) REFERENCES fk_parent);
CREATE TABLE fk_bad (a int REFERENCES fk_parent (zz));
CREATE VIEW fk_view AS SELECT * FROM fk_parent;
CREATE TABLE fk_bad (a int REFERENCES fk_view);
DROP VIEW fk_view;
CREATE TABLE IF NOT EXISTS fk_child (id int REFERENCES nosuch);
SELECT count(*) FROM pg_class WHERE relname = 'fk_bad';

-- ALTER TABLE ... ADD / DROP CONSTRAINT, ADD COLUMN ... REFERENCES
CREATE TABLE fk_late (id int, p int);
ALTER TABLE fk_late ADD CONSTRAINT fk_late_p FOREIGN KEY (p) REFERENCES fk_parent (id);
ALTER TABLE fk_late ADD FOREIGN KEY (id) REFERENCES fk_parent;
ALTER TABLE fk_late ADD FOREIGN KEY (p) REFERENCES fk_parent;
ALTER TABLE fk_late ADD CONSTRAINT fk_late_p FOREIGN KEY (p) REFERENCES fk_parent (id);
ALTER TABLE fk_late ADD COLUMN q int REFERENCES fk_parent;
\d fk_late
ALTER TABLE fk_late DROP CONSTRAINT fk_late_p;
ALTER TABLE fk_late DROP CONSTRAINT nosuch;
ALTER TABLE fk_late DROP CONSTRAINT IF EXISTS nosuch;
ALTER TABLE fk_late DROP COLUMN q;
\d fk_late

-- renames follow
ALTER TABLE fk_parent RENAME COLUMN id TO pid;
ALTER TABLE fk_child RENAME COLUMN parent_id TO parent;
ALTER TABLE fk_parent RENAME TO fk_parent2;
\d fk_child
\d fk_parent2

-- a referenced column or table is not dropped without CASCADE
ALTER TABLE fk_parent2 DROP COLUMN pid;
DROP TABLE fk_parent2;
DROP TABLE fk_multi_parent;
DROP TABLE fk_parent2 CASCADE;
\d fk_child
DROP TABLE fk_multi_parent CASCADE;
DROP TABLE fk_child, fk_child2, fk_self, fk_nokey, fk_late, fk_multi, fk_multi2;
DROP SCHEMA regress_fk;
