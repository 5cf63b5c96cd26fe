import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, startHarness, type Harness } from '../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ bodyLimit: 64 * 1024 });
});
afterAll(async () => h.close());

function cookiesOf(res: { cookies: { name: string; value: string }[] }): Record<string, string> {
  return Object.fromEntries(res.cookies.map((c) => [c.name, c.value]));
}

describe('meta and hardening', () => {
  it('answers health without credentials and serves the OpenAPI document and docs page offline', async () => {
    expect((await h.as(null, { method: 'GET', url: '/api/v1/health' })).json()).toEqual({ ok: true, version: '0.1.0' });
    const spec = (await h.as(null, { method: 'GET', url: '/api/docs/json' })).json();
    expect(spec.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/api/v1/query', '/api/v1/sources/{id}', '/api/v1/auth/login', '/api/v1/views/graph']),
    );
    expect(spec.info.description).toContain('x-junction-csrf');
    const page = await h.as(null, { method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui-bundle.js');
    // every script and stylesheet comes from this server
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    expect((await h.as(null, { method: 'GET', url: '/api/docs/static/swagger-ui-bundle.js' })).statusCode).toBe(200);
  });

  it('sends security headers with a CSP that allows Monaco workers and inline styles only', async () => {
    const res = await h.as(null, { method: 'GET', url: '/api/v1/health' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("worker-src 'self' blob:");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends no upgrade-insecure-requests and no HSTS over plain HTTP, HSTS over HTTPS behind a trusted proxy', async () => {
    const plain = await h.as(null, { method: 'GET', url: '/api/v1/health' });
    const csp =
      "default-src 'self';base-uri 'self';font-src 'self' data:;form-action 'self';frame-ancestors 'none';" +
      "img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';" +
      "style-src 'self' 'unsafe-inline';worker-src 'self' blob:;connect-src 'self'";
    expect(plain.headers['content-security-policy']).toBe(csp);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    // without trustProxy a client cannot claim https
    const claimed = await h.as(null, { method: 'GET', url: '/api/v1/health', headers: { 'x-forwarded-proto': 'https' } });
    expect(claimed.headers['strict-transport-security']).toBeUndefined();
    const proxied = await startHarness({ trustProxy: 1 });
    try {
      const tls = await proxied.as(null, {
        method: 'GET',
        url: '/api/v1/health',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(tls.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(tls.headers['content-security-policy']).toBe(csp);
      const http = await proxied.as(null, { method: 'GET', url: '/api/v1/health', headers: { 'x-forwarded-proto': 'http' } });
      expect(http.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await proxied.close();
    }
  });

  it('keeps CORS closed: no allow-origin for another site', async () => {
    const res = await h.as(null, {
      method: 'OPTIONS',
      url: '/api/v1/query',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('rejects malformed JSON, oversized bodies, unknown fields and wrong types with 400 naming the problem', async () => {
    const bad = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: '{"username": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().kind).toBe('user');
    const big = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'x', sql: 'SELECT ' + '1,'.repeat(40_000) + '1' },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('body_too_large');
    const extra = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'bob', password: 'longenough', role: 'viewer', isAdmin: true },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().details.field).toBe('body.isAdmin');
    const type = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'bob', password: 'longenough', role: 'root' },
    });
    expect(type.statusCode).toBe(400);
    expect(type.json().details.field).toBe('body.role');
    const missing = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'bob', role: 'viewer' },
    });
    expect(missing.json().details.field).toBe('body.password');
    const hostile = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: { name: 'x"; DROP TABLE users; --', engine: 'postgresql' },
    });
    expect(hostile.statusCode).toBe(400);
    expect(hostile.json().details.field).toBe('body.name');
  });

  it('refuses cross-site form posts: only JSON bodies are parsed (415 otherwise)', async () => {
    const form = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: 'username=admin&password=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode).toBe(415);
    const text = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: '{"name":"x","sql":"SELECT 1"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await h.as('admin', { method: 'GET', url: '/api/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'route_not_found', kind: 'not_found', message: 'No route GET /api/v1/nope.' });
  });
});

