--
-- Functions in FROM: a set-returning function of a scalar type
-- (generate_series, unnest) is one column, named by the alias (which also
-- names the relation) or else by the function; WITH ORDINALITY adds a
-- bigint "ordinality". generate_series has PostgreSQL's result types:
-- integer, bigint, numeric, timestamp, timestamptz (for dates too).
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

-- the alias is the column
SELECT g FROM generate_series(1, 3) g ORDER BY g;
SELECT g * interval '1 second' AS secs, g % 20 AS m, 'x' || g AS s FROM generate_series(1, 3) g ORDER BY g;
SELECT g * 2 AS d, pg_typeof(g) FROM generate_series(1::bigint, 3) AS g ORDER BY g;
SELECT g.g, g + 1 AS n, pg_typeof(g) FROM generate_series(1, 2) g ORDER BY 1;
SELECT g, g * 2 AS d FROM generate_series(1, 3) g \gdesc
SELECT g, g * 2 AS d FROM generate_series(1, 3::bigint) g \gdesc

-- no alias: the function's name
SELECT * FROM generate_series(1, 3) ORDER BY 1;
SELECT generate_series + 1 AS n FROM generate_series(1::bigint, 2) ORDER BY 1;
SELECT generate_series.generate_series FROM generate_series(1, 2) ORDER BY 1;

-- unnest of one array
SELECT u, u || 'x' AS ux FROM unnest(ARRAY['a', 'b']) u ORDER BY u;
SELECT u + 1 AS v, pg_typeof(u) FROM unnest(ARRAY[1, 2]) AS u ORDER BY 1;
SELECT * FROM unnest(ARRAY[3, 4]) ORDER BY 1;
SELECT u.* FROM unnest(ARRAY[5, 6]) u ORDER BY 1;

-- a column alias list names the column; the relation's name alone is the
-- scalar too
SELECT x, pg_typeof(x) FROM generate_series(1, 2) AS x(g) ORDER BY 1;
SELECT x.g FROM generate_series(1, 2) AS x(g) ORDER BY 1;
SELECT x FROM generate_series(1, 2) AS x(g) \gdesc
SELECT * FROM generate_series(1, 3) AS g(a, b);

-- WITH ORDINALITY
SELECT * FROM generate_series(10, 12) WITH ORDINALITY ORDER BY 1;
SELECT * FROM generate_series(10, 12) WITH ORDINALITY AS g ORDER BY 1;
SELECT g, ordinality, pg_typeof(g) AS tg, pg_typeof(ordinality) AS tord FROM generate_series(10, 11) WITH ORDINALITY g ORDER BY 1;
SELECT * FROM generate_series(10::bigint, 11) WITH ORDINALITY AS g(a) ORDER BY 1;
SELECT * FROM unnest(ARRAY['p', 'q']) WITH ORDINALITY AS u(v, n) ORDER BY n;

-- functions are implicitly lateral
SELECT n, g FROM (VALUES (2), (3)) v(n), generate_series(1, n) g ORDER BY 1, 2;
SELECT n, g FROM (VALUES (2::bigint), (3)) v(n), generate_series(1, n) g ORDER BY 1, 2;
SELECT a, b FROM generate_series(1, 2) a, generate_series(1::bigint, 2) b ORDER BY 1, 2;

-- integer arithmetic overflows as integer; bigint does not
SELECT count(*), sum(g) FROM generate_series(1, 4000000) g;
SELECT max((g * 7919) % 100000) FROM generate_series(1, 4000000) g;
SELECT max((g::bigint * 7919) % 100000) FROM generate_series(1, 4000000) g;
SELECT max((g * 7919) % 100000) FROM generate_series(1, 4000000::bigint) g;

-- numeric
SELECT * FROM generate_series(0.5, 1.5, 0.5) g ORDER BY 1;
SELECT * FROM generate_series(0.1, 0.35, 0.1) g ORDER BY 1;
SELECT * FROM generate_series(1.5, 0, -0.5) WITH ORDINALITY AS g(v, o) ORDER BY o;
SELECT g FROM generate_series(0.5, 1.5, 0.5) g \gdesc

-- timestamps; a date series is timestamptz
SELECT g FROM generate_series(timestamp '2024-01-01', timestamp '2024-01-02', interval '12 hours') g ORDER BY 1;
SELECT g FROM generate_series(timestamptz '2024-01-01 00:00+00', timestamptz '2024-01-02 00:00+00', interval '12 hours') AS g ORDER BY 1;
SELECT g FROM generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day') g ORDER BY 1;
SELECT g FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '1 day') g ORDER BY 1;
SELECT g FROM generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day') g \gdesc
SELECT g FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '1 day') g \gdesc
SET TimeZone = 'America/New_York';
SELECT g FROM generate_series('2024-03-09'::date, '2024-03-11'::date, '1 day') g ORDER BY 1;
SET TimeZone = 'UTC';

-- errors and empty series
SELECT * FROM generate_series(1, 3, 0);
SELECT * FROM generate_series(1.0, 3, 0);
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '0 day');
SELECT * FROM generate_series(1, NULL) g;
SELECT * FROM generate_series(3, 1) g;

-- INSERT ... SELECT
CREATE TABLE srf_t (a integer, b bigint, c text);
INSERT INTO srf_t SELECT g, g * 10, 'x' || g FROM generate_series(1, 3) g;
INSERT INTO srf_t SELECT g, g * 10, 'y' || g FROM generate_series(4::bigint, 5) g;
INSERT INTO srf_t (a, c) SELECT u, u FROM unnest(ARRAY[6, 7]) u;
INSERT INTO srf_t (a, b) SELECT g, g * 1000000000 FROM generate_series(8, 9) g;
SELECT * FROM srf_t ORDER BY a;
DROP TABLE srf_t;
