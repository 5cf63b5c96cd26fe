import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Row } from '@junction/connectors';
import { createMysqlDatabase, createPgDatabase, registered, type TestDatabase } from '../../test/support/databases.js';
import { Engine } from '../engine.js';
import type { AccessPolicy, QueryOptions, QueryResult, QueryStats } from '../api.js';

let pgDb: TestDatabase;
let myDb: TestDatabase;
let engine: Engine;

async function drain(r: QueryResult): Promise<{ rows: Row[]; stats: QueryStats }> {
  const rows: Row[] = [];
  for await (const b of r.rows) rows.push(...b);
  return { rows, stats: r.stats() };
}

const run = async (sql: string, options: QueryOptions = {}) => drain(await engine.query(sql, options));

beforeAll(async () => {
  pgDb = await createPgDatabase('rcache');
  myDb = await createMysqlDatabase('rcache');
  await pgDb.exec(`CREATE TABLE customer (c_id integer PRIMARY KEY, c_name varchar(20) NOT NULL, c_nation integer)`);
  await pgDb.exec(`INSERT INTO customer VALUES (1, 'ann', 1), (2, 'bob', 2), (3, 'cy', NULL), (4, 'dee', 1)`);
  await myDb.exec(`CREATE TABLE nation (n_id int PRIMARY KEY, n_name varchar(20) NOT NULL)`);
  await myDb.exec(`INSERT INTO nation VALUES (1, 'FRANCE'), (2, 'PERU'), (3, 'CHAD')`);
  await myDb.exec(`CREATE TABLE orders (o_id int PRIMARY KEY, o_cust int)`);
  await myDb.exec(`INSERT INTO orders VALUES (10, 1), (11, 2)`);
  engine = new Engine({ workers: 0 });
  engine.addSource(await registered(pgDb, 'pg'));
  engine.addSource(await registered(myDb, 'my', { fragmentCache: { ttlSeconds: 60, tables: ['nation'] } }));
});

afterAll(async () => {
  await engine?.close();
  await pgDb?.drop();
  await myDb?.drop();
});

const JOIN = `SELECT c.c_name, n.n_name FROM pg.customer c JOIN my.nation n ON n.n_id = c.c_nation ORDER BY c.c_name`;

