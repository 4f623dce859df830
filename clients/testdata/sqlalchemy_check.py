"""SQLAlchemy Core + ORM session + reflection, and pandas read_sql /
read_sql_table / to_sql, through psycopg2. Usage: sqlalchemy_check.py URL"""
import sys

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.orm import Session, declarative_base

engine = sa.create_engine(sys.argv[1])
md = sa.MetaData()
items = sa.Table("sa_items", md,
                 sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
                 sa.Column("name", sa.String(40), nullable=False),
                 sa.Column("price", sa.Numeric(10, 2)),
                 sa.Column("created", sa.Date))
md.create_all(engine)
with engine.begin() as c:
    c.execute(items.insert(), [{"id": 1, "name": "a", "price": 1.5}, {"id": 2, "name": "b", "price": None}])
with engine.connect() as c:
    print("core:", c.execute(sa.select(items.c.id, items.c.name, items.c.price).where(items.c.id >= 1).order_by(items.c.id)).all())
    print("core in:", c.execute(sa.select(items.c.name).where(items.c.id.in_([2, 3]))).scalars().all())
    print("core text:", c.execute(sa.text("SELECT count(*) FROM sa_items WHERE name = :n"), {"n": "a"}).scalar())

Base = declarative_base()


class Item(Base):
    __table__ = items


with Session(engine) as s:
    s.add(Item(id=3, name="c", price=3))
    s.commit()
    print("orm:", [(i.id, i.name) for i in s.query(Item).order_by(Item.id)])
    print("orm get:", s.get(Item, 3).name)
with Session(engine) as s:
    s.add(Item(id=4, name="d"))
    s.rollback()
    print("orm rollback:", s.query(Item).count())
    # Updating or deleting through the session needs UPDATE/DELETE (not supported yet).



class Auto(Base):
    # The ORM's default model: an autoincrement integer key (SERIAL).
    __tablename__ = "sa_auto"
    id = sa.Column(sa.Integer, primary_key=True)
    label = sa.Column(sa.String(20))


Base.metadata.create_all(engine, tables=[Auto.__table__])
with Session(engine) as s:
    s.add_all([Auto(label="x"), Auto(label="y")])
    s.commit()
    print("orm autoincrement:", [(a.id, a.label) for a in s.query(Auto).order_by(Auto.id)])

insp = sa.inspect(engine)
print("tables:", insp.get_table_names())
try:
    print("columns:", [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns("sa_items")])
    print("columns auto:", [(c["name"], str(c["type"]), c["nullable"], c["default"], c.get("autoincrement")) for c in insp.get_columns("sa_auto")])
    print("pk auto:", insp.get_pk_constraint("sa_auto")["constrained_columns"])
except sa.exc.ProgrammingError as e:
    # (SQLAlchemy's column reflection calls pg_get_serial_sequence.)
    print("columns: unavailable:", e.orig.pgcode, str(e.orig).splitlines()[0])

df = pd.DataFrame({"k": [1, 2, 3], "v": ["x", "y", None], "f": [0.5, 1.5, 2.5]})
df.to_sql("pd_t", engine, index=False)
df.to_sql("pd_t", engine, index=False, if_exists="append", chunksize=2)
print("read_sql:", pd.read_sql("SELECT * FROM pd_t ORDER BY k, f", engine).values.tolist())
print("read_sql params:", pd.read_sql(sa.text("SELECT k FROM pd_t WHERE v = :v"), engine, params={"v": "y"})["k"].tolist())
try:
    t = pd.read_sql_table("pd_t", engine)
    print("read_sql_table:", t.dtypes.astype(str).to_dict(), len(t))
except sa.exc.ProgrammingError as e:  # reflection: as above
    print("read_sql_table: unavailable:", e.orig.pgcode, str(e.orig).splitlines()[0])
