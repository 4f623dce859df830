"""psqlODBC checks through pyodbc: prints one line per fact.

Usage: python3 odbc_check.py <DSN>   (ODBCINI names the odbc.ini holding it)
"""
import decimal
import sys

import pyodbc

conn = pyodbc.connect("DSN=" + sys.argv[1], autocommit=True)
cur = conn.cursor()
print("dbms:", conn.getinfo(pyodbc.SQL_DBMS_NAME))

# SQLTables / SQLColumns / SQLPrimaryKeys (catalog queries of psqlODBC).
for r in sorted(cur.tables(schema="public", tableType="TABLE").fetchall(), key=lambda r: r.table_name):
    print("table:", r.table_schem, r.table_name, r.table_type)
for r in cur.columns(table="t", schema="public").fetchall():
    print("column:", r.column_name, r.data_type, r.type_name, r.column_size, r.decimal_digits, r.nullable, r.ordinal_position)
for r in cur.primaryKeys("t", schema="public").fetchall():
    print("pk:", r.column_name, r.key_seq, r.pk_name)

# Parameterized insert and select.
cur.execute("INSERT INTO t (id, name, v) VALUES (?, ?, ?)", 40, "odbc", decimal.Decimal("4.25"))
cur.execute("INSERT INTO t (id, name, v) VALUES (?, ?, ?)", 41, "null v", None)
# The same cursor: psqlODBC names its server-side statement after the
# statement handle and reuses the name after an SQL "DEALLOCATE".
cur.execute("SELECT id, name, v FROM t WHERE id >= ? ORDER BY id", 40)
for r in cur.fetchall():
    print("row:", tuple(r))
conn.close()
