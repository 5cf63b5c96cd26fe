import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

/**
 * Saved queries are listed to a caller only when the caller could run them: a shared query over
 * a source the viewer has no grant on names that source in its title and would only fail.
 */
let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
const ids: Record<string, string> = {};

const names = async (role: 'admin' | 'analyst' | 'viewer') =>
  ((await h.as(role, { method: 'GET', url: '/api/v1/saved-queries' })).json() as { name: string }[]).map((q) => q.name);

beforeAll(async () => {
  pgdb = await createPgDatabase('api_saved');
  await pgExec(pgdb.url, `CREATE TABLE public.items (id int PRIMARY KEY, label text); INSERT INTO public.items VALUES (1, 'a'), (2, 'b');`);
  h = await startHarness();
  for (const name of ['opensrc', 'secretsrc'])
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload(name, pgdb) })).statusCode).toBe(201);
  for (const role of ['analyst', 'viewer'])
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role, sourceName: 'opensrc' } });
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'secretsrc' } });
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'pub' } })).statusCode).toBe(201);
  const view = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/views',
    payload: { schema: 'pub', name: 'secret_labels', sql: 'SELECT id, label FROM secretsrc.items' },
  });
  expect(view.statusCode).toBe(201);
  ids.view = view.json().id;
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'viewer', viewSchema: 'pub', viewName: 'secret_labels' } });
  const save = async (name: string, sql: string, params?: unknown[]) => {
    const r = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name, sql, shared: true, ...(params ? { params } : {}) },
    });
    expect(r.statusCode).toBe(201);
    ids[name] = r.json().id;
  };
  await save('open items', 'SELECT id FROM opensrc.items ORDER BY id');
  await save('secret items', 'SELECT label FROM secretsrc.items');
  await save('secret join', 'SELECT o.id FROM opensrc.items o JOIN secretsrc.items s ON s.id = o.id');
  // parameters: with defaults, and without (binding still decides what is read)
  await save('secret by id', 'SELECT label FROM secretsrc.items WHERE id = $1', [1]);
  await save('secret by id, no default', 'SELECT label FROM secretsrc.items WHERE id = $1');
  await save('open by id, no default', 'SELECT label FROM opensrc.items WHERE id = $1');
  // through a granted view, which reads the ungranted source with the view's rights
  await save('through the view', 'SELECT label FROM pub.secret_labels');
}, 60_000);

afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

describe('saved queries the caller cannot run', () => {
  it('are not listed to a viewer without a grant on what they read', async () => {
    expect(await names('viewer')).toEqual(['open by id, no default', 'open items', 'through the view']);
  });

  it('are listed to those who may read it all', async () => {
    const all = ['open by id, no default', 'open items', 'secret by id', 'secret by id, no default', 'secret items', 'secret join', 'through the view'];
    expect(await names('analyst')).toEqual(all);
    expect(await names('admin')).toEqual(all);
  });

  it('are 404 to that viewer, read or run, and the others still run', async () => {
    for (const name of ['secret items', 'secret join', 'secret by id']) {
      expect((await h.as('viewer', { method: 'GET', url: `/api/v1/saved-queries/${ids[name]}` })).statusCode).toBe(404);
      const run = await h.as('viewer', { method: 'POST', url: `/api/v1/saved-queries/${ids[name]}/run`, payload: {} });
      expect(run.statusCode).toBe(404);
    }
    expect((await h.as('viewer', { method: 'GET', url: `/api/v1/saved-queries/${ids['open items']}` })).statusCode).toBe(200);
    const run = await h.as('viewer', { method: 'POST', url: `/api/v1/saved-queries/${ids['open items']}/run`, payload: {} });
    expect(run.statusCode).toBe(200);
    expect(run.json().rows).toEqual([[1], [2]]);
    const viaView = await h.as('viewer', { method: 'POST', url: `/api/v1/saved-queries/${ids['through the view']}/run`, payload: {} });
    expect(viaView.statusCode).toBe(200);
    expect((await h.as('analyst', { method: 'GET', url: `/api/v1/saved-queries/${ids['secret items']}` })).statusCode).toBe(200);
  });

  it('a viewer runs a granted view by its run route', async () => {
    const run = await h.as('viewer', { method: 'POST', url: `/api/v1/views/${ids.view}/run`, payload: {} });
    expect(run.statusCode).toBe(200);
    expect(run.json().rows).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });
});
