--
-- ARRAYS: literals (array_in), ANY/ALL with literals, output
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

SELECT '{1,2,3}'::int[] AS ints, '{}'::int[] AS empty, '{NULL, 2}'::bigint[] AS with_null;
SELECT '{"a b", c , "d\"e", NULL, "NULL", " x "}'::text[] AS texts;
SELECT '{{1,2},{3,4}}'::int[] AS matrix, ('{{1,2},{3,4}}'::int[])[2][1] AS elem;
SELECT '{1.5, 2.25}'::numeric(4,2)[] AS nums, '{2024-01-01, 2024-02-29}'::date[] AS dates, '{t,f}'::bool[] AS bools;
SELECT 2 = ANY('{1,2,3}') AS any_lit, 5 = ANY('{1,2,3}'::int[]) AS any_cast, 3 > ALL('{1,2}') AS all_lit;
SELECT array_length('{1,2,3}'::int[], 1) AS len;

CREATE TABLE ar (id int, s text, d date);
INSERT INTO ar VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-02'), (3, 'c', NULL);
SELECT id FROM ar WHERE id = ANY('{1,3}') ORDER BY id;
SELECT id FROM ar WHERE s = ANY('{b,c}') ORDER BY id;
SELECT id FROM ar WHERE s <> ALL('{b,c}') ORDER BY id;
SELECT id FROM ar WHERE d = ANY('{2024-01-02,2025-01-01}') ORDER BY id;
SELECT id FROM ar WHERE id = ANY(ARRAY[2, 3]) ORDER BY id;
-- errors
SELECT '{1,2'::int[];
SELECT '{{1,2},{3}}'::int[];
SELECT '{a}'::int[];
SELECT 1 = ANY('{1,x}'::int[]);
DROP TABLE ar;
