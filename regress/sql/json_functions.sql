--
-- JSON_FUNCTIONS: to_json[b], json[b]_build_object, json[b]_build_array,
-- json[b]_agg (also of whole rows), json[b]_object_agg, row_to_json, with
-- PostgreSQL's layout and value formats (sql/json.go)
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE jt2(id int, t text, x numeric, y numeric(5,2), f float8, b bool, d date, ts timestamptz, j jsonb);
insert into jt2 values (1, 'a"b', 1.50, 2.5, 0.1, true, '2024-01-02', '2024-01-02 03:04:05+00', '{"k": [1, 2]}'), (2, null, null, null, null, null, null, null, null);
select to_json(id), to_json(t), to_json(y), to_json(f), to_json(b), to_json(d) from jt2 order by id;
select to_jsonb(id), to_jsonb(t), to_jsonb(y) from jt2 order by id;
select json_build_object('id', id, 't', t, 'y', y) from jt2 order by id;
select jsonb_build_object('id', id, 't', t) from jt2 order by id;
select json_agg(id order by id), json_agg(t order by id) from jt2;
select jsonb_agg(id order by id) from jt2;
select json_object_agg(id, t order by id) from jt2;
select json_build_array(1, 'a', null);
select row_to_json(r) from (select id, t from jt2 order by id) r;
select json_agg(r order by id) from (select id, t from jt2) r;
select to_json(ts), to_json(x), to_json(j), to_jsonb(j), to_json(d) from jt2 order by id;
select json_agg(x), jsonb_agg(y) from jt2;
select json_build_object('x', x, 'ts', ts, 'b', b, 'f', f) from jt2 order by id;
select g, json_agg(r) from (select id % 2 as g, id, x, ts from jt2) r group by g order by g;
select json_agg(r order by id) from jt2 r;
select row_to_json(r) from jt2 r order by id;
select json_object_agg(t, x) filter (where t is not null) from jt2;
select json_build_object(null, 1);
select json_build_object('a');
select jsonb_build_object('b', 1, 'a', 2, 'b', 3);
select to_jsonb(3.10), to_json('x'::text), json_build_array(1.50, 'q', true, null)::text;
select json_agg(id) from jt2 where false;
select to_json('NaN'::float8), to_json('infinity'::float8), json_agg(f order by id) from jt2;
SET TimeZone = 'America/New_York';
select to_json(ts), json_build_object('ts', ts, 'ms', ts + interval '1.5 seconds') from jt2 where id = 1;
select to_json('1 day 02:03:04'::interval), to_json('\x0102'::bytea), to_json('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), to_json(E'tab\there\u0001'::text);
DROP TABLE jt2;
