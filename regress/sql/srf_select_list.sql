--
-- Set-returning functions in the select list (PostgreSQL 10+): a row per
-- value, evaluated once per input row; several of them run in lockstep, the
-- shorter ones padded with NULLs. generate_series has PostgreSQL's result
-- types (integer, bigint, numeric, timestamp, timestamptz for dates), and
-- the column is named after the function. Where PostgreSQL refuses a
-- set-returning function (WHERE, CASE, aggregates...), so do we, with its
-- SQLSTATE and message.
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

-- a row per value; expressions around the call are evaluated per value
SELECT generate_series(1, 3) ORDER BY 1;
SELECT generate_series(1, 3) AS g ORDER BY g;
SELECT generate_series(1, 3) * 2 ORDER BY 1;
SELECT 'x' || generate_series(1, 2) ORDER BY 1;
SELECT generate_series(1, 3, 2) AS odd, pg_typeof(generate_series(1, 3, 2)) ORDER BY 1;
SELECT abs(generate_series(-1, 1)) AS a, -generate_series(1, 3) AS n ORDER BY 2 DESC;
SELECT generate_series(1, 2)::text || '!' AS s ORDER BY 1;
SELECT unnest(ARRAY[1, 2, 3]) ORDER BY 1;
SELECT unnest(ARRAY['a', 'b']) || 'x' AS ux ORDER BY 1;

-- names and types of the result columns
SELECT generate_series(1, 3) \gdesc
SELECT generate_series(1, 3) AS g, generate_series(1, 3) * 2, 'x' || generate_series(1, 2) \gdesc
SELECT generate_series(1::bigint, 3), generate_series(1, 3000000000) AS big \gdesc
SELECT generate_series(0.5, 1.5, 0.5) \gdesc
SELECT generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day') \gdesc
SELECT generate_series('2024-01-01'::timestamp, '2024-01-02', '12 hours') \gdesc
SELECT unnest(ARRAY[1, 2]), unnest(ARRAY['a']) \gdesc

-- several in lockstep: as many rows as the longest, the others padded
SELECT generate_series(1, 2) AS a, generate_series(1, 3) AS b ORDER BY b;
SELECT generate_series(1, 2) AS a, unnest(ARRAY['p', 'q', 'r']) AS u ORDER BY u;
SELECT generate_series(1, 3) + generate_series(10, 11) AS s ORDER BY 1;
SELECT generate_series(1, 2) AS a, generate_series(1, NULL::int) AS b ORDER BY a;

-- per input row
CREATE TABLE srf_sel (id integer, t text);
INSERT INTO srf_sel VALUES (1, 'a'), (2, 'b'), (3, NULL), (0, 'zero'), (NULL, 'null');
SELECT id, generate_series(1, id) AS g FROM srf_sel ORDER BY 1, 2;
SELECT id, t, generate_series(1, id) AS g, unnest(ARRAY['x', 'y']) AS u FROM srf_sel ORDER BY 1, 3, 4;
SELECT generate_series(1, 2) AS g FROM srf_sel ORDER BY 1;
SELECT id, generate_series(1, id) FROM srf_sel \gdesc
SELECT s.id, s.g FROM (SELECT id, generate_series(id, 3) AS g FROM srf_sel) s WHERE s.g > 1 ORDER BY 1, 2;

-- bigint, numeric, timestamps; a date series is timestamptz
SELECT generate_series(1::bigint, 3) AS g, pg_typeof(generate_series(1::bigint, 3)) ORDER BY 1;
SELECT generate_series(4294967296, 4294967298) AS g ORDER BY 1;
SELECT generate_series(0.5, 1.5, 0.5) AS g ORDER BY 1;
SELECT generate_series(1.00, 0, -0.25) AS g ORDER BY 1 DESC;
SELECT generate_series(0.1, 0.35, 0.1) AS g ORDER BY 1;
SELECT generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day') AS d ORDER BY 1;
SELECT generate_series('2024-01-01'::timestamp, '2024-01-02', '12 hours') AS ts ORDER BY 1;
SELECT generate_series(timestamptz '2024-01-01 00:00+00', timestamptz '2024-01-02 00:00+00', interval '12 hours') AS tz ORDER BY 1;
SET TimeZone = 'America/New_York';
SELECT generate_series('2024-03-09'::date, '2024-03-11'::date, '1 day') AS d ORDER BY 1;
SET TimeZone = 'UTC';

