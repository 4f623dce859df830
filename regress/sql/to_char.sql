--
-- TO_CHAR of dates and timestamps: PostgreSQL's template patterns
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE tc (id integer, d date, ts timestamp, tstz timestamptz);
INSERT INTO tc VALUES
    (1, '2024-01-01', '2024-01-01 00:00:00', '2024-01-01 00:00:00+00'),
    (2, '2024-02-29', '2024-02-29 12:30:45.5', '2024-02-29 23:59:59.999999+00'),
    (3, '2023-12-31', '2023-12-31 23:07:08.123456', '2024-07-04 09:05:00+02'),
    (4, NULL, NULL, NULL);

-- numbers: padding, FM, ordinals
SELECT id, to_char(ts, 'YYYY-MM-DD HH24:MI:SS') AS iso, to_char(ts, 'FMDD/FMMM/YY FMHH12:MI am') AS us,
       to_char(ts, 'DDDth "day", Q"Q", WW, IW, D, ID, W') AS nums
FROM tc ORDER BY id;
-- names: case and padding to 9 characters
SELECT id, to_char(d, 'Day|DAY|day|Dy|DY|dy') AS days, to_char(d, 'Month|MONTH|Mon|FMMonth') AS months
FROM tc ORDER BY id;
-- fractions, seconds of the day, ISO year, century, Julian day, Roman months
SELECT id, to_char(ts, 'MS US FF1 FF3 FF6 SSSS') AS frac, to_char(ts, 'IYYY-IW-ID CC J RM|rm|') AS misc,
       to_char(ts, 'Y,YYY YYY YY Y') AS years
FROM tc ORDER BY id;
-- quoted text, escapes and literal characters
SELECT to_char(timestamp '2024-03-05 14:07:09', '"Today is" Day", the "DDth" of "Month') AS q,
       to_char(timestamp '2024-03-05 14:07:09', 'HH24\hMI') AS esc;
-- timestamptz is shown in the session's time zone, with its abbreviation
SELECT id, to_char(tstz, 'YYYY-MM-DD HH24:MI:SS TZ OF') FROM tc ORDER BY id;
SET TimeZone = 'Europe/Berlin';
SELECT id, to_char(tstz, 'YYYY-MM-DD HH24:MI:SS TZ|tz|OF|TZH:TZM') FROM tc ORDER BY id;
SET TimeZone = 'America/St_Johns';
SELECT id, to_char(tstz, 'HH24:MI TZ OF'), to_char(d, 'YYYY-MM-DD HH24:MI TZ') FROM tc ORDER BY id;
SET TimeZone = 'UTC';
-- the common reporting shapes
SELECT to_char(ts, 'YYYY-MM') AS month, count(*) FROM tc WHERE ts IS NOT NULL GROUP BY 1 ORDER BY 1;
SELECT to_char(tstz, 'Dy') AS weekday, count(*) FROM tc GROUP BY 1 ORDER BY 1;

DROP TABLE tc;
