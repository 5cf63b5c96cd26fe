import { createHash, createHmac, pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { verifyScramSha256Password, type ScramSha256Data } from 'pg-gateway';
import { fromNodeSocket } from 'pg-gateway/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunctionError } from '@junction/connectors';
import { startHarness, type Harness } from '../../test/harness.js';
import { ensureAdmin } from '../bootstrap.js';
import { hashPassword } from '../lib/secrets.js';
import { ROLE_PERMISSIONS, type Principal } from '../plugins/auth.js';
import {
  AUDIT_VIA,
  REFUSE_PLAIN,
  SCRAM_ITERATIONS,
  WireAuth,
  formatScramVerifier,
  parseScramVerifier,
  saslPrep,
  scramVerifier,
  scramVerifierMatches,
} from './auth.js';

let h: Harness;
let wire: WireAuth;
const secret = randomBytes(32);

beforeAll(async () => {
  h = await startHarness();
  wire = new WireAuth(h.app, { secret });
});
afterAll(async () => {
  await h?.close();
});

const PLAIN = { tls: false, loopback: false };

type Entry = { actorName: string | null; action: string; target: string | null; details: unknown; ip: string | null };
/** audit rows of one action about one target, oldest first, without id and time */
async function audit(action: string, target: string): Promise<Entry[]> {
  await h.app.records.flush();
  const rows = await h.meta.db.auditLog.findMany({ where: { action, target }, orderBy: { createdAt: 'asc' } });
  return rows.map((r) => ({
    actorName: r.actorName,
    action: r.action,
    target: r.target,
    details: r.details ? JSON.parse(r.details) : null,
    ip: r.ip,
  }));
}

/** a user made through POST /users, as an admin makes one */
async function createUser(username: string, password: string, role = 'analyst'): Promise<string> {
  const res = await h.as('admin', { method: 'POST', url: '/api/v1/users', payload: { username, password, role } });
  expect(res.statusCode).toBe(201);
  return res.json().id as string;
}

/** a user written straight to the database, as before this column existed: no verifier */
async function legacyUser(username: string, password: string, role = 'analyst'): Promise<string> {
  const id = randomUUID();
  await h.meta.db.user.create({ data: { id, username, role, passwordHash: await hashPassword(password) } });
  return id;
}

async function verifierOf(username: string): Promise<string | null> {
  return (await h.meta.db.user.findUniqueOrThrow({ where: { username } })).scramVerifier;
}

function restLogin(username: string, password: string) {
  return h.as(null, { method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
}

/** what a sign-in threw, as the wire layer sees it */
async function refusal(p: Promise<unknown>): Promise<Record<string, unknown>> {
  const err = await p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JunctionError);
  return (err as JunctionError).toJSON();
}

const BAD = { code: 'bad_credentials', kind: 'auth', message: 'Unknown user name or wrong password.' };

/** RFC 5802 on the client's side: the proof of `password` for this exchange, and the server signature it expects */
function clientProof(password: string, scram: ScramSha256Data, authMessage: string) {
  const salted = pbkdf2Sync(password, Buffer.from(scram.salt, 'base64'), scram.iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const signature = createHmac('sha256', storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!)).toString('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return { proof, serverSignature: createHmac('sha256', serverKey).update(authMessage).digest('base64') };
}

function exchange(username: string, scram: ScramSha256Data) {
  const cnonce = randomBytes(18).toString('base64');
  const nonce = cnonce + randomBytes(18).toString('base64');
  return `n=${username},r=${cnonce},r=${nonce},s=${scram.salt},i=${scram.iterations},c=biws,r=${nonce}`;
}

describe('SCRAM-SHA-256 verifiers', () => {
  it("are PostgreSQL's format with 4096 iterations, a 16-byte salt and 32-byte keys, and match only their password", async () => {
    const v = await scramVerifier('correct horse');
    expect(v).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/);
    const d = parseScramVerifier(v)!;
    expect(d.iterations).toBe(SCRAM_ITERATIONS);
    expect(Buffer.from(d.salt, 'base64')).toHaveLength(16);
    expect(formatScramVerifier(d)).toBe(v);
    expect(await scramVerifierMatches(v, 'correct horse')).toBe(true);
    expect(await scramVerifierMatches(v, 'correct horsE')).toBe(false);
    expect(await scramVerifierMatches(null, 'correct horse')).toBe(false);
    expect(parseScramVerifier('md5abc')).toBeNull();
    expect(parseScramVerifier(null)).toBeNull();
    expect(await scramVerifier('correct horse')).not.toBe(v); // a new salt each time
  });

  it('hash what a SCRAM client hashes: SASLprep of the password (RFC 4013 examples), ASCII unchanged', () => {
    expect(saslPrep('I\u00ADX')).toBe('IX');
    expect(saslPrep('user')).toBe('user');
    expect(saslPrep('USER')).toBe('USER');
    expect(saslPrep('\u00AA')).toBe('a');
    expect(saslPrep('\u2168')).toBe('IX');
    expect(saslPrep('a\u00A0b\u200Bc')).toBe('a b c');
    expect(saslPrep('tab\there')).toBe('tab\there'); // ASCII: as is
    expect(saslPrep('\u00E9\u0007')).toBe('\u00E9\u0007'); // prohibited: the password unchanged, as libpq does
    expect(saslPrep('e\u0301')).toBe('\u00E9');
  });
});

describe('method', () => {
  const username = 'm-scram';
  const password = 'm-scram-Passw0rd';
  beforeAll(async () => {
    await createUser(username, password);
  });

  it('asks for the cleartext password over TLS or from loopback, whoever asks', async () => {
    for (const link of [
      { tls: true, loopback: false },
      { tls: false, loopback: true },
      { tls: true, loopback: true },
    ]) {
      expect(await wire.method(username, link)).toBe('password');
      expect(await wire.method('analyst', link)).toBe('password');
      expect(await wire.method('nobody-at-all', link)).toBe('password');
    }
  });

  it('offers SCRAM with the stored verifier over a plain remote link', async () => {
    expect(await wire.method(username, PLAIN)).toEqual({ scram: parseScramVerifier(await verifierOf(username)) });
  });

  it('refuses, saying what to do, a user without a verifier', async () => {
    // the harness writes its users to the database directly: none has a verifier yet
    expect(await verifierOf('viewer')).toBeNull();
    expect(await wire.method('viewer', PLAIN)).toEqual({ refuse: REFUSE_PLAIN });
    expect(REFUSE_PLAIN).toContain('JUNCTION_PG_TLS_CERT');
    expect(REFUSE_PLAIN).toContain('JUNCTION_PG_TLS_KEY');
    expect(REFUSE_PLAIN).toContain("stores at the user's next sign-in");
    expect(REFUSE_PLAIN).toContain('password change');
  });

  it('gives an unknown name a made-up verifier: the same each time, from the name and the server secret', async () => {
    const a = await wire.method('ghost-1', PLAIN);
    const fake = (a as { scram: ScramSha256Data }).scram;
    expect(fake.iterations).toBe(4096);
    expect(Buffer.from(fake.salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(fake.storedKey, 'base64')).toHaveLength(32);
    expect(Buffer.from(fake.serverKey, 'base64')).toHaveLength(32);
    expect(await wire.method('ghost-1', PLAIN)).toEqual(a);
    expect(await new WireAuth(h.app, { secret }).method('ghost-1', PLAIN)).toEqual(a);
    expect(await new WireAuth(h.app, { secret: randomBytes(32) }).method('ghost-1', PLAIN)).not.toEqual(a);
    const other = ((await wire.method('ghost-2', PLAIN)) as { scram: ScramSha256Data }).scram;
    expect(other.salt).not.toBe(fake.salt);
    // no password gets through: the stored key is no hash of any client key
    const authMessage = exchange('ghost-1', fake);
    for (const guess of ['', 'password', 'ghost-1'])
      expect(
        await verifyScramSha256Password({
          authMessage,
          clientProof: clientProof(guess, fake, authMessage).proof,
          storedKey: fake.storedKey,
        }),
      ).toBe(false);
  });
});

describe('signInPassword', () => {
  it("signs in with the user's password, audits it and stores the missing SCRAM verifier", async () => {
    const password = 'legacy-Passw0rd';
    const id = await legacyUser('pw-legacy', password);
    expect(await verifierOf('pw-legacy')).toBeNull();
    const p = await wire.signInPassword('pw-legacy', password, '198.51.100.1');
    expect(p).toEqual({
      userId: id,
      username: 'pw-legacy',
      role: 'analyst',
      via: 'session',
      permissions: new Set(ROLE_PERMISSIONS.analyst),
    });
    const v = await verifierOf('pw-legacy');
    expect(await scramVerifierMatches(v, password)).toBe(true);
    expect(await audit('auth.login', 'pw-legacy')).toEqual([
      {
        actorName: 'pw-legacy',
        action: 'auth.login',
        target: 'pw-legacy',
        details: { via: AUDIT_VIA, method: 'password' },
        ip: '198.51.100.1',
      },
    ]);
    expect(AUDIT_VIA).toBe('postgresql');
    // now SCRAM works off-loopback
    expect(await wire.method('pw-legacy', PLAIN)).toEqual({ scram: parseScramVerifier(v) });
    // a second sign-in keeps the verifier; a stale one (another password's) is replaced
    await wire.signInPassword('pw-legacy', password, '198.51.100.1');
    expect(await verifierOf('pw-legacy')).toBe(v);
    await h.meta.db.user.update({ where: { id }, data: { scramVerifier: await scramVerifier('some other password') } });
    await wire.signInPassword('pw-legacy', password, '198.51.100.1');
    expect(await scramVerifierMatches(await verifierOf('pw-legacy'), password)).toBe(true);
  });

  it('refuses a wrong password and an unknown name alike, counting and auditing each without the secret', async () => {
    await createUser('pw-wrong', 'pw-wrong-Passw0rd');
    expect(await refusal(wire.signInPassword('pw-wrong', 'guess-one', '198.51.100.2'))).toEqual(BAD);
    expect(await refusal(wire.signInPassword('pw-nobody', 'guess-two', '198.51.100.2'))).toEqual(BAD);
    const failed = {
      actorName: null,
      action: 'auth.login_failed',
      details: { via: 'postgresql', method: 'password' },
      ip: '198.51.100.2',
    };
    expect(await audit('auth.login_failed', 'pw-wrong')).toEqual([{ ...failed, target: 'pw-wrong' }]);
    expect(await audit('auth.login_failed', 'pw-nobody')).toEqual([{ ...failed, target: 'pw-nobody' }]);
    expect(JSON.stringify(await h.meta.db.auditLog.findMany())).not.toContain('guess-');
  });

  it('refuses a disabled user even with the right password', async () => {
    const id = await createUser('pw-disabled', 'pw-disabled-Passw0rd');
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { disabled: true } });
    expect(await refusal(wire.signInPassword('pw-disabled', 'pw-disabled-Passw0rd', '198.51.100.3'))).toEqual(BAD);
  });

  it('shares the REST sign-in throttle: backoff per address and name, then the lock-out, both ways', async () => {
    const name = 'pw-throttle';
    const password = 'pw-throttle-Passw0rd';
    const id = await createUser(name, password);
    // 3 failures over REST (from 127.0.0.1) and 2 on this port from the same address
    for (let i = 0; i < 3; i++) expect((await restLogin(name, `guess-${i}`)).statusCode).toBe(401);
    for (let i = 3; i < 5; i++)
      expect((await refusal(wire.signInPassword(name, `guess-${i}`, '127.0.0.1'))).code).toBe('bad_credentials');
    // the 6th try from that address waits, even with the right password, on either path
    expect(await refusal(wire.signInPassword(name, password, '127.0.0.1'))).toEqual({
      code: 'too_many_attempts',
      kind: 'resources',
      message: 'Too many failed sign-ins; wait before trying again.',
      details: { retryAfterSeconds: 1 },
    });
    const rest = await restLogin(name, password);
    expect(rest.statusCode).toBe(429);
    expect(rest.json().code).toBe('too_many_attempts');
    // 5 more from other addresses: the 10th failure of the name locks it
    for (let i = 1; i <= 5; i++)
      expect((await refusal(wire.signInPassword(name, `guess-x${i}`, `203.0.113.${i}`))).code).toBe('bad_credentials');
    const locked = await refusal(wire.signInPassword(name, password, '192.0.2.99'));
    const details = locked.details as { lockedUntil: string; retryAfterSeconds: number };
    expect(locked).toEqual({
      code: 'account_locked',
      kind: 'auth',
      message: `This account is temporarily locked after too many failed sign-ins; it unlocks at ${details.lockedUntil}, or sooner if an admin unlocks it.`,
      details: { lockedUntil: details.lockedUntil, retryAfterSeconds: details.retryAfterSeconds },
    });
    expect(Date.parse(details.lockedUntil) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(details.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect((await restLogin(name, password)).statusCode).toBe(423);
    expect(await audit('auth.locked', name)).toEqual([
      {
        actorName: null,
        action: 'auth.locked',
        target: name,
        details: { failures: 10, windowSeconds: 900, lockedUntil: details.lockedUntil, via: 'postgresql' },
        ip: '203.0.113.5',
      },
    ]);
    // rows of one millisecond have no order: compared as sorted lists
    const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    const failed = await audit('auth.login_failed', name);
    expect(sorted(failed.map((e) => [e.ip, e.details]))).toEqual(
      sorted([
        ...Array.from({ length: 3 }, () => ['127.0.0.1', null]),
        ...Array.from({ length: 2 }, () => ['127.0.0.1', { via: 'postgresql', method: 'password' }]),
        ...Array.from({ length: 5 }, (_, i) => [`203.0.113.${i + 1}`, { via: 'postgresql', method: 'password' }]),
      ]),
    );
    // an admin's unlock lets the owner in again
    expect(
      (await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { unlock: true } })).statusCode,
    ).toBe(200);
    expect((await wire.signInPassword(name, password, '192.0.2.99')).username).toBe(name);
  });
});

describe('API tokens as the password', () => {
  const owner = 'tok-owner';
  const ownerPassword = 'tok-owner-Passw0rd';
  let ownerId: string;
  const session = async () => {
    const res = await restLogin(owner, ownerPassword);
    const c = Object.fromEntries(res.cookies.map((x) => [x.name, x.value]));
    return {
      cookie: `junction_session=${c.junction_session}; junction_csrf=${c.junction_csrf}`,
      'x-junction-csrf': c.junction_csrf,
    };
  };
  const mint = async (scopes: string[], expiresAt?: string) => {
    const res = await h.as(null, {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: `t-${randomUUID().slice(0, 8)}`, scopes, ...(expiresAt ? { expiresAt } : {}) },
      headers: await session(),
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { token: string; id: string; prefix: string };
  };
  const revoke = async (id: string) =>
    expect(
      (await h.as(null, { method: 'DELETE', url: `/api/v1/tokens/${id}`, headers: await session() })).statusCode,
    ).toBe(200);

  beforeAll(async () => {
    ownerId = await createUser(owner, ownerPassword);
  });

  it("signs in as the token's owner with the token's permissions, audited with the token", async () => {
    const t = await mint(['read', 'run']);
    const p = await wire.signInPassword(owner, t.token, '198.51.100.30');
    expect(p).toEqual({
      userId: ownerId,
      username: owner,
      role: 'analyst',
      via: 'token',
      tokenId: t.id,
      permissions: new Set(['read', 'run']),
    });
    expect((await audit('auth.login', owner)).filter((e) => e.ip === '198.51.100.30')).toEqual([
      {
        actorName: owner,
        action: 'auth.login',
        target: owner,
        details: { via: 'postgresql', method: 'token', tokenId: t.id, prefix: t.prefix },
        ip: '198.51.100.30',
      },
    ]);
    // a token is not a password: no verifier is made of it
    expect(await scramVerifierMatches(await verifierOf(owner), t.token)).toBe(false);
    expect(await scramVerifierMatches(await verifierOf(owner), ownerPassword)).toBe(true);
  });

  it("refuses a token with another user's name, counting it as a failure of that name", async () => {
    const t = await mint(['read']);
    expect(await refusal(wire.signInPassword('viewer', t.token, '198.51.100.31'))).toEqual(BAD);
    expect((await audit('auth.login_failed', 'viewer')).filter((e) => e.ip === '198.51.100.31')).toEqual([
      {
        actorName: null,
        action: 'auth.login_failed',
        target: 'viewer',
        details: { via: 'postgresql', method: 'token', tokenId: t.id, prefix: t.prefix },
        ip: '198.51.100.31',
      },
    ]);
  });

  it('refuses a revoked token and an expired one', async () => {
    const t = await mint(['read']);
    await revoke(t.id);
    expect(await refusal(wire.signInPassword(owner, t.token, '198.51.100.32'))).toEqual(BAD);
    const e = await mint(['read']);
    await h.meta.db.apiToken.update({ where: { id: e.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await refusal(wire.signInPassword(owner, e.token, '198.51.100.32'));
    expect(expired).toEqual({
      code: 'bad_credentials',
      kind: 'auth',
      message: expect.stringMatching(/^This API token expired at \d{4}-\d\d-\d\dT[\d:.]+Z; create a new one/),
      details: { reason: 'token_expired' },
    });
  });

  it('current: the same principal while the token is good, undefined at once after a revoke', async () => {
    const t = await mint(['read', 'query']);
    const p = await wire.signInPassword(owner, t.token, '198.51.100.33');
    expect(await wire.current(p)).toBe(p);
    await revoke(t.id);
    expect(await wire.current(p)).toBeUndefined();
    // a principal this instance did not sign in (another copy of it) is found by its token id too
    const u = await mint(['read']);
    const q = await wire.signInPassword(owner, u.token, '198.51.100.33');
    expect(await new WireAuth(h.app).current({ ...q })).toEqual(q);
  });

  it('current: undefined once the token expires', async () => {
    const t = await mint(['read'], new Date(Date.now() + 1000).toISOString());
    const p = await wire.signInPassword(owner, t.token, '198.51.100.34');
    expect(await wire.current(p)).toBe(p);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await wire.current(p)).toBeUndefined();
  });

  it('current: capped by the new role when the owner is demoted, undefined when disabled', async () => {
    const id = await createUser('tok-demoted', 'tok-demoted-Passw0rd');
    const res = await restLogin('tok-demoted', 'tok-demoted-Passw0rd');
    const c = Object.fromEntries(res.cookies.map((x) => [x.name, x.value]));
    const made = await h.as(null, {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'd', scopes: ['design'] },
      headers: {
        cookie: `junction_session=${c.junction_session}; junction_csrf=${c.junction_csrf}`,
        'x-junction-csrf': c.junction_csrf,
      },
    });
    const { token, id: tokenId } = made.json() as { token: string; id: string };
    const p = await wire.signInPassword('tok-demoted', token, '198.51.100.35');
    expect(p.permissions).toEqual(new Set(['read', 'query', 'run', 'design']));
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { role: 'viewer' } });
    expect(await wire.current(p)).toEqual({
      userId: id,
      username: 'tok-demoted',
      role: 'viewer',
      via: 'token',
      tokenId,
      permissions: new Set(['read', 'run']),
    });
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { disabled: true } });
    expect(await wire.current(p)).toBeUndefined();
  });
});