chunks = list(pd.read_sql("SELECT k FROM pd_t ORDER BY k", engine, chunksize=4))
print("chunks:", [len(c) for c in chunks])
# to_sql's default index=True writes the index column and CREATE INDEX;
# replace drops and recreates both; reflection reads the index back.
df.to_sql("pd_i", engine)
df.to_sql("pd_i", engine, if_exists="replace", index_label="idx")
df.to_sql("pd_i", engine, if_exists="append", index_label="idx")
print("to_sql index:", pd.read_sql("SELECT * FROM pd_i ORDER BY idx, k", engine).values.tolist())
print("indexes pd_i:", sa.inspect(engine).get_indexes("pd_i"))
imd = sa.MetaData()
sa.Table("sa_ix", imd, sa.Column("id", sa.Integer, primary_key=True), sa.Column("name", sa.String(20), index=True),
         sa.Index("sa_ix_multi", "name", "id"))
imd.create_all(engine)
print("indexes sa_ix:", sorted(sa.inspect(engine).get_indexes("sa_ix"), key=lambda i: i["name"]))
imd.drop_all(engine)
# Comments: the table's and the columns' (COMMENT ON), reflected back.
cmd = sa.MetaData()
sa.Table("sa_cm", cmd, sa.Column("id", sa.Integer, primary_key=True, comment="the key"),
         sa.Column("name", sa.String(20), comment="a name"), sa.Column("plain", sa.Integer), comment="commented table")
cmd.create_all(engine)
print("table comment:", sa.inspect(engine).get_table_comment("sa_cm"))
print("column comments:", [(c["name"], c.get("comment")) for c in sa.inspect(engine).get_columns("sa_cm")])
cmd.drop_all(engine)
# Keys and constraints: a UNIQUE constraint, a unique index and a CHECK,
# reflected back; violations raise IntegrityError with PostgreSQL's code;
# INSERT ... ON CONFLICT DO NOTHING / DO UPDATE (the postgresql dialect's
# insert) upsert.
from sqlalchemy.dialects.postgresql import insert as pg_insert  # noqa: E402

kmd = sa.MetaData()
accts = sa.Table("sa_acct", kmd, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                 sa.Column("email", sa.String(40), unique=True), sa.Column("code", sa.String(8)),
                 sa.Column("bal", sa.Integer, sa.CheckConstraint("bal >= 0", name="bal_nonneg")),
                 sa.Index("sa_acct_code", "code", unique=True))
kmd.create_all(engine)
ki = sa.inspect(engine)
print("unique constraints:", ki.get_unique_constraints("sa_acct"))
print("check constraints:", ki.get_check_constraints("sa_acct"))
print("unique indexes:", sorted([(i["name"], i["unique"], i["column_names"]) for i in ki.get_indexes("sa_acct")]))
with engine.begin() as c:
    c.execute(accts.insert(), [{"id": 1, "email": "a@x", "code": "A", "bal": 5}])
for row in [{"id": 1, "email": "b@x"}, {"id": 2, "email": "a@x"}, {"id": 2, "code": "A"}, {"id": 2, "bal": -1}]:
    try:
        with engine.begin() as c:
            c.execute(accts.insert(), [row])
        print("insert", row, "ok")
    except sa.exc.IntegrityError as e:
        print("insert", row, "->", e.orig.pgcode, e.orig.diag.constraint_name, e.orig.diag.message_detail)
with engine.begin() as c:
    c.execute(pg_insert(accts).values(id=1, email="z@x", bal=1).on_conflict_do_nothing())
    st = pg_insert(accts).values([{"id": 1, "email": "a2@x", "bal": 7}, {"id": 3, "email": "c@x", "bal": 3}])
    c.execute(st.on_conflict_do_update(index_elements=["id"], set_={"email": st.excluded.email, "bal": accts.c.bal + st.excluded.bal}))
    st = pg_insert(accts).values(id=3, email="c@x", bal=100)
    c.execute(st.on_conflict_do_update(constraint="sa_acct_email_key", set_={"bal": st.excluded.bal}, where=accts.c.bal < 50))
with engine.connect() as c:
    print("after upserts:", c.execute(sa.select(accts).order_by(accts.c.id)).all())
kmd.drop_all(engine)
