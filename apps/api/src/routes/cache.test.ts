import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let db: Awaited<ReturnType<typeof createPgDatabase>>;
let dims: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  db = await createPgDatabase('api_cache');
  dims = await createPgDatabase('api_cache_dims');
  await pgExec(
    db.url,
    `CREATE TABLE public.orders (id int PRIMARY KEY, nation int, total numeric(10,2));
     INSERT INTO public.orders SELECT g, 1 + g % 2, g * 1.5 FROM generate_series(1, 50) g;`,
  );
  await pgExec(dims.url, `CREATE TABLE public.nation (id int PRIMARY KEY, name text); INSERT INTO public.nation VALUES (1, 'FRANCE'), (2, 'PERU');`);
  h = await startHarness();
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('shop', db) })).statusCode).toBe(201);
  const withCache = { ...pgSourcePayload('dims', dims), options: { fragmentCache: { ttlSeconds: 300, tables: ['nation'] } } };
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: withCache })).statusCode).toBe(201);
  // analysts may read shop (not dims); viewers may read nothing
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'shop' } });
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
  await dims?.drop();
});

const query = (role: 'admin' | 'analyst' | 'viewer', sql: string, extra: Record<string, unknown> = {}) =>
  h.as(role, { method: 'POST', url: '/api/v1/query', payload: { sql, ...extra } });
const cache = async () => (await h.as('admin', { method: 'GET', url: '/api/v1/cache' })).json();
const purge = (payload: Record<string, unknown> = {}) => h.as('admin', { method: 'POST', url: '/api/v1/cache/purge', payload });

const TOTALS = `/*+ cache(ttl=300) */ SELECT nation, sum(total) AS total FROM shop.orders GROUP BY nation ORDER BY nation`;

describe('result cache through the API', () => {
  it('stats.cache says off, miss, then hit with the age; a second user with the same grant shares the entry', async () => {
    await purge();
    const plain = await query('analyst', 'SELECT count(*) FROM shop.orders');
    expect(plain.json().stats.cache).toBe('off');
    const first = await query('admin', TOTALS);
    expect(first.statusCode).toBe(200);
    expect(first.json().stats).toMatchObject({ cache: 'miss' });
    expect(first.json().rows).toEqual([[1, '975.00'], [2, '937.50']]);
    const second = await query('analyst', TOTALS);
    expect(second.json().stats).toMatchObject({ cache: 'hit', sourceStatements: [] });
    expect(second.json().stats.cacheAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(second.json().rows).toEqual(first.json().rows);
    // NDJSON gets the same stats line
    const nd = await h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: TOTALS }, headers: { accept: 'application/x-ndjson' } });
    expect(JSON.parse(nd.body.trim().split('\n').pop()!).stats.cache).toBe('hit');
  });

  it('a user without the grant gets 403 even though the answer is cached', async () => {
    await query('admin', TOTALS);
    const denied = await query('viewer', TOTALS);
    // viewers may not run ad hoc SQL at all: give one an analyst's query scope but not the grant
    expect(denied.statusCode).toBe(403);
    await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${await grantId('analyst', 'shop')}` });
    const noGrant = await query('analyst', TOTALS);
    expect(noGrant.statusCode).toBe(403);
    expect(noGrant.json()).toMatchObject({ code: 'access_denied' });
    expect(JSON.stringify(noGrant.json())).not.toContain('975.00');
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'shop' } });
    expect((await query('analyst', TOTALS)).json().stats.cache).toBe('hit');
  });

  it('EXPLAIN says the answer is served from cache and how old it is', async () => {
    await query('admin', TOTALS);
    const res = await h.as('analyst', { method: 'POST', url: '/api/v1/explain', payload: { sql: TOTALS } });
    expect(res.statusCode).toBe(200);
    expect(res.json().text.split('\n')[0]).toMatch(/^Served from cache, \d+ s old$/);
    expect(res.json().cache.ageSeconds).toBeGreaterThanOrEqual(0);
  });

  it('purge per source, per view and all; a view change drops the results that read it', async () => {
    await purge();
    expect((await h.as('analyst', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'rep' } })).statusCode).toBe(201);
    const created = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'rep', name: 'big', sql: '/*+ cache(ttl=300) */ SELECT id, total FROM shop.orders WHERE total > 70' },
    });
    expect(created.statusCode).toBe(201);
    const viaView = 'SELECT count(*) AS n FROM rep.big';
    expect((await query('admin', viaView)).json()).toMatchObject({ rows: [['4']], stats: { cache: 'miss' } });
    expect((await query('admin', viaView)).json().stats.cache).toBe('hit');
    await query('admin', TOTALS);
    let c = await cache();
    expect(c.results.stats.entries).toBe(2);
    expect(c.results.entries.map((e: { views: string[] }) => e.views)).toEqual([[], ['rep.big']]);
    // editing the view drops its results at once
    const patched = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/views/${created.json().id}`,
      payload: { sql: '/*+ cache(ttl=300) */ SELECT id, total FROM shop.orders WHERE total > 60' },
    });
    expect(patched.statusCode).toBe(200);
    expect((await query('admin', viaView)).json()).toMatchObject({ rows: [['10']], stats: { cache: 'miss' } });
    expect((await purge({ view: 'rep.big' })).json()).toEqual({ purged: 1 });
    expect((await purge({ source: 'shop' })).json()).toEqual({ purged: 1 });
    c = await cache();
    expect(c.results.stats.entries).toBe(0);
    await query('admin', TOTALS);
    expect((await purge()).json()).toEqual({ purged: 1 });
    expect((await purge({ source: 'shop', view: 'rep.big' })).statusCode).toBe(400);
    expect((await purge({ view: 'nodot' })).statusCode).toBe(400);
  });

  it('refreshing a source drops what read it', async () => {
    await purge();
    await query('admin', TOTALS);
    const id = (await h.as('admin', { method: 'GET', url: '/api/v1/sources' })).json().find((s: { name: string }) => s.name === 'shop').id;
    expect((await h.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/refresh` })).statusCode).toBe(200);
    expect((await query('admin', TOTALS)).json().stats.cache).toBe('miss');
  });

  it('reuses fragments of tables a source marked cacheable, and shows them', async () => {
    await purge();
    const join = `SELECT n.name, count(*) FROM shop.orders o JOIN dims.nation n ON n.id = o.nation GROUP BY n.name ORDER BY 1`;
    const a = await query('admin', join);
    expect(a.json().rows).toEqual([['FRANCE', '25'], ['PERU', '25']]);
    const b = await query('admin', `SELECT n.name, max(o.total) FROM shop.orders o JOIN dims.nation n ON n.id = o.nation GROUP BY n.name ORDER BY 1`);
    expect(b.json().stats.sourceStatements.map((s: { source: string }) => s.source)).toEqual(['shop']);
    const c = await cache();
    expect(c.fragments.stats).toMatchObject({ entries: 1, hits: 1 });
    expect(c.fragments.entries[0]).toMatchObject({ sources: ['dims'], where: 'memory', rows: 2 });
    expect(c.fragments.entries[0].label).toMatch(/^dims: SELECT/);
  });

  it('is for admins only', async () => {
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/cache' })).statusCode).toBe(403);
    expect((await h.as('analyst', { method: 'POST', url: '/api/v1/cache/purge', payload: {} })).statusCode).toBe(403);
  });
});

async function grantId(role: string, sourceName: string): Promise<string> {
  const grants = (await h.as('admin', { method: 'GET', url: '/api/v1/grants' })).json() as { id: string; role: string | null; sourceName: string | null }[];
  return grants.find((g) => g.role === role && g.sourceName === sourceName)!.id;
}