describe('current for password sign-ins', () => {
  it('follows role changes and ends on disable, delete or a new password', async () => {
    const fresh = new WireAuth(h.app, { userTtlMs: 0 });
    const id = await createUser('cur-user', 'cur-user-Passw0rd');
    const p = await fresh.signInPassword('cur-user', 'cur-user-Passw0rd', '198.51.100.40');
    expect(await fresh.current(p)).toBe(p);
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { role: 'viewer' } });
    const demoted = await fresh.current(p);
    expect(demoted).toEqual({
      userId: id,
      username: 'cur-user',
      role: 'viewer',
      via: 'session',
      permissions: new Set(ROLE_PERMISSIONS.viewer),
    });
    expect(await fresh.current(demoted!)).toBe(demoted);
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { password: 'cur-user-Passw0rd-2' } });
    expect(await fresh.current(demoted!)).toBeUndefined();
    expect(await fresh.current(p)).toBeUndefined();

    const q = await fresh.signInPassword('cur-user', 'cur-user-Passw0rd-2', '198.51.100.40');
    expect(await fresh.current(q)).toBe(q);
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { disabled: true } });
    expect(await fresh.current(q)).toBeUndefined();
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { disabled: false } });
    const r = await fresh.signInPassword('cur-user', 'cur-user-Passw0rd-2', '198.51.100.40');
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/users/${id}` })).statusCode).toBe(200);
    expect(await fresh.current(r)).toBeUndefined();
  });

  it('reuses what it read for a moment: one lookup serves the queries of that moment', async () => {
    const cached = new WireAuth(h.app, { userTtlMs: 60_000 });
    const id = await createUser('cur-cached', 'cur-cached-Passw0rd');
    const p = await cached.signInPassword('cur-cached', 'cur-cached-Passw0rd', '198.51.100.41');
    expect(await cached.current(p)).toBe(p);
    await h.meta.db.user.update({ where: { id }, data: { role: 'viewer' } });
    expect(await cached.current(p)).toBe(p); // within the cache's lifetime
    expect((await new WireAuth(h.app, { userTtlMs: 0 }).current(p))?.role).toBe('viewer');
  });
});

describe('SCRAM sign-in', () => {
  const username = 'scram-user';
  const password = 'scram-user-Passw0rd';
  let id: string;
  beforeAll(async () => {
    id = await createUser(username, password);
  });

  it("verifies a client's proof of the password against the stored verifier, and nothing else", async () => {
    const { scram } = (await wire.method(username, PLAIN)) as { scram: ScramSha256Data };
    const authMessage = exchange(username, scram);
    const right = clientProof(password, scram, authMessage);
    expect(await verifyScramSha256Password({ authMessage, clientProof: right.proof, storedKey: scram.storedKey })).toBe(
      true,
    );
    // the server's signature the client checks comes from the stored ServerKey
    expect(createHmac('sha256', Buffer.from(scram.serverKey, 'base64')).update(authMessage).digest('base64')).toBe(
      right.serverSignature,
    );
    const wrong = clientProof('scram-user-Passw0rd!', scram, authMessage);
    expect(await verifyScramSha256Password({ authMessage, clientProof: wrong.proof, storedKey: scram.storedKey })).toBe(
      false,
    );
  });

  it('signs in after a verified proof, audited; a wrong proof is a counted, audited failure', async () => {
    const p = await wire.signInScram(username, true, '198.51.100.50');
    expect(p).toEqual({
      userId: id,
      username,
      role: 'analyst',
      via: 'session',
      permissions: new Set(ROLE_PERMISSIONS.analyst),
    });
    expect(await wire.current(p)).toBe(p);
    expect((await audit('auth.login', username)).filter((e) => e.ip === '198.51.100.50')).toEqual([
      {
        actorName: username,
        action: 'auth.login',
        target: username,
        details: { via: 'postgresql', method: 'scram-sha-256' },
        ip: '198.51.100.50',
      },
    ]);
    for (let i = 0; i < 5; i++) expect(await refusal(wire.signInScram(username, false, '198.51.100.51'))).toEqual(BAD);
    expect((await refusal(wire.signInScram(username, true, '198.51.100.51'))).code).toBe('too_many_attempts');
    expect((await audit('auth.login_failed', username)).filter((e) => e.ip === '198.51.100.51')).toHaveLength(5);
    expect(await refusal(wire.signInScram('scram-nobody', true, '198.51.100.52'))).toEqual(BAD);
  });

  it('works end to end: node-postgres signs in through pg-gateway with the stored verifier', async () => {
    const signedIn: Principal[] = [];
    const server = net.createServer((socket) => {
      void fromNodeSocket(socket, {
        auth: {
          method: 'scram-sha-256',
          getScramSha256Data: async ({ username: name }) => {
            const m = await wire.method(name, PLAIN);
            if (typeof m === 'object' && 'scram' in m) return m.scram;
            throw new Error('no SCRAM');
          },
          validateCredentials: async ({ authMessage, clientProof: proof, username: name, scramSha256Data }) => {
            const verified = await verifyScramSha256Password({
              authMessage,
              clientProof: proof,
              storedKey: scramSha256Data.storedKey,
            });
            try {
              signedIn.push(await wire.signInScram(name, verified, socket.remoteAddress ?? ''));
              return true;
            } catch {
              return false;
            }
          },
        },
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const ok = new pg.Client({ host: '127.0.0.1', port, user: username, password, database: 'junction' });
      await ok.connect();
      await ok.end();
      expect(signedIn.map((p) => p.username)).toEqual([username]);
      const bad = new pg.Client({ host: '127.0.0.1', port, user: username, password: 'not-it', database: 'junction' });
      await expect(bad.connect()).rejects.toThrow(`password authentication failed for user "${username}"`);
      const ghost = new pg.Client({ host: '127.0.0.1', port, user: 'no-such-user', password, database: 'junction' });
      await expect(ghost.connect()).rejects.toThrow('password authentication failed for user "no-such-user"');
      expect(signedIn).toHaveLength(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('verifiers are stored wherever a password is set', () => {
  it('at a REST sign-in that finds none', async () => {
    await legacyUser('rest-legacy', 'rest-legacy-Passw0rd');
    expect(await verifierOf('rest-legacy')).toBeNull();
    expect((await restLogin('rest-legacy', 'rest-legacy-Passw0rd')).statusCode).toBe(200);
    const v = await verifierOf('rest-legacy');
    expect(await scramVerifierMatches(v, 'rest-legacy-Passw0rd')).toBe(true);
    expect((await restLogin('rest-legacy', 'rest-legacy-Passw0rd')).statusCode).toBe(200);
    expect(await verifierOf('rest-legacy')).toBe(v);
    expect((await restLogin('rest-legacy', 'wrong-one')).statusCode).toBe(401);
    expect(await verifierOf('rest-legacy')).toBe(v);
  });

  it("at a user's creation, an admin's reset and one's own change", async () => {
    const id = await createUser('set-pw', 'set-pw-first-1');
    expect(await scramVerifierMatches(await verifierOf('set-pw'), 'set-pw-first-1')).toBe(true);
    await h.as('admin', { method: 'PATCH', url: `/api/v1/users/${id}`, payload: { password: 'set-pw-second-2' } });
    expect(await scramVerifierMatches(await verifierOf('set-pw'), 'set-pw-second-2')).toBe(true);
    expect(await scramVerifierMatches(await verifierOf('set-pw'), 'set-pw-first-1')).toBe(false);
    const res = await restLogin('set-pw', 'set-pw-second-2');
    const c = Object.fromEntries(res.cookies.map((x) => [x.name, x.value]));
    const change = await h.as(null, {
      method: 'POST',
      url: '/api/v1/auth/password',
      payload: { currentPassword: 'set-pw-second-2', newPassword: 'set-pw-third-3' },
      headers: {
        cookie: `junction_session=${c.junction_session}; junction_csrf=${c.junction_csrf}`,
        'x-junction-csrf': c.junction_csrf,
      },
    });
    expect(change.statusCode).toBe(200);
    const v = await verifierOf('set-pw');
    expect(await scramVerifierMatches(v, 'set-pw-third-3')).toBe(true);
    expect(await scramVerifierMatches(v, 'set-pw-second-2')).toBe(false);
    // and SCRAM on the port follows it
    expect(await wire.method('set-pw', PLAIN)).toEqual({ scram: parseScramVerifier(v) });
  });

  it('for the bootstrap admin', async () => {
    const { openMetadata } = await import('../db/client.js');
    const m = await openMetadata({ sqliteFile: path.join(h.dir, 'bootstrap-scram.db') });
    try {
      const { generatedPassword } = await ensureAdmin(m.db);
      const admin = await m.db.user.findUniqueOrThrow({ where: { username: 'admin' } });
      expect(await scramVerifierMatches(admin.scramVerifier, generatedPassword!)).toBe(true);
    } finally {
      await m.close();
    }
  });
});