-- integer arithmetic on an integer series overflows as integer
SELECT generate_series(2147483646, 2147483647) + 1;
SELECT generate_series(2147483646, 2147483647)::bigint + 1 AS b ORDER BY 1;

-- in subqueries, with aggregates, ORDER BY, LIMIT, DISTINCT, windows
SELECT count(*) FROM (SELECT generate_series(1, 10)) s;
SELECT count(*), sum(g), max(g) FROM (SELECT generate_series(1, 100000) AS g) s;
SELECT generate_series(1, 10) AS g ORDER BY g DESC LIMIT 3;
SELECT generate_series(1, 10) ORDER BY 1 LIMIT 2 OFFSET 4;
SELECT generate_series(1, 3) ORDER BY generate_series(1, 3) DESC;
SELECT 'k' AS k ORDER BY generate_series(1, 3);
SELECT DISTINCT generate_series(1, 5) % 2 AS m ORDER BY 1;
SELECT count(*) AS n, generate_series(1, 2) AS g FROM srf_sel ORDER BY 2;
SELECT generate_series(1, count(*)::int) AS g FROM srf_sel ORDER BY 1;
SELECT row_number() OVER () AS rn, generate_series(1, 3) AS g ORDER BY 2;
SELECT generate_series(1, 2) UNION ALL SELECT 10 ORDER BY 1;
WITH c AS (SELECT generate_series(1, 4) AS g) SELECT sum(g) FROM c;
SELECT id FROM srf_sel WHERE id IN (SELECT generate_series(1, 2)) ORDER BY 1;
SELECT array_agg(g ORDER BY g) FROM (SELECT generate_series(1, 5) AS g) s;
PREPARE srf_p(integer) AS SELECT generate_series(1, $1) AS g ORDER BY 1;
EXECUTE srf_p(3);
EXECUTE srf_p(0);
DEALLOCATE srf_p;

-- zero step, empty series, NULL arguments
SELECT generate_series(1, 3, 0);
SELECT generate_series(1.0, 3, 0);
SELECT generate_series('2024-01-01'::timestamp, '2024-01-02', '0 day');
SELECT generate_series(3, 1) AS g;
SELECT generate_series(1, NULL) AS g;
SELECT 1 AS one, generate_series(NULL::int, 2) AS g;
SELECT generate_series(1, 3, NULL) AS g;

-- where PostgreSQL does not allow them
SELECT id FROM srf_sel WHERE generate_series(1, 2) = id;
SELECT id FROM srf_sel GROUP BY id HAVING generate_series(1, 2) > 0;
SELECT 1 LIMIT generate_series(1, 2);
SELECT 1 OFFSET generate_series(1, 2);
SELECT 1 FROM srf_sel a JOIN srf_sel b ON generate_series(1, 2) = a.id;
VALUES (generate_series(1, 2));
SELECT count(*) FILTER (WHERE generate_series(1, 2) > 0) FROM srf_sel;
SELECT CASE WHEN true THEN generate_series(1, 3) END;
SELECT CASE generate_series(1, 2) WHEN 1 THEN 'a' END;
SELECT coalesce(generate_series(1, 3), 0);
SELECT sum(generate_series(1, 3));
SELECT string_agg('x', ',' ORDER BY generate_series(1, 2));
SELECT lag(generate_series(1, 2)) OVER ();
SELECT count(*) OVER (ORDER BY 1 ROWS BETWEEN generate_series(1, 2) PRECEDING AND CURRENT ROW);
SELECT generate_series(1, 3) > 1 AND true;
SELECT NOT (generate_series(1, 2) > 1);
SELECT generate_series(1, 3) BETWEEN 1 AND 2;
SELECT (generate_series(0, 1) = 1) IS TRUE;
SELECT * FROM generate_series(1, generate_series(1, 3));
SELECT (SELECT generate_series(1, 3));

-- INSERT: a single VALUES row is a select list; several rows may not have them
CREATE TABLE srf_ins (a integer, b text);
INSERT INTO srf_ins VALUES (generate_series(1, 3), 'v');
INSERT INTO srf_ins (b, a) VALUES ('w', generate_series(4, 5));
INSERT INTO srf_ins VALUES (generate_series(6, 7), 'x'), (8, 'y');
INSERT INTO srf_ins SELECT generate_series(9, 10), 's' || generate_series(1, 2);
INSERT INTO srf_ins VALUES (11, 'r') RETURNING a, generate_series(1, 2);
SELECT * FROM srf_ins ORDER BY a;

DROP TABLE srf_ins;
DROP TABLE srf_sel;
