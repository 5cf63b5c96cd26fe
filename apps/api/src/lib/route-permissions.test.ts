import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgDatabase,
  pgExec,
  pgSourcePayload,
  startHarness,
  type Harness,
  type RoleName,
} from '../../test/harness.js';
import { ROUTE_PERMISSIONS, routePermissionHook, type Access } from './route-permissions.js';
import { sha256 } from './secrets.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;

const ROLES: readonly RoleName[] = ['admin', 'analyst', 'viewer'];
const SCOPES = ['read', 'run', 'query', 'design', 'admin', 'tokens'] as const;
type Scope = (typeof SCOPES)[number];

/**
 * What a token of each role with one scope may do, written out rather than computed: scopes are
 * hierarchical (run ⇒ read; query ⇒ read, run; design ⇒ read, query, run; admin ⇒ all; tokens ⇒
 * tokens only) and capped by the owner's role (analyst: no admin; viewer: read, run and tokens only).
 */
const EXPECTED: Record<RoleName, Record<Scope, string[]>> = {
  admin: {
    read: ['read'],
    run: ['read', 'run'],
    query: ['read', 'run', 'query'],
    design: ['read', 'run', 'query', 'design'],
    admin: ['read', 'run', 'query', 'design', 'admin', 'tokens'],
    tokens: ['tokens'],
  },
  analyst: {
    read: ['read'],
    run: ['read', 'run'],
    query: ['read', 'run', 'query'],
    design: ['read', 'run', 'query', 'design'],
    admin: ['read', 'run', 'query', 'design', 'tokens'],
    tokens: ['tokens'],
  },
  viewer: {
    read: ['read'],
    run: ['read', 'run'],
    query: ['read', 'run'],
    design: ['read', 'run'],
    admin: ['read', 'run', 'tokens'],
    tokens: ['tokens'],
  },
};

/** token per role × scope, stored directly so a scope beyond the role (capped at use) exists too */
const tokens = {} as Record<RoleName, Record<Scope, string>>;

async function storeToken(userId: string, scopes: string[], name = 'matrix'): Promise<{ id: string; token: string }> {
  const token = `jct_test_${randomUUID()}`;
  const id = randomUUID();
  await h.meta.db.apiToken.create({
    data: { id, userId, name, tokenHash: sha256(token), prefix: token.slice(0, 10), scopes: JSON.stringify(scopes) },
  });
  return { id, token };
}

const bearer = (token: string, method: string, url: string, payload?: unknown) =>
  h.app.inject({
    method: method as 'GET',
    url,
    ...(payload !== undefined ? { payload: payload as object } : {}),
    headers: { authorization: `Bearer ${token}` },
  });