describe('auth', () => {
  it('401 without credentials, with a bad bearer, and with a malformed Authorization header', async () => {
    expect((await h.as(null, { method: 'GET', url: '/api/v1/auth/me' })).statusCode).toBe(401);
    const bad = await h.as(null, { method: 'GET', url: '/api/v1/auth/me', headers: { authorization: 'Bearer nope' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().code).toBe('unauthenticated');
    expect(
      (await h.as(null, { method: 'GET', url: '/api/v1/auth/me', headers: { authorization: 'Basic abc' } })).statusCode,
    ).toBe(401);
  });

  it('logs in with an httpOnly SameSite cookie, requires the CSRF header on cookie writes, and logs out', async () => {
    const login = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'analyst', password: h.passwords.analyst },
    });
    expect(login.statusCode).toBe(200);
    const body = login.json();
    expect(body).toMatchObject({ username: 'analyst', role: 'analyst', via: 'session' });
    expect(body.permissions).toEqual(['read', 'query', 'run', 'design', 'tokens']);
    const session = login.cookies.find((c) => c.name === 'junction_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Strict');
    const csrf = login.cookies.find((c) => c.name === 'junction_csrf')!;
    expect(csrf.httpOnly).toBeFalsy();
    expect(csrf.value).toBe(body.csrfToken);
    const cookie = `junction_session=${session.value}; junction_csrf=${csrf.value}`;

    const me = await h.as(null, { method: 'GET', url: '/api/v1/auth/me', headers: { cookie } });
    expect(me.json()).toMatchObject({ username: 'analyst', via: 'session', csrfToken: body.csrfToken });

    const noCsrf = await h.as(null, {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'q', sql: 'SELECT 1' },
      headers: { cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().code).toBe('csrf_failed');
    const wrongCsrf = await h.as(null, {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'q', sql: 'SELECT 1' },
      headers: { cookie, 'x-junction-csrf': 'guess' },
    });
    expect(wrongCsrf.statusCode).toBe(403);
    const ok = await h.as(null, {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'q', sql: 'SELECT 1' },
      headers: { cookie, 'x-junction-csrf': body.csrfToken },
    });
    expect(ok.statusCode).toBe(201);

    const out = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { cookie, 'x-junction-csrf': body.csrfToken },
    });
    expect(out.statusCode).toBe(200);
    expect(cookiesOf(out).junction_session).toBe('');
    expect((await h.as(null, { method: 'GET', url: '/api/v1/auth/me', headers: { cookie } })).statusCode).toBe(401);
  });

  it('a sign-in removes sessions that have expired, and only those', async () => {
    const expired = { userId: h.userIds.viewer, csrfToken: 'x', expiresAt: new Date(Date.now() - 1000) };
    await h.meta.db.session.create({ data: { id: 'expired-session', ...expired } });
    await h.meta.db.session.create({ data: { id: 'live-session', ...expired, expiresAt: new Date(Date.now() + 60_000) } });
    const login = await h.as(null, { method: 'POST', url: '/api/v1/auth/login', payload: { username: 'viewer', password: h.passwords.viewer } });
    expect(login.statusCode).toBe(200);
    const ids = (await h.meta.db.session.findMany({ where: { userId: h.userIds.viewer }, select: { id: true } })).map((s) => s.id);
    expect(ids).not.toContain('expired-session');
    expect(ids).toContain('live-session');
  });

  it('sets the Secure flag behind TLS', async () => {
    const tls = await startHarness({ trustProxy: 1 });
    try {
      const login = await tls.as(null, {
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'viewer', password: tls.passwords.viewer },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(login.cookies.find((c) => c.name === 'junction_session')!.secure).toBe(true);
    } finally {
      await tls.close();
    }
  });

  it('rejects wrong passwords the same way as unknown users and backs off after repeated failures', async () => {
    const wrong = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'viewer', password: 'wrong' },
    });
    const unknown = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'ghost', password: 'wrong' },
    });
    expect([wrong.statusCode, unknown.statusCode]).toEqual([401, 401]);
    expect(wrong.json()).toEqual(unknown.json());
    for (let i = 0; i < 4; i++)
      await h.as(null, {
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'viewer', password: 'wrong' },
      });
    const blocked = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'viewer', password: h.passwords.viewer },
    });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await h.app.records.flush(); // audit rows are written in batches
    const failures = await h.meta.db.auditLog.count({ where: { action: 'auth.login_failed', target: 'viewer' } });
    expect(failures).toBe(5);
  });

  it('a disabled user can no longer sign in nor use a token', async () => {
    const created = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'temp', password: 'temp-password', role: 'analyst' },
    });
    const id = created.json().id;
    const login = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'temp', password: 'temp-password' },
    });
    const session = login.cookies.find((c) => c.name === 'junction_session')!.value;
    expect(
      (await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { disabled: true } })).statusCode,
    ).toBe(200);
    expect(
      (await h.as(null, { method: 'GET', url: '/api/v1/auth/me', headers: { cookie: `junction_session=${session}` } }))
        .statusCode,
    ).toBe(401);
    expect(
      (
        await h.as(null, {
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'temp', password: 'temp-password' },
        })
      ).statusCode,
    ).toBe(401);
  });
});

