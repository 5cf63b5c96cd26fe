import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';
import { loopDelayMs } from '../lib/runtime-stats.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('GET /tokens/all', () => {
  it("lists every user's tokens with their owner, for admins only, without the secret", async () => {
    const created = await h.as('viewer', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'viewer-script', scopes: ['read'] },
    });
    expect(created.statusCode).toBe(201);
    const res = await h.as('admin', { method: 'GET', url: '/api/v1/tokens/all' });
    expect(res.statusCode).toBe(200);
    const all = res.json() as { name: string; username: string; token?: string }[];
    expect(all.map((t) => t.username).sort()).toEqual(['admin', 'analyst', 'viewer', 'viewer']);
    expect(all.find((t) => t.name === 'viewer-script')).toMatchObject({ username: 'viewer', scopes: ['read'] });
    expect(res.body).not.toContain(created.json().token);

    for (const role of ['analyst', 'viewer'] as const) {
      const refused = await h.as(role, { method: 'GET', url: '/api/v1/tokens/all' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('forbidden');
    }
  });

  it("an admin revokes another user's token, which is then refused", async () => {
    const created = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'leaked', scopes: ['read'] },
    });
    const { id, token } = created.json() as { id: string; token: string };
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/tokens/${id}` })).statusCode).toBe(200);
    const me = await h.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.statusCode).toBe(401);
  });
});

describe('token expiry', () => {
  it('a token with an expiry works until then and is refused after it with token_expired', async () => {
    const soon = new Date(Date.now() + 1500);
    const created = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'short-lived', scopes: ['read'], expiresAt: soon.toISOString() },
    });
    expect(created.statusCode).toBe(201);
    const { id, token, expiresAt } = created.json() as { id: string; token: string; expiresAt: string };
    expect(expiresAt).toBe(soon.toISOString());
    const me = () => h.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect((await me()).statusCode).toBe(200);
    const listed = (await h.as('analyst', { method: 'GET', url: '/api/v1/tokens' })).json() as { id: string; expiresAt: string | null }[];
    expect(listed.find((t) => t.id === id)?.expiresAt).toBe(soon.toISOString());
    // past the instant (the principal cache holds a token for at most half a second)
    await new Promise((r) => setTimeout(r, Math.max(0, soon.getTime() - Date.now()) + 50));
    const expired = await me();
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({
      code: 'token_expired',
      message: `This API token expired at ${soon.toISOString()}; create a new one under My account → API tokens.`,
    });
  });

  it('refuses an expiry in the past, and a token without one never expires', async () => {
    const past = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'stale', scopes: ['read'], expiresAt: '2020-01-01T00:00:00.000Z' },
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().code).toBe('invalid_expiry');
    const forever = await h.as('analyst', { method: 'POST', url: '/api/v1/tokens', payload: { name: 'forever', scopes: ['read'] } });
    expect(forever.json().expiresAt).toBeNull();
  });
});

describe('minting and revoking tokens needs the tokens or admin scope', () => {
  async function session(username: 'admin' | 'viewer' | 'analyst') {
    const res = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username, password: h.passwords[username] },
    });
    expect(res.statusCode).toBe(200);
    const c = Object.fromEntries(res.cookies.map((x) => [x.name, x.value]));
    return {
      cookie: `junction_session=${c.junction_session}; junction_csrf=${c.junction_csrf}`,
      'x-junction-csrf': c.junction_csrf,
    };
  }
  const bearer = (token: string, method: string, url: string, payload?: object) =>
    h.app.inject({
      method: method as 'GET',
      url,
      ...(payload ? { payload } : {}),
      headers: { authorization: `Bearer ${token}` },
    });
  const FORBIDDEN = {
    code: 'forbidden',
    kind: 'forbidden',
    message: 'This needs the "tokens" permission, which this token does not have.',
    details: { permission: 'tokens' },
  };

  it('a read token can neither mint nor revoke, not even itself; it keeps working', async () => {
    const headers = await session('viewer');
    const made = await h.as(null, {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'leaky', scopes: ['read', 'run'] },
      headers,
    });
    expect(made.statusCode).toBe(201);
    const { token, id } = made.json() as { token: string; id: string };
    const mint = await bearer(token, 'POST', '/api/v1/tokens', { name: 'copy', scopes: ['read'] });
    expect(mint.statusCode).toBe(403);
    expect(mint.json()).toEqual(FORBIDDEN);
    const revoke = await bearer(token, 'DELETE', `/api/v1/tokens/${id}`);
    expect(revoke.statusCode).toBe(403);
    expect(revoke.json()).toEqual(FORBIDDEN);
    expect((await bearer(token, 'GET', '/api/v1/auth/me')).statusCode).toBe(200);
    // listing its user's tokens (names, never secrets) is fine
    expect((await bearer(token, 'GET', '/api/v1/tokens')).statusCode).toBe(200);
    // the session that made it revokes it
    const del = await h.as(null, { method: 'DELETE', url: `/api/v1/tokens/${id}`, headers });
    expect(del.statusCode).toBe(200);
    expect((await bearer(token, 'GET', '/api/v1/auth/me')).statusCode).toBe(401);
  });

  it('an admin-scope token mints and revokes; a tokens-scope token mints only within its scopes and reads no data', async () => {
    const headers = await session('admin');
    const admin = (
      await h.as(null, { method: 'POST', url: '/api/v1/tokens', payload: { name: 'ops', scopes: ['admin'] }, headers })
    ).json() as { token: string; id: string };
    const child = await bearer(admin.token, 'POST', '/api/v1/tokens', { name: 'child', scopes: ['read'] });
    expect(child.statusCode).toBe(201);
    expect((await bearer(admin.token, 'DELETE', `/api/v1/tokens/${child.json().id}`)).statusCode).toBe(200);

    const rotator = (
      await h.as(null, {
        method: 'POST',
        url: '/api/v1/tokens',
        payload: { name: 'rotator', scopes: ['tokens', 'read'] },
        headers,
      })
    ).json() as { token: string; id: string };
    const beyond = await bearer(rotator.token, 'POST', '/api/v1/tokens', { name: 'more', scopes: ['read', 'query'] });
    expect(beyond.statusCode).toBe(403);
    expect(beyond.json()).toEqual({
      code: 'forbidden',
      kind: 'forbidden',
      message: 'You cannot grant scopes you do not have: query.',
    });
    const within = await bearer(rotator.token, 'POST', '/api/v1/tokens', { name: 'within', scopes: ['read'] });
    expect(within.statusCode).toBe(201);
    const only = (
      await h.as(null, { method: 'POST', url: '/api/v1/tokens', payload: { name: 'only', scopes: ['tokens'] }, headers })
    ).json() as { token: string };
    expect((await bearer(only.token, 'GET', '/api/v1/auth/me')).json().permissions).toEqual(['tokens']);
    const data = await bearer(only.token, 'GET', '/api/v1/sources');
    expect(data.statusCode).toBe(403);
    expect(data.json().details).toEqual({ permission: 'read' });

    await h.app.records.flush();
    const audit = (await h.as('admin', { method: 'GET', url: '/api/v1/audit?action=token.create' })).json() as {
      target: string;
      actorName: string;
      details: Record<string, unknown>;
    }[];
    const within_ = audit.find((a) => a.target === 'within')!;
    expect(within_).toMatchObject({ actorName: 'admin' });
    expect(within_.details).toEqual({
      tokenId: within.json().id,
      prefix: within.json().prefix,
      scopes: ['read'],
      viaToken: rotator.id,
    });
    const revokes = (await h.as('admin', { method: 'GET', url: '/api/v1/audit?action=token.revoke' })).json() as {
      target: string;
      details: Record<string, unknown>;
    }[];
    expect(revokes.find((a) => a.target === 'child')!.details).toEqual({
      tokenId: child.json().id,
      prefix: child.json().prefix,
      viaToken: admin.id,
    });
  });

  it('a token minted by an expiring token expires with it at the latest', async () => {
    const headers = await session('analyst');
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const parent = (
      await h.as(null, {
        method: 'POST',
        url: '/api/v1/tokens',
        payload: { name: 'p', scopes: ['tokens', 'read'], expiresAt },
        headers,
      })
    ).json() as { token: string };
    const inherits = await bearer(parent.token, 'POST', '/api/v1/tokens', { name: 'c', scopes: ['read'] });
    expect(inherits.json().expiresAt).toBe(expiresAt);
    const later = await bearer(parent.token, 'POST', '/api/v1/tokens', {
      name: 'c2',
      scopes: ['read'],
      expiresAt: new Date(Date.now() + 7200_000).toISOString(),
    });
    expect(later.statusCode).toBe(400);
    expect(later.json()).toMatchObject({ code: 'invalid_expiry', details: { field: 'body.expiresAt' } });
  });
});

describe('GET /runtime', () => {
  it("gives admins the process's memory, handles, descriptors and event-loop delay; nobody else", async () => {
    const first = await h.as('admin', { method: 'GET', url: '/api/v1/runtime' });
    expect(first.statusCode).toBe(200);
    const r = first.json();
    expect(r.pid).toBe(process.pid);
    expect(r.memory.rssBytes).toBeGreaterThan(r.memory.heapUsedBytes);
    expect(r.handles).toEqual(expect.any(Object));
    // the harness runs on Linux: /proc is there, and the metadata database holds a descriptor
    expect(r.fds).toBeGreaterThan(0);
    expect(r.sockets).toBeGreaterThanOrEqual(0);
    expect(r.queries).toEqual({ running: 0, queued: 0 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // each call starts a new interval of the event-loop histogram
    const second = (await h.as('admin', { method: 'GET', url: '/api/v1/runtime' })).json();
    expect(second.eventLoop.sinceSeconds).toBeGreaterThanOrEqual(0.1);
    expect(second.eventLoop.sinceSeconds).toBeLessThan(30);
    // a delay, not the monitor's own 20 ms interval: an idle test process is far below it
    expect(second.eventLoop.p50Ms).toBeLessThan(20);

    for (const role of ['analyst', 'viewer'] as const) {
      const refused = await h.as(role, { method: 'GET', url: '/api/v1/runtime' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('forbidden');
    }
  });
});

describe('loopDelayMs', () => {
  it("takes the monitor's own interval out of a histogram value, never below 0", () => {
    expect(loopDelayMs(20_200_000, 20)).toBe(0.2);
    expect(loopDelayMs(250_000_000, 20)).toBe(230);
    expect(loopDelayMs(15_000_000, 20)).toBe(0);
    expect(loopDelayMs(Number.NaN, 20)).toBe(0);
  });
});
