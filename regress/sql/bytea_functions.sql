--
-- ENCODE / DECODE (hex, base64, escape), digests as bytea, EVERY
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE bf (id integer, b bytea, t text);
INSERT INTO bf VALUES (1, '\x00ff5c41', 'abc'), (2, '\x', ''), (3, NULL, NULL), (4, decode(repeat('ab', 60), 'hex'), repeat('x', 100));
SELECT id, encode(b, 'hex') AS hex, encode(b, 'escape') AS esc, encode(b, 'base64') AS b64 FROM bf ORDER BY id;
SELECT id, decode(encode(b, 'base64'), 'base64') = b AS b64_roundtrip, decode(encode(b, 'escape'), 'escape') = b AS esc_roundtrip,
       decode(upper(encode(b, 'hex')), 'HEX') = b AS hex_roundtrip FROM bf ORDER BY id;
SELECT decode('61 62 63', 'hex'), decode(' YW Jj ', 'base64'), decode('a\\b\101', 'escape');
SELECT id, encode(sha256(convert_to(t, 'UTF8')), 'hex') AS sha, md5(t), convert_from(convert_to(t, 'utf-8'), 'UTF8') = t AS back FROM bf ORDER BY id;
SELECT every(id > 0) AS all_positive, every(id > 1) AS all_above_one, every(b IS NOT NULL) FROM bf;
-- errors
SELECT decode('6', 'hex');
SELECT decode('zz', 'hex');
SELECT decode('a\q', 'escape');
SELECT encode('a'::bytea, 'rot13');
DROP TABLE bf;