describe('tokens', () => {
  it('treats scopes as hierarchical: an admin scope can read, query and run; a read scope cannot query', async () => {
    const create = async (role: 'admin' | 'viewer', scopes: string[]) =>
      (await h.as(role, { method: 'POST', url: '/api/v1/tokens', payload: { name: `s-${scopes[0]}`, scopes } })).json()
        .token as string;
    const admin = await create('admin', ['admin']);
    const bearer = (token: string, method: string, url: string, payload?: object) =>
      h.app.inject({
        method: method as 'GET',
        url,
        ...(payload ? { payload } : {}),
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await bearer(admin, 'GET', '/api/v1/auth/me')).json().permissions).toEqual([
      'read',
      'query',
      'run',
      'design',
      'admin',
      'tokens',
    ]);
    expect((await bearer(admin, 'GET', '/api/v1/sources')).statusCode).toBe(200);
    const q = await bearer(admin, 'POST', '/api/v1/query', { sql: 'SELECT 1 AS one' });
    expect(q.statusCode).toBe(200);
    expect(q.json().rows).toEqual([[1]]);
    expect((await bearer(admin, 'GET', '/api/v1/saved-queries')).statusCode).toBe(200);
    const read = await create('admin', ['read']);
    expect((await bearer(read, 'GET', '/api/v1/auth/me')).json().permissions).toEqual(['read']);
    expect((await bearer(read, 'GET', '/api/v1/sources')).statusCode).toBe(200);
    const denied = await bearer(read, 'POST', '/api/v1/query', { sql: 'SELECT 1 AS one' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'forbidden', details: { permission: 'query' } });
    // still capped by the role: a viewer's run scope gives read and run, never query
    const viewer = await create('viewer', ['run']);
    expect((await bearer(viewer, 'GET', '/api/v1/auth/me')).json().permissions).toEqual(['read', 'run']);
  });

  it('returns the token once, stores only its hash, caps scopes by role, records last use and revokes', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'ci', scopes: ['read', 'query'] },
    });
    expect(res.statusCode).toBe(201);
    const { token, id } = res.json();
    expect(token).toMatch(/^jct_/);
    const stored = await h.meta.db.apiToken.findUniqueOrThrow({ where: { id } });
    expect(stored.tokenHash).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored.lastUsedAt).toBeNull();
    const me = await h.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${token}` },
    });
    // query implies run
    expect(me.json()).toMatchObject({ username: 'analyst', via: 'token', permissions: ['read', 'query', 'run'] });
    expect((await h.meta.db.apiToken.findUniqueOrThrow({ where: { id } })).lastUsedAt).not.toBeNull();
    // scope cap: this token cannot design views
    const design = await h.app.inject({
      method: 'POST',
      url: '/api/v1/schemas',
      payload: { name: 'sales' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(design.statusCode).toBe(403);
    const list = (await h.as('analyst', { method: 'GET', url: '/api/v1/tokens' })).json();
    expect(list.find((t: { id: string }) => t.id === id)).toMatchObject({
      name: 'ci',
      scopes: ['read', 'query'],
      revokedAt: null,
    });
    expect(JSON.stringify(list)).not.toContain(token);
    expect(
      (await h.as('viewer', { method: 'POST', url: '/api/v1/tokens', payload: { name: 'x', scopes: ['admin'] } }))
        .statusCode,
    ).toBe(403);
    expect((await h.as('viewer', { method: 'DELETE', url: `/api/v1/tokens/${id}` })).statusCode).toBe(404);
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/tokens/${id}` })).statusCode).toBe(200);
    expect(
      (await h.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(401);
  });
});

