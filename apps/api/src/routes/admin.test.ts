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
