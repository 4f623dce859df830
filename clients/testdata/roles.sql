-- Roles and privileges, run by psql on bsdb-pg and on PostgreSQL 15 as
-- several roles (\c - role); the outputs must be identical. Role names
-- start with rp_ (the reference cluster may be shared); the database is
-- the test's own (:"DBNAME").
\set VERBOSITY verbose
\set SHOW_CONTEXT never
-- Roles and their attributes.
CREATE ROLE rp_alice LOGIN PASSWORD 'pw';
CREATE USER rp_bob PASSWORD 'pw2';
CREATE ROLE rp_grp;
CREATE ROLE rp_alice;
CREATE ROLE pg_rp;
CREATE ROLE rp_e1 LOGIN PASSWORD '';
CREATE ROLE rp_e2 LOGIN LOGIN;
CREATE ROLE rp_e3 CONNECTION LIMIT -5;
CREATE ROLE rp_e4 VALID UNTIL 'garbage';
CREATE ROLE rp_x1 WITH SYSID 5;
CREATE ROLE rp_md PASSWORD 'md5a3556571e93b0d20722ba62be61e8c2d';
SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolconnlimit, rolpassword, rolvaliduntil, rolbypassrls
  FROM pg_roles WHERE rolname ~ '^rp_' ORDER BY 1;
SELECT usename, usecreatedb, usesuper, passwd FROM pg_user WHERE usename ~ '^rp_' ORDER BY 1;
SELECT rolname, left(rolpassword, 14) FROM pg_authid WHERE rolname ~ '^rp_' ORDER BY 1;
ALTER ROLE rp_md RENAME TO rp_md2;
SELECT rolpassword FROM pg_authid WHERE rolname = 'rp_md2';
ALTER ROLE rp_nosuch RENAME TO rp_x;
ALTER ROLE rp_alice RENAME TO rp_bob;
ALTER ROLE rp_alice RENAME TO pg_x;
ALTER ROLE pg_monitor LOGIN;
DROP ROLE pg_monitor;
DROP ROLE rp_nosuch;
DROP ROLE IF EXISTS rp_nosuch;
DROP ROLE current_user;
ALTER ROLE rp_x1 SUPERUSER CREATEDB CREATEROLE NOINHERIT CONNECTION LIMIT 3 VALID UNTIL '2030-01-01';
\du rp_*
ALTER ROLE rp_x1 NOSUPERUSER NOCREATEDB NOCREATEROLE LOGIN INHERIT CONNECTION LIMIT -1 VALID UNTIL 'infinity' REPLICATION;
\du rp_x1
-- Memberships.
GRANT rp_grp TO rp_alice;
GRANT rp_grp TO rp_alice;
GRANT rp_alice TO rp_grp;
GRANT pg_database_owner TO rp_bob;
GRANT pg_read_all_data TO rp_bob;
GRANT rp_grp TO PUBLIC;
GRANT rp_nosuch TO rp_bob;
CREATE ROLE rp_x2 ADMIN rp_x1;
SELECT r.rolname, m.rolname, a.admin_option FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid
  JOIN pg_roles m ON m.oid = a.member WHERE r.rolname ~ '^rp_' OR m.rolname ~ '^rp_' ORDER BY 1, 2;
