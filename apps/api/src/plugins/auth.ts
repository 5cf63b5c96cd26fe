import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { JunctionError } from '@junction/connectors';
import { DEFAULT_LOCKOUT, SignInGuard, type LockoutPolicy } from '../lib/login-throttle.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import { PERMISSIONS, type Permission } from '../lib/schemas.js';

export type Role = 'admin' | 'analyst' | 'viewer';

export interface Principal {
  readonly userId: string;
  readonly username: string;
  readonly role: Role;
  readonly via: 'session' | 'token';
  readonly permissions: ReadonlySet<Permission>;
  readonly sessionId?: string;
  readonly tokenId?: string;
  readonly csrfToken?: string;
}

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  admin: PERMISSIONS,
  analyst: ['read', 'query', 'run', 'design', 'tokens'],
  viewer: ['read', 'run', 'tokens'],
};

/**
 * What a token scope implies, mirroring the roles: viewer (read, run) is what `run` implies,
 * analyst (read, query, run, design) what `design` implies, admin everything. Running ad hoc SQL
 * covers running saved queries, designing views covers querying. `tokens` (mint and revoke tokens)
 * implies no data access, and no data scope implies it: only `tokens` or `admin` lets a token
 * make more tokens.
 */
export const SCOPE_IMPLIES: Record<Permission, readonly Permission[]> = {
  read: ['read'],
  run: ['read', 'run'],
  query: ['read', 'query', 'run'],
  design: ['read', 'query', 'run', 'design'],
  admin: PERMISSIONS,
  tokens: ['tokens'],
};

/** A token's permissions: everything its scopes imply, capped by its user's role. */
export function tokenPermissions(role: Role, scopes: Iterable<Permission>): Set<Permission> {
  const implied = new Set<Permission>();
  for (const s of scopes) for (const p of SCOPE_IMPLIES[s] ?? []) implied.add(p);
  return new Set(ROLE_PERMISSIONS[role].filter((p) => implied.has(p)));
}

export const SESSION_COOKIE = 'junction_session';
export const CSRF_COOKIE = 'junction_csrf';
export const CSRF_HEADER = 'x-junction-csrf';
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface AuthPluginOptions {
  /** true: session cookies always Secure; false: never; undefined: over https or behind a trusted proxy */
  secureCookies?: boolean;
  /** a proxy is trusted (JUNCTION_TRUST_PROXY), so the browser's side of it is taken to be https */
  behindProxy?: boolean;
  /** per-account lock-out after failed sign-ins; null: none */
  lockout?: LockoutPolicy | null;
}

/** Addresses remembered per token, and for how long one counts as recent. */
const TOKEN_ADDRESSES = 4;
const TOKEN_ADDRESS_RECENT_MS = 24 * 60 * 60 * 1000;
const TRACKED_TOKENS = 10_000;

/**
 * Whether a token is used from an address it was not used from recently: a leaked token shows up
 * as use from somewhere new. In memory and bounded (the last few addresses of the most recently
 * used tokens), so a restart makes each token's next address new once.
 */
export class TokenAddresses {
  readonly #seen = new Map<string, Map<string, number>>();
  constructor(readonly now: () => number = Date.now) {}