describe('result cache', () => {
  it('is off without a hint; a hinted statement misses, then hits with the same rows and no source statement', async () => {
    expect((await run(JOIN)).stats.cache).toBe('off');
    engine.purgeCache();
    const sql = `/*+ cache(ttl=60) */ ${JOIN}`;
    const first = await run(sql);
    expect(first.stats.cache).toBe('miss');
    expect(first.rows).toEqual([['ann', 'FRANCE'], ['bob', 'PERU'], ['dee', 'FRANCE']]);
    // reformatted and with another comment: the same normalized statement
    const second = await run(`/*+ cache(ttl=60) */\n  ${JOIN.replace(/ /g, '   ')} -- again`);
    expect(second.stats.cache).toBe('hit');
    expect(second.stats.cacheAgeMs).toBeGreaterThanOrEqual(0);
    expect(second.stats.sourceStatements).toEqual([]);
    expect(second.rows).toEqual(first.rows);
    const { results } = engine.cacheStats();
    expect(results).toMatchObject({ hits: 1, misses: 1, entries: 1, admissions: 1 });
  });

  it('keys on parameters', async () => {
    engine.purgeCache();
    const sql = `/*+ cache(ttl=60) */ SELECT c_name FROM pg.customer WHERE c_id = $1`;
    expect((await run(sql, { params: [1] })).rows).toEqual([['ann']]);
    const two = await run(sql, { params: [2] });
    expect(two).toMatchObject({ rows: [['bob']], stats: { cache: 'miss' } });
    expect(await run(sql, { params: [1] })).toMatchObject({ rows: [['ann']], stats: { cache: 'hit' } });
  });

  it('a statement whose nested comment hides a conjunct does not plant its rows for the statement that has it', async () => {
    engine.purgeCache();
    const sorted = (rows: Row[]) => rows.map((r) => String(r[0])).sort();
    // block comments nest: "AND c_id = 4" is inside the comment, so this reads every c_nation = 1 row
    const poison = `/*+ cache(ttl=60) */ SELECT c_name FROM pg.customer WHERE c_nation = 1 /* /* */ AND c_id = 4 --*/`;
    const planted = await run(poison);
    expect(planted.stats.cache).toBe('miss');
    expect(sorted(planted.rows)).toEqual(['ann', 'dee']);
    const victim = await run(`/*+ cache(ttl=60) */ SELECT c_name FROM pg.customer WHERE c_nation = 1 AND c_id = 4`);
    expect(victim).toMatchObject({ rows: [['dee']], stats: { cache: 'miss' } });
    // what the parser saw is what is shared: the statement without the comment is the same one
    const same = await run(`/*+ cache(ttl=60) */ select c_name from pg.customer where c_nation = 1`);
    expect(same.stats.cache).toBe('hit');
    expect(sorted(same.rows)).toEqual(['ann', 'dee']);
  });

  it('a caller without the grant is refused even though the answer is cached; callers whose grants admit it share it', async () => {
    engine.purgeCache();
    const sql = `/*+ cache(ttl=60) */ SELECT c_name FROM pg.customer WHERE c_id = 4`;
    const all: AccessPolicy = { key: 'all', canReadSource: () => true, canReadView: () => true };
    const onlyPg: AccessPolicy = { key: 'pg', canReadSource: (s) => s === 'pg', canReadView: () => false };
    const onlyMy: AccessPolicy = { key: 'my', canReadSource: (s) => s === 'my', canReadView: () => false };
    expect((await run(sql, { access: all })).stats.cache).toBe('miss');
    const hits = engine.cacheStats().results.hits;
    expect(await run(sql, { access: onlyPg })).toMatchObject({ rows: [['dee']], stats: { cache: 'hit' } });
    await expect(run(sql, { access: onlyMy })).rejects.toMatchObject({ code: 'access_denied', kind: 'forbidden' });
    expect(engine.cacheStats().results.hits).toBe(hits + 1);
  });

  it('honours max_staleness of the reader and the TTL of the entry', async () => {
    engine.purgeCache();
    const base = `SELECT count(*) FROM pg.customer`;
    expect((await run(`/*+ cache(ttl=60) */ ${base}`)).stats.cache).toBe('miss');
    await new Promise((r) => setTimeout(r, 1100));
    // this reader accepts nothing older than 1 s: it runs the statement and stores the fresh answer
    expect((await run(`/*+ cache(ttl=60, max_staleness=1) */ ${base}`)).stats.cache).toBe('miss');
    expect((await run(`/*+ cache(ttl=60, max_staleness=1) */ ${base}`)).stats.cache).toBe('hit');
    const short = `/*+ cache(ttl=1) */ SELECT c_id FROM pg.customer WHERE c_id < 3 ORDER BY 1`;
    expect((await run(short)).stats.cache).toBe('miss');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await run(short)).stats.cache).toBe('miss');
  });

  it('caches nothing from a run that failed, was cancelled or was not read to the end', async () => {
    engine.purgeCache();
    const sql = `/*+ cache(ttl=60) */ SELECT c_id FROM pg.customer ORDER BY c_id`;
    const admitted = engine.cacheStats().results.admissions;
    await expect(run(sql, { maxRows: 2 })).rejects.toMatchObject({ code: 'max_rows_exceeded' });
    const r = await engine.query(sql);
    r.cancel('test');
    await expect(drain(r)).rejects.toMatchObject({ kind: 'cancelled' });
    const partial = await engine.query(sql);
    for await (const _ of partial.rows) break;
    expect(engine.cacheStats().results).toMatchObject({ entries: 0, admissions: admitted });
    expect((await run(sql)).stats.cache).toBe('miss');
    // a stored answer still obeys the caller's row limit
    await expect(run(sql, { maxRows: 2 })).rejects.toMatchObject({ code: 'max_rows_exceeded' });
    expect(await run(sql, { maxRows: 4 })).toMatchObject({ rows: [[1], [2], [3], [4]], stats: { cache: 'hit' } });
  });

  it("'off' runs the statement even when it asks for the cache", async () => {
    const sql = `/*+ cache(ttl=60) */ SELECT c_id FROM pg.customer ORDER BY c_id`;
    await run(sql);
    expect((await run(sql, { cache: 'off' })).stats.cache).toBe('off');
  });

  it('rejects a malformed hint with a clear error', async () => {
    await expect(run(`/*+ cache(tll=5) */ SELECT 1`)).rejects.toMatchObject({ code: 'invalid_cache_hint', kind: 'user' });
    await expect(run(`/*+ cache(ttl=0) */ SELECT 1`)).rejects.toMatchObject({ code: 'invalid_cache_hint' });
  });

  it('a view with a hint opts in the statements that read only such views; changing the view drops its results', async () => {
    engine.purgeCache();
    engine.setView({ schema: 'sales', name: 'named', sql: `/*+ cache(ttl=60) */ SELECT c_id, c_name FROM pg.customer WHERE c_nation IS NOT NULL` });
    engine.setView({ schema: 'sales', name: 'top', sql: `SELECT c_name FROM sales.named WHERE c_id < 3` });
    const viaView = `SELECT c_name FROM sales.named ORDER BY 1`;
    expect((await run(viaView)).stats.cache).toBe('miss');
    expect((await run(viaView)).stats.cache).toBe('hit');
    // a hinted statement over a view that reads the changed view
    const nested = `/*+ cache(ttl=60) */ SELECT * FROM sales.top ORDER BY 1`;
    expect(await run(nested)).toMatchObject({ rows: [['ann'], ['bob']], stats: { cache: 'miss' } });
    expect((await run(nested)).stats.cache).toBe('hit');
    expect((await run(`SELECT named.c_name FROM sales.named, pg.customer c2 WHERE c2.c_id = 1 ORDER BY 1`)).stats.cache).toBe('off');
    engine.setView({ schema: 'sales', name: 'named', sql: `/*+ cache(ttl=60) */ SELECT c_id, c_name FROM pg.customer WHERE c_nation = 1` });
    expect(await run(viaView)).toMatchObject({ rows: [['ann'], ['dee']], stats: { cache: 'miss' } });
    expect(await run(nested)).toMatchObject({ rows: [['ann']], stats: { cache: 'miss' } });
    expect(() => engine.setView({ schema: 'sales', name: 'bad', sql: `/*+ cache(ttl=x) */ SELECT 1` })).toThrow(/cache hint/);
    engine.dropView('sales', 'top');
    engine.dropView('sales', 'named');
  });

  it('removing or refreshing a source drops what read it; purge per source leaves the rest', async () => {
    engine.purgeCache();
    const onPg = `/*+ cache(ttl=60) */ SELECT c_id FROM pg.customer WHERE c_id = 1`;
    const onMy = `/*+ cache(ttl=60) */ SELECT o_id FROM my.orders ORDER BY 1`;
    await run(onPg);
    await run(onMy);
    expect(engine.purgeCache({ source: 'pg' })).toBe(1);
    expect((await run(onPg)).stats.cache).toBe('miss');
    expect((await run(onMy)).stats.cache).toBe('hit');
    const my = await registered(myDb, 'my2');
    engine.addSource(my);
    const onMy2 = `/*+ cache(ttl=60) */ SELECT o_id FROM my2.orders ORDER BY 1`;
    await run(onMy2);
    engine.refreshSource('my2', my.catalog);
    expect((await run(onMy2)).stats.cache).toBe('miss');
    engine.removeSource('my2');
    expect(engine.cacheEntries().results.some((e) => e.deps.sources.includes('my2'))).toBe(false);
  });

  it('EXPLAIN says the answer would come from the cache and how old it is', async () => {
    engine.purgeCache();
    const sql = `/*+ cache(ttl=60) */ SELECT c_name FROM pg.customer WHERE c_id = 2`;
    expect((await engine.explain(sql)).cache).toBeUndefined();
    await run(sql);
    const e = await engine.explain(sql);
    expect(e.cache?.ageMs).toBeGreaterThanOrEqual(0);
    expect(e.text.split('\n')[0]).toMatch(/^Served from cache, \d+ s old$/);
    expect(e.text.split('\n')[1]).toBe('RemoteQuery [pg]');
  });
});

