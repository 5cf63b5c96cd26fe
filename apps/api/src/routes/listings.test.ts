import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';
import { ROUTE_PERMISSIONS } from '../lib/route-permissions.js';
import { sha256 } from '../lib/secrets.js';

/**
 * Everything the viewer and the second analyst must not learn carries "hush" in its name: a
 * source without grants, a schema and view over it, a private saved query, a token, history.
 */
let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let analyst2 = '';
let analyst2Id = '';
const ids: Record<string, string> = {};

const bearer = (token: string, method: string, url: string, payload?: unknown) =>
  h.app.inject({
    method: method as 'GET',
    url,
    ...(payload !== undefined ? { payload: payload as object } : {}),
    headers: { authorization: `Bearer ${token}` },
  });

beforeAll(async () => {
  pgdb = await createPgDatabase('api_listing');
  await pgExec(pgdb.url, `CREATE TABLE public.items (id int PRIMARY KEY, label text); INSERT INTO public.items VALUES (1, 'a');`);
  h = await startHarness();
  for (const name of ['opensrc', 'hushsrc']) {
    const res = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload(name, pgdb),
    });
    expect(res.statusCode).toBe(201);
  }
  for (const role of ['analyst', 'viewer'])
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role, sourceName: 'opensrc' } });
  for (const schema of ['pub', 'hushschema'])
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: schema } })).statusCode).toBe(201);
  // publishing into a schema takes a design grant on it
  await h.as('admin', {
    method: 'POST',
    url: '/api/v1/grants',
    payload: { userId: h.userIds.analyst, viewSchema: 'pub', privilege: 'design' },
  });
  const hushView = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/views',
    payload: { schema: 'hushschema', name: 'hushview', sql: 'SELECT id FROM hushsrc.items' },
  });
  expect(hushView.statusCode).toBe(201);
  ids.hushView = hushView.json().id;
  // the analyst's own view over a granted source, and a private saved query, token and history entry
  const mine = await h.as('analyst', {
    method: 'POST',
    url: '/api/v1/views',
    payload: { schema: 'pub', name: 'items_v', sql: 'SELECT id, label FROM opensrc.items' },
  });
  expect(mine.statusCode).toBe(201);
  ids.analystView = mine.json().id;
  const priv = await h.as('analyst', {
    method: 'POST',
    url: '/api/v1/saved-queries',
    payload: { name: 'hushquery', sql: "SELECT 'hush' AS x" },
  });
  ids.privateQuery = priv.json().id;
  const shared = await h.as('analyst', {
    method: 'POST',
    url: '/api/v1/saved-queries',
    payload: { name: 'shared one', sql: 'SELECT 1 AS x', shared: true },
  });
  ids.sharedQuery = shared.json().id;
  expect((await h.as('analyst', { method: 'POST', url: '/api/v1/tokens', payload: { name: 'hushtoken', scopes: ['read'] } })).statusCode).toBe(201);
  expect((await h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: "SELECT 'hushhistory' AS x" } })).statusCode).toBe(200);
  // a second analyst, with the same role grants as the first
  const created = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/users',
    payload: { username: 'analyst2', password: 'analyst2-password', role: 'analyst' },
  });
  analyst2Id = created.json().id;
  analyst2 = `jct_test_${randomUUID()}`;
  await h.meta.db.apiToken.create({
    data: {
      id: randomUUID(),
      userId: analyst2Id,
      name: 'a2',
      tokenHash: sha256(analyst2),
      prefix: analyst2.slice(0, 10),
      scopes: JSON.stringify(['design']),
    },
  });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

