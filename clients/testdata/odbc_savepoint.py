"""psqlODBC with autocommit off: the driver's statement-level rollback
(an internal SAVEPOINT around each statement, its default) lets a
transaction go on after a failed statement. Prints one line per fact.

Usage: python3 odbc_savepoint.py <DSN>   (ODBCINI names the odbc.ini holding it)
"""
import sys

import pyodbc

conn = pyodbc.connect("DSN=" + sys.argv[1], autocommit=False)
cur = conn.cursor()
cur.execute("INSERT INTO sv (id, note) VALUES (?, ?)", 1, "first")
cur.execute("INSERT INTO sv (id, note) VALUES (?, ?)", 2, "second")
try:
    cur.execute("INSERT INTO sv (id, note) VALUES (?, ?)", "not a number", "bad")
    print("bad insert: no error")
except pyodbc.Error as e:
    print("bad insert:", e.args[0])
try:
    cur.execute("SELECT 1/0")
    print("1/0: no error")
except pyodbc.Error as e:
    print("1/0:", e.args[0])
cur.execute("INSERT INTO sv (id, note) VALUES (?, ?)", 3, "after errors")
cur.execute("SELECT count(*) FROM sv")
print("count in transaction:", cur.fetchone()[0])
conn.commit()
# A transaction rolled back as a whole after an error.
cur.execute("INSERT INTO sv (id, note) VALUES (?, ?)", 4, "rolled back")
try:
    cur.execute("SELECT 1/0")
except pyodbc.Error as e:
    print("1/0:", e.args[0])
conn.rollback()
conn.close()

conn = pyodbc.connect("DSN=" + sys.argv[1], autocommit=True)
cur = conn.cursor()
cur.execute("SELECT id, note FROM sv ORDER BY id")
for r in cur.fetchall():
    print("row:", tuple(r))
conn.close()
