--
-- NUMERIC_UNCONSTRAINED: numeric without precision keeps every digit and
-- its own scale (a column is its stored text where a query prints it;
-- computed as numeric(38,10): sql/rawnum.go).
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
