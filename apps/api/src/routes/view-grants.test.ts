import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../lib/secrets.js';
import { STORE_SOURCE } from '../services/materializer.js';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

/**
 * Who may publish, rename and delete in virtual schemas, what a design grant does and does not
 * give, and what replies say about views the caller may not see. Sources: crm (granted to every
 * analyst) and hr (granted to nobody), over the same table.
 */
let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
/** a second analyst (design scope), with the analyst role's grants only */
let other = '';
let otherId = '';

const as2 = (method: string, url: string, payload?: unknown) =>
  h.app.inject({
    method: method as 'GET',
    url,
    ...(payload !== undefined ? { payload: payload as object } : {}),
    headers: { authorization: `Bearer ${other}` },
  });
const grant = async (payload: Record<string, unknown>) => {
  const res = await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
};
const schemaId = async (name: string) =>
  (await h.meta.db.virtualSchema.findUniqueOrThrow({ where: { name } })).id;
const viewId = async (schema: string, name: string) =>
  (await h.meta.db.view.findFirstOrThrow({ where: { name, schema: { name: schema } } })).id;

beforeAll(async () => {
  pgdb = await createPgDatabase('api_vgrants');
  await pgExec(
    pgdb.url,
    `CREATE TABLE public.customer (c_custkey bigint PRIMARY KEY, c_name varchar(25), c_acctbal numeric(15,2)); INSERT INTO public.customer VALUES (1, 'Ann', 10.50), (2, 'Bob', -3.00), (3, 'Cy', 99.99);`,
  );
  h = await startHarness();
  for (const name of ['crm', 'hr'])
    expect(
      (await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload(name, pgdb) })).statusCode,
    ).toBe(201);
  await grant({ role: 'analyst', sourceName: 'crm' });
  const u = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/users',
    payload: { username: 'analyst2', password: 'analyst2-password', role: 'analyst' },
  });
  otherId = u.json().id;
  other = `jct_test_${randomUUID()}`;
  await h.meta.db.apiToken.create({
    data: {
      id: randomUUID(),
      userId: otherId,
      name: 'a2',
      tokenHash: sha256(other),
      prefix: other.slice(0, 10),
      scopes: JSON.stringify(['design']),
    },
  });
  // pub: every viewer reads all of it
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'pub' } })).statusCode).toBe(201);
  await grant({ role: 'viewer', viewSchema: 'pub' });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

