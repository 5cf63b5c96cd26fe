import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';
import { parseTrustProxy } from '../lib/trust-proxy.js';

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

/** A harness behind one proxy (JUNCTION_TRUST_PROXY=1): the proxy appends the client's address. */
describe('behind one trusted proxy', () => {
  let p: Harness;
  beforeAll(async () => {
    p = await startHarness({ trustProxy: parseTrustProxy('1') });
  });
  afterAll(async () => {
    await p?.close();
  });

  // what the proxy sends on: whatever the client claimed, then the address it came from
  const via = (client: string, claimed?: string) => ({
    'x-forwarded-for': claimed ? `${claimed}, ${client}` : client,
  });
  const login = (username: string, password: string, headers: Record<string, string>) =>
    p.as(null, { method: 'POST', url: '/api/v1/auth/login', payload: { username, password }, headers });
  type Entry = { actorName: string | null; action: string; target: string | null; details: unknown; ip: string | null };
  const audit = async (action: string): Promise<Entry[]> =>
    (await p.as('admin', { method: 'GET', url: `/api/v1/audit?action=${action}&limit=999` })).json().map(
      // id and time vary; the rest is compared exactly
      ({ actorName, action, target, details, ip }: Entry) => ({ actorName, action, target, details, ip }),
    );

  it('sees the address the proxy appended, not one the client forged', async () => {
    const res = await login('nobody-here', 'x', via('198.51.100.7', '1.2.3.4'));
    expect(res.statusCode).toBe(401);
    expect(await audit('auth.login_failed')).toEqual([
      { actorName: null, action: 'auth.login_failed', target: 'nobody-here', details: null, ip: '198.51.100.7' },
    ]);
  });

  it('locks an account after 10 failures from 10 addresses; even the right password is refused until an admin unlocks it', async () => {
    for (let i = 1; i <= 10; i++) {
      const res = await login('viewer', `guess-${i}`, via(`203.0.113.${i}`, '6.6.6.6'));
      expect(res.statusCode, `attempt ${i}`).toBe(401);
    }
    const owner = await login('viewer', p.passwords.viewer, via('192.0.2.50'));
    expect(owner.statusCode).toBe(423);
    const body = owner.json();
    const until = Date.parse(body.details.lockedUntil);
    expect(until - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(body).toEqual({
      code: 'account_locked',
      kind: 'auth',
      message: `This account is temporarily locked after too many failed sign-ins; it unlocks at ${body.details.lockedUntil}, or sooner if an admin unlocks it.`,
      details: { lockedUntil: body.details.lockedUntil, retryAfterSeconds: body.details.retryAfterSeconds },
    });
    expect(Number(owner.headers['retry-after'])).toBe(body.details.retryAfterSeconds);
    expect(body.details.retryAfterSeconds).toBeGreaterThan(14 * 60);

    expect(await audit('auth.locked')).toEqual([
      {
        actorName: null,
        action: 'auth.locked',
        target: 'viewer',
        details: { failures: 10, windowSeconds: 900, lockedUntil: body.details.lockedUntil },
        ip: '203.0.113.10',
      },
    ]);
    const failed = (await audit('auth.login_failed')).filter((e) => e.target === 'viewer');
    expect(failed.map((e) => e.ip).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`).sort(),
    );
    expect(JSON.stringify(failed)).not.toContain('guess-');

    const unlock = await p.as('admin', { method: 'PATCH', url: `/api/v1/users/${p.userIds.viewer}`, payload: { unlock: true } });
    expect(unlock.statusCode).toBe(200);
    expect((await audit('user.update')).find((e) => e.target === 'viewer')).toEqual({
      actorName: 'admin',
      action: 'user.update',
      target: 'viewer',
      details: { unlocked: true },
      ip: '127.0.0.1',
    });
    expect((await login('viewer', p.passwords.viewer, via('192.0.2.50'))).statusCode).toBe(200);
    expect(await audit('auth.login')).toEqual([
      { actorName: 'viewer', action: 'auth.login', target: 'viewer', details: null, ip: '192.0.2.50' },
    ]);
  });

  it('locks a name that does not exist the same way, so a lock-out tells nothing', async () => {
    for (let i = 1; i <= 10; i++) await login('ghost-user', 'x', via(`203.0.113.${100 + i}`));
    const res = await login('ghost-user', 'x', via('203.0.113.200'));
    expect(res.statusCode).toBe(423);
    expect(res.json().code).toBe('account_locked');
  });

  it('marks session cookies Secure behind a proxy, even without X-Forwarded-Proto', async () => {
    const res = await login('analyst', p.passwords.analyst, via('192.0.2.60'));
    expect(res.statusCode).toBe(200);
    expect(res.cookies.map((c) => [c.name, c.secure])).toEqual([
      ['junction_session', true],
      ['junction_csrf', true],
    ]);
  });

  it("audits a token's use from an address it was not used from recently, once per address", async () => {
    const made = await p.as('analyst', { method: 'POST', url: '/api/v1/tokens', payload: { name: 'roaming', scopes: ['read'] } });
    const { token, id, prefix } = made.json() as { token: string; id: string; prefix: string };
    const me = (client: string) =>
      p.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${token}`, ...via(client, '10.9.9.9') },
      });
    for (const client of ['198.51.100.20', '198.51.100.20', '198.51.100.21', '198.51.100.20'])
      expect((await me(client)).statusCode).toBe(200);
    const entries = (await audit('token.new_address')).filter((e) => e.target === 'roaming');
    expect(entries.sort((a, b) => String(a.ip).localeCompare(String(b.ip)))).toEqual(
      ['198.51.100.20', '198.51.100.21'].map((ip) => ({
        actorName: 'analyst',
        action: 'token.new_address',
        target: 'roaming',
        details: { tokenId: id, prefix },
        ip,
      })),
    );
  });
});

describe('session cookies without a proxy', () => {
  it('are not Secure over plain http (local development), unless JUNCTION_SECURE_COOKIES=1', async () => {
    const plain = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'viewer', password: h.passwords.viewer },
    });
    expect(plain.cookies.find((c) => c.name === 'junction_session')!.secure).toBeFalsy();
    const forced = await startHarness({ secureCookies: true });
    const off = await startHarness({ trustProxy: 1, secureCookies: false });
    try {
      for (const [harness, secure] of [
        [forced, true],
        [off, false],
      ] as const) {
        const res = await harness.as(null, {
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'viewer', password: harness.passwords.viewer },
        });
        expect(Boolean(res.cookies.find((c) => c.name === 'junction_session')!.secure)).toBe(secure);
      }
    } finally {
      await forced.close();
      await off.close();
    }
  });
});
