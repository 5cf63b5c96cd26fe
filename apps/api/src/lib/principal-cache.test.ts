import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const me = (app: Harness['app'], headers: Record<string, string>) =>
  app.inject({ method: 'GET', url: '/api/v1/auth/me', headers });

describe('cached tokens and sessions', () => {
  it('a revoked token is refused by the next request to the server that revoked it', async () => {
    const made = (
      await h.as('analyst', { method: 'POST', url: '/api/v1/tokens', payload: { name: 't', scopes: ['query'] } })
    ).json();
    const auth = { authorization: `Bearer ${made.token}` };
    expect((await me(h.app, auth)).statusCode).toBe(200); // now cached
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/tokens/${made.id}` })).statusCode).toBe(200);
    const after = await me(h.app, auth);
    expect([after.statusCode, after.json().code]).toEqual([401, 'unauthenticated']);
  });

  it('a revoked token is refused within a second by another server sharing the metadata database', async () => {
    const other = await buildApp({ db: h.meta.db, secretKey: randomBytes(32), webDist: null });
    try {
      await other.ready();
      const made = (
        await h.as('analyst', { method: 'POST', url: '/api/v1/tokens', payload: { name: 'u', scopes: ['query'] } })
      ).json();
      const auth = { authorization: `Bearer ${made.token}` };
      expect((await me(other, auth)).statusCode).toBe(200); // cached on the other server
      expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/tokens/${made.id}` })).statusCode).toBe(200);
      const revoked = performance.now();
      let status = 200;
      while (status === 200 && performance.now() - revoked < 1000) status = (await me(other, auth)).statusCode;
      expect(status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('disabling a user or changing its role applies to its cached session and tokens at once', async () => {
    const created = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'dora', password: 'dora-password', role: 'analyst' },
    });
    const id = created.json().id as string;
    const login = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'dora', password: 'dora-password' },
    });
    const cookie = `junction_session=${login.cookies.find((c) => c.name === 'junction_session')!.value}`;
    const made = await h.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'd', scopes: ['query'] },
      headers: { cookie, 'x-junction-csrf': login.json().csrfToken },
    });
    const bearer = { authorization: `Bearer ${made.json().token}` };
    expect((await me(h.app, bearer)).json().permissions).toEqual(['read', 'query', 'run']);
    expect((await me(h.app, { cookie })).json().role).toBe('analyst');
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { role: 'viewer' } });
    expect((await me(h.app, bearer)).json().permissions).toEqual(['read', 'run']);
    expect((await me(h.app, { cookie })).json().role).toBe('viewer');
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { disabled: true } });
    expect((await me(h.app, bearer)).statusCode).toBe(401);
    expect((await me(h.app, { cookie })).statusCode).toBe(401);
  });

  it('a signed-out session is refused at once', async () => {
    const login = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'viewer', password: h.passwords.viewer },
    });
    const cookie = `junction_session=${login.cookies.find((c) => c.name === 'junction_session')!.value}`;
    expect((await me(h.app, { cookie })).statusCode).toBe(200);
    await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { cookie, 'x-junction-csrf': login.json().csrfToken },
    });
    expect((await me(h.app, { cookie })).statusCode).toBe(401);
  });
});