describe('fragment cache', () => {
  it('reuses the fragment of a table the source marked cacheable across different federated queries', async () => {
    engine.purgeCache();
    const before = engine.cacheStats().fragments;
    const a = await run(JOIN);
    expect(a.stats.sourceStatements.map((s) => s.source).sort()).toEqual(['my', 'pg']);
    const b = await run(`SELECT n.n_name, count(*) FROM pg.customer c JOIN my.nation n ON n.n_id = c.c_nation GROUP BY n.n_name ORDER BY 1`);
    expect(b.rows).toEqual([['FRANCE', 2n], ['PERU', 1n]]);
    expect(b.stats.sourceStatements.map((s) => s.source)).toEqual(['pg']); // nation came from the cache
    expect((await engine.explain(JOIN)).text.split('\n')[0]).toMatch(/^Fragment my: SELECT .*nation.* served from cache, \d+ s old$/);
    expect(engine.cacheStats().fragments).toMatchObject({ hits: before.hits + 1, misses: before.misses + 1, entries: 1 });
    // orders is not marked cacheable: read every time
    await run(`SELECT c.c_name FROM pg.customer c JOIN my.orders o ON o.o_cust = c.c_id`);
    await run(`SELECT c.c_name FROM pg.customer c JOIN my.orders o ON o.o_cust = c.c_id`);
    expect(engine.cacheStats().fragments.entries).toBe(1);
    expect(engine.purgeCache({ source: 'my' })).toBe(1);
    expect((await run(JOIN)).stats.sourceStatements.map((s) => s.source).sort()).toEqual(['my', 'pg']);
  });
});
