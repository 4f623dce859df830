--
-- PostgreSQL functions the query engine lacks or spells differently
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

SELECT make_interval(days => 10), make_interval(1, 2, 3, 4, 5, 6, 7.5), make_interval(hours => 36), make_interval(), make_date(2024, 2, 29);
SELECT date_bin('15 minutes', timestamp '2024-01-01 10:37:00', timestamp '2024-01-01'), date_bin('1 hour', timestamp '2024-01-01 10:37:00', timestamp '2023-12-31 23:30');
SELECT justify_hours(interval '-27 hours'), justify_hours(interval '1 day -27 hours'), justify_days(interval '-35 days'), justify_days(interval '1 mon -35 days'), justify_interval(interval '1 mon -1 hour'), justify_interval(interval '-1 mon 50 days 30 hours');
SELECT initcap('hELLO wOrLD-foo_bar 3rd'), quote_ident('select'), quote_ident('Abc'), quote_ident('abc_1'), quote_ident('1a'), quote_ident('name'), quote_ident('a"b');
SELECT quote_literal(E'a\\b''c'), quote_literal('x'), quote_nullable(NULL::text), quote_nullable('y');
SELECT width_bucket(5.5, 0, 10, 4), width_bucket(-1, 0, 10, 4), width_bucket(10, 0, 10, 4), width_bucket(7, 10, 0, 5), gcd(12, 18), lcm(4, 6);
SELECT num_nonnulls(1, NULL, 2), num_nulls(1, NULL, NULL, 'a');
SELECT jsonb_array_length('[1,2,3]'), json_array_length('[]'), jsonb_typeof('{}'), jsonb_typeof('[1]'), json_typeof('"s"'), jsonb_typeof('1.5'), jsonb_typeof('true'), jsonb_typeof('null');
SELECT date_bin('15 minutes', timestamptz '2024-01-01 10:37:00+00', timestamptz '2024-01-01 00:00+00'), date_bin(interval '1 day', timestamp '2024-01-05 10:00', timestamp '2024-01-01 12:00');
SELECT width_bucket(1, 0, 10, 0);
CREATE TABLE pf (id int, a text, b text, iv interval);
INSERT INTO pf VALUES (1, 'foo bar', NULL, '50 hours'), (2, NULL, 'x''y', '-40 days'), (3, 'Order', 'z', '1 mon -2 days');
SELECT id, initcap(a), quote_ident(a), quote_nullable(b), num_nulls(a, b), justify_interval(iv), width_bucket(id, 0, 4, 2) FROM pf ORDER BY id;
DROP TABLE pf;
-- jsonb key existence: ?, ?| and ?&
SELECT '{"a":1}'::jsonb ? 'a', '{"a":1}'::jsonb ? 'b', '["a","b"]'::jsonb ? 'a', '"a"'::jsonb ? 'a', '[1,"1"]'::jsonb ? '1', '5'::jsonb ? '5';
SELECT '{"a":1,"b":2}'::jsonb ?| array['x','b'], '{"a":1,"b":2}'::jsonb ?& array['a','b'], '{"a":1}'::jsonb ?& array['a','b'], NULL::jsonb ? 'a';
CREATE TABLE jq (id int, doc jsonb);
INSERT INTO jq VALUES (1, '{"tags": ["x"], "owner": "ann"}'), (2, '{"owner": null}'), (3, '["owner"]'), (4, NULL);
SELECT id, doc ? 'owner' AS has_owner, doc ? 'tags' AS has_tags, doc ?| '{tags,nope}' AS any_, doc ?& '{tags,owner}' AS all_ FROM jq ORDER BY id;
DROP TABLE jq;
-- format(): %s, %I, %L, %%, positions, widths
SELECT format('Hello %s, %I, %L, %%, %L', 'World', 'Select', E'it''s', NULL), format('%2$s %1$s', 'a', 'b'), format('|%5s|%-5s|', 'ab', 'cd');
SELECT format('%s %s %s', 1.5::float8, date '2024-01-02' > '2000-01-01', 42), format('%*s|', 4, 'x'), format('%-*s|', 4, 'x'), format(NULL), format('%s', NULL), format('abc');
SELECT format('INSERT INTO %I VALUES (%L, %s)', 'my table', 'x''y', 3.25);
SELECT format('%s %s', 'a');
SELECT format('%x', 'a');
SELECT format('%I', NULL);
