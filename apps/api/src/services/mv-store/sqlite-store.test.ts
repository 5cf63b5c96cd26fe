import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../../test/harness.js';

/**
 * The single server's store keeps a decimal's exact digits and scale, and every query over a
 * materialization answers what the view's definition answers, whatever the planner sends to the
 * store.
 */
let h: Harness;
let db: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  db = await createPgDatabase('api_mv_sqlite_dec');
  await pgExec(
    db.url,
    `CREATE TABLE public.amounts (id int PRIMARY KEY, g int, amt numeric(15,2), big numeric(38,10), free numeric);
     INSERT INTO public.amounts VALUES
       (1, 1, 1909572716.10, 1234567890123456789012345678.0123456789, 1.10),
       (2, 1, 9.00, -0.0000000001, 1.1),
       (3, 2, 10.00, 9999999999999999999999999999.9999999999, 2.50),
       (4, 2, -5.25, 0, NULL),
       (5, 3, NULL, 12345678901234567890.5, 100)`,
  );
  h = await startHarness();
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', db) })).statusCode).toBe(201);
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'rep' } })).statusCode).toBe(201);
  for (const [name, sql] of [
    ['amounts', 'SELECT id, g, amt, big, free FROM src.amounts'],
    ['totals', 'SELECT g, sum(amt) AS total, sum(big) AS big_total FROM src.amounts GROUP BY g'],
  ]) {
    const v = await h.as('admin', { method: 'POST', url: '/api/v1/views', payload: { schema: 'rep', name, sql } });
    expect(v.statusCode, v.body).toBe(201);
  }
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

const query = async (sql: string) => {
  const res = await h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().rows as unknown[][];
};
const firstPlanLine = async (sql: string) => (await h.as('admin', { method: 'POST', url: '/api/v1/explain', payload: { sql } })).json().text.split('\n')[0] as string;
const materialize = async (name: string) => {
  expect((await h.as('admin', { method: 'PUT', url: `/api/v1/materializations/rep/${name}`, payload: { intervalSeconds: null, maxStalenessSeconds: 3600 } })).statusCode).toBe(200);
  const r = await h.as('admin', { method: 'POST', url: `/api/v1/materializations/rep/${name}/refresh` });
  expect(r.json(), r.body).toMatchObject({ status: 'ok' });
};

/** queries whose answer a decimal compared, sorted or summed as text (or as a double) would change */
const QUERIES = [
  'SELECT * FROM rep.amounts ORDER BY id',
  // as text, '10.00' < '9.50' and '-5.25' > '-0.01'
  'SELECT id FROM rep.amounts WHERE amt > 9.5 ORDER BY id',
  'SELECT id FROM rep.amounts WHERE amt < -0.01 OR big < 0 ORDER BY id',
  'SELECT id, amt FROM rep.amounts ORDER BY amt DESC NULLS LAST, id',
  'SELECT id FROM rep.amounts WHERE amt = 9 ORDER BY id',
  'SELECT g, count(*) AS n, sum(amt) AS s, min(amt) AS lo, max(amt) AS hi, sum(big) AS b, min(big) AS blo, max(big) AS bhi FROM rep.amounts GROUP BY g ORDER BY g',
  // 1.10 and 1.1 are one value
  'SELECT free, count(*) AS n FROM rep.amounts GROUP BY free ORDER BY free',
  'SELECT DISTINCT free FROM rep.amounts WHERE free IS NOT NULL ORDER BY free DESC',
  'SELECT sum(amt) AS s, avg(amt) AS a, max(big) AS m FROM rep.amounts',
  'SELECT * FROM rep.totals ORDER BY g',
  'SELECT g FROM rep.totals WHERE total > 9 ORDER BY total',
];

describe('exact decimals in the SQLite store', () => {
  it('SQLite itself turns a DECIMAL column value 1909572716.10 into 1909572716.1 (the old store declared DECIMAL)', () => {
    const raw = new Database(':memory:');
    raw.exec(`CREATE TABLE t (d DECIMAL(15,2), n DECIMAL)`);
    raw.prepare('INSERT INTO t VALUES (?, ?)').run('1909572716.10', '1234567890123456789012345678.0123456789');
    // doubles: the scale and all but ~17 digits are gone
    expect(raw.prepare('SELECT d, n FROM t').raw().get()).toEqual([1909572716.1, Number('1234567890123456789012345678.0123456789')]);
    expect(String(raw.prepare('SELECT n FROM t').pluck().get())).toBe('1.2345678901234569e+27');
    raw.close();
  });

  it('a materialization reads back every digit and scale, and each query over it answers what the definition answers', async () => {
    const definition = await Promise.all(QUERIES.map(query));
    expect(definition[0]).toEqual([
      [1, 1, '1909572716.10', '1234567890123456789012345678.0123456789', '1.10'],
      [2, 1, '9.00', '-0.0000000001', '1.1'],
      [3, 2, '10.00', '9999999999999999999999999999.9999999999', '2.50'],
      [4, 2, '-5.25', '0.0000000000', null],
      [5, 3, null, '12345678901234567890.5000000000', '100'],
    ]);
    expect(definition[9]).toEqual([
      [1, '1909572725.10', '1234567890123456789012345678.0123456788'],
      [2, '4.75', '9999999999999999999999999999.9999999999'],
      [3, null, '12345678901234567890.5000000000'],
    ]);
    await materialize('amounts');
    await materialize('totals');
    for (const v of ['amounts', 'totals'])
      expect(await firstPlanLine(`SELECT * FROM rep.${v}`)).toMatch(new RegExp(`^Materialized view rep\\.${v} read from its stored rows`));
    // the source moves on: what follows can only come from the stored rows
    await pgExec(db.url, 'DELETE FROM public.amounts');
    for (const [i, sql] of QUERIES.entries()) expect(await query(sql), sql).toEqual(definition[i]);
    // the comparison is Junction's: the store is asked for the text, never to compare it
    const res = await h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: QUERIES[1] } });
    const sent = res.json().stats.sourceStatements as { source: string; sql: string }[];
    expect(sent.map((s) => s.source)).toEqual(['junction_mv']);
    expect(sent[0].sql).not.toMatch(/WHERE|ORDER BY/);

    // the store holds the digits as text, not a double
    const store = new Database(h.app.materializer.file, { readonly: true });
    try {
      const tbl = store.prepare(`SELECT tbl FROM _junction_materializations WHERE view = 'rep.totals'`).pluck().get() as string;
      expect(store.prepare(`SELECT typeof(total), total FROM "${tbl}" WHERE g = 1`).raw().get()).toEqual(['text', '1909572725.10']);
    } finally {
      store.close();
    }
  });
});
