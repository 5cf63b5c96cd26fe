import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';
import { referencedNames } from './views.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  pgdb = await createPgDatabase('api_views');
  await pgExec(
    pgdb.url,
    `CREATE TABLE public.customer (c_custkey bigint PRIMARY KEY, c_name varchar(25), c_acctbal numeric(15,2)); INSERT INTO public.customer VALUES (1, 'Ann', 10.50), (2, 'Bob', -3.00), (3, 'Cy', 99.99);`,
  );
  h = await startHarness();
  const res = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/sources',
    payload: pgSourcePayload('crm', pgdb),
  });
  expect(res.statusCode).toBe(201);
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'crm' } });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

describe('referencedNames', () => {
  it('finds qualified names outside strings and comments, quoted or not', () => {
    expect(
      referencedNames(
        `SELECT a.x FROM crm.customer a JOIN "sales"."Big View" b ON 1=1 WHERE s = 'fake.name' -- other.thing`,
      ),
    ).toEqual([
      { qualifier: 'a', name: 'x' },
      { qualifier: 'crm', name: 'customer' },
      { qualifier: 'sales', name: 'Big View' },
    ]);
  });
});

describe('virtual schemas and views', () => {
  let viewId = '';
  it('creates a schema, validates SQL, stores a view with its layout and columns', async () => {
    const s = await h.as('analyst', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'sales' } });
    expect(s.statusCode).toBe(201);
    expect(
      (await h.as('analyst', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'sales' } })).statusCode,
    ).toBe(409);
    expect(
      (await h.as('analyst', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'crm' } })).json().code,
    ).toBe('name_taken');

    const ok = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views/validate',
      payload: { sql: 'SELECT c_custkey, c_acctbal FROM crm.customer WHERE c_acctbal > 0' },
    });
    expect(ok.json()).toEqual({
      ok: true,
      columns: [
        { name: 'c_custkey', type: 'int64', nullable: false },
        { name: 'c_acctbal', type: 'decimal(15,2)', nullable: true },
      ],
    });
    const bad = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views/validate',
      payload: { sql: 'SELECT nope FROM crm.customer' },
    });
    expect(bad.statusCode).toBe(200);
    expect(bad.json().ok).toBe(false);
    expect(bad.json().error.kind).toBe('user');

    const layout = { nodes: [{ id: 'crm.customer', x: 10, y: 20 }], edges: [] };
    const v = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: {
        schema: 'sales',
        name: 'good_customers',
        sql: 'SELECT c_custkey, c_name FROM crm.customer WHERE c_acctbal > 0',
        layout,
      },
    });
    expect(v.statusCode).toBe(201);
    viewId = v.json().id;
    expect(v.json()).toMatchObject({
      schema: 'sales',
      name: 'good_customers',
      layout,
      columns: [{ name: 'c_custkey' }, { name: 'c_name' }],
    });
    expect(
      (
        await h.as('analyst', {
          method: 'POST',
          url: '/api/v1/views',
          payload: { schema: 'sales', name: 'good_customers', sql: 'SELECT 1' },
        })
      ).statusCode,
    ).toBe(409);
    expect(
      (
        await h.as('analyst', {
          method: 'POST',
          url: '/api/v1/views',
          payload: { schema: 'nope', name: 'x', sql: 'SELECT 1' },
        })
      ).statusCode,
    ).toBe(404);
    const invalid = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'sales', name: 'broken', sql: 'SELECT nope FROM crm.customer' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(await h.meta.db.view.count()).toBe(1);
  });

  it('queries the view through SQL and through /views/:id/run', async () => {
    const q = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT c_name FROM sales.good_customers ORDER BY c_name' },
    });
    expect(q.json().rows).toEqual([['Ann'], ['Cy']]);
    const run = await h.as('analyst', { method: 'POST', url: `/api/v1/views/${viewId}/run`, payload: {} });
    expect(run.statusCode).toBe(200);
    expect(run.json().rows.length).toBe(2);
  });

  it('the catalog lists virtual schemas and their views beside the sources; search finds views and their columns', async () => {
    const tree = (await h.as('analyst', { method: 'GET', url: '/api/v1/catalog' })).json();
    expect(tree.map((s: { source: string; engine: string }) => [s.source, s.engine])).toEqual([
      ['crm', 'postgresql'],
      ['sales', 'virtual'],
    ]);
    expect(tree[1]).toEqual({
      source: 'sales',
      engine: 'virtual',
      status: 'online',
      defaultSchema: 'sales',
      schemas: [
        {
          name: 'sales',
          tables: [
            {
              schema: 'sales',
              name: 'good_customers',
              kind: 'view',
              rowCount: null,
              columns: [
                { name: 'c_custkey', type: 'int64', nullable: false },
                { name: 'c_name', type: 'varchar(25)', nullable: true },
              ],
            },
          ],
        },
      ],
    });
    const detail = await h.as('analyst', { method: 'GET', url: '/api/v1/catalog/sales/sales/good_customers' });
    expect(detail.json()).toMatchObject({
      kind: 'view',
      columns: [
        { name: 'c_custkey', type: 'int64', nativeType: 'int64', nullable: false },
        { name: 'c_name', type: 'varchar(25)', nativeType: 'varchar(25)', nullable: true },
      ],
    });
    const hits = (await h.as('analyst', { method: 'GET', url: '/api/v1/catalog/search?q=good' })).json();
    expect(hits).toEqual([{ kind: 'view', source: 'sales', schema: 'sales', table: 'good_customers' }]);
    const cols = (await h.as('analyst', { method: 'GET', url: '/api/v1/catalog/search?q=c_name' })).json();
    expect(cols).toContainEqual({
      kind: 'column',
      source: 'sales',
      schema: 'sales',
      table: 'good_customers',
      column: 'c_name',
      type: 'varchar(25)',
    });
    // the viewer has no grant on the view yet: neither the tree, the detail nor search shows it
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/catalog' })).json()).toEqual([]);
    expect(
      (await h.as('viewer', { method: 'GET', url: '/api/v1/catalog/sales/sales/good_customers' })).statusCode,
    ).toBe(404);
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/catalog/search?q=good' })).json()).toEqual([]);
  });

  it('viewers run views only when granted the view', async () => {
    const denied = await h.as('viewer', { method: 'POST', url: `/api/v1/views/${viewId}/run`, payload: {} });
    expect(denied.statusCode).toBe(403);
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/views' })).json()).toEqual([]);
    await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { role: 'viewer', viewSchema: 'sales', viewName: 'good_customers' },
    });
    const granted = await h.as('viewer', { method: 'POST', url: `/api/v1/views/${viewId}/run`, payload: {} });
    expect(granted.statusCode).toBe(200);
    expect(
      (await h.as('viewer', { method: 'GET', url: '/api/v1/views' })).json().map((v: { name: string }) => v.name),
    ).toEqual(['good_customers']);
    expect(
      (await h.as('viewer', { method: 'PATCH', url: `/api/v1/views/${viewId}`, payload: { layout: {} } })).statusCode,
    ).toBe(403);
  });

  it('updates SQL and layout, draws the dependency graph, and refuses to drop a view another view reads', async () => {
    const upd = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/views/${viewId}`,
      payload: {
        sql: 'SELECT c_custkey, c_name, c_acctbal FROM crm.customer WHERE c_acctbal > 0',
        layout: { nodes: [] },
      },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().columns.map((c: { name: string }) => c.name)).toEqual(['c_custkey', 'c_name', 'c_acctbal']);
    expect(upd.json().layout).toEqual({ nodes: [] });
    const top = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      // unquoted names match case-insensitively, in the graph as in queries
      payload: { schema: 'sales', name: 'top', sql: 'SELECT c_name FROM SALES.Good_Customers WHERE c_acctbal > 50' },
    });
    expect(top.statusCode).toBe(201);
    const graph = (await h.as('analyst', { method: 'GET', url: '/api/v1/views/graph' })).json();
    expect(graph.edges).toEqual([
      { from: 'source:crm', to: 'view:sales.good_customers' },
      { from: 'view:sales.good_customers', to: 'view:sales.top' },
    ]);
    // the viewer is granted good_customers only: neither crm nor top, nor the edges to them
    const viewerGraph = (await h.as('viewer', { method: 'GET', url: '/api/v1/views/graph' })).json();
    expect(viewerGraph).toEqual({
      nodes: [{ id: 'view:sales.good_customers', kind: 'view', label: 'sales.good_customers' }],
      edges: [],
    });
    // dropping c_acctbal breaks top, which filters on it: reviewed first, refused unless confirmed
    const narrower = 'SELECT c_custkey, c_name FROM crm.customer';
    const impact = await h.as('analyst', {
      method: 'POST',
      url: `/api/v1/views/${viewId}/impact`,
      payload: { sql: 'SELECT c_custkey, CAST(c_name AS text) AS c_name FROM crm.customer' },
    });
    expect(impact.json()).toEqual({
      columns: [
        { name: 'c_custkey', type: 'int64', nullable: false },
        { name: 'c_name', type: 'text', nullable: true },
      ],
      removed: ['c_acctbal'],
      changed: [{ name: 'c_name', from: 'varchar(25)', to: 'text' }],
      dependants: [
        {
          id: top.json().id,
          schema: 'sales',
          name: 'top',
          breaks: true,
          reason: 'reads c_acctbal, which the new version no longer has',
        },
      ],
      hiddenDependants: 0,
      hiddenBreaking: 0,
    });
    const refused = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/views/${viewId}`,
      payload: { sql: narrower },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'dependants_break',
      message:
        'Saving breaks sales.top (reads c_acctbal, which the new version no longer has). Review the change and confirm to save anyway.',
    });
    const kept = (await h.as('analyst', { method: 'GET', url: `/api/v1/views/${viewId}` })).json();
    expect(kept.sql).toBe('SELECT c_custkey, c_name, c_acctbal FROM crm.customer WHERE c_acctbal > 0');
    const keepsAll = await h.as('analyst', {
      method: 'POST',
      url: `/api/v1/views/${viewId}/impact`,
      payload: { sql: 'SELECT c_custkey, c_name, c_acctbal FROM crm.customer' },
    });
    expect(keepsAll.json().dependants).toEqual([{ id: top.json().id, schema: 'sales', name: 'top', breaks: false }]);
    const confirmed = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/views/${viewId}`,
      payload: { sql: narrower, confirmBreaking: true },
    });
    expect(confirmed.statusCode).toBe(200);
    // top no longer binds: planning it fails, so the analyst's policy cannot derive a grant for it
    const broken = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT * FROM sales.top' },
    });
    expect(broken.statusCode).toBe(403);
    // renaming the schema would leave top naming sales.good_customers: refused until top changes
    const schemaOf = async () => (await h.as('analyst', { method: 'GET', url: '/api/v1/schemas' })).json()[0].id;
    const inUse = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/schemas/${await schemaOf()}`,
      payload: { name: 'shop' },
    });
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toMatchObject({
      code: 'schema_in_use',
      message: 'Views sales.top read views of "sales" by name; change them before renaming it.',
    });
    expect(
      (
        await h.as('analyst', { method: 'PATCH', url: `/api/v1/schemas/${await schemaOf()}`, payload: { name: 'crm' } })
      ).json().code,
    ).toBe('name_taken');
    const blocked = await h.as('analyst', { method: 'DELETE', url: `/api/v1/views/${viewId}` });
    expect(blocked.statusCode).toBe(409);
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/views/${top.json().id}` })).statusCode).toBe(200);
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/views/${viewId}` })).statusCode).toBe(200);
    const gone = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT * FROM sales.good_customers' },
    });
    expect(gone.statusCode).toBe(400);
    const schemaId = (await h.as('analyst', { method: 'GET', url: '/api/v1/schemas' })).json()[0].id;
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/schemas/${schemaId}` })).statusCode).toBe(200);
  });
});

describe('renaming a virtual schema', () => {
  it('moves its views and their grants to the new name', async () => {
    const s = await h.as('analyst', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'old_name' } });
    const v = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'old_name', name: 'names', sql: 'SELECT c_name FROM crm.customer' },
    });
    expect(v.statusCode).toBe(201);
    await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { role: 'viewer', viewSchema: 'old_name', viewName: 'names' },
    });
    const r = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/schemas/${s.json().id}`,
      payload: { name: 'new_name' },
    });
    expect(r.json()).toEqual({ id: s.json().id, name: 'new_name', description: null, views: 1 });
    const q = (sql: string) => h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql } });
    expect((await q('SELECT c_name FROM new_name.names ORDER BY c_name')).json().rows).toEqual([
      ['Ann'],
      ['Bob'],
      ['Cy'],
    ]);
    // the viewer's grant followed the schema
    const run = await h.as('viewer', { method: 'POST', url: `/api/v1/views/${v.json().id}/run`, payload: {} });
    expect(run.json().rows.length).toBe(3);
    expect((await q('SELECT * FROM old_name.names')).statusCode).toBe(400);
    await h.as('analyst', { method: 'DELETE', url: `/api/v1/views/${v.json().id}` });
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/schemas/${s.json().id}` })).statusCode).toBe(200);
  });
});

describe('view grants', () => {
  it('a designer cannot read a view over a source they have no grant on; a view grant covers what the view reads', async () => {
    const hr = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload('hr', pgdb),
    });
    expect(hr.statusCode).toBe(201);
    await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'secret' } });
    const v = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'secret', name: 'salaries', sql: 'SELECT c_name, c_acctbal FROM hr.customer' },
    });
    expect(v.statusCode).toBe(201);
    const denied = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT c_name FROM secret.salaries' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('access_denied');
    // nor see the schema holding only that view: to them it is not there
    const copy = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'secret', name: 'copy', sql: 'SELECT * FROM secret.salaries' },
    });
    expect(copy.statusCode).toBe(404);
    expect(copy.json().code).toBe('schema_not_found');
    expect(
      (await h.as('analyst', { method: 'GET', url: '/api/v1/schemas' })).json().map((s: { name: string }) => s.name),
    ).not.toContain('secret');
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'viewer', viewSchema: 'secret' } });
    const viewer = await h.as('viewer', { method: 'POST', url: `/api/v1/views/${v.json().id}/run`, payload: {} });
    expect(viewer.statusCode).toBe(200);
    expect(viewer.json().rows.length).toBe(3);
  });
});

describe('saved queries', () => {
  it('saves, lists, runs with default and given params, edits and deletes; viewers run but cannot edit', async () => {
    const created = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: {
        name: 'by key',
        sql: 'SELECT c_name FROM crm.customer WHERE c_custkey = $1',
        params: [1],
        shared: true,
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id;
    expect(created.json()).toMatchObject({
      name: 'by key',
      params: [1],
      shared: true,
      owner: 'analyst',
      example: false,
    });
    expect(
      (await h.as('analyst', { method: 'POST', url: `/api/v1/saved-queries/${id}/run`, payload: {} })).json().rows,
    ).toEqual([['Ann']]);
    expect(
      (
        await h.as('analyst', { method: 'POST', url: `/api/v1/saved-queries/${id}/run`, payload: { params: [3] } })
      ).json().rows,
    ).toEqual([['Cy']]);
    // shared, but over crm, which the viewer has no grant on: not listed, and not there to run
    expect(
      (await h.as('viewer', { method: 'GET', url: '/api/v1/saved-queries' })).json().map((q: { id: string }) => q.id),
    ).not.toContain(id);
    expect(
      (await h.as('viewer', { method: 'POST', url: `/api/v1/saved-queries/${id}/run`, payload: {} })).statusCode,
    ).toBe(404);
    expect(
      (await h.as('viewer', { method: 'PATCH', url: `/api/v1/saved-queries/${id}`, payload: { name: 'mine' } }))
        .statusCode,
    ).toBe(403);
    expect(
      (
        await h.as('admin', { method: 'PATCH', url: `/api/v1/saved-queries/${id}`, payload: { name: 'renamed' } })
      ).json().name,
    ).toBe('renamed');
    const privateQ = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'private', sql: 'SELECT 1' },
    });
    expect(
      (await h.as('analyst', { method: 'GET', url: `/api/v1/saved-queries/${privateQ.json().id}` })).statusCode,
    ).toBe(404);
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/saved-queries/${id}` })).statusCode).toBe(200);
    expect((await h.as('analyst', { method: 'GET', url: `/api/v1/saved-queries/${id}` })).statusCode).toBe(404);
  });
});
