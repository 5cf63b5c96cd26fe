import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '@junction/connectors';
import { createPgDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { Engine } from '../../engine.js';
import type { ExplainNode } from '../../explain/explain-node.js';
import { bag } from '../test-support.js';

let db: TestDatabase;
let withWorkers: Engine;
let inThread: Engine;

const ROWS = 150_000;

beforeAll(async () => {
  db = await createPgDatabase('aggworkers');
  await db.exec(`CREATE TABLE sales (id integer, k integer, region text, amount numeric(12,2), price float8, qty bigint, d date)`);
  await db.exec(
    `INSERT INTO sales SELECT g,
       CASE WHEN g % 17 = 0 THEN NULL ELSE g % 37 END,
       (ARRAY['north', 'south', 'east ', '', NULL])[g % 5 + 1],
       (g % 1000) * 0.01 + 0.10,
       CASE g % 50 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8 WHEN 2 THEN 0 ELSE (g % 100) * 0.5 END,
       g::bigint * 1000003,
       DATE '2024-01-01' + (g % 30)
     FROM generate_series(1, ${ROWS}) g`,
  );
  await db.exec(`ANALYZE sales`);
  const source = async (e: Engine) => {
    const connector = await db.connector('pg');
    e.addSource({ name: 'pg', connector, catalog: await connector.introspect(), semantics: await connector.probe() });
  };
  withWorkers = new Engine({ workers: 2 });
  inThread = new Engine({ workers: 0 });
  await source(withWorkers);
  await source(inThread);
});

afterAll(async () => {
  await withWorkers?.close();
  await inThread?.close();
  await db?.drop();
});

async function rows(engine: Engine, sql: string): Promise<Row[]> {
  const r = await engine.query(sql, { pushdown: false });
  const out: Row[] = [];
  for await (const b of r.rows) out.push(...b);
  return out;
}

function aggregateNode(n: ExplainNode): ExplainNode | undefined {
  if (n.operator === 'HashAggregate') return n;
  for (const c of n.children) {
    const f = aggregateNode(c);
    if (f) return f;
  }
  return undefined;
}

/**
 * The HashAggregate's EXPLAIN ANALYZE detail once the engine's worker threads are up: the
 * first query only starts them (a cold pool keeps the aggregate in-thread), so ask again
 * for a while until the worker path has run.
 */
async function workersDetail(sql: string): Promise<string | undefined> {
  let detail: string | undefined;
  for (let i = 0; i < 20; i++) {
    detail = aggregateNode((await withWorkers.explain(sql, { pushdown: false, analyze: true })).plan)?.detail;
    if (detail?.includes('worker')) return detail;
    await new Promise((r) => setTimeout(r, 250));
  }
  return detail;
}

describe('hash aggregate in worker threads through the Engine (PostgreSQL source, pushdown off)', () => {
  for (const [name, sql, groups] of [
    [
      'int and text keys, every aggregate kind',
      `SELECT k, region, count(*), count(price), sum(amount), avg(amount), min(amount), max(amount), sum(qty), avg(qty), max(qty),
              min(d), max(d), max(price), min(price), count(DISTINCT d), sum(amount) FILTER (WHERE price > 10)
         FROM pg.sales GROUP BY k, region`,
      38 * 5,
    ],
    ['float keys with NaN and -0', `SELECT price, count(*), sum(amount) FROM pg.sales GROUP BY price`, 96],
    ['no GROUP BY', `SELECT count(*), sum(amount), avg(qty), min(region), max(d) FROM pg.sales`, 1],
  ] as const) {
    it(`${name}: exactly the in-thread rows`, async () => {
      const expected = await rows(inThread, sql);
      const got = await rows(withWorkers, sql);
      expect(got.length).toBe(groups);
      expect(bag(got)).toEqual(bag(expected));
      expect(await workersDetail(sql)).toMatch(/, in worker threads \(\d+ chunks\)/);
      const plain = await inThread.explain(sql, { pushdown: false, analyze: true });
      expect(aggregateNode(plain.plan)?.detail).not.toContain('worker');
    });
  }

  // the expected values are PostgreSQL's own answer to the same aggregate
  it('the global aggregate matches PostgreSQL', async () => {
    expect(await rows(withWorkers, `SELECT count(*), sum(amount), sum(qty) FROM pg.sales`)).toEqual([[150_000n, '764250.00', '11250108750225000']]);
  });
});
