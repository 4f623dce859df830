--
-- COMMENT ON TABLE / VIEW / COLUMN / INDEX, as psql, pg_dump and drivers
-- read them
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE SCHEMA regress_cm;
SET search_path = regress_cm;

CREATE TABLE cm (id int NOT NULL, name text);
CREATE VIEW cmv AS SELECT id FROM cm;
CREATE INDEX cm_name ON cm (name);
COMMENT ON TABLE cm IS 'the table';
COMMENT ON COLUMN cm.name IS 'a name';
COMMENT ON COLUMN regress_cm.cm.id IS 'the key';
COMMENT ON VIEW cmv IS 'a view';
COMMENT ON COLUMN cmv.id IS 'view col';
COMMENT ON INDEX cm_name IS 'by name';
-- errors
COMMENT ON TABLE cmv IS 'x';
COMMENT ON VIEW cm IS 'x';
COMMENT ON COLUMN cm.nosuch IS 'x';
COMMENT ON TABLE nosuch IS 'x';
COMMENT ON INDEX nosuch IS 'x';
-- what tools read
SELECT obj_description('cm'::regclass, 'pg_class'), obj_description('cmv'::regclass), col_description('cm'::regclass, 2), col_description('cm'::regclass, 1);
SELECT c.relname, d.objsubid, d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid
  WHERE c.relnamespace = 'regress_cm'::regnamespace ORDER BY 1, 2;
\d+ cm
-- a temporary table's comments are the session's
CREATE TEMP TABLE tcm (a int);
COMMENT ON TABLE tcm IS 'temporary';
COMMENT ON COLUMN tcm.a IS 'column a';
SELECT obj_description('tcm'::regclass, 'pg_class'), col_description('tcm'::regclass, 1);
DROP TABLE tcm;
-- IS NULL and IS '' remove a comment
COMMENT ON COLUMN cm.name IS NULL;
COMMENT ON TABLE cm IS '';
SELECT obj_description('cm'::regclass, 'pg_class'), col_description('cm'::regclass, 2), col_description('cm'::regclass, 1);
-- comments go with their objects
DROP VIEW cmv;
DROP TABLE cm;
SELECT count(*) FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE c.relnamespace = 'regress_cm'::regnamespace;
DROP SCHEMA regress_cm;
