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

-- parsing: to_date and to_timestamp of text with a template
SET TimeZone = 'Europe/Berlin';
SELECT to_date('2024-3-5', 'YYYY-MM-DD'), to_date('05 Mar 2024', 'DD Mon YYYY'), to_date('20240305', 'YYYYMMDD'), to_date('March 5, 2024', 'Month DD, YYYY');
SELECT to_timestamp('2024-03-05 14:30:15', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('05/03/2024 02:30 PM', 'DD/MM/YYYY HH12:MI AM'), to_timestamp('2024-03-05 14:30:15.123', 'YYYY-MM-DD HH24:MI:SS.MS');
SELECT to_date('2024 065', 'YYYY DDD'), to_date('2460375', 'J'), to_date('24-03-05', 'YY-MM-DD'), to_date('99-03-05', 'YY-MM-DD'), to_date('03-05', 'MM-DD');
SELECT to_timestamp('12.3', 'SS.MS'), to_timestamp('2024-03-05T10:00', 'YYYY-MM-DD"T"HH24:MI'), to_timestamp(1700000000);
SELECT to_date(NULL, 'YYYY'), to_date('2024-01-01', NULL);
SELECT to_date('2024-13-05', 'YYYY-MM-DD');
SELECT to_date('xx', 'YYYY-MM-DD');
SELECT to_date('2024-02-30', 'YYYY-MM-DD');
SELECT to_timestamp('13:00 PM', 'HH12:MI AM');
SELECT to_date('2024-Foo-01', 'YYYY-Mon-DD');
SET TimeZone = 'UTC';
