--
-- NUMERIC and FLOAT output, extra_float_digits, overflow
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE num (id integer, n numeric(12,4), f4 real, f8 double precision);
INSERT INTO num VALUES
    (1, 1, 1, 1),
    (2, 0.1, 0.1, 0.1),
    (3, 1234.5678, 1234.5678, 1234.5678),
    (4, -0.0001, -0.0001, -0.0001),
    (5, 12345678.9999, 123456789, 12345678901234567),
    (6, 0, 1e-20, 1e20),
    (7, 2.5, 2.5, 2.5);
SELECT * FROM num ORDER BY id;

-- arithmetic keeps numeric exact and scales as PostgreSQL does
SELECT n * 2 AS dbl, n / 3 AS third, n + 0.00001 AS plus, round(n, 1) AS r1, trunc(n) AS t FROM num ORDER BY id;
SELECT sum(n), avg(n), sum(f8), avg(f8) FROM num;
SELECT 0.1 + 0.2 AS num_sum, 0.1::float8 + 0.2::float8 AS float_sum;
SELECT 1::numeric / 3 AS one_third, 2::numeric / 3 AS two_thirds, 10::numeric / 4 AS ten_quarters;
SELECT round(2.5) AS r25, round(-2.5) AS rm25, round(2.5::float8) AS f25, round(3.5::float8) AS f35;
SELECT 123.456::numeric(5,1) AS cast1, 0.5::numeric(3,0) AS cast2, 1e3::numeric AS cast3;

-- extra_float_digits changes float text output only
SET extra_float_digits = 0;
SELECT id, f4, f8 FROM num WHERE id IN (2, 3, 5) ORDER BY id;
SELECT 1/3::float8 AS third, 2/3::float4 AS two_thirds;
SET extra_float_digits = 3;
SELECT id, f4, f8 FROM num WHERE id IN (2, 3, 5) ORDER BY id;
SELECT 1/3::float8 AS third, 2/3::float4 AS two_thirds;
SET extra_float_digits = -2;
SELECT id, f4, f8 FROM num WHERE id IN (2, 3, 5) ORDER BY id;
SET extra_float_digits = 1;
SELECT 1/3::float8 AS third, 2/3::float4 AS two_thirds, 1e15::float8 AS big, 1e16::float8 AS bigger,
       1e-4::float8 AS small, 1e-5::float8 AS smaller, -0.0::float8 AS negzero;

-- special float values
SELECT 'NaN'::float8 AS nan, 'Infinity'::float8 AS inf, '-Infinity'::float8 AS ninf, 'NaN'::numeric AS nnan;
SELECT 'NaN'::float8 = 'NaN'::float8 AS nan_eq, 'NaN'::float8 > 1e308 AS nan_gt;

-- integer overflow is an error, not a wrap-around
SELECT 2147483647::integer + 1;
SELECT 9223372036854775807::bigint + 1;
SELECT (-32768)::smallint * -1::smallint;
SELECT 2147483647::bigint + 1 AS widened;
SELECT 1e308::float8 * 10;
SELECT 99999999::numeric(8,0) + 1 AS widened, (99999999::numeric(8,0) + 1)::numeric(8,0);

DROP TABLE num;
-- a numeric literal cast to float: out of range is 22003 (not Infinity)
SELECT 1.5e3::float8 AS a, 0.1::real AS b;
SELECT 1e400::float8;
SELECT 1e40::real;
