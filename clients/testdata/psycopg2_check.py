"""psycopg2 checks against a server: prints one line per fact.

Usage: python3 psycopg2_check.py <libpq dsn> [named]
("named" adds the server-side cursor check.)
"""
import datetime
import decimal
import io
import sys
import uuid

import psycopg2
import psycopg2.extras

conn = psycopg2.connect(sys.argv[1])
conn.autocommit = True
cur = conn.cursor()

# execute with parameters: type round trips (psycopg2 interpolates client-side).
cur.execute(
    "INSERT INTO items (id, label, flag, d, ts, tstz, f8, f4, i2, c, b, u, j) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
    (1, "it's", True, datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 12, 34, 56, 789000),
     datetime.datetime(2024, 2, 29, 12, 0, tzinfo=datetime.timezone.utc), 1.25, 0.5, -7, "ab",
     psycopg2.Binary(b"\x00\xff"), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", psycopg2.extras.Json({"k": [1, 2]})))
cur.execute("INSERT INTO items (id) VALUES (%s)", (2,))
cur.execute("SELECT id, label, flag, d, ts, f8, f4, i2, c, b, u, j FROM items ORDER BY id")
for r in cur.fetchall():
    r = list(r)
    if r[9] is not None:
        r[9] = bytes(r[9])
    print("row:", repr(r))
print("description:", [(d.name, d.type_code) for d in cur.description])

# executemany
cur.executemany("INSERT INTO t (id, name, v) VALUES (%s, %s, %s)",
                [(10, "a", decimal.Decimal("1.25")), (11, "b", None), (12, "c", decimal.Decimal("99.99"))])
cur.execute("SELECT id, name, v FROM t WHERE id >= 10 ORDER BY id")
print("executemany:", cur.fetchall())

# copy_expert both ways
cur.copy_expert("COPY t (id, name, v) FROM STDIN", io.StringIO("20\tcopied\t2.50\n21\tnull v\t\\N\n"))
out = io.StringIO()
cur.copy_expert("COPY (SELECT id, name, v FROM t WHERE id >= 20 ORDER BY id) TO STDOUT", out)
print("copy out:", repr(out.getvalue()))

# a named (server-side) cursor: DECLARE ... / FETCH inside a transaction
conn.autocommit = False
if "named" in sys.argv[2:]:
    named = conn.cursor(name="c1")
    named.itersize = 2
    named.execute("SELECT id FROM t ORDER BY id")
    print("named:", [r[0] for r in named])
    named.close()
    conn.commit()
    # WITH HOLD: the cursor outlives the commit.
    held = conn.cursor(name="c2", withhold=True)
    held.execute("SELECT id FROM t WHERE id >= %s ORDER BY id", (20,))
    conn.commit()
    print("named hold:", [r[0] for r in held.fetchall()])
    held.close()
    # SCROLL: scroll() moves back (MOVE -2, MOVE ABSOLUTE n).
    sc = conn.cursor(name="c3", scrollable=True)
    sc.execute("SELECT id FROM t ORDER BY id")
    sc.fetchmany(3)
    sc.scroll(-2)
    a = sc.fetchone()[0]
    sc.scroll(3, mode="absolute")
    b = sc.fetchone()[0]
    sc.scroll(-2, mode="absolute")
    c = sc.fetchone()[0]
    sc.close()
    conn.commit()
    print("named scroll:", [a, b, c])

# transaction rollback
cur = conn.cursor()
cur.execute("INSERT INTO t VALUES (30, 'gone', 0)")
conn.rollback()
cur.execute("SELECT count(*) FROM t WHERE id = 30")
print("after rollback:", cur.fetchone()[0])
conn.close()
