import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function signIn(username: string, password: string) {
  const res = await h.as(null, { method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
  if (res.statusCode !== 200) return { status: res.statusCode, headers: {} as Record<string, string> };
  const c = Object.fromEntries(res.cookies.map((x) => [x.name, x.value]));
  return {
    status: 200,
    headers: {
      cookie: `junction_session=${c.junction_session}; junction_csrf=${c.junction_csrf}`,
      'x-junction-csrf': c.junction_csrf,
    },
  };
}

describe('POST /auth/password', () => {
  const username = 'pwchanger';
  const first = 'first-Passw0rd';
  const second = 'second-Passw0rd';

  beforeAll(async () => {
    const res = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username, password: first, role: 'analyst' },
    });
    expect(res.statusCode).toBe(201);
  });

  it('refuses a wrong current password, a too short and an unchanged new one', async () => {
    const { headers } = await signIn(username, first);
    const post = (payload: unknown) => h.as(null, { method: 'POST', url: '/api/v1/auth/password', payload, headers });
    const wrong = await post({ currentPassword: 'nope-nope', newPassword: second });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'wrong_password', details: { field: 'body.currentPassword' } });
    const short = await post({ currentPassword: first, newPassword: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ code: 'validation', details: { field: 'body.newPassword' } });
    const same = await post({ currentPassword: first, newPassword: first });
    expect(same.statusCode).toBe(400);
    expect(same.json().code).toBe('same_password');
  });

  it("needs a session: an API token cannot change its owner's password", async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/auth/password',
      payload: { currentPassword: h.passwords.analyst, newPassword: 'whatever-Passw0rd' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('session_required');
    const anonymous = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/password',
      payload: { currentPassword: 'x', newPassword: 'whatever-Passw0rd' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('changes the password, keeps this session, ends the others and audits it', async () => {
    const mine = await signIn(username, first);
    const other = await signIn(username, first);
    const res = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/password',
      payload: { currentPassword: first, newPassword: second },
      headers: mine.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const me = (headers: Record<string, string>) => h.as(null, { method: 'GET', url: '/api/v1/auth/me', headers });
    expect((await me(mine.headers)).statusCode).toBe(200);
    expect((await me(other.headers)).statusCode).toBe(401);
    expect((await signIn(username, first)).status).toBe(401);
    expect((await signIn(username, second)).status).toBe(200);
    const audit = await h.as('admin', { method: 'GET', url: '/api/v1/audit?action=user.password_change' });
    expect(audit.json()).toEqual([expect.objectContaining({ actorName: username, target: username })]);
  });
});

describe('sign-in rate per client address', () => {
  it('is a setting: past it even the right password gets 429 with Retry-After', async () => {
    const limited = await startHarness({ signInsPerMinute: 3 });
    try {
      const login = () =>
        limited.as(null, {
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'viewer', password: limited.passwords.viewer },
        });
      for (let i = 0; i < 3; i++) expect((await login()).statusCode).toBe(200);
      const over = await login();
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.json()).toEqual({
        code: 'rate_limited',
        kind: 'user',
        message: 'Rate limit exceeded, retry in 1 minute',
      });
    } finally {
      await limited.close();
    }
  });
});
