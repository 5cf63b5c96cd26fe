import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type Row } from '@junction/connectors';
import { Engine } from './engine.js';

let dir: string;
let engine: Engine;
const connectors: Connector[] = [];

async function rows(sql: string): Promise<Row[]> {
  const r = await engine.query(sql);
  const out: Row[] = [];
  for await (const b of r.rows) out.push(...b);
  return out;
}

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'jt-qc-duck-')));
  fs.writeFileSync(
    path.join(dir, 'orders.csv'),
    'o_id,o_cust,o_total,o_note\n1,1,10.50,\n2,1,1909572716.10,big\n3,2,0.05,x\n4,3,7.00,\n5,,1.00,orphan\n',
  );
  const w = await DuckDBInstance.create(':memory:');
  const c = await w.connect();
  const target = path.join(dir, 'payments.parquet').replace(/'/g, "''");
  await c.run(`COPY (SELECT * FROM (VALUES (1, 2.50::DECIMAL(15,2), TIMESTAMP '2024-01-01 10:00:00'), (2, 1909572716.10::DECIMAL(15,2), TIMESTAMP '2024-01-02 11:30:00.25'),
    (3, NULL, NULL)) v(p_order, p_amount, p_at)) TO '${target}' (FORMAT parquet)`);
  c.disconnectSync();
  w.closeSync();

  const files = createConnector({
    name: 'files',
    engine: 'duckdb',
    options: {
      fileRoots: [dir],
      files: {
        root: dir,
        tables: [
          { name: 'orders', path: 'orders.csv', columns: { o_total: 'decimal(15,2)', o_cust: 'integer' } },
          { name: 'payments', path: '*.parquet' },
        ],
      },
    },
  });
  const lite = createConnector({ name: 'lite', engine: 'sqlite', file: ':memory:' });
  await lite.execute('CREATE TABLE customer (c_id INTEGER PRIMARY KEY, c_name TEXT NOT NULL)');
  await lite.execute(`INSERT INTO customer VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')`);
  connectors.push(files, lite);
  engine = new Engine({ workers: 1 });
  for (const x of connectors)
    engine.addSource({ name: x.name, connector: x, catalog: await x.introspect(), semantics: await x.probe() });
});

afterAll(async () => {
  await engine?.close();
  for (const c of connectors) await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('query-core over a duckdb file source', () => {
  it('pushes a join, filter, aggregate and order into DuckDB and keeps decimals exact', async () => {
    const sql = `SELECT o.o_cust, count(*) AS n, sum(p.p_amount) AS paid
      FROM files.orders o JOIN files.payments p ON p.p_order = o.o_id
      WHERE o.o_total > 1.00 GROUP BY o.o_cust ORDER BY o.o_cust NULLS FIRST`;
    expect(await rows(sql)).toEqual([[1, 2n, '1909572718.60']]);
    // the whole statement runs in the source: one remote query, nothing left in Junction
    const plan = (await engine.explain(sql)).text.split('\n').map((l) => l.trim());
    expect(plan.slice(0, 3)).toEqual([
      'RemoteQuery [files]',
      'SQL: SELECT "o"."o_cust" AS "o_cust", COUNT(*) AS "n", SUM("p"."p_amount") AS "paid" FROM "main"."orders" "o" INNER JOIN "main"."payments" "p" ON (CAST("p"."p_order" AS BIGINT) = "o"."o_id") WHERE ("o"."o_total" > $1::DECIMAL(3,2)) GROUP BY "o"."o_cust" ORDER BY "o"."o_cust" ASC NULLS FIRST',
      'params: ["1.00"]',
    ]);
  });

  it('joins a file table with another source, NULLs and timestamps as Junction values', async () => {
    const sql = `SELECT c.c_name, o.o_id, o.o_note, p.p_at FROM files.orders o
      LEFT JOIN lite.customer c ON c.c_id = o.o_cust LEFT JOIN files.payments p ON p.p_order = o.o_id
      ORDER BY o.o_id`;
    expect(await rows(sql)).toEqual([
      // o_id is inferred BIGINT from the CSV: int64, a bigint
      ['ann', 1n, null, '2024-01-01T10:00:00'],
      ['ann', 2n, 'big', '2024-01-02T11:30:00.25'],
      ['bob', 3n, 'x', null],
      ['cy', 4n, null, null],
      [null, 5n, 'orphan', null],
    ]);
  });
});
