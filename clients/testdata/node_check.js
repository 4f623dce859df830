// node-postgres checks against a server: prints one line per fact.
// Usage: node node_check.js <connection string>
const { Client } = require('pg');
const { from: copyFrom, to: copyTo } = require('pg-copy-streams');
const { Readable } = require('stream');

async function main() {
  const c = new Client({ connectionString: process.argv[2] });
  await c.connect();
  // Parameterized queries (extended protocol), type round trips and NULL.
  const ins = 'INSERT INTO items (id, label, flag, d, f8, i2, c, b, u, j) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
  await c.query(ins, [1, 'héllo', true, '2024-02-29', 2.5, -3, 'ab', Buffer.from([0, 255]), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', { k: [1, 2] }]);
  await c.query(ins, [2, null, null, null, null, null, null, null, null, null]);
  const r = await c.query('SELECT id, label, flag, d::text AS d, f8, i2, c, b, u, j FROM items WHERE id >= $1 ORDER BY id', [1]);
  for (const row of r.rows) {
    if (row.b) row.b = [...row.b];
    console.log('row: ' + JSON.stringify(row));
  }
  console.log('types: ' + r.fields.map(f => f.name + '=' + f.dataTypeID).join(' '));
  const cnt = await c.query({ text: 'SELECT count(*) AS n FROM items WHERE label = $1', values: ['héllo'], name: 'named-stmt' });
  const cnt2 = await c.query({ text: 'SELECT count(*) AS n FROM items WHERE label = $1', values: ['héllo'], name: 'named-stmt' });
  console.log('count: ' + cnt.rows[0].n + ' ' + cnt2.rows[0].n);
  // COPY both ways through pg-copy-streams.
  await new Promise((resolve, reject) => {
    const s = c.query(copyFrom('COPY t (id, name, v) FROM STDIN'));
    s.on('finish', resolve); s.on('error', reject);
    Readable.from(['50\tnode\t5.5\n', '51\tnull v\t\\N\n']).pipe(s);
  });
  const chunks = [];
  await new Promise((resolve, reject) => {
    const s = c.query(copyTo('COPY (SELECT id, name, v FROM t WHERE id >= 50 ORDER BY id) TO STDOUT'));
    s.on('data', d => chunks.push(d)); s.on('end', resolve); s.on('error', reject);
  });
  console.log('copy: ' + JSON.stringify(Buffer.concat(chunks).toString()));
  await c.end();
}
main().catch(e => { console.error(e); process.exit(1); });
