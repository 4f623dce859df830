--
-- TRANSACTIONS: BEGIN/COMMIT/ROLLBACK, and an error inside a block
-- (25P02 for every statement until ROLLBACK)
--
-- settings every script fixes, so that the output depends on nothing else
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

CREATE TABLE tx (id integer, v text);

BEGIN;
INSERT INTO tx VALUES (1, 'committed');
INSERT INTO tx VALUES (2, 'committed');
SELECT count(*) FROM tx;
COMMIT;
SELECT * FROM tx ORDER BY id;

BEGIN;
INSERT INTO tx VALUES (3, 'rolled back');
SELECT count(*) FROM tx;
ROLLBACK;
SELECT * FROM tx ORDER BY id;

-- an error aborts the block; every statement is refused until ROLLBACK
\set VERBOSITY sqlstate
BEGIN;
INSERT INTO tx VALUES (4, 'lost');
SELECT 1 / 0;
SELECT count(*) FROM tx;
INSERT INTO tx VALUES (5, 'refused');
COMMIT;
\set VERBOSITY default
SELECT * FROM tx ORDER BY id;

BEGIN;
INSERT INTO tx VALUES (6, 'lost too');
SELECT nosuch FROM tx;
ROLLBACK;
SELECT * FROM tx ORDER BY id;

-- COMMIT of an aborted block reports ROLLBACK; END is COMMIT
BEGIN;
SELECT * FROM nosuch;
END;
BEGIN;
INSERT INTO tx VALUES (7, 'end');
END;
SELECT * FROM tx ORDER BY id;

-- COPY inside a transaction is part of it
BEGIN;
COPY tx FROM STDIN;
8	copied
\.
ROLLBACK;
BEGIN;
COPY tx FROM STDIN (FORMAT csv);
9,copied
\.
COMMIT;
SELECT * FROM tx ORDER BY id;

-- START TRANSACTION, ABORT, warnings outside a block
START TRANSACTION;
INSERT INTO tx VALUES (10, 'aborted');
ABORT;
COMMIT;
ROLLBACK;
SET client_min_messages = notice;
COMMIT;
ROLLBACK;
BEGIN;
BEGIN;
COMMIT;
SET client_min_messages = warning;
SELECT * FROM tx ORDER BY id;

-- a transaction sees its own writes; others see them after COMMIT
BEGIN;
INSERT INTO tx VALUES (11, 'own');
SELECT id, v FROM tx WHERE id = 11;
COMMIT;
SELECT id, v FROM tx WHERE id = 11;

-- a block that writes two tables commits both; ROLLBACK or an error, neither
CREATE TABLE tx_debit (id int, amount int);
CREATE TABLE tx_credit (id int, amount int);
BEGIN;
INSERT INTO tx_debit VALUES (1, -10);
INSERT INTO tx_credit VALUES (1, 10);
SELECT (SELECT sum(amount) FROM tx_debit) + (SELECT sum(amount) FROM tx_credit) AS balance;
COMMIT;
BEGIN;
INSERT INTO tx_debit VALUES (2, -20);
INSERT INTO tx_credit VALUES (2, 20);
ROLLBACK;
BEGIN;
INSERT INTO tx_debit VALUES (3, -30);
INSERT INTO tx_credit VALUES (3, 30 / 0);
COMMIT;
INSERT INTO tx_debit VALUES (4, -40)\; INSERT INTO tx_credit VALUES (4, 40);
SELECT d.id, d.amount AS debit, c.amount AS credit FROM tx_debit d FULL JOIN tx_credit c USING (id) ORDER BY 1;
DROP TABLE tx_debit;
DROP TABLE tx_credit;

DROP TABLE tx;
