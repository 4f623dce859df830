--
-- NULL semantics: three-valued logic, comparisons, aggregates, grouping
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
\pset null '(null)'

CREATE TABLE nl (id integer, a integer, b text);
INSERT INTO nl VALUES (1, 1, 'x'), (2, NULL, 'y'), (3, 3, NULL), (4, NULL, NULL);

SELECT id, a = 1 AS eq, a <> 1 AS ne, a IS NULL AS is_null, a IS DISTINCT FROM 1 AS distinct_1,
       a IS NOT DISTINCT FROM NULL AS not_distinct_null
  FROM nl ORDER BY id;
SELECT id FROM nl WHERE a = NULL ORDER BY id;
SELECT id FROM nl WHERE a IS NULL ORDER BY id;
SELECT id FROM nl WHERE NOT (a = 1) ORDER BY id;
SELECT id FROM nl WHERE a NOT IN (1, NULL) ORDER BY id;
SELECT id FROM nl WHERE a IN (1, NULL) ORDER BY id;

-- three-valued logic
SELECT NULL AND true AS n_and_t, NULL AND false AS n_and_f, NULL OR true AS n_or_t,
       NULL OR false AS n_or_f, NOT NULL::boolean AS not_n;

-- NULL propagates through operators and functions
SELECT id, a + 1 AS plus, b || '!' AS concat, upper(b) AS up, coalesce(a, -1) AS co,
       nullif(a, 1) AS ni, coalesce(b, 'none') AS cb
  FROM nl ORDER BY id;

-- aggregates skip NULLs; count(*) does not
SELECT count(*), count(a), count(b), sum(a), avg(a), min(b), max(b) FROM nl;
SELECT sum(a), max(b) FROM nl WHERE a IS NULL;

-- NULLs group together and sort last ascending, first descending
SELECT a, count(*) FROM nl GROUP BY a ORDER BY a;
SELECT a, count(*) FROM nl GROUP BY a ORDER BY a DESC;
SELECT DISTINCT b FROM nl ORDER BY b;

-- NULL never joins
CREATE TABLE nl2 (a integer, c text);
INSERT INTO nl2 VALUES (1, 'one'), (NULL, 'null');
SELECT nl.id, nl2.c FROM nl JOIN nl2 ON nl.a = nl2.a ORDER BY nl.id;
SELECT nl.id, nl2.c FROM nl LEFT JOIN nl2 ON nl.a = nl2.a ORDER BY nl.id;

-- CASE and NULL
SELECT id, CASE a WHEN 1 THEN 'one' WHEN NULL THEN 'null?' ELSE 'other' END AS c FROM nl ORDER BY id;

-- typed NULLs
SELECT NULL::integer AS i, NULL::text AS t, NULL::date AS d, NULL::numeric AS n, NULL::boolean AS b;

DROP TABLE nl, nl2;
