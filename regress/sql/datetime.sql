--
-- DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL under TimeZone and DateStyle
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE dt (id integer, d date, t time, ts timestamp, tstz timestamptz, i interval);
INSERT INTO dt VALUES
    (1, '2024-01-15', '13:45:30', '2024-01-15 13:45:30', '2024-01-15 13:45:30+00', '1 day'),
    (2, '1999-12-31', '23:59:59.999999', '1999-12-31 23:59:59.5', '1999-12-31 23:59:59.5-05', '2 hours 30 minutes'),
    (3, '2000-02-29', '00:00:00', '2000-02-29 00:00:00', '2000-02-29 12:00:00+05:30', '-3 days 04:00:00'),
    (4, '0001-01-01', '12:00', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', '1 mon'),
    (5, '2024-07-04', '06:07:08.123', '2024-07-04 06:07:08.123456', '2024-07-04 06:07:08.123456+02', '0'),
    (6, NULL, NULL, NULL, NULL, NULL);
SELECT * FROM dt ORDER BY id;

-- timestamptz is shown in the session time zone
SET TimeZone = 'America/New_York';
SELECT id, tstz FROM dt ORDER BY id;
SELECT '2024-03-10 01:30:00'::timestamptz AS before_dst, '2024-03-10 03:30:00'::timestamptz AS after_dst;
SELECT '2024-07-01 12:00:00'::timestamp AT TIME ZONE 'UTC' AS at_utc;
SET TimeZone = 'Asia/Kolkata';
SELECT id, tstz FROM dt WHERE id <= 3 ORDER BY id;
SET TimeZone = '+02';
SELECT id, tstz FROM dt WHERE id = 1;
SET TimeZone = 'UTC';
SELECT id, tstz FROM dt WHERE id = 1;

-- DateStyle
SET DateStyle = 'SQL, MDY';
SELECT d, ts, tstz FROM dt WHERE id IN (1, 3) ORDER BY id;
SET DateStyle = 'SQL, DMY';
SELECT d, ts FROM dt WHERE id IN (1, 3) ORDER BY id;
SELECT '03/04/2024'::date AS dmy_input;
SET DateStyle = 'Postgres, MDY';
SELECT d, ts, tstz FROM dt WHERE id IN (1, 3) ORDER BY id;
SET DateStyle = 'German';
SELECT d, ts FROM dt WHERE id IN (1, 3) ORDER BY id;
SET DateStyle = 'ISO, MDY';
SELECT '03/04/2024'::date AS mdy_input;
SHOW DateStyle;
SHOW TimeZone;

-- date and time arithmetic
SELECT d + 1 AS next_day, d - 1 AS prev_day, d + interval '1 month' AS next_month FROM dt WHERE id = 3;
SELECT '2024-03-01'::date - '2024-02-01'::date AS days_in_feb;
SELECT ts + i AS shifted FROM dt WHERE id <= 4 ORDER BY id;
SELECT '2024-01-31'::date + interval '1 month' AS month_end;
SELECT '2024-01-15 10:00:00'::timestamp - '2024-01-14 08:30:00'::timestamp AS diff;
SELECT extract(year FROM d) AS y, extract(month FROM d) AS m, extract(dow FROM d) AS dow FROM dt WHERE id = 1;
SELECT date_trunc('month', ts) AS month_start, date_trunc('hour', tstz) AS hour_start FROM dt WHERE id = 5;

-- interval output
SELECT interval '1 year 2 months 3 days 04:05:06.789' AS full, interval '36 hours' AS hours,
       interval '-1 year -2 mons +3 days' AS mixed, interval '0.5 days' AS half_day;

-- comparisons and ordering across the types
SELECT id FROM dt WHERE d > '2000-01-01' ORDER BY d;
SELECT id FROM dt WHERE tstz < '2000-01-01 00:00:00+00' ORDER BY tstz;

-- invalid input
SELECT '2024-02-30'::date;
SELECT '25:00:00'::time;
SELECT 'yesterday-ish'::timestamp;

DROP TABLE dt;