describe('every listing filters by grants', () => {
  // the listings: GET routes without path parameters, from the route table (a new one is covered)
  const listings = Object.keys(ROUTE_PERMISSIONS)
    .filter((k) => k.startsWith('GET ') && !k.includes(':'))
    .map((k) => k.slice(4));
  const queryOf: Record<string, string> = { '/api/v1/catalog/search': '?q=' };

  it.each(listings)('GET %s shows a viewer and another analyst nothing of what they may not see', async (url) => {
    const access = ROUTE_PERMISSIONS[`GET ${url}`];
    const full = url + (queryOf[url] !== undefined ? `${queryOf[url]}i` : '');
    for (const [who, send] of [
      ['viewer', () => h.as('viewer', { method: 'GET', url: full })],
      ['analyst2', () => bearer(analyst2, 'GET', full)],
    ] as const) {
      const res = await send();
      if (access === 'admin') {
        expect(res.statusCode, who).toBe(403);
        continue;
      }
      expect(res.statusCode, `${who}: ${res.body}`).toBe(200);
      expect(res.body.toLowerCase(), who).not.toContain('hush');
    }
  });

  it('while the admin sees the hidden objects in those same listings (the check above can fail)', async () => {
    const seen = async (url: string) => (await h.as('admin', { method: 'GET', url })).body;
    expect(await seen('/api/v1/sources')).toContain('hushsrc');
    expect(await seen('/api/v1/catalog')).toContain('hushsrc');
    expect(await seen('/api/v1/catalog/search?q=i')).toContain('hushsrc');
    expect(await seen('/api/v1/schemas')).toContain('hushschema');
    expect(await seen('/api/v1/views')).toContain('hushview');
    const graph = JSON.parse(await seen('/api/v1/views/graph'));
    expect(graph.nodes.map((n: { id: string }) => n.id)).toEqual(
      expect.arrayContaining(['source:hushsrc', 'view:hushschema.hushview']),
    );
    expect(graph.edges).toContainEqual({ from: 'source:hushsrc', to: 'view:hushschema.hushview' });
    // the analyst's own lists hold their private things
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/saved-queries' })).body).toContain('hushquery');
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/tokens' })).body).toContain('hushtoken');
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/history' })).body).toContain('hushhistory');
  });

  it('the graph shows a viewer the granted source and nothing else', async () => {
    const graph = (await h.as('viewer', { method: 'GET', url: '/api/v1/views/graph' })).json();
    expect(graph).toEqual({ nodes: [{ id: 'source:opensrc', kind: 'source', label: 'opensrc' }], edges: [] });
    const analyst = (await bearer(analyst2, 'GET', '/api/v1/views/graph')).json();
    expect(analyst.nodes.map((n: { id: string }) => n.id).sort()).toEqual(['source:opensrc', 'view:pub.items_v']);
    expect(analyst.edges).toEqual([{ from: 'source:opensrc', to: 'view:pub.items_v' }]);
  });

  it('a view the caller may not see is 404 to read, change or delete', async () => {
    for (const [method, payload] of [
      ['GET', undefined],
      ['PATCH', { description: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await bearer(analyst2, method, `/api/v1/views/${ids.hushView}`, payload);
      expect(res.statusCode, method).toBe(404);
      expect(res.json().code).toBe('view_not_found');
    }
  });
});

describe("another user's objects", () => {
  it("another user's private saved query is 404 to read, run, change and delete; a shared one is 403 to change", async () => {
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['POST', '/run', {}],
      ['PATCH', '', { name: 'taken' }],
      ['DELETE', '', undefined],
    ] as const) {
      const res = await bearer(analyst2, method, `/api/v1/saved-queries/${ids.privateQuery}${suffix}`, payload);
      expect(res.statusCode, `${method}${suffix}`).toBe(404);
      expect(res.json().code).toBe('saved_query_not_found');
    }
    expect((await bearer(analyst2, 'GET', `/api/v1/saved-queries/${ids.sharedQuery}`)).statusCode).toBe(200);
    const change = await bearer(analyst2, 'PATCH', `/api/v1/saved-queries/${ids.sharedQuery}`, { name: 'taken' });
    expect(change.statusCode).toBe(403);
    expect(change.json().code).toBe('forbidden');
    expect((await bearer(analyst2, 'DELETE', `/api/v1/saved-queries/${ids.sharedQuery}`)).statusCode).toBe(403);
    // the owner still can
    expect(
      (await h.as('analyst', { method: 'PATCH', url: `/api/v1/saved-queries/${ids.privateQuery}`, payload: { name: 'hushquery2' } }))
        .statusCode,
    ).toBe(200);
  });

  it("an analyst cannot change another analyst's view until granted design on it", async () => {
    const url = `/api/v1/views/${ids.analystView}`;
    // analyst2 may read it (its SQL reads a granted source) but not change or delete it
    expect((await bearer(analyst2, 'GET', url)).statusCode).toBe(200);
    const patch = await bearer(analyst2, 'PATCH', url, { description: 'changed by analyst2' });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().code).toBe('forbidden');
    expect((await bearer(analyst2, 'DELETE', url)).statusCode).toBe(403);
    // a design grant needs a view schema
    const bad = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { userId: analyst2Id, sourceName: 'opensrc', privilege: 'design' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('grant_privilege');
    // a read grant on the schema is not enough
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { userId: analyst2Id, viewSchema: 'pub' } });
    expect((await bearer(analyst2, 'PATCH', url, { description: 'changed by analyst2' })).statusCode).toBe(403);
    const grant = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { userId: analyst2Id, viewSchema: 'pub', viewName: 'items_v', privilege: 'design' },
    });
    expect(grant.statusCode).toBe(201);
    expect(grant.json().privilege).toBe('design');
    const ok = await bearer(analyst2, 'PATCH', url, { description: 'changed by analyst2' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().description).toBe('changed by analyst2');
    // the creator (with design on pub) and the admin permission may
    expect((await h.as('analyst', { method: 'PATCH', url, payload: { description: 'back' } })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'PATCH', url, payload: { description: 'admin' } })).statusCode).toBe(200);
  });
});