beforeAll(async () => {
  pgdb = await createPgDatabase('api_perm');
  await pgExec(
    pgdb.url,
    `CREATE TABLE public.items (id int PRIMARY KEY, label text); INSERT INTO public.items VALUES (1, 'one');
     CREATE FUNCTION slow_rows() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..100000 LOOP PERFORM pg_sleep(0.01); RETURN NEXT i; END LOOP; END $$;
     CREATE VIEW public.endless AS SELECT n FROM slow_rows() AS n;`,
  );
  h = await startHarness();
  for (const role of ROLES) {
    tokens[role] = {} as Record<Scope, string>;
    for (const scope of SCOPES) tokens[role][scope] = (await storeToken(h.userIds[role], [scope])).token;
  }
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

describe('the route table', () => {
  it('names exactly the routes the app registers, each once', () => {
    const registered = [...h.app.apiRoutes].sort();
    expect(registered.length).toBeGreaterThan(40);
    expect(Object.keys(ROUTE_PERMISSIONS).sort()).toEqual(registered);
  });

  it('refuses to build an app with an API route that has no entry', async () => {
    const app = Fastify();
    app.addHook('onRoute', routePermissionHook(new Set()));
    await expect(
      (async () => {
        app.get('/api/v1/forgotten', async () => ({ ok: true }));
        await app.ready();
      })(),
    ).rejects.toThrow('route GET /api/v1/forgotten has no entry in ROUTE_PERMISSIONS');
    await app.close();
  });
});

/**
 * Every registered route × every role × every scope, plus no credentials: the route answers 401
 * without credentials, 403 naming the permission when the token's scopes (capped by its owner's
 * role) lack it, and neither when they have it. Writes carry a malformed JSON body, so the
 * authorization is shown to come first (401/403 rather than 400) and no allowed write takes effect.
 */
describe('routes × scopes × roles', () => {
  // ':id' and friends: ids that do not exist, so an allowed call ends in 404 or 400, never in a change
  const concrete = (url: string) => url.replace(/:(\w+)/g, 'no_such_$1');
  const hasBody = (method: string) => method === 'POST' || method === 'PATCH';
  const keys = Object.keys(ROUTE_PERMISSIONS).sort();

  it.each(keys)('%s', async (key) => {
    expect(h.app.apiRoutes.has(key)).toBe(true);
    const [method, url] = key.split(' ');
    const access: Access = ROUTE_PERMISSIONS[key];
    const send = (headers: Record<string, string>) =>
      h.app.inject({
        method: method as 'GET',
        url: concrete(url),
        headers: { ...headers, ...(hasBody(method) ? { 'content-type': 'application/json' } : {}) },
        ...(hasBody(method) ? { payload: '{"broken":' } : {}),
      });
    const anon = await send({});
    if (access === 'public') expect(anon.statusCode).not.toBe(401);
    else {
      expect(anon.statusCode).toBe(401);
      expect(anon.json()).toMatchObject({ code: 'unauthenticated', kind: 'auth' });
    }
    if (method === 'GET') {
      // Fastify's automatic HEAD route is checked as its GET
      const head = await h.app.inject({ method: 'HEAD', url: concrete(url) });
      expect(head.statusCode).toBe(anon.statusCode);
    }
    let checked = 0;
    for (const role of ROLES) {
      for (const scope of SCOPES) {
        const res = await send({ authorization: `Bearer ${tokens[role][scope]}` });
        const allowed = access === 'public' || access === 'signed-in' || EXPECTED[role][scope].includes(access);
        if (allowed) {
          expect([401, 403], `${role} with scope ${scope}: ${res.body}`).not.toContain(res.statusCode);
        } else {
          expect(res.statusCode, `${role} with scope ${scope}`).toBe(403);
          expect(res.json()).toMatchObject({ code: 'forbidden', kind: 'forbidden', details: { permission: access } });
        }
        checked++;
      }
    }
    expect(checked).toBe(ROLES.length * SCOPES.length);
  });
});

describe('scopes beyond the route: other users', () => {
  it("an admin's run-scope token neither lists nor cancels another user's running query; an admin-scope token does", async () => {
    const src = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload('permsrc', pgdb),
    });
    expect(src.statusCode).toBe(201);
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'permsrc' } });
    const running = h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT n FROM permsrc.endless', queryId: 'perm-run-1' },
    });
    for (let i = 0; i < 100 && !h.app.junction.running.has('perm-run-1'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(h.app.junction.running.has('perm-run-1')).toBe(true);

    const runToken = tokens.admin.run;
    const listed = await bearer(runToken, 'GET', '/api/v1/queries');
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([]);
    const cancel = await bearer(runToken, 'DELETE', '/api/v1/queries/perm-run-1');
    expect(cancel.statusCode).toBe(404);
    expect(cancel.json().code).toBe('query_not_found');
    expect(h.app.junction.running.has('perm-run-1')).toBe(true);

    const adminToken = tokens.admin.admin;
    const all = (await bearer(adminToken, 'GET', '/api/v1/queries')).json();
    expect(all.map((q: { id: string; sql: string }) => [q.id, q.sql])).toEqual([
      ['perm-run-1', 'SELECT n FROM permsrc.endless'],
    ]);
    expect((await bearer(adminToken, 'DELETE', '/api/v1/queries/perm-run-1')).statusCode).toBe(200);
    expect((await running).statusCode).toBe(499);
  });

  it("an admin's tokens-scope token cannot revoke another user's token (404), a read-scope one none (403); an admin-scope token can", async () => {
    const victim = await storeToken(h.userIds.analyst, ['read'], 'victim');
    const tried = await bearer(tokens.admin.tokens, 'DELETE', `/api/v1/tokens/${victim.id}`);
    expect(tried.statusCode).toBe(404);
    expect(tried.json().code).toBe('token_not_found');
    expect((await bearer(victim.token, 'GET', '/api/v1/auth/me')).statusCode).toBe(200);
    // its own tokens a tokens-scope token may revoke; a read-scope token not even those
    const own = await storeToken(h.userIds.admin, ['read'], 'own');
    expect((await bearer(tokens.admin.read, 'DELETE', `/api/v1/tokens/${own.id}`)).statusCode).toBe(403);
    expect((await bearer(tokens.admin.tokens, 'DELETE', `/api/v1/tokens/${own.id}`)).statusCode).toBe(200);
    expect((await bearer(tokens.admin.admin, 'DELETE', `/api/v1/tokens/${victim.id}`)).statusCode).toBe(200);
    expect((await bearer(victim.token, 'GET', '/api/v1/auth/me')).statusCode).toBe(401);
  });

  it('POST /auth/logout needs credentials, as the OpenAPI document says', async () => {
    const res = await h.as(null, { method: 'POST', url: '/api/v1/auth/logout' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthenticated', kind: 'auth' });
    const spec = (await h.as(null, { method: 'GET', url: '/api/docs/json' })).json();
    const logout = spec.paths['/api/v1/auth/logout'].post;
    expect(logout.security).toBeUndefined(); // the document's global security applies
    expect(spec.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(Object.keys(logout.responses)).toContain('401');
    // public routes say so
    expect(spec.paths['/api/v1/health'].get.security).toEqual([]);
    expect(spec.paths['/api/v1/auth/login'].post.security).toEqual([]);
  });

  it('an anonymous request with a bad body is 401, not 400', async () => {
    const res = await h.as(null, {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'x', role: 'root', extra: true },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthenticated');
  });
});