\du rp_alice|rp_bob|rp_grp
-- Objects, owners, default privileges.
CREATE TABLE rp_t (a int);
INSERT INTO rp_t VALUES (1);
CREATE SCHEMA rp_s;
CREATE TABLE rp_s.u (b int);
\c - rp_alice
SELECT current_user, session_user;
SHOW is_superuser;
SELECT * FROM rp_t;
SELECT * FROM rp_s.u;
SELECT * FROM (SELECT * FROM rp_t) x;
WITH c AS (SELECT * FROM rp_t) SELECT * FROM c;
SELECT count(*) FROM rp_t;
INSERT INTO rp_t VALUES (2);
TRUNCATE rp_t;
DROP TABLE rp_t;
CREATE TABLE rp_t2 (a int);
CREATE SCHEMA rp_s2;
CREATE DATABASE rp_d2;
CREATE ROLE rp_carol;
SELECT * FROM pg_authid;
COPY rp_t TO STDOUT;
COPY (SELECT * FROM rp_t) TO STDOUT;
EXPLAIN SELECT * FROM rp_t;
PREPARE p AS SELECT * FROM rp_t;
EXECUTE p;
GRANT SELECT ON rp_t TO rp_alice;
ALTER ROLE rp_alice PASSWORD 'x';
ALTER ROLE rp_bob PASSWORD 'x';
ALTER ROLE rp_alice CREATEDB;
SELECT has_table_privilege('rp_t', 'select'), has_schema_privilege('rp_s', 'usage'), has_database_privilege(current_database(), 'connect');
-- information_schema shows what the role may see.
SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema ~ '^(rp_|public)' ORDER BY 1, 2;
SELECT schema_name FROM information_schema.schemata WHERE schema_name ~ '^(rp_|public)' ORDER BY 1;
-- GRANT / REVOKE on objects.
\c - postgres
GRANT SELECT ON rp_nosuch TO rp_alice;
GRANT SELECT ON rp_t TO rp_nosuch;
GRANT SELECT ON rp_t TO rp_alice;
GRANT SELECT, INSERT ON TABLE rp_t TO PUBLIC;
GRANT UPDATE ON rp_t TO rp_bob WITH GRANT OPTION;
SELECT relacl FROM pg_class WHERE relname = 'rp_t';
REVOKE INSERT ON rp_t FROM PUBLIC;
REVOKE GRANT OPTION FOR UPDATE ON rp_t FROM rp_bob;
GRANT USAGE ON rp_t TO rp_alice;
GRANT CONNECT ON rp_t TO rp_alice;
GRANT SELECT ON SCHEMA rp_s TO rp_alice;
GRANT SELECT ON DATABASE :"DBNAME" TO rp_alice;
GRANT FOO ON rp_t TO rp_bob;
GRANT SELECT ON rp_t TO rp_bob GRANTED BY rp_alice;
GRANT USAGE ON SCHEMA rp_nosuch TO rp_bob;
GRANT ALL ON DATABASE rp_nosuch TO rp_bob;
GRANT SELECT ON ALL TABLES IN SCHEMA rp_nosuch TO rp_bob;
GRANT SELECT ON rp_t TO PUBLIC WITH GRANT OPTION;
GRANT USAGE ON SCHEMA rp_s TO rp_alice;
GRANT ALL ON ALL TABLES IN SCHEMA rp_s TO rp_bob;
GRANT CONNECT, TEMP, CREATE ON DATABASE :"DBNAME" TO rp_alice;
GRANT TEMPORARY ON DATABASE :"DBNAME" TO rp_bob;
SELECT datacl FROM pg_database WHERE datname = current_database();
REVOKE CONNECT ON DATABASE :"DBNAME" FROM PUBLIC;
SELECT datacl FROM pg_database WHERE datname = current_database();
GRANT CONNECT ON DATABASE :"DBNAME" TO PUBLIC;
\dp
\dp rp_s.*
\dn+
\c - rp_alice
SELECT * FROM rp_t;
SELECT * FROM rp_s.u;
INSERT INTO rp_t VALUES (3);
SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema ~ '^(rp_|public)' ORDER BY 1, 2;
SELECT table_name, column_name FROM information_schema.columns WHERE table_schema ~ '^(rp_|public)' ORDER BY 1, 2;
SELECT schema_name FROM information_schema.schemata WHERE schema_name ~ '^(rp_|public)' ORDER BY 1;
GRANT UPDATE ON rp_t TO rp_bob;
GRANT SELECT ON rp_t TO rp_bob;
GRANT SELECT ON rp_s.u TO rp_bob;
EXECUTE p;
-- SET ROLE / SET SESSION AUTHORIZATION.
SET ROLE rp_grp;
SELECT current_user, session_user;
SHOW role;
SET ROLE rp_bob;
SET ROLE rp_nosuch;
RESET ROLE;
SHOW role;
SET SESSION AUTHORIZATION rp_bob;
\c - postgres
SET ROLE rp_alice;
SELECT current_user, session_user;
SHOW is_superuser;
SELECT * FROM rp_t;
SET ROLE NONE;
SET SESSION AUTHORIZATION rp_alice;
SELECT current_user, session_user;
SHOW session_authorization;
RESET SESSION AUTHORIZATION;
SELECT current_user, session_user;
SHOW is_superuser;
-- Owners.
CREATE ROLE rp_plain LOGIN CREATEDB;
CREATE DATABASE rp_dd OWNER rp_plain;
ALTER TABLE rp_t OWNER TO rp_plain;
\dt rp_t
ALTER TABLE rp_t OWNER TO rp_nosuch;
ALTER TABLE IF EXISTS rp_nosuch OWNER TO rp_bob;
ALTER TABLE rp_nosuch OWNER TO rp_bob;
ALTER SCHEMA rp_nosuch OWNER TO rp_bob;
ALTER DATABASE rp_nosuch OWNER TO rp_bob;
SELECT relacl FROM pg_class WHERE relname = 'rp_t';
\c - rp_plain
ALTER TABLE rp_t OWNER TO rp_alice;
ALTER TABLE rp_t OWNER TO rp_plain;
ALTER SCHEMA rp_s OWNER TO rp_plain;
ALTER DATABASE rp_dd OWNER TO rp_alice;
ALTER DATABASE :"DBNAME" OWNER TO rp_plain;
CREATE SCHEMA rp_ps AUTHORIZATION rp_alice;
CREATE DATABASE rp_de OWNER rp_alice;
DROP DATABASE :"DBNAME";
\c - postgres
GRANT rp_plain TO rp_alice;
SET ROLE rp_alice;
ALTER TABLE rp_t OWNER TO rp_alice;
RESET ROLE;
ALTER TABLE rp_t OWNER TO rp_alice;
SELECT pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname = 'rp_t';
\l rp_dd
-- Dependencies.
DROP ROLE rp_plain;
DROP ROLE rp_grp;
DROP ROLE rp_e1;
SET ROLE rp_bob;
SELECT count(*) FROM pg_authid WHERE rolname = 'rp_bob';
SELECT count(*) FROM rp_s.u;
RESET ROLE;
-- Inquiry functions.
SELECT has_table_privilege('rp_nosuch', 'select');
SELECT has_table_privilege('rp_t', 'frob');
SELECT has_table_privilege('rp_nosuchrole', 'rp_t', 'select');
SELECT has_table_privilege(99999, 'select');
SELECT has_table_privilege('rp_t', 'SELECT WITH GRANT OPTION, insert');
SELECT has_table_privilege('rp_bob', 'rp_t', 'select'), has_table_privilege('rp_x1', 'public.rp_t', 'select');
SELECT has_table_privilege('rp_bob', 'pg_class', 'select'), has_table_privilege('rp_bob', 'pg_authid', 'select');
SELECT has_schema_privilege('rp_nosuch', 'usage');
SELECT has_schema_privilege('rp_s', 'select');
SELECT has_schema_privilege('rp_alice', 'rp_s', 'usage'), has_schema_privilege('rp_alice', 'public', 'create'), has_schema_privilege('rp_x1', 'public', 'usage');
SELECT has_database_privilege('rp_nosuch', 'connect');
SELECT has_database_privilege(current_database(), 'CONNECT, temp'), has_database_privilege('rp_alice', current_database(), 'create');
SELECT pg_has_role('rp_alice', 'rp_plain', 'member'), pg_has_role('rp_alice', 'rp_plain', 'usage'), pg_has_role('rp_bob', 'rp_plain', 'USAGE WITH ADMIN OPTION');
SELECT pg_has_role('rp_alice', 'rp_grp', 'foo');
SELECT pg_has_role('rp_nosuch', 'member');
SELECT has_table_privilege(NULL, 'select'), has_table_privilege('rp_t', NULL);
SELECT relname, has_table_privilege('rp_x1', oid, 'select') FROM pg_class WHERE relname IN ('rp_t', 'u', 'pg_class') ORDER BY 1;
SELECT nspname, has_schema_privilege('rp_x1', oid, 'usage') FROM pg_namespace WHERE nspname IN ('rp_s', 'public', 'pg_catalog') ORDER BY 1;
\c - rp_alice
SELECT has_table_privilege('rp_s.u', 'select'), current_user;