describe('publishing into a schema takes design on it', () => {
  it('reading a schema (or seeing it) is not enough to add a view to it: that would publish to its readers', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'pub', name: 'leak', sql: 'SELECT c_name, c_acctbal FROM crm.customer' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'forbidden',
      message: 'Creating views in "pub" takes a design grant on it (or the admin permission).',
    });
    expect(await h.meta.db.view.count({ where: { name: 'leak' } })).toBe(0);
    // a read grant on the schema does not help either
    await grant({ userId: h.userIds.analyst, viewSchema: 'pub' });
    expect(
      (
        await h.as('analyst', {
          method: 'POST',
          url: '/api/v1/views',
          payload: { schema: 'pub', name: 'leak', sql: 'SELECT c_name FROM crm.customer' },
        })
      ).statusCode,
    ).toBe(403);
  });

  it('with a design grant on the schema the view is created, and its readers read it with its rights (definer)', async () => {
    await grant({ userId: h.userIds.analyst, viewSchema: 'pub', privilege: 'design' });
    const v = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'pub', name: 'names', sql: 'SELECT c_custkey, c_name, c_acctbal FROM crm.customer' },
    });
    expect(v.statusCode, v.body).toBe(201);
    // the viewer has no grant on crm: the view's grant covers what it reads
    const run = await h.as('viewer', { method: 'POST', url: `/api/v1/views/${v.json().id}/run`, payload: {} });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().rows.length).toBe(3);
  });

  it('another designer who can read the view cannot change or delete it without design', async () => {
    const url = `/api/v1/views/${await viewId('pub', 'names')}`;
    expect((await as2('GET', url)).statusCode).toBe(200);
    const patch = await as2('PATCH', url, { description: 'mine now' });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().message).toBe(
      'Changing pub.names takes a design grant on "pub" or on the view (or the admin permission).',
    );
    expect((await as2('DELETE', url)).statusCode).toBe(403);
  });

  it('its creator, once the design grant is taken back, can no longer change or delete it', async () => {
    const g = (await h.meta.db.grant.findFirstOrThrow({ where: { userId: h.userIds.analyst, privilege: 'design' } })).id;
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${g}` })).statusCode).toBe(200);
    const url = `/api/v1/views/${await viewId('pub', 'names')}`;
    const patch = await h.as('analyst', { method: 'PATCH', url, payload: { sql: 'SELECT c_custkey, c_name, c_acctbal FROM crm.customer WHERE c_custkey > 0' } });
    expect(patch.statusCode).toBe(403);
    expect((await h.as('analyst', { method: 'DELETE', url })).statusCode).toBe(403);
    // the admin permission always may
    expect((await h.as('admin', { method: 'PATCH', url, payload: { description: 'by admin' } })).statusCode).toBe(200);
    await grant({ userId: h.userIds.analyst, viewSchema: 'pub', privilege: 'design' });
  });

  it('a design grant does not include read: a designer cannot read a view over a source they lack unless granted the view', async () => {
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'secret' } })).statusCode).toBe(201);
    const salaries = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'secret', name: 'salaries', sql: 'SELECT c_custkey, c_name, c_acctbal FROM hr.customer' },
    });
    expect(salaries.statusCode).toBe(201);
    await grant({ userId: otherId, viewSchema: 'secret', privilege: 'design' });
    const q = (sql: string) => as2('POST', '/api/v1/query', { sql });
    const denied = await q('SELECT c_name FROM secret.salaries');
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('access_denied');
    // the schema shows (to be filled), the view does not
    expect((await as2('GET', '/api/v1/schemas')).json().map((s: { name: string }) => s.name)).toContain('secret');
    expect((await as2('GET', '/api/v1/views')).json().map((v: { name: string }) => v.name)).not.toContain('salaries');
    expect((await as2('GET', `/api/v1/views/${salaries.json().id}`)).statusCode).toBe(404);
    // design lets them add a view over what they may read themselves
    const own = await as2('POST', '/api/v1/views', { schema: 'secret', name: 'own', sql: 'SELECT c_name FROM crm.customer' });
    expect(own.statusCode, own.body).toBe(201);
    // ...but not one over the view they cannot read
    const copy = await as2('POST', '/api/v1/views', { schema: 'secret', name: 'copy', sql: 'SELECT * FROM secret.salaries' });
    expect(copy.statusCode).toBe(403);
    expect(copy.json().code).toBe('access_denied');
    // granted the view, they read it (and through it hr, which they still may not read directly)
    await grant({ userId: otherId, viewSchema: 'secret', viewName: 'salaries' });
    expect((await q('SELECT c_name FROM secret.salaries ORDER BY c_name')).json().rows).toEqual([['Ann'], ['Bob'], ['Cy']]);
    expect((await q('SELECT c_name FROM hr.customer')).statusCode).toBe(403);
  });
});

describe('renaming and deleting schemas', () => {
  it('needs a design grant on the schema; the creator of a schema gets one', async () => {
    const mine = await as2('POST', '/api/v1/schemas', { name: 'mine' });
    expect(mine.statusCode).toBe(201);
    expect(
      await h.meta.db.grant.count({ where: { userId: otherId, viewSchema: 'mine', viewName: null, privilege: 'design' } }),
    ).toBe(1);
    // pub is visible to analyst2 (a view they may read) but not theirs to rename or delete
    const pub = await schemaId('pub');
    const rename = await as2('PATCH', `/api/v1/schemas/${pub}`, { name: 'hijacked' });
    expect(rename.statusCode).toBe(403);
    expect(rename.json().message).toBe('Renaming "pub" takes a design grant on it (or the admin permission).');
    // an empty schema is visible to designers, but not theirs to delete
    const empty = await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'empty' } });
    const del = await as2('DELETE', `/api/v1/schemas/${empty.json().id}`);
    expect(del.statusCode).toBe(403);
    expect(del.json().message).toBe('Deleting "empty" takes a design grant on it (or the admin permission).');
    // a schema they cannot see at all is 404
    const hidden = await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'hidden' } });
    await h.as('admin', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'hidden', name: 'h', sql: 'SELECT c_name FROM hr.customer' },
    });
    expect((await as2('DELETE', `/api/v1/schemas/${hidden.json().id}`)).statusCode).toBe(404);
    expect((await as2('PATCH', `/api/v1/schemas/${hidden.json().id}`, { name: 'x' })).statusCode).toBe(404);
    expect(await h.meta.db.virtualSchema.count({ where: { name: { in: ['pub', 'empty', 'hidden'] } } })).toBe(3);
  });

  it("refuses the materialized store's name and any source's name, in any case", async () => {
    const mine = await schemaId('mine');
    for (const name of [STORE_SOURCE, 'JUNCTION_MV']) {
      const r = await as2('PATCH', `/api/v1/schemas/${mine}`, { name });
      expect(r.statusCode).toBe(409);
      expect(r.json()).toMatchObject({
        code: 'name_reserved',
        message: `"${name}" is the name of Junction's store of materialized views; a virtual schema needs another.`,
      });
      expect((await as2('POST', '/api/v1/schemas', { name })).json().code).toBe('name_reserved');
    }
    expect((await as2('PATCH', `/api/v1/schemas/${mine}`, { name: 'HR' })).json().code).toBe('name_taken');
    expect((await as2('POST', '/api/v1/schemas', { name: 'Crm' })).json().code).toBe('name_taken');
    const ok = await as2('PATCH', `/api/v1/schemas/${mine}`, { name: 'mine2' });
    expect(ok.statusCode).toBe(200);
    // the creator's design grant followed it
    expect(await h.meta.db.grant.count({ where: { userId: otherId, viewSchema: 'mine2', privilege: 'design' } })).toBe(1);
  });

  it("deleting a schema deletes its grants: a later schema of the same name does not inherit them", async () => {
    const id = await schemaId('mine2');
    await grant({ role: 'viewer', viewSchema: 'mine2' });
    expect((await as2('DELETE', `/api/v1/schemas/${id}`)).statusCode).toBe(200);
    expect(await h.meta.db.grant.count({ where: { viewSchema: 'mine2' } })).toBe(0);
    // another designer takes the name and publishes: the old schema's readers do not read it
    expect((await h.as('analyst', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'mine2' } })).statusCode).toBe(201);
    const v = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'mine2', name: 'v', sql: 'SELECT c_name FROM crm.customer' },
    });
    expect(v.statusCode).toBe(201);
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/schemas' })).json().map((s: { name: string }) => s.name)).not.toContain('mine2');
    expect((await h.as('viewer', { method: 'POST', url: `/api/v1/views/${v.json().id}/run`, payload: {} })).statusCode).toBe(403);
  });

  it('grants on a view go with it, and leftover ones never reach a later view of that name', async () => {
    const v = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'mine2', name: 'temp', sql: 'SELECT c_name FROM crm.customer' },
    });
    await grant({ role: 'viewer', viewSchema: 'mine2', viewName: 'temp' });
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/views/${v.json().id}` })).statusCode).toBe(200);
    expect(await h.meta.db.grant.count({ where: { viewSchema: 'mine2', viewName: 'temp' } })).toBe(0);
    // one written straight to the metadata (as an older version could leave it)
    await h.meta.db.grant.create({
      data: { id: randomUUID(), role: 'viewer', viewSchema: 'mine2', viewName: 'temp', privilege: 'read' },
    });
    const again = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'mine2', name: 'temp', sql: 'SELECT c_name, c_acctbal FROM crm.customer' },
    });
    expect(again.statusCode).toBe(201);
    expect((await h.as('viewer', { method: 'POST', url: `/api/v1/views/${again.json().id}/run`, payload: {} })).statusCode).toBe(403);
  });
});

describe('replies name only the views the caller may see', () => {
  // spy reads pub.names and hr (which the analyst may not read), and uses c_acctbal
  beforeAll(async () => {
    const spy = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/views',
      payload: {
        schema: 'secret',
        name: 'spy',
        sql: 'SELECT n.c_name, n.c_acctbal FROM pub.names n JOIN hr.customer x ON x.c_custkey = n.c_custkey',
      },
    });
    expect(spy.statusCode, spy.body).toBe(201);
  });

  it('impact counts the hidden dependant without naming it', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: `/api/v1/views/${await viewId('pub', 'names')}/impact`,
      payload: { sql: 'SELECT c_custkey, c_name FROM crm.customer' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ removed: ['c_acctbal'], dependants: [], hiddenDependants: 1, hiddenBreaking: 1 });
    expect(res.body).not.toMatch(/spy|secret/);
  });

  it('dependants_break, view_in_use and schema_in_use count it', async () => {
    const url = `/api/v1/views/${await viewId('pub', 'names')}`;
    const breaks = await h.as('analyst', { method: 'PATCH', url, payload: { sql: 'SELECT c_custkey, c_name FROM crm.customer' } });
    expect(breaks.statusCode).toBe(409);
    expect(breaks.json()).toMatchObject({
      code: 'dependants_break',
      message: 'Saving breaks 1 view you cannot see. Review the change and confirm to save anyway.',
      details: { dependants: [], hidden: 1 },
    });
    const inUse = await h.as('analyst', { method: 'DELETE', url });
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toMatchObject({ code: 'view_in_use', message: '1 view you cannot see read pub.names; change them first.' });
    // one the caller sees is named, the other counted
    const top = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views',
      payload: { schema: 'pub', name: 'top', sql: 'SELECT c_name FROM pub.names WHERE c_acctbal > 50' },
    });
    expect(top.statusCode, top.body).toBe(201);
    const both = await h.as('analyst', { method: 'DELETE', url });
    expect(both.json().message).toBe('Views pub.top and 1 view you cannot see read pub.names; change them first.');
    const breaksBoth = await h.as('analyst', { method: 'PATCH', url, payload: { sql: 'SELECT c_custkey, c_name FROM crm.customer' } });
    expect(breaksBoth.json().message).toBe(
      'Saving breaks pub.top (reads c_acctbal, which the new version no longer has) and 1 view you cannot see. ' +
        'Review the change and confirm to save anyway.',
    );
    const inUseSchema = await h.as('analyst', { method: 'PATCH', url: `/api/v1/schemas/${await schemaId('pub')}`, payload: { name: 'pub2' } });
    expect(inUseSchema.statusCode).toBe(409);
    expect(inUseSchema.json()).toMatchObject({
      code: 'schema_in_use',
      message: 'Views pub.top and 1 view you cannot see read views of "pub" by name; change them before renaming it.',
    });
    for (const r of [breaks, inUse, both, breaksBoth, inUseSchema]) expect(r.body).not.toMatch(/spy|secret/);
    // the admin sees them all
    expect((await h.as('admin', { method: 'DELETE', url })).json().message).toBe(
      'Views secret.spy, pub.top read pub.names; change them first.',
    );
  });
});

describe('grants name what exists', () => {
  it('refuses a grant on a missing schema, view or source with 404 naming it', async () => {
    const post = (payload: Record<string, unknown>) => h.as('admin', { method: 'POST', url: '/api/v1/grants', payload });
    const noSchema = await post({ role: 'viewer', viewSchema: 'nosuch', viewName: 'nothing' });
    expect(noSchema.statusCode).toBe(404);
    expect(noSchema.json()).toMatchObject({ code: 'schema_not_found', message: 'No schema with id or name "nosuch".' });
    expect((await post({ role: 'viewer', viewSchema: 'nosuch' })).json().code).toBe('schema_not_found');
    const noView = await post({ role: 'viewer', viewSchema: 'pub', viewName: 'nothing' });
    expect(noView.statusCode).toBe(404);
    expect(noView.json()).toMatchObject({ code: 'view_not_found', message: 'No view with id or name "pub.nothing".' });
    const noSource = await post({ role: 'viewer', sourceName: 'nosuch' });
    expect(noSource.statusCode).toBe(404);
    expect(noSource.json().code).toBe('source_not_found');
    expect((await post({ role: 'viewer', sourceName: STORE_SOURCE })).json().code).toBe('source_not_found');
    expect(await h.meta.db.grant.count({ where: { OR: [{ viewSchema: 'nosuch' }, { viewName: 'nothing' }, { sourceName: { in: ['nosuch', STORE_SOURCE] } }] } })).toBe(0);
    // '*' names every view of the schema, stored as the schema-wide grant
    const star = await post({ role: 'viewer', viewSchema: 'secret', viewName: '*' });
    expect(star.statusCode).toBe(201);
    expect(star.json()).toMatchObject({ viewSchema: 'secret', viewName: null, privilege: 'read' });
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${star.json().id}` })).statusCode).toBe(200);
  });

  it("a grant on every source does not reach the materialized store's tables", async () => {
    expect(
      (
        await h.as('admin', {
          method: 'PUT',
          url: '/api/v1/materializations/secret/salaries',
          payload: { intervalSeconds: null, maxStalenessSeconds: 3600 },
        })
      ).statusCode,
    ).toBe(200);
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/materializations/secret/salaries/refresh' })).json().status).toBe('ok');
    const store = new Database(h.app.materializer.file, { readonly: true });
    const table = store.prepare(`SELECT tbl FROM _junction_materializations WHERE view = 'secret.salaries'`).pluck().get() as string;
    store.close();
    const gid = await grant({ userId: otherId, sourceName: '*' });
    const res = await as2('POST', '/api/v1/query', { sql: `SELECT * FROM ${STORE_SOURCE}.${table}` });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('access_denied');
    // while '*' covers every registered source, and the admin reads the store
    expect((await as2('POST', '/api/v1/query', { sql: 'SELECT count(*) FROM hr.customer' })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: `SELECT count(*) FROM ${STORE_SOURCE}.${table}` } })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${gid}` })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/materializations/secret/salaries' })).statusCode).toBe(200);
  });
});

describe('audit', () => {
  it('logs every change to schemas, views, grants and materializations with who and what', async () => {
    const ok = (r: { statusCode: number; body: string }, status = 200) => expect(r.statusCode, r.body).toBe(status);
    ok(await as2('POST', '/api/v1/schemas', { name: 'aud' }), 201);
    const v = await as2('POST', '/api/v1/views', { schema: 'aud', name: 'v', sql: 'SELECT c_name FROM crm.customer' });
    ok(v, 201);
    ok(await as2('PATCH', `/api/v1/views/${v.json().id}`, { description: 'd', layout: {} }));
    await grant({ role: 'viewer', viewSchema: 'aud', viewName: 'v' });
    const mv = '/api/v1/materializations/aud/v';
    ok(await h.as('admin', { method: 'PUT', url: mv, payload: { intervalSeconds: null, maxStalenessSeconds: 60 } }));
    ok(await h.as('admin', { method: 'POST', url: `${mv}/refresh` }));
    ok(await h.as('admin', { method: 'DELETE', url: mv }));
    // an unknown one is refused before anything is logged
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/materializations/aud/none/refresh' })).statusCode).toBe(404);
    ok(await as2('PATCH', `/api/v1/schemas/${await schemaId('aud')}`, { name: 'aud2' }));
    ok(await as2('DELETE', `/api/v1/views/${v.json().id}`));
    ok(await as2('DELETE', `/api/v1/schemas/${await schemaId('aud2')}`));

    const log = (await h.as('admin', { method: 'GET', url: '/api/v1/audit?limit=500' })).json() as {
      actorName: string;
      action: string;
      target: string | null;
      details: unknown;
    }[];
    const entries = log
      .filter((a) => a.target?.startsWith('aud'))
      .map(({ actorName, action, target, details }) => ({ actorName, action, target, details }));
    // entries of one millisecond have no order: compared as sets, each exactly once
    const sorted = (xs: typeof entries) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sorted(entries)).toEqual(sorted([
      { actorName: 'analyst2', action: 'schema.create', target: 'aud', details: null },
      {
        actorName: 'analyst2',
        action: 'grant.create',
        target: 'aud.*',
        details: { role: null, userId: otherId, privilege: 'design', reason: 'schema.create' },
      },
      { actorName: 'analyst2', action: 'view.create', target: 'aud.v', details: null },
      { actorName: 'analyst2', action: 'view.update', target: 'aud.v', details: { changed: ['layout', 'description'] } },
      { actorName: 'admin', action: 'grant.create', target: 'aud.v', details: { role: 'viewer', userId: null, privilege: 'read' } },
      { actorName: 'admin', action: 'materialization.set', target: 'aud.v', details: { intervalSeconds: null, maxStalenessSeconds: 60 } },
      { actorName: 'admin', action: 'materialization.refresh', target: 'aud.v', details: null },
      { actorName: 'admin', action: 'materialization.delete', target: 'aud.v', details: null },
      { actorName: 'analyst2', action: 'schema.rename', target: 'aud', details: { name: 'aud2' } },
      { actorName: 'analyst2', action: 'view.delete', target: 'aud2.v', details: null },
      {
        actorName: 'analyst2',
        action: 'grant.delete',
        target: 'aud2.v',
        details: { role: 'viewer', userId: null, privilege: 'read', reason: 'view.delete' },
      },
      { actorName: 'analyst2', action: 'schema.delete', target: 'aud2', details: null },
      {
        actorName: 'analyst2',
        action: 'grant.delete',
        target: 'aud2.*',
        details: { role: null, userId: otherId, privilege: 'design', reason: 'schema.delete' },
      },
    ]));
  });
});
