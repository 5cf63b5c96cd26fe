/**
 * Who signs in on the PostgreSQL port, and whether they still may at each query.
 *
 * A client signs in with a Junction user name and, as its password, either that user's password
 * or one of that user's API tokens. Which method the listener offers depends on the link:
 * - over TLS or from loopback the cleartext password message is safe, so Junction asks for it
 *   (`'password'`) and takes the password or a token;
 * - over a plain connection from another host only SCRAM-SHA-256 is, which needs the user's
 *   verifier (`User.scramVerifier`, PostgreSQL's own format). Junction stores one whenever it
 *   learns the password: user creation, a new password (admin or own), the bootstrap admin, and
 *   each successful sign-in that finds it missing or stale. A token cannot be used there: SCRAM
 *   needs a verifier of the secret and tokens are stored as plain hashes.
 *
 * Sign-ins share the REST sign-in's throttle (`app.signIns`: backoff per address and name,
 * lock-out per name) and audit actions (auth.login_failed, auth.locked, auth.login), each with
 * `details.via = 'postgresql'`.
 */
import { createHash, createHmac, pbkdf2, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createScramSha256Data, type ScramSha256Data } from 'pg-gateway';
import { JunctionError } from '@junction/connectors';
import type { Db } from '../db/client.js';
import type { TokenRecord } from '../lib/principal-cache.js';
import type { Permission } from '../lib/schemas.js';
import { hashPassword, sha256, verifyPassword } from '../lib/secrets.js';
import { ROLE_PERMISSIONS, tokenPermissions, type Principal, type Role } from '../plugins/auth.js';

export type { ScramSha256Data } from 'pg-gateway';

// ---------------------------------------------------------------------------------------------
// SCRAM-SHA-256 verifiers

/** PostgreSQL's default (scram_iterations) */
export const SCRAM_ITERATIONS = 4096;

const B64 = '[A-Za-z0-9+/]+={0,2}';
const VERIFIER = new RegExp(`^SCRAM-SHA-256\\$(\\d{1,9}):(${B64})\\$(${B64}):(${B64})$`);

