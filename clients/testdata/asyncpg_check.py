"""asyncpg against a server: typed parameters (arrays too), prepared
statements, COPY both ways, transactions, a pool with its reset.
Usage: asyncpg_check.py HOST PORT DBNAME. Prints one line per check."""
import asyncio, datetime, decimal, sys

import asyncpg


async def main(host, port):
    c = await asyncpg.connect(host=host, port=port, user='postgres', database=sys.argv[3])
    await c.execute("CREATE TABLE ap (id bigint NOT NULL, label text, amount numeric(10,2), d date, ok boolean)")
    await c.execute("INSERT INTO ap VALUES ($1, $2, $3, $4, $5)", 1, 'one', decimal.Decimal('1.50'), datetime.date(2024, 2, 29), True)
    await c.executemany("INSERT INTO ap (id, label) VALUES ($1, $2)", [(2, 'two'), (3, None)])
    print("fetch:", [tuple(r) for r in await c.fetch("SELECT * FROM ap ORDER BY id")])
    print("typed:", await c.fetchval("SELECT $1::int + $2::bigint", 2, 3),
          await c.fetchval("SELECT $1::text || '!'", 'hi'),
          await c.fetchval("SELECT $1::date + 1", datetime.date(2024, 2, 28)))
    print("arrays:", await c.fetchval("SELECT $1::int[]", [1, 2, None]),
          await c.fetchval("SELECT $1::text[]", ['a', 'b']),
          [r['id'] for r in await c.fetch("SELECT id FROM ap WHERE id = ANY($1) ORDER BY id", [1, 3])],
          [r['id'] for r in await c.fetch("SELECT id FROM ap WHERE label = ANY($1::text[]) ORDER BY id", ['two'])])
    # jsonb travels in binary: jsonb_send's text is normalized.
    print("jsonb:", await c.fetchval("SELECT $1::jsonb", '{"b":2,"a":[1, 2]}'),
          await c.fetchval("SELECT '{\"x\":null}'::jsonb"))
    st = await c.prepare("SELECT label FROM ap WHERE id = $1")
    print("prepared:", [await st.fetchval(i) for i in (1, 2, 3)], [a.name for a in st.get_attributes()],
          [p.name for p in st.get_parameters()])
    n = await c.copy_records_to_table('ap', records=[(10, 'ten', decimal.Decimal('10.00'), None, False),
                                                     (11, 'eleven', None, datetime.date(2000, 1, 1), None)])
    print("copy in:", n, await c.fetchval("SELECT count(*) FROM ap"))
    import io
    buf = io.BytesIO()
    await c.copy_from_query("SELECT id, label FROM ap WHERE id >= $1 ORDER BY id", 10, output=buf)
    print("copy out:", buf.getvalue())
    try:
        async with c.transaction():
            await c.execute("INSERT INTO ap (id) VALUES (99)")
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    async with c.transaction():
        await c.execute("INSERT INTO ap (id) VALUES (100)")
    print("transactions:", await c.fetchval("SELECT count(*) FROM ap WHERE id IN (99, 100)"))
    await c.close()
    pool = await asyncpg.create_pool(host=host, port=port, user='postgres', database=sys.argv[3], min_size=1, max_size=2)
    for _ in range(3):  # each release resets the connection (advisory locks, UNLISTEN *, RESET ALL ...)
        async with pool.acquire() as pc:
            v = await pc.fetchval("SELECT count(*) FROM ap")
    print("pool:", v)
    await pool.close()


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
