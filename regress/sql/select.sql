--
-- SELECT: joins, CTEs, window functions, aggregates, subqueries, set
-- operations, ORDER BY with NULLs
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE dept (id integer, name text);
CREATE TABLE emp (id integer, name text, dept_id integer, salary integer, manager_id integer);
INSERT INTO dept VALUES (1, 'eng'), (2, 'sales'), (3, 'empty');
INSERT INTO emp VALUES
    (1, 'ann', 1, 200, NULL),
    (2, 'ben', 1, 150, 1),
    (3, 'cat', 1, 150, 1),
    (4, 'dan', 2, 100, 1),
    (5, 'eve', 2, 120, 4),
    (6, 'fay', NULL, 90, NULL);

-- joins
SELECT e.name, d.name AS dept FROM emp e JOIN dept d ON d.id = e.dept_id ORDER BY e.id;
SELECT e.name, d.name AS dept FROM emp e LEFT JOIN dept d ON d.id = e.dept_id ORDER BY e.id;
SELECT e.name, d.name AS dept FROM emp e RIGHT JOIN dept d ON d.id = e.dept_id ORDER BY d.id, e.id;
SELECT e.name, d.name AS dept FROM emp e FULL JOIN dept d ON d.id = e.dept_id ORDER BY e.id NULLS LAST, d.id;
SELECT count(*) FROM emp CROSS JOIN dept;
SELECT e.name, m.name AS manager FROM emp e LEFT JOIN emp m ON m.id = e.manager_id ORDER BY e.id;
SELECT d.name, e.name FROM dept d JOIN emp e USING (id) ORDER BY id;

-- aggregates
SELECT count(*), count(dept_id), sum(salary), min(salary), max(salary), avg(salary) FROM emp;
SELECT dept_id, count(*), sum(salary), avg(salary)::numeric(10,2) AS avg
  FROM emp GROUP BY dept_id ORDER BY dept_id NULLS FIRST;
SELECT dept_id, count(*) FROM emp GROUP BY dept_id HAVING count(*) > 1 ORDER BY dept_id;
SELECT count(DISTINCT salary), string_agg(name, ',' ORDER BY name) FROM emp;
SELECT sum(salary) FROM emp WHERE false;
SELECT count(*) FROM emp WHERE false;
SELECT bool_and(salary > 50), bool_or(salary > 190) FROM emp;

-- CTEs
WITH rich AS (SELECT * FROM emp WHERE salary >= 150)
SELECT name FROM rich ORDER BY name;
WITH by_dept AS (SELECT dept_id, sum(salary) AS total FROM emp GROUP BY dept_id),
     named AS (SELECT d.name, b.total FROM by_dept b JOIN dept d ON d.id = b.dept_id)
SELECT * FROM named ORDER BY total DESC;
WITH RECURSIVE chain(id, name, depth) AS (
    SELECT id, name, 0 FROM emp WHERE manager_id IS NULL AND dept_id IS NOT NULL
  UNION ALL
    SELECT e.id, e.name, c.depth + 1 FROM emp e JOIN chain c ON e.manager_id = c.id
)
SELECT * FROM chain ORDER BY depth, id;

-- window functions
SELECT name, dept_id, salary,
       row_number() OVER (PARTITION BY dept_id ORDER BY salary DESC, id) AS rn,
       rank() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS rnk,
       dense_rank() OVER (ORDER BY salary DESC) AS drnk
  FROM emp ORDER BY id;
SELECT name, salary,
       sum(salary) OVER (ORDER BY id) AS running,
       lag(salary) OVER (ORDER BY id) AS prev,
       lead(name, 1, '-') OVER (ORDER BY id) AS next,
       first_value(name) OVER (PARTITION BY dept_id ORDER BY id) AS first_in_dept
  FROM emp ORDER BY id;
SELECT name, salary, avg(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)::numeric(10,2) AS moving
  FROM emp ORDER BY id;

-- subqueries
SELECT name FROM emp WHERE salary > (SELECT avg(salary) FROM emp) ORDER BY name;
SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE name = 'eng') ORDER BY name;
SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept_id = d.id) ORDER BY name;
SELECT name, (SELECT count(*) FROM emp e WHERE e.dept_id = d.id) AS n FROM dept d ORDER BY id;
SELECT t.dept_id, t.top FROM (SELECT dept_id, max(salary) AS top FROM emp GROUP BY dept_id) t
 ORDER BY t.top DESC;
SELECT name FROM emp WHERE salary = ANY (SELECT salary FROM emp WHERE dept_id = 2) ORDER BY name;

-- set operations
SELECT dept_id FROM emp UNION SELECT id FROM dept ORDER BY 1 NULLS FIRST;
SELECT dept_id FROM emp UNION ALL SELECT id FROM dept ORDER BY 1;
SELECT id FROM dept INTERSECT SELECT dept_id FROM emp ORDER BY 1;
SELECT id FROM dept EXCEPT SELECT dept_id FROM emp ORDER BY 1;

-- ORDER BY with NULLs, expressions, LIMIT/OFFSET, DISTINCT
SELECT name, dept_id FROM emp ORDER BY dept_id, name;
SELECT name, dept_id FROM emp ORDER BY dept_id DESC, name;
SELECT name, dept_id FROM emp ORDER BY dept_id NULLS FIRST, name;
SELECT name, dept_id FROM emp ORDER BY dept_id DESC NULLS LAST, name;
SELECT name, salary FROM emp ORDER BY salary DESC, name LIMIT 3 OFFSET 1;
SELECT DISTINCT salary FROM emp ORDER BY salary;
SELECT DISTINCT ON (dept_id) dept_id, name FROM emp ORDER BY dept_id, salary DESC, name;
SELECT name, CASE WHEN salary >= 150 THEN 'high' WHEN salary >= 100 THEN 'mid' ELSE 'low' END AS band
  FROM emp ORDER BY salary, name;

-- integer division and mixed arithmetic follow PostgreSQL
SELECT 7 / 2 AS int_div, 7 % 3 AS modulo, -7 / 2 AS neg_div, 7.0 / 2 AS num_div, 7 / 2.0 AS num_div2;

DROP TABLE emp, dept;
-- result column names of nested casts and CASE (FigureColname's strengths)
SELECT 1::text::int, x::text::int, (CASE WHEN true THEN 1 END)::text, CASE WHEN true THEN 1::text END, (SELECT 1::text)::int FROM (SELECT 1 AS x) t;
