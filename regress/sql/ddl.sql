--
-- DDL: schemas and tables, IF [NOT] EXISTS, every supported column type
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE SCHEMA regress_ddl;
CREATE SCHEMA regress_ddl;
CREATE SCHEMA IF NOT EXISTS regress_ddl;

CREATE TABLE regress_ddl.all_types (
    c_smallint   smallint,
    c_integer    integer,
    c_bigint     bigint,
    c_real       real,
    c_double     double precision,
    c_numeric    numeric(10,2),
    c_text       text,
    c_varchar    varchar(10),
    c_char       char(4),
    c_boolean    boolean,
    c_date       date,
    c_time       time,
    c_timestamp  timestamp,
    c_timestamptz timestamptz,
    c_interval   interval,
    c_bytea      bytea,
    c_uuid       uuid,
    c_json       json,
    c_jsonb      jsonb
);

-- one row of every type, and one of NULLs
INSERT INTO regress_ddl.all_types VALUES
    (1, 2, 3, 4.5, 6.25, 7.89, 'text', 'varchar', 'char', true, '2024-01-02',
     '03:04:05', '2024-01-02 03:04:05', '2024-01-02 03:04:05+00', '1 day',
     '\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": 1}', '{"k": 1}'),
    (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
\x on
SELECT * FROM regress_ddl.all_types ORDER BY c_smallint;
\x off

-- a duplicate is an error, IF NOT EXISTS is not
CREATE TABLE regress_ddl.all_types (a integer);
CREATE TABLE IF NOT EXISTS regress_ddl.all_types (a integer);

-- IF NOT EXISTS did not replace the table
SELECT count(*) FROM regress_ddl.all_types;

-- an unqualified name resolves through search_path
CREATE TABLE ddl_plain (id integer, name text);
INSERT INTO ddl_plain VALUES (1, 'one');
SELECT * FROM ddl_plain;
SELECT * FROM public.ddl_plain;

-- a table of the same name in another schema is a different table
CREATE TABLE regress_ddl.ddl_plain (id integer, note text);
INSERT INTO regress_ddl.ddl_plain VALUES (2, 'two');
SELECT * FROM regress_ddl.ddl_plain;
SELECT * FROM ddl_plain;

-- quoted identifiers keep their case
CREATE TABLE "MixedCase" ("Id" integer, "select" text);
INSERT INTO "MixedCase" VALUES (1, 'quoted');
SELECT "Id", "select" FROM "MixedCase";
SELECT id FROM "MixedCase";
DROP TABLE "MixedCase";

-- DROP TABLE
DROP TABLE ddl_plain;
SELECT * FROM ddl_plain;
DROP TABLE ddl_plain;
DROP TABLE IF EXISTS ddl_plain;

-- recreating a dropped table gives an empty table
CREATE TABLE ddl_plain (id integer);
SELECT count(*) FROM ddl_plain;
DROP TABLE ddl_plain;

-- a non-empty schema cannot be dropped without CASCADE
DROP SCHEMA regress_ddl;
DROP TABLE regress_ddl.ddl_plain, regress_ddl.all_types;
DROP SCHEMA regress_ddl;
DROP SCHEMA regress_ddl;
DROP SCHEMA IF EXISTS regress_ddl;

CREATE SCHEMA regress_ddl2;
CREATE TABLE regress_ddl2.t (a integer);
DROP SCHEMA regress_ddl2 CASCADE;
SELECT * FROM regress_ddl2.t;
