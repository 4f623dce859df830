"""Alembic migrations, as a project's migration scripts run them, then
SQLAlchemy's reflection of the result and the rows. Printed for comparison
with PostgreSQL. Usage: alembic_check.py URL"""
import sys

import sqlalchemy as sa
from alembic.migration import MigrationContext
from alembic.operations import Operations

engine = sa.create_engine(sys.argv[1])


def migrate(step, fn):
    """Runs one migration in its own transaction, as alembic upgrade does."""
    with engine.begin() as conn:
        fn(Operations(MigrationContext.configure(conn)), conn)
    print("migrated:", step)


def m1(op, conn):
    op.create_table(
        "author",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(50), nullable=False),
    )
    op.create_table(
        "book",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("title", sa.String(100)),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("author.id")),
    )


def seed(op, conn):
    conn.execute(sa.text("INSERT INTO author (name) VALUES ('Le Guin'), ('Borges')"))
    conn.execute(sa.text("INSERT INTO book (title, author_id) VALUES ('Earthsea', 1), ('Ficciones', 2), ('Lathe', 1)"))


def m2(op, conn):
    op.add_column("book", sa.Column("pages", sa.Integer, server_default="0", nullable=False))
    op.add_column("book", sa.Column("isbn", sa.String(20)))
    op.add_column("author", sa.Column("born", sa.Date))


def m3(op, conn):
    op.alter_column("book", "title", new_column_name="name", existing_type=sa.String(100))
    op.alter_column("book", "name", type_=sa.String(200), existing_type=sa.String(100))
    op.alter_column("author", "name", nullable=True, existing_type=sa.String(50))
    op.alter_column("book", "pages", server_default="100", existing_type=sa.Integer)
    op.alter_column("book", "id", type_=sa.BigInteger, existing_type=sa.Integer)
    op.create_index("ix_book_pages", "book", ["pages"])


def m4(op, conn):
    op.drop_constraint("book_author_id_fkey", "book", type_="foreignkey")
    op.create_foreign_key("fk_book_author", "book", "author", ["author_id"], ["id"], ondelete="CASCADE")
    op.drop_column("book", "isbn")
    op.rename_table("book", "books")
    conn.execute(sa.text("INSERT INTO books (name, author_id) VALUES ('Labyrinths', 2)"))


for step, fn in [("create tables", m1), ("seed", seed), ("add columns", m2), ("alter columns", m3),
                 ("constraints, drop, rename", m4)]:
    migrate(step, fn)

insp = sa.inspect(engine)
for table in sorted(insp.get_table_names()):
    print("table", table)
    for c in insp.get_columns(table):
        print("  column", c["name"], c["type"], "nullable" if c["nullable"] else "not null", "default", c["default"])
    print("  pk", insp.get_pk_constraint(table))
    for fk in insp.get_foreign_keys(table):
        print("  fk", fk["name"], fk["constrained_columns"], fk["referred_table"], fk["referred_columns"], fk["options"])
    for ix in insp.get_indexes(table):
        print("  index", ix["name"], ix["column_names"], ix["unique"])
with engine.connect() as conn:
    for row in conn.execute(sa.text("SELECT b.id, b.name, b.pages, a.name FROM books b JOIN author a ON a.id = b.author_id ORDER BY b.id")):
        print("row", tuple(row))