describe('users, grants and audit (admin only)', () => {
  it('manages users and writes audit entries without secrets', async () => {
    const created = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'carol', password: 'carol-secret-1', role: 'viewer' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ username: 'carol', role: 'viewer', disabled: false });
    expect(created.body).not.toContain('carol-secret-1');
    expect(
      (
        await h.as('admin', {
          method: 'POST',
          url: '/api/v1/users',
          payload: { username: 'carol', password: 'carol-secret-1', role: 'viewer' },
        })
      ).statusCode,
    ).toBe(409);
    const id = created.json().id;
    const upd = await h.as('admin', {
      method: 'PATCH',
      url: `/api/v1/users/${id}`,
      payload: { role: 'analyst', password: 'carol-secret-2' },
    });
    expect(upd.json().role).toBe('analyst');
    expect(
      (
        await h.as(null, {
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'carol', password: 'carol-secret-2' },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${h.userIds.admin}`, payload: { role: 'viewer' } }))
        .statusCode,
    ).toBe(403);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/users/${id}` })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/users/${id}` })).statusCode).toBe(404);
    const audit = (await h.as('admin', { method: 'GET', url: '/api/v1/audit?limit=50' })).json();
    const actions = audit.map((a: { action: string }) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['user.create', 'user.update', 'user.delete']));
    expect(JSON.stringify(audit)).not.toMatch(/carol-secret/);
    expect(audit.find((a: { action: string }) => a.action === 'user.update').details).toEqual({
      role: 'analyst',
      passwordChanged: true,
    });
  });

  it('creates and deletes grants, naming exactly one grantee and one object', async () => {
    const g = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      // a grant names an existing source or '*' (view-grants.test.ts covers the refusals)
      payload: { role: 'viewer', sourceName: '*' },
    });
    expect(g.statusCode).toBe(201);
    expect(g.json()).toMatchObject({ role: 'viewer', sourceName: '*', userId: null, privilege: 'read' });
    const both = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { role: 'viewer', userId: h.userIds.viewer, sourceName: 'dbA' },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().code).toBe('grant_grantee');
    expect(
      (await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'viewer' } })).json().code,
    ).toBe('grant_object');
    expect(
      (await h.as('admin', { method: 'GET', url: '/api/v1/grants' })).json().map((x: { id: string }) => x.id),
    ).toContain(g.json().id);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${g.json().id}` })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${g.json().id}` })).statusCode).toBe(404);
  });
});

describe('authorization matrix (routes that need no source)', () => {
  const matrix: { method: string; url: string; payload?: unknown; allowed: ('admin' | 'analyst' | 'viewer')[] }[] = [
    { method: 'GET', url: '/api/v1/users', allowed: ['admin'] },
    {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'm_$ROLE', password: 'password-1', role: 'viewer' },
      allowed: ['admin'],
    },
    { method: 'GET', url: '/api/v1/grants', allowed: ['admin'] },
    { method: 'POST', url: '/api/v1/grants', payload: { role: 'viewer', sourceName: 'dbZ' }, allowed: ['admin'] },
    { method: 'GET', url: '/api/v1/audit', allowed: ['admin'] },
    { method: 'GET', url: '/api/v1/sources', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'POST', url: '/api/v1/sources/none/test', allowed: ['admin'] },
    { method: 'POST', url: '/api/v1/sources/none/refresh', allowed: ['admin'] },
    { method: 'DELETE', url: '/api/v1/sources/none', allowed: ['admin'] },
    { method: 'PATCH', url: '/api/v1/sources/none', payload: { password: 'x' }, allowed: ['admin'] },
    { method: 'GET', url: '/api/v1/catalog', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'GET', url: '/api/v1/schemas', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'POST', url: '/api/v1/schemas', payload: { name: 'm_$ROLE' }, allowed: ['admin', 'analyst'] },
    { method: 'GET', url: '/api/v1/views', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'GET', url: '/api/v1/views/graph', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'GET', url: '/api/v1/saved-queries', allowed: ['admin', 'analyst', 'viewer'] },
    {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'x', sql: 'SELECT 1' },
      allowed: ['admin', 'analyst'],
    },
    { method: 'GET', url: '/api/v1/history', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'GET', url: '/api/v1/queries', allowed: ['admin', 'analyst', 'viewer'] },
    { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT 1' }, allowed: ['admin', 'analyst'] },
    { method: 'POST', url: '/api/v1/explain', payload: { sql: 'SELECT 1' }, allowed: ['admin', 'analyst'] },
    { method: 'GET', url: '/api/v1/tokens', allowed: ['admin', 'analyst', 'viewer'] },
  ];
  for (const route of matrix) {
    for (const role of ['admin', 'analyst', 'viewer'] as const) {
      const allowed = route.allowed.includes(role);
      it(`${role} ${route.method} ${route.url} → ${allowed ? 'allowed' : '403'}`, async () => {
        const payload = route.payload ? JSON.parse(JSON.stringify(route.payload).replace('$ROLE', role)) : undefined;
        const res = await h.as(role, { method: route.method, url: route.url, payload });
        if (allowed) expect(res.statusCode === 401 || res.statusCode === 403).toBe(false);
        else {
          expect(res.statusCode).toBe(403);
          expect(res.json().kind).toBe('forbidden');
        }
        const anon = await h.as(null, { method: route.method, url: route.url, payload });
        expect(anon.statusCode).toBe(401);
      });
    }
  }
});

describe('PostgreSQL metadata', () => {
  it('runs the same app on PostgreSQL metadata (DATABASE_URL): login, users, tokens, audit', async () => {
    const db = await createPgDatabase('api_meta');
    const pgh = await startHarness({ metadataUrl: db.url });
    try {
      expect(pgh.meta.provider).toBe('postgresql');
      const login = await pgh.as(null, {
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: pgh.passwords.admin },
      });
      expect(login.statusCode).toBe(200);
      const u = await pgh.as('admin', {
        method: 'POST',
        url: '/api/v1/users',
        payload: { username: 'dora', password: 'dora-password', role: 'analyst' },
      });
      expect(u.statusCode).toBe(201);
      expect(
        (
          await pgh.as('admin', {
            method: 'POST',
            url: '/api/v1/users',
            payload: { username: 'dora', password: 'dora-password', role: 'analyst' },
          })
        ).statusCode,
      ).toBe(409);
      const t = await pgh.as('analyst', {
        method: 'POST',
        url: '/api/v1/tokens',
        payload: { name: 'x', scopes: ['read'] },
      });
      expect(
        (
          await pgh.app.inject({
            method: 'GET',
            url: '/api/v1/auth/me',
            headers: { authorization: `Bearer ${t.json().token}` },
          })
        ).json().username,
      ).toBe('analyst');
      const audit = (await pgh.as('admin', { method: 'GET', url: '/api/v1/audit' }))
        .json()
        .map((a: { action: string }) => a.action)
        .sort();
      // each token's first use from an address is audited: the admin's, the analyst's and the new one
      expect(audit).toEqual([
        'auth.login',
        'token.create',
        'token.new_address',
        'token.new_address',
        'token.new_address',
        'user.create',
      ]);
    } finally {
      await pgh.close();
      await db.drop();
    }
  });
});

describe('the built web app', () => {
  it('is served from the same origin with SPA fallback, while unknown API paths stay JSON 404s', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dist = mkdtempSync(path.join(os.tmpdir(), 'jt-web-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>',
    );
    writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    const zlib = await import('node:zlib');
    writeFileSync(path.join(dist, 'assets', 'app.js.br'), zlib.brotliCompressSync('console.log(1)'));
    writeFileSync(path.join(dist, 'assets', 'app.js.gz'), zlib.gzipSync('console.log(1)'));
    const web = await startHarness({ webDist: dist });
    try {
      const root = await web.as(null, { method: 'GET', url: '/' });
      expect(root.statusCode).toBe(200);
      expect(root.body).toContain('<div id="root">');
      const deep = await web.as(null, { method: 'GET', url: '/queries/123' });
      expect(deep.statusCode).toBe(200);
      expect(deep.headers['content-type']).toContain('text/html');
      expect(deep.body).toContain('<div id="root">');
      const js = await web.as(null, { method: 'GET', url: '/assets/app.js' });
      expect(js.headers['content-type']).toContain('javascript');
      expect(js.headers['content-encoding']).toBeUndefined();
      expect(js.body).toBe('console.log(1)');
      // the build's precompressed copies, by what the browser accepts
      const br = await web.as(null, { method: 'GET', url: '/assets/app.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect([br.headers['content-encoding'], String(br.headers['content-type']).includes('javascript')]).toEqual(['br', true]);
      expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe('console.log(1)');
      const gz = await web.as(null, { method: 'GET', url: '/assets/app.js', headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe('console.log(1)');
      const api = await web.as(null, { method: 'GET', url: '/api/v1/nope' });
      expect(api.statusCode).toBe(404);
      expect(api.json().code).toBe('route_not_found');
    } finally {
      await web.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
