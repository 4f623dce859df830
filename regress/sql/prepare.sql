--
-- PREPARE / EXECUTE: the types deduced for undeclared parameters. The first
-- coercion of $n decides its type; a bare $n in the select list that is
-- still untyped becomes text at the end of its SELECT, and conflicts with a
-- type deduced after it (42P08).
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

-- consistent: $1 is text
PREPARE p1 AS SELECT $1, $1::text;
EXECUTE p1('abc');
-- the cast decides: $1 is integer, then cast to text
PREPARE p2 AS SELECT $1::int, $1::text;
EXECUTE p2('7');
EXECUTE p2('x');
PREPARE p3 AS SELECT $1::text, $1::int;
EXECUTE p3('8');
PREPARE p4 AS SELECT $1 + 1 AS n, $1;
EXECUTE p4(41);
PREPARE p5 AS SELECT $1, $1;
EXECUTE p5('same');
PREPARE p6 AS SELECT $1 IN (1, 2) AS listed, $1::text AS t;
EXECUTE p6(2);
EXECUTE p6('two');
PREPARE p7 AS SELECT CASE WHEN $2 THEN $1 ELSE 1 END AS c, $1 || 'x' AS s;
EXECUTE p7(5, true);
-- declared types win
PREPARE p8(integer) AS SELECT $1, $1::text;
EXECUTE p8(9);

-- inconsistent
PREPARE e1 AS SELECT $1, $1 + 1;
PREPARE e2 AS SELECT $1 WHERE $1 = 1;
PREPARE e3 AS SELECT $1 LIMIT $1;
PREPARE e4 AS SELECT $1, $1::varchar;
PREPARE e5 AS SELECT $1 ORDER BY $1 + 1;
PREPARE e6 AS SELECT $1, $2::text, $2 || $1, $1 + 1;
PREPARE e7 AS SELECT $1 = 'a' AS eq, $1 + 1;
PREPARE e8 AS SELECT $1 || 'x', $1 + 1;
EXECUTE e1(1);

-- a parameter that nothing references has no type; a declared one has
PREPARE g1 AS SELECT $2::int;
PREPARE g2 AS SELECT $1::int, $3::int;
PREPARE g3(text, int) AS SELECT $2 + 1 AS n;
EXECUTE g3('unused', 1);
CREATE TABLE prep_t (a integer, b text);
PREPARE g4 AS INSERT INTO prep_t VALUES ($2, 'x');
PREPARE g5 AS INSERT INTO prep_t VALUES ($1, $2);
EXECUTE g5(1, 'one');
SELECT * FROM prep_t;
DROP TABLE prep_t;

-- a statement sent without parameters (simple query) has none
SELECT $1;
SELECT 1 AS a, $2 + 1 AS b, $1;

DEALLOCATE p1;
DEALLOCATE ALL;