// RFC 4013 (SASLprep) tables, as PostgreSQL's pg_saslprep applies them: RFC 3454 C.1.2 (non-ASCII
// spaces, to U+0020, U+200B included as PostgreSQL does), B.1 (to nothing), then what is prohibited
// eslint-disable-next-line no-misleading-character-class
const MAPPED_TO_NOTHING = /[\u00AD\u034F\u1806\u180B-\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/gu;
const NON_ASCII_SPACE = /[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/gu;
const PROHIBITED =
  /[\p{Cc}\p{Co}\p{Cs}\u0340\u0341\u200E\u200F\u202A-\u202E\u206A-\u206F\u2FF0-\u2FFB\uFFF9-\uFFFD\uFDD0-\uFDEF\u{E0001}\u{E0020}-\u{E007F}]|[\uFFFE\uFFFF\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

/**
 * What a SCRAM client (libpq, pgJDBC) hashes in place of the password: SASLprep of it, or the
 * password unchanged when it is plain ASCII or SASLprep would refuse it (PostgreSQL's rule).
 * The bidirectional-text check and Unicode 3.2's unassigned code points are not tested, so such
 * exotic passwords may need a TLS or loopback connection.
 */
export function saslPrep(password: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(password)) return password;
  const prepared = password.replace(NON_ASCII_SPACE, ' ').replace(MAPPED_TO_NOTHING, '').normalize('NFKC');
  if (prepared === '' || PROHIBITED.test(prepared)) return password;
  return prepared;
}

/** PostgreSQL's stored form: `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64. */
export function formatScramVerifier(d: ScramSha256Data): string {
  return `SCRAM-SHA-256$${d.iterations}:${d.salt}$${d.storedKey}:${d.serverKey}`;
}

/** The parts of a stored verifier, or null for none or one that does not parse. */
export function parseScramVerifier(text: string | null | undefined): ScramSha256Data | null {
  const m = text ? VERIFIER.exec(text) : null;
  if (!m || Number(m[1]) < 1) return null;
  return { iterations: Number(m[1]), salt: m[2]!, storedKey: m[3]!, serverKey: m[4]! };
}

/** A new verifier of this password (random salt, 4096 iterations), to store in User.scramVerifier. */
export async function scramVerifier(password: string): Promise<string> {
  return formatScramVerifier(await createScramSha256Data(saslPrep(password), SCRAM_ITERATIONS));
}

function pbkdf2Async(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    pbkdf2(password, salt, iterations, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Whether a stored verifier is one of this password (so it need not be replaced). */
export async function scramVerifierMatches(text: string | null | undefined, password: string): Promise<boolean> {
  const d = parseScramVerifier(text);
  if (!d || d.iterations !== SCRAM_ITERATIONS) return false;
  const salted = await pbkdf2Async(saslPrep(password), Buffer.from(d.salt, 'base64'), d.iterations);
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  const want = Buffer.concat([Buffer.from(d.storedKey, 'base64'), Buffer.from(d.serverKey, 'base64')]);
  const got = Buffer.concat([storedKey, serverKey]);
  return want.length === got.length && timingSafeEqual(want, got);
}

/**
 * After a password was verified: stores a verifier of it when the user has none, or one that is
 * not of this password (the password was set by something that could not compute it). One
 * PBKDF2 of 4096 rounds to check, a write only when it changes.
 */
export async function refreshScramVerifier(
  db: Db,
  user: { id: string; scramVerifier: string | null },
  password: string,
): Promise<boolean> {
  if (await scramVerifierMatches(user.scramVerifier, password)) return false;
  await db.user.update({ where: { id: user.id }, data: { scramVerifier: await scramVerifier(password) } });
  return true;
}

// ---------------------------------------------------------------------------------------------
// sign-in

export type WireAuthMethod = 'password' | { scram: ScramSha256Data } | { refuse: string };

export interface WireLink {
  /** the connection was upgraded to TLS */
  readonly tls: boolean;
  /** the client connects from this host (127.0.0.0/8, ::1) */
  readonly loopback: boolean;
}

export interface WireAuthOptions {
  /**
   * the server's secret (the key given to buildApp as secretKey), from which unknown users'
   * fake SCRAM salts are derived so they stay the same across restarts and instances; without
   * it a random one per process
   */
  readonly secret?: Buffer;
  /** how long a user's role and flags are reused by current(); default the principal cache's (0.5 s) */
  readonly userTtlMs?: number;
}

/** `details.via` of this listener's audit rows */
export const AUDIT_VIA = 'postgresql';

export const REFUSE_PLAIN =
  'Password sign-in over a plain connection from another host needs TLS (start Junction with ' +
  'JUNCTION_PG_TLS_CERT and JUNCTION_PG_TLS_KEY and connect with sslmode=require) or a SCRAM-SHA-256 ' +
  "verifier for this user, which Junction stores at the user's next sign-in (the web app, the REST API, " +
  'or this port over TLS or from the server itself) or password change. API tokens as passwords need TLS ' +
  'or a loopback connection.';

interface UserState {
  id: string;
  username: string;
  role: string;
  disabled: boolean;
  passwordHash: string;
}

const MAX_CACHED = 10_000;

/**
 * Sign-in and per-query re-validation for the PostgreSQL listener. Errors are JunctionErrors
 * with code bad_credentials (kind auth), account_locked (auth, details.lockedUntil and
 * retryAfterSeconds) or too_many_attempts (resources, details.retryAfterSeconds).
 */
export class WireAuth {
  readonly #app: FastifyInstance;
  readonly #secret: Buffer;
  readonly #userTtlMs: number;
  #dummyHash: Promise<string> | undefined;
  /** token id → its hash, the principal cache's key */
  readonly #tokenHashes = new Map<string, string>();
  readonly #users = new Map<string, { value: UserState | null; loadedAt: number }>();
  readonly #loadingUsers = new Map<string, Promise<UserState | null>>();
  /** the password hash a password or SCRAM principal signed in under: a new password ends it */
  readonly #signedInUnder = new WeakMap<Principal, string>();

  constructor(app: FastifyInstance, opts: WireAuthOptions = {}) {
    this.#app = app;
    this.#secret = opts.secret ?? randomBytes(32);
    this.#userTtlMs = opts.userTtlMs ?? app.principals.ttlMs;
  }

  /**
   * What to ask `username` for on this link: the cleartext password (TLS or loopback), SCRAM
   * with the user's stored verifier, or a refusal when there is none. A name that does not
   * exist gets SCRAM with a verifier made up from the name and the server's secret (the same
   * each time), so the attempt fails like a wrong password and tells nothing.
   */
  async method(username: string, link: WireLink): Promise<WireAuthMethod> {
    if (link.tls || link.loopback) return 'password';
    const user = await this.#app.db.user.findUnique({ where: { username }, select: { scramVerifier: true } });
    if (!user) return { scram: this.#fakeVerifier(username) };
    const scram = parseScramVerifier(user.scramVerifier);
    return scram ? { scram } : { refuse: REFUSE_PLAIN };
  }

  /**
   * The cleartext password message: `secret` is the user's password or one of the user's API
   * tokens (any string whose hash is a token's, as the REST Bearer path decides). A valid token
   * signs in even while the name is locked, as Bearer requests are never throttled (a token
   * cannot be guessed); anything else goes through the throttle first.
   */
  async signInPassword(username: string, secret: string, remoteAddress: string): Promise<Principal> {
    const app = this.#app;
    const tokenHash = sha256(secret);
    const token = await app.principals.token(tokenHash);
    if (token && token.user.username === username && usable(token))
      return this.#tokenSignIn(token, tokenHash, remoteAddress);
    this.#guard(username, remoteAddress);
    if (token) {
      const details = { via: AUDIT_VIA, method: 'token', tokenId: token.id, prefix: token.prefix };
      await this.#failed(username, remoteAddress, details);
      if (token.user.username === username && token.expiresAt && !token.revokedAt && !token.user.disabled)
        throw new JunctionError(
          'bad_credentials',
          'auth',
          `This API token expired at ${token.expiresAt.toISOString()}; create a new one under My account → API tokens.`,
          { details: { reason: 'token_expired' } },
        );
      throw badCredentials();
    }
    const user = await app.db.user.findUnique({ where: { username } });
    this.#dummyHash ??= hashPassword('not a password of anyone');
    const ok = await verifyPassword(secret, user?.passwordHash ?? (await this.#dummyHash));
    if (!user || !ok || user.disabled) {
      await this.#failed(username, remoteAddress, { via: AUDIT_VIA, method: 'password' });
      throw badCredentials();
    }
    app.signIns.succeeded(remoteAddress, username);
    // bookkeeping: a metadata database that cannot take the write must not refuse the sign-in
    await refreshScramVerifier(app.db, user, secret).catch((err: unknown) =>
      app.log.warn({ err, userId: user.id }, 'could not store the SCRAM verifier of a user'),
    );
    await this.#audit('auth.login', user.username, { via: AUDIT_VIA, method: 'password' }, remoteAddress, user);
    return this.#userPrincipal(user);
  }

  /**
   * After pg-gateway's SCRAM exchange checked the client's proof against `method`'s verifier:
   * `verified` is its verdict. A wrong proof is a failed sign-in like a wrong password.
   */
  async signInScram(username: string, verified: boolean, remoteAddress: string): Promise<Principal> {
    this.#guard(username, remoteAddress);
    const user = verified ? await this.#app.db.user.findUnique({ where: { username } }) : null;
    if (!user || user.disabled) {
      await this.#failed(username, remoteAddress, { via: AUDIT_VIA, method: 'scram-sha-256' });
      throw badCredentials();
    }
    this.#app.signIns.succeeded(remoteAddress, username);
    await this.#audit('auth.login', user.username, { via: AUDIT_VIA, method: 'scram-sha-256' }, remoteAddress, user);
    return this.#userPrincipal(user);
  }

  /**
   * The principal as it stands now, before each query: undefined when its user was deleted or
   * disabled, its password changed since a password sign-in, or its token was revoked or has
   * expired; a new principal when the role changed; else `p` itself. Tokens come from the
   * principal cache the HTTP path uses (forgotten at once on revoke); users from a cache of the
   * same lifetime, so a query costs no lookup most of the time.
   */
  async current(p: Principal): Promise<Principal | undefined> {
    if (p.via === 'token') {
      if (!p.tokenId) return undefined;
      let hash = this.#tokenHashes.get(p.tokenId);
      if (!hash) {
        const row = await this.#app.db.apiToken.findUnique({ where: { id: p.tokenId }, select: { tokenHash: true } });
        if (!row) return undefined;
        hash = row.tokenHash;
        this.#rememberToken(p.tokenId, hash);
      }
      const token = await this.#app.principals.token(hash);
      if (!token || token.user.id !== p.userId || !usable(token)) return undefined;
      this.#touch(token);
      const role = token.user.role as Role;
      const permissions = tokenPermissions(role, JSON.parse(token.scopes) as Permission[]);
      if (role === p.role && token.user.username === p.username && sameSet(permissions, p.permissions)) return p;
      return {
        userId: token.user.id,
        username: token.user.username,
        role,
        via: 'token',
        tokenId: token.id,
        permissions,
      };
    }
    const user = await this.#user(p.userId);
    if (!user || user.disabled) return undefined;
    const under = this.#signedInUnder.get(p);
    if (under !== undefined && under !== user.passwordHash) return undefined;
    if (user.role === p.role && user.username === p.username) return p;
    return this.#userPrincipal(user);
  }

  // -------------------------------------------------------------------------------------------

  async #tokenSignIn(token: TokenRecord, tokenHash: string, remoteAddress: string): Promise<Principal> {
    this.#rememberToken(token.id, tokenHash);
    this.#touch(token);
    const role = token.user.role as Role;
    const principal: Principal = {
      userId: token.user.id,
      username: token.user.username,
      role,
      via: 'token',
      tokenId: token.id,
      permissions: tokenPermissions(role, JSON.parse(token.scopes) as Permission[]),
    };
    await this.#audit(
      'auth.login',
      token.user.username,
      { via: AUDIT_VIA, method: 'token', tokenId: token.id, prefix: token.prefix },
      remoteAddress,
      token.user,
    );
    return principal;
  }

  #userPrincipal(user: UserState): Principal {
    const role = user.role as Role;
    const p: Principal = {
      userId: user.id,
      username: user.username,
      role,
      via: 'session',
      permissions: new Set(ROLE_PERMISSIONS[role] ?? []),
    };
    this.#signedInUnder.set(p, user.passwordHash);
    return p;
  }

  /** throws when the name is locked or this address must wait, as POST /auth/login answers 423 and 429 */
  #guard(username: string, remoteAddress: string): void {
    const check = this.#app.signIns.check(remoteAddress, username);
    if (check.status === 'locked') {
      const seconds = Math.max(1, Math.ceil((check.until - Date.now()) / 1000));
      const at = new Date(check.until).toISOString();
      throw new JunctionError(
        'account_locked',
        'auth',
        `This account is temporarily locked after too many failed sign-ins; it unlocks at ${at}, or sooner if an admin unlocks it.`,
        { details: { lockedUntil: at, retryAfterSeconds: seconds } },
      );
    }
    if (check.status === 'wait') {
      const seconds = Math.ceil(check.ms / 1000);
      throw new JunctionError('too_many_attempts', 'resources', 'Too many failed sign-ins; wait before trying again.', {
        details: { retryAfterSeconds: seconds },
      });
    }
  }

  /** counts and audits a failed sign-in (and the lock-out it caused), as POST /auth/login does */
  async #failed(username: string, remoteAddress: string, details: Record<string, unknown>): Promise<void> {
    const app = this.#app;
    const lock = app.signIns.failed(remoteAddress, username);
    // the name tried, never the secret
    await this.#audit('auth.login_failed', username.slice(0, 100), details, remoteAddress);
    if (lock) {
      const policy = app.signIns.lockout!;
      await this.#audit(
        'auth.locked',
        username.slice(0, 100),
        {
          failures: policy.failures,
          windowSeconds: policy.windowMs / 1000,
          lockedUntil: new Date(lock.lockedUntil).toISOString(),
          via: AUDIT_VIA,
        },
        remoteAddress,
      );
    }
  }

  /** app.audit without a request: the records writer directly, with the client's address */
  #audit(
    action: string,
    target: string,
    details: Record<string, unknown>,
    ip: string,
    actor?: { id: string; username: string },
  ): Promise<void> {
    return this.#app.records.audit({
      id: randomUUID(),
      actorId: actor?.id ?? null,
      actorName: actor?.username ?? null,
      action,
      target,
      details: JSON.stringify(details),
      ip,
    });
  }

  /** lastUsedAt at most once a minute per token, as the REST path does */
  #touch(token: TokenRecord): void {
    if (token.lastUsedAt && Date.now() - token.lastUsedAt.getTime() <= 60_000) return;
    token.lastUsedAt = new Date();
    void this.#app.db.apiToken
      .update({ where: { id: token.id }, data: { lastUsedAt: token.lastUsedAt } })
      .catch((err: unknown) =>
        this.#app.log.warn({ err, tokenId: token.id }, 'could not record when a token was last used'),
      );
  }

  #rememberToken(id: string, hash: string): void {
    this.#tokenHashes.delete(id);
    this.#tokenHashes.set(id, hash);
    if (this.#tokenHashes.size > MAX_CACHED) this.#tokenHashes.delete(this.#tokenHashes.keys().next().value as string);
  }

  #user(id: string): Promise<UserState | null> {
    const hit = this.#users.get(id);
    const now = Date.now();
    if (hit && now - hit.loadedAt < this.#userTtlMs) return Promise.resolve(hit.value);
    const running = this.#loadingUsers.get(id);
    if (running) return running;
    const p = (async () => {
      try {
        const value = await this.#app.db.user.findUnique({
          where: { id },
          select: { id: true, username: true, role: true, disabled: true, passwordHash: true },
        });
        this.#users.delete(id);
        if (this.#userTtlMs > 0) {
          this.#users.set(id, { value, loadedAt: now });
          if (this.#users.size > MAX_CACHED) this.#users.delete(this.#users.keys().next().value as string);
        }
        return value;
      } finally {
        this.#loadingUsers.delete(id);
      }
    })();
    this.#loadingUsers.set(id, p);
    return p;
  }

  /** PostgreSQL's answer to an unknown role too: a salt and keys no password matches, stable per name */
  #fakeVerifier(username: string): ScramSha256Data {
    const mac = (label: string) =>
      createHmac('sha256', this.#secret).update(`junction-pg-scram-${label}\0${username}`).digest();
    return {
      salt: mac('salt').subarray(0, 16).toString('base64'),
      iterations: SCRAM_ITERATIONS,
      storedKey: mac('stored-key').toString('base64'),
      serverKey: mac('server-key').toString('base64'),
    };
  }
}

function usable(token: TokenRecord): boolean {
  return !token.revokedAt && !token.user.disabled && !(token.expiresAt && token.expiresAt.getTime() <= Date.now());
}

function badCredentials(): JunctionError {
  return new JunctionError('bad_credentials', 'auth', 'Unknown user name or wrong password.');
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
