-- SET and SHOW of the parameters that pg_dump, pg_restore, psql, pgjdbc,
-- psqlODBC, asyncpg, SQLAlchemy and pgcli send (from their sources), then
-- pg_settings' description of them: one connection, one Query message per
-- line, compared with PostgreSQL's transcript.
SET statement_timeout = 0
SHOW statement_timeout
SET lock_timeout = 0
SET idle_in_transaction_session_timeout = 0
SET idle_session_timeout = 0
SET client_encoding = 'UTF8'
SET client_encoding = '''utf-8'''
SET client_encoding = 'utf-8'
SHOW client_encoding
SET standard_conforming_strings = on
SHOW standard_conforming_strings
SELECT pg_catalog.set_config('search_path', '', false)
SHOW search_path
SET search_path = public
SET check_function_bodies = false
SHOW check_function_bodies
SET xmloption = content
SET client_min_messages = warning
SHOW client_min_messages
SET row_security = off
SET default_tablespace = ''
SHOW default_tablespace
SET default_table_access_method = heap
SET default_toast_compression = 'pglz'
SET extra_float_digits TO 3
SHOW extra_float_digits
SET synchronize_seqscans TO off
SET DateStyle = ISO
SHOW DateStyle
SET IntervalStyle = postgres
SET quote_all_identifiers = true
SET max_parallel_workers_per_gather = '0'
SHOW max_parallel_workers_per_gather
SET session_replication_role = replica
SET session_replication_role = DEFAULT
SET default_with_oids = false
SET application_name = 'PostgreSQL JDBC Driver'
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED
SHOW TRANSACTION ISOLATION LEVEL
SET geqo to 'OFF'
SHOW geqo
SET bytea_output = 'escape'
SET bytea_output = 'hex'
SHOW max_identifier_length
SET work_mem = '64MB'
SHOW work_mem
SET work_mem = 65536
SHOW work_mem
SET work_mem = '1025kB'
SHOW work_mem
SET statement_timeout = 5000
SHOW statement_timeout
SET statement_timeout = '90s'
SHOW statement_timeout
SET lock_timeout = '1min'
SHOW lock_timeout
SET random_page_cost = 1.1
SHOW random_page_cost
SET jit = off
SET log_statement = 'ALL'
SHOW log_statement
SET enable_partitionwise_join = on
SET vacuum_cost_delay = '2ms'
SHOW vacuum_cost_delay
SET temp_buffers = '16MB'
SHOW temp_buffers
SET SESSION AUTHORIZATION DEFAULT;RESET ALL;
SHOW work_mem
SHOW statement_timeout
SHOW server_version_num
SHOW server_encoding
SHOW integer_datetimes
SHOW lc_collate
SHOW block_size
SET work_mem = 10
SET work_mem = '1xB'
SET log_statement = 'bogus'
SET enable_seqscan = maybe
SET max_connections = 5
SET fsync = off
SET server_version = '1'
SET no_such_parameter = 1
SHOW no_such_parameter
SET lc_messages = 'C'
SET work_mem = '8MB'
SET extra_float_digits = 2
SET search_path = ''
SELECT name, setting, unit, category, short_desc, extra_desc, context, vartype, source, min_val, max_val, enumvals, boot_val, pending_restart FROM pg_settings WHERE name IN ('work_mem', 'statement_timeout', 'lock_timeout', 'extra_float_digits', 'search_path', 'synchronize_seqscans', 'check_function_bodies', 'default_table_access_method', 'row_security', 'xmloption', 'bytea_output', 'random_page_cost', 'vacuum_cost_delay', 'log_statement', 'max_parallel_workers_per_gather', 'quote_all_identifiers', 'geqo', 'standard_conforming_strings') ORDER BY name
SELECT count(*) > 300 FROM pg_settings
SELECT name FROM pg_settings WHERE name IN ('is_superuser', 'role', 'session_authorization')
SELECT current_setting('server_version_num')::int, version() LIKE 'PostgreSQL 15.18 %'
