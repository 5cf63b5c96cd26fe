import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';

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