  isNew(tokenId: string, address: string): boolean {
    const now = this.now();
    let addresses = this.#seen.get(tokenId);
    if (!addresses) {
      addresses = new Map();
      this.#seen.set(tokenId, addresses);
      if (this.#seen.size > TRACKED_TOKENS) this.#seen.delete(this.#seen.keys().next().value as string);
    }
    const last = addresses.get(address);
    // re-inserted last, so the least recently seen address is the one forgotten
    addresses.delete(address);
    addresses.set(address, now);
    if (addresses.size > TOKEN_ADDRESSES) addresses.delete(addresses.keys().next().value as string);
    return last === undefined || now - last > TOKEN_ADDRESS_RECENT_MS;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** preHandler: 401 without a principal, 403 without the permission */
    authorize(permission?: Permission): preHandlerHookHandler;
    startSession(reply: FastifyReply, request: FastifyRequest, userId: string): Promise<{ csrfToken: string }>;
    /** sign-in backoff and per-account lock-out (lib/login-throttle.ts) */
    signIns: SignInGuard;
    /** `actor`: who acted when the request has no principal yet (a sign-in) */
    audit(
      request: FastifyRequest,
      action: string,
      target?: string | null,
      details?: Record<string, unknown>,
      actor?: { id: string; username: string },
    ): Promise<void>;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function unauthenticated(message = 'Sign in or send an API token (Authorization: Bearer …).'): JunctionError {
  return new JunctionError('unauthenticated', 'auth', message);
}

/**
 * Who is calling: a Bearer token (programs; scoped, no CSRF check since browsers never attach it
 * on their own) or the session cookie (the web app). Cookie-authenticated writes must carry the
 * X-Junction-CSRF header equal to the session's CSRF token (double submit: the token is in the
 * readable `junction_csrf` cookie and in the login/me replies); another site can neither read
 * the cookie nor set a custom header without a CORS preflight that we refuse.
 */
export default fp<AuthPluginOptions>(
  async (app, opts) => {
    app.decorateRequest('principal', null);
    app.decorate('signIns', new SignInGuard(opts.lockout === undefined ? DEFAULT_LOCKOUT : opts.lockout));
    const tokenAddresses = new TokenAddresses();

    app.addHook('onRequest', async (request) => {
      if (!request.url.startsWith('/api/v1/')) return;
      const auth = request.headers.authorization;
      if (auth !== undefined) {
        const m = /^Bearer\s+(\S+)$/i.exec(auth);
        if (!m) throw unauthenticated('The Authorization header must be "Bearer <token>".');
        // cached for at most half a second, forgotten at once on revoke (lib/principal-cache.ts)
        const token = await app.principals.token(sha256(m[1]));
        if (!token || token.revokedAt || token.user.disabled)
          throw unauthenticated('This API token is unknown, revoked, or its user is disabled.');
        if (token.expiresAt && token.expiresAt.getTime() <= Date.now())
          throw new JunctionError(
            'token_expired',
            'auth',
            `This API token expired at ${token.expiresAt.toISOString()}; create a new one under My account → API tokens.`,
          );
        const scopes = JSON.parse(token.scopes) as Permission[];
        const role = token.user.role as Role;
        request.principal = {
          userId: token.user.id,
          username: token.user.username,
          role,
          via: 'token',
          tokenId: token.id,
          permissions: tokenPermissions(role, scopes),
        };
        // lastUsedAt at most once a minute per token keeps reads cheap
        if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > 60_000) {
          token.lastUsedAt = new Date(); // the cached copy too, or every request would write until it expires
          // bookkeeping: a metadata database that cannot take the write (a full disk) must not refuse the request
          await app.db.apiToken
            .update({ where: { id: token.id }, data: { lastUsedAt: token.lastUsedAt } })
            .catch((err: unknown) => request.log.warn({ err, tokenId: token.id }, 'could not record when a token was last used'));
        }
        if (tokenAddresses.isNew(token.id, request.ip))
          await app.audit(request, 'token.new_address', token.name, { tokenId: token.id, prefix: token.prefix });
        return;
      }
      const cookie = request.cookies[SESSION_COOKIE];
      if (!cookie) return;
      const session = await app.principals.session(sha256(cookie));
      if (!session || session.expiresAt.getTime() < Date.now() || session.user.disabled) return;
      const role = session.user.role as Role;
      request.principal = {
        userId: session.user.id,
        username: session.user.username,
        role,
        via: 'session',
        sessionId: session.id,
        csrfToken: session.csrfToken,
        permissions: new Set(ROLE_PERMISSIONS[role]),
      };
      if (!SAFE_METHODS.has(request.method)) {
        const sent = request.headers[CSRF_HEADER];
        if (typeof sent !== 'string' || sent !== session.csrfToken) {
          throw new JunctionError(
            'csrf_failed',
            'forbidden',
            `Cookie-authenticated writes need the ${CSRF_HEADER} header with the value of the ${CSRF_COOKIE} cookie.`,
          );
        }
      }
    });

    app.decorate('authorize', (permission?: Permission): preHandlerHookHandler => {
      return async (request) => {
        const p = request.principal;
        if (!p) throw unauthenticated();
        if (permission !== undefined && !p.permissions.has(permission)) {
          throw new JunctionError(
            'forbidden',
            'forbidden',
            `This needs the "${permission}" permission, which ${p.via === 'token' ? 'this token' : `the role ${p.role}`} does not have.`,
            {
              details: { permission },
            },
          );
        }
      };
    });

    app.decorate('startSession', async (reply: FastifyReply, request: FastifyRequest, userId: string) => {
      const value = randomToken();
      const csrfToken = randomToken(24);
      // expired sessions are never read again: each sign-in clears them, so the table stays as big as the live sessions
      await app.db.session.deleteMany({ where: { expiresAt: { lt: new Date() } } });
      await app.db.session.create({
        data: { id: sha256(value), userId, csrfToken, expiresAt: new Date(Date.now() + SESSION_TTL_MS) },
      });
      const secure = opts.secureCookies ?? (opts.behindProxy === true || request.protocol === 'https');
      reply.setCookie(SESSION_COOKIE, value, {
        httpOnly: true,
        sameSite: 'strict',
        secure,
        path: '/',
        maxAge: SESSION_TTL_MS / 1000,
      });
      reply.setCookie(CSRF_COOKIE, csrfToken, {
        httpOnly: false,
        sameSite: 'strict',
        secure,
        path: '/',
        maxAge: SESSION_TTL_MS / 1000,
      });
      return { csrfToken };
    });

    app.decorate(
      'audit',
      async (
        request: FastifyRequest,
        action: string,
        target?: string | null,
        details?: Record<string, unknown>,
        actor?: { id: string; username: string },
      ) => {
        // batched off the request path (plugins/records.ts); GET /audit flushes before it reads
        await app.records.audit({
          id: randomUUID(),
          actorId: actor?.id ?? request.principal?.userId ?? null,
          actorName: actor?.username ?? request.principal?.username ?? null,
          action,
          target: target ?? null,
          details: details ? JSON.stringify(details) : null,
          ip: request.ip,
        });
      },
    );
  },
  { name: 'auth', dependencies: ['db', 'records', 'principals'] },
);
