--
-- NUMERIC_UNCONSTRAINED: numeric without precision keeps every digit and
-- its own scale. KNOWN FAILURE (regress/known_failures.txt): the query
-- engine computes such columns as numeric(38,10).
--
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE types_unum (id integer, u numeric);
INSERT INTO types_unum VALUES
    (1, 0),
    (2, 1.005),
    (3, 123456789012345678901234567890.123456789),
    (4, 0.10),
    (5, NULL);
SELECT * FROM types_unum ORDER BY id;
SELECT sum(u) FROM types_unum WHERE id < 3;
DROP TABLE types_unum;
