--
-- NUMERIC_SCALE: numeric without a precision prints each value with its own
-- display scale (1.5 and 1.50 are equal and print differently), and
-- arithmetic and aggregates derive the scale of their result as
-- PostgreSQL does (sql/rawnum.go).
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE ns (id int, g text, x numeric, y numeric(10,2));
INSERT INTO ns VALUES (1, 'a', 1.5, 1.5), (2, 'a', 1.50, 2), (3, 'b', 100, 3.333),
    (4, 'b', -0.000123, NULL), (5, 'c', 2.25, 1), (6, 'c', NULL, 0), (7, 'a', 10, 5);
CREATE TABLE ns2 (id int, x numeric);
INSERT INTO ns2 VALUES (1, 1.5), (2, 3.000), (3, 100);

-- columns, *, ORDER BY by value (name, alias, position), WHERE
SELECT * FROM ns ORDER BY id;
SELECT x FROM ns ORDER BY x, id;
SELECT x AS x2, id FROM ns ORDER BY x2 NULLS FIRST, id;
SELECT id, x FROM ns ORDER BY 2 DESC NULLS LAST, 1;
SELECT * FROM ns WHERE x > 1.5 ORDER BY x;
SELECT id, x FROM ns WHERE x = 1.5 ORDER BY id;
SELECT x FROM ns ORDER BY id LIMIT 2 OFFSET 1;
-- joins
SELECT ns.id, ns.x, ns2.x FROM ns JOIN ns2 ON ns.x = ns2.x ORDER BY ns.id;
SELECT id, ns.x, ns2.x FROM ns JOIN ns2 USING (id) ORDER BY id;
SELECT ns.x AS a, ns2.x AS b FROM ns, ns2 WHERE ns.id = ns2.id ORDER BY a DESC, b;
-- arithmetic: + and - keep the larger scale, * adds them
SELECT x, x + 1, x * 2, -x, x - y, x * y, abs(x) FROM ns ORDER BY id;
SELECT 1.50::numeric AS a, '2.500'::numeric AS b, 0.1 + 0.2 AS c, 1.5 * 1.25 AS d;
SELECT id, coalesce(x, 0), CASE WHEN x > 2 THEN x ELSE 0 END FROM ns ORDER BY id;
-- aggregates and grouping
SELECT sum(x), avg(x), min(x), max(x), count(x), count(DISTINCT x) FROM ns;
SELECT g, sum(x), max(x), count(x), avg(x) FROM ns GROUP BY g ORDER BY g;
SELECT g, min(x) FROM ns WHERE id <> 2 GROUP BY g ORDER BY g;
SELECT g, sum(x) s FROM ns GROUP BY g HAVING sum(x) > 2 ORDER BY s;
SELECT g, x FROM ns WHERE id <> 2 GROUP BY g, x ORDER BY g, x;
SELECT g, x FROM ns WHERE id <> 2 GROUP BY 1, 2 ORDER BY 1, 2;
SELECT DISTINCT x FROM ns WHERE id <> 2 ORDER BY x;
SELECT min(x) FILTER (WHERE id > 2), sum(x) FILTER (WHERE g = 'a') FROM ns;
SELECT id, x, sum(x) OVER (PARTITION BY g ORDER BY id) FROM ns ORDER BY id;
-- division: select_div_scale from the operands' display scales
SELECT x / 3 FROM ns ORDER BY id;
-- subqueries and CTEs
SELECT s.x, s.x + 1 FROM (SELECT x FROM ns WHERE id < 3) s ORDER BY s.x, s.x + 1;
WITH c AS (SELECT id, x FROM ns) SELECT c.x, c.x * 2 FROM c ORDER BY id;
WITH c AS (SELECT g, sum(x) AS t FROM ns GROUP BY g) SELECT * FROM c ORDER BY g;
SELECT * FROM (SELECT g, sum(x) t, max(x) mx FROM ns GROUP BY g) q WHERE t > 2 ORDER BY g;
SELECT id FROM ns WHERE x IN (SELECT x FROM ns2) ORDER BY id;
SELECT g, x FROM ns n1 WHERE x = (SELECT max(x) FROM ns n2 WHERE n2.g = n1.g) ORDER BY g;
-- set operations
SELECT x FROM ns WHERE id <> 2 UNION ALL SELECT 2 ORDER BY 1;
SELECT x FROM ns WHERE id <> 2 UNION ALL SELECT 2.50 ORDER BY x DESC;
SELECT g, sum(x) FROM ns GROUP BY g UNION ALL SELECT 'total', sum(x) FROM ns ORDER BY 1;
SELECT * FROM (SELECT x FROM ns UNION ALL SELECT 7) u WHERE x > 2 ORDER BY x;
SELECT x FROM ns WHERE id <> 2 UNION SELECT 2 ORDER BY 1;
SELECT count(*) FROM (SELECT x FROM ns UNION SELECT 1.500) u;
SELECT x, 1 FROM ns WHERE id <> 2 UNION ALL SELECT 2, 1.5 ORDER BY 2, 1;
-- where the text would meet an operator unconverted, every relation is
-- read as numeric (equal values of different scales are one value)
SELECT count(*) FROM ns a JOIN ns b USING (x);
SELECT count(*) FROM ns a NATURAL JOIN ns2 b;
WITH c AS (SELECT x FROM ns), d AS (SELECT DISTINCT * FROM c) SELECT x::float8 FROM d ORDER BY x;
WITH c AS (SELECT x FROM ns), u AS (SELECT * FROM c UNION SELECT 2) SELECT x::float8 FROM u ORDER BY x;
SELECT x::float8 FROM (SELECT * FROM (SELECT x FROM ns) s INTERSECT SELECT x FROM ns2) i ORDER BY x;
-- DISTINCT ON a numeric (1.5 and 1.50 are one key)
SELECT DISTINCT ON (x) x, id FROM ns ORDER BY x, id;
SELECT DISTINCT ON (g) g, x, id FROM ns ORDER BY g, id DESC;
SELECT DISTINCT ON (1) x, id FROM ns ORDER BY 1, 2;
SELECT DISTINCT ON (v) x AS v, id FROM ns ORDER BY v, id;
-- scalar subqueries as whole select-list items
SELECT id, (SELECT max(ns2.x) FROM ns2 WHERE ns2.x <= ns.x) FROM ns ORDER BY id;
SELECT (SELECT sum(x) FROM ns2), (SELECT x FROM ns2 WHERE id = 2);
SELECT * FROM (SELECT id, (SELECT x FROM ns2 WHERE ns2.id = ns.id) v FROM ns) s ORDER BY v, id;
-- as text
SELECT x::text, x::int, x::numeric(10,1) FROM ns ORDER BY id;
SELECT 'v=' || x, format('%s', x), concat(x, '!') FROM ns ORDER BY id;
SELECT string_agg(x::text, ',' ORDER BY id) FROM ns;
SELECT array_agg(x ORDER BY id), array_agg(x * 2 ORDER BY id) FILTER (WHERE id > 1) FROM ns;
SELECT g, array_agg(x ORDER BY id) FROM ns GROUP BY g ORDER BY g;
COPY (SELECT x FROM ns ORDER BY id) TO STDOUT;
COPY ns TO STDOUT;
-- INSERT ... SELECT keeps the text; other column types get the value
CREATE TABLE ns_int (i int);
INSERT INTO ns_int SELECT x FROM ns WHERE x IS NOT NULL;
SELECT * FROM ns_int ORDER BY i;
CREATE TABLE ns_copy (x numeric, y numeric(6,3));
INSERT INTO ns_copy SELECT x, x FROM ns WHERE id < 4;
INSERT INTO ns_copy SELECT x * 2, x FROM ns WHERE id = 2;
SELECT * FROM ns_copy;
INSERT INTO ns_copy VALUES (7.250, 1.5) RETURNING *, x + 1;
-- a division or avg inserted keeps PostgreSQL's result scale
CREATE TABLE ns_div (x numeric, y numeric(10,3), z int);
INSERT INTO ns_div SELECT i / 3.0, i / 3.0, i / 3.0 FROM generate_series(1, 3) i;
INSERT INTO ns_div SELECT avg(i), avg(i), avg(i) FROM generate_series(1, 4) i;
SELECT * FROM ns_div;
DROP TABLE ns_div;
-- more query shapes (each used to print scale 10, or fail)
CREATE TABLE ns_n2 (id int, g text, x numeric, y numeric(10,2));
SELECT x FROM ns WHERE x IN (1.5, 2) ORDER BY id;
SELECT x, count(*) FROM ns GROUP BY x HAVING x > 1 ORDER BY x;
SELECT x FROM ns ORDER BY x + 1, id;
SELECT x FROM ns WHERE id <> 2 GROUP BY x ORDER BY x;
SELECT max(x) OVER (PARTITION BY g), x FROM ns ORDER BY id;
SELECT a.id, b.id FROM ns a JOIN ns b ON a.x = b.x ORDER BY 1, 2;
SELECT a.* FROM ns a ORDER BY id;
SELECT ns.*, x FROM ns ORDER BY id;
SELECT * FROM ns, LATERAL (SELECT x * 2 AS z) l ORDER BY id;
SELECT x::numeric(10,2), round(x), x + y FROM ns ORDER BY id;
SELECT CASE WHEN x > 1 THEN 'big' END, x FROM ns ORDER BY id;
SELECT sum(x) FROM ns GROUP BY g ORDER BY 1 DESC;
SELECT x FROM ns WHERE EXISTS (SELECT 1 FROM ns2 WHERE ns2.x = ns.x) ORDER BY id;
WITH RECURSIVE r(v) AS (SELECT 1.5::numeric UNION ALL SELECT v + 1 FROM r WHERE v < 4) SELECT * FROM r;
SELECT x FROM ns UNION ALL SELECT x FROM ns ORDER BY x LIMIT 3;
INSERT INTO ns_n2 SELECT * FROM ns;
INSERT INTO ns_n2 (id, x) SELECT id, x + 1 FROM ns WHERE id < 3 RETURNING x;
SELECT * FROM ns_n2 ORDER BY id, x;
COPY (SELECT * FROM ns ORDER BY id) TO STDOUT WITH CSV;
SELECT DISTINCT x, x FROM ns ORDER BY 1;
SELECT DISTINCT x AS a FROM ns ORDER BY a;
SELECT x FROM ns GROUP BY 1 HAVING count(*) > 0 ORDER BY 1;
SELECT x, row_number() OVER (ORDER BY x, id) FROM ns ORDER BY id;
SELECT string_agg(DISTINCT x::text, ',' ORDER BY x::text) FROM ns;
SELECT count(*) FILTER (WHERE x > 1) FROM ns;
SELECT x FROM ns WHERE x BETWEEN 1 AND 2 ORDER BY id;
SELECT -x, +x, @x FROM ns ORDER BY id;
SELECT count(*) FROM ns n1 NATURAL JOIN ns ns_n2;
SELECT x FROM ns WHERE x = ANY('{1.5,100}') ORDER BY id;
SELECT greatest(x, 2), least(x, y) FROM ns ORDER BY id;
SELECT nullif(x, 1.5) FROM ns ORDER BY id;
SELECT x FROM ns ORDER BY x DESC NULLS LAST, id LIMIT 3;
SELECT id FROM ns ORDER BY x, id;
SELECT x AS "X" FROM ns ORDER BY "X", id;
SELECT g, sum(x) AS s FROM ns GROUP BY g ORDER BY s DESC;
SELECT x FROM ns FETCH FIRST 2 ROWS ONLY;
SELECT avg(x)::numeric(10,3), sum(x)::int FROM ns;
SELECT x FROM (SELECT x FROM ns ORDER BY id LIMIT 3) s ORDER BY x;
SELECT * FROM (SELECT DISTINCT x FROM ns) s ORDER BY x;
SELECT s.x * 2 FROM (SELECT DISTINCT x FROM ns WHERE id <> 2) s ORDER BY 1;
WITH c AS (SELECT id, x FROM ns) SELECT count(*) FROM c JOIN ns2 USING (x);
SELECT s.g, s.t FROM (SELECT g, sum(x) t FROM ns GROUP BY g) s WHERE s.t > 2 ORDER BY s.t;
SELECT id, x, rank() OVER (ORDER BY x) FROM ns ORDER BY id;
SELECT id FROM ns WHERE x IN (SELECT x FROM ns2 WHERE x > 1) ORDER BY id;
SELECT ns.id, l.v FROM ns, LATERAL (SELECT ns2.x + ns.x AS v FROM ns2 WHERE ns2.id = ns.id) l ORDER BY 1;
SELECT y AS x FROM ns ORDER BY x, id;
SELECT g AS k, sum(x) FROM ns GROUP BY k ORDER BY k;
SELECT g FROM ns GROUP BY g HAVING max(x) > 5 ORDER BY g;
SELECT x FROM ns WHERE x::text = '1.50';
SELECT x FROM ns WHERE x::text LIKE '1.5%' ORDER BY id;
SELECT length(x::text), upper(x::text) FROM ns ORDER BY id;
SELECT x FROM ns ORDER BY x::text, id;
SELECT x, lag(x) OVER (ORDER BY id), lead(x, 1, 0) OVER (ORDER BY id) FROM ns ORDER BY id;
SELECT x, first_value(x) OVER (PARTITION BY g ORDER BY id) FROM ns ORDER BY id;
SELECT x FROM ns t1 WHERE NOT EXISTS (SELECT 1 FROM ns2 t2 WHERE t2.x = t1.x) ORDER BY id;
SELECT CAST(x AS int), x::bigint, x::real, x::double precision FROM ns WHERE id <> 4 ORDER BY id;
SELECT x FROM ns WHERE x > (SELECT avg(x) FROM ns2) ORDER BY id;
SELECT (x)::text || '/' || (y)::text FROM ns ORDER BY id;
SELECT x, percent_rank() OVER (ORDER BY x) FROM ns WHERE x IS NOT NULL ORDER BY id;
SELECT max(x), min(x) FROM (SELECT x FROM ns UNION ALL SELECT x FROM ns2) u;
SELECT id, x FROM ns ORDER BY 2 DESC LIMIT 2;
SELECT x, count(*) OVER () FROM ns ORDER BY id LIMIT 2;
SELECT ns2.x, ns.x FROM ns2 LEFT JOIN ns ON ns.id = ns2.id + 10 ORDER BY ns2.id;
SELECT coalesce(ns.x, ns2.x) FROM ns2 FULL JOIN ns ON ns.x = ns2.x ORDER BY 1 NULLS FIRST;
SELECT x FROM ns ORDER BY abs(x) DESC NULLS LAST, id;
SELECT * FROM ns WHERE (x, id) = (1.5, 1);
SELECT x FROM ns WHERE x = 1.5 AND g = 'a' ORDER BY id;
SELECT json_build_object('x', x) FROM ns WHERE id = 2;
SELECT sum(x) OVER w FROM ns WINDOW w AS (PARTITION BY g) ORDER BY id;
DROP TABLE ns, ns2, ns_int, ns_copy, ns_n2;
