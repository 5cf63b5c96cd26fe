import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { JunctionError } from '@junction/connectors';
import { errors, ErrorReply, Ok, Role } from '../lib/schemas.js';
import { hashPassword, sha256, verifyPassword } from '../lib/secrets.js';
import { refreshScramVerifier, scramVerifier } from '../pg-wire/auth.js';
import { CSRF_COOKIE, ROLE_PERMISSIONS, SESSION_COOKIE, type Role as RoleName } from '../plugins/auth.js';

const LoginBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 100 }), password: Type.String({ minLength: 1, maxLength: 1000 }) },
  { additionalProperties: false },
);
const ChangePassword = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1000 }),
    newPassword: Type.String({ minLength: 8, maxLength: 1000 }),
  },
  { additionalProperties: false },
);
export const Me = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: Role,
  via: Type.Union([Type.Literal('session'), Type.Literal('token')]),
  permissions: Type.Array(Type.String()),
  csrfToken: Type.Optional(Type.String({ description: 'send as X-Junction-CSRF on cookie-authenticated writes' })),
});

interface AuthRouteOptions {
  /** sign-in and password-change requests one client address may make per minute (JUNCTION_SIGNIN_RATE) */
  attemptsPerMinute?: number;
}

/** Enough for a person and a script behind one address; the per-user backoff and lock-out stop guessing long before. */
const DEFAULT_SIGNIN_RATE = 30;

/**
 * 423 Locked rather than 429: waiting a moment does not help, and the owner's own right password
 * is refused too, which the message says so that they ask an admin instead of retrying.
 */
function locked(reply: FastifyReply, until: number) {
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  const at = new Date(until).toISOString();
  reply.header('retry-after', String(seconds));
  return reply.status(423).send({
    code: 'account_locked',
    kind: 'auth',
    message: `This account is temporarily locked after too many failed sign-ins; it unlocks at ${at}, or sooner if an admin unlocks it.`,
    details: { lockedUntil: at, retryAfterSeconds: seconds },
  });
}

export default async function authRoutes(app: FastifyInstance, opts: AuthRouteOptions = {}): Promise<void> {
  const rateLimit = { max: opts.attemptsPerMinute ?? DEFAULT_SIGNIN_RATE, timeWindow: '1 minute' };
  // verifying against a real hash for unknown users keeps response time from revealing names
  const dummyHash = await hashPassword('not a password of anyone');

  app.post<{ Body: Static<typeof LoginBody> }>(
    '/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in; sets the session cookie',
        body: LoginBody,
        response: { 200: Me, 400: ErrorReply, 401: ErrorReply, 423: ErrorReply, 429: ErrorReply },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const check = app.signIns.check(request.ip, username);
      if (check.status === 'locked') return locked(reply, check.until);
      if (check.status === 'wait') {
        const wait = check.ms;
        reply.header('retry-after', String(Math.ceil(wait / 1000)));
        return reply.status(429).send({
          code: 'too_many_attempts',
          kind: 'resources',
          message: 'Too many failed sign-ins; wait before trying again.',
          details: { retryAfterSeconds: Math.ceil(wait / 1000) },
        });
      }
      const user = await app.db.user.findUnique({ where: { username } });
      const ok = await verifyPassword(password, user?.passwordHash ?? dummyHash);
      if (!user || !ok || user.disabled) {
        const lock = app.signIns.failed(request.ip, username);
        // the name tried, never the password: a password typed into the name field is the risk taken
        await app.audit(request, 'auth.login_failed', username.slice(0, 100));
        if (lock) {
          const policy = app.signIns.lockout!;
          await app.audit(request, 'auth.locked', username.slice(0, 100), {
            failures: policy.failures,
            windowSeconds: policy.windowMs / 1000,
            lockedUntil: new Date(lock.lockedUntil).toISOString(),
          });
        }
        return reply
          .status(401)
          .send({ code: 'bad_credentials', kind: 'auth', message: 'Unknown user name or wrong password.' });
      }
      app.signIns.succeeded(request.ip, username);
      // the PostgreSQL port's SCRAM sign-in needs a verifier of the password, known only now
      // (bookkeeping: a metadata database that cannot take the write must not refuse the sign-in)
      await refreshScramVerifier(app.db, user, password).catch((err: unknown) =>
        request.log.warn({ err, userId: user.id }, 'could not store the SCRAM verifier of a user'),
      );
      const { csrfToken } = await app.startSession(reply, request, user.id);
      await app.audit(request, 'auth.login', user.username, undefined, { id: user.id, username: user.username });
      return {
        id: user.id,
        username: user.username,
        role: user.role as RoleName,
        via: 'session' as const,
        permissions: [...ROLE_PERMISSIONS[user.role as RoleName]],
        csrfToken,
      };
    },
  );

  app.post(
    '/auth/logout',
    { schema: { tags: ['auth'], summary: 'End the session', response: { 200: Ok, ...errors() } } },
    async (request, reply) => {
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie) {
        await app.db.session.deleteMany({ where: { id: sha256(cookie) } });
        await app.principals.forgetSession(sha256(cookie));
      }
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      reply.clearCookie(CSRF_COOKIE, { path: '/' });
      return { ok: true };
    },
  );

  app.get(
    '/auth/me',
    {
      schema: { tags: ['auth'], summary: 'Who is signed in', response: { 200: Me, ...errors() } },
    },
    async (request) => {
      const p = request.principal!;
      return {
        id: p.userId,
        username: p.username,
        role: p.role,
        via: p.via,
        permissions: [...p.permissions],
        ...(p.csrfToken ? { csrfToken: p.csrfToken } : {}),
      };
    },
  );

  app.post<{ Body: Static<typeof ChangePassword> }>(
    '/auth/password',
    {
      schema: {
        tags: ['auth'],
        summary: 'Change my own password; other sessions of mine end, this one stays',
        body: ChangePassword,
        response: { 200: Ok, ...errors(403) },
      },
      config: { rateLimit },
    },
    async (request) => {
      const p = request.principal!;
      // a leaked token must not be enough to take over the account behind it
      if (p.via !== 'session')
        throw new JunctionError('session_required', 'forbidden', 'Sign in with your password to change it.');
      const user = await app.db.user.findUnique({ where: { id: p.userId } });
      if (!user || !(await verifyPassword(request.body.currentPassword, user.passwordHash)))
        throw new JunctionError('wrong_password', 'user', 'The current password is wrong.', {
          details: { field: 'body.currentPassword' },
        });
      if (request.body.newPassword === request.body.currentPassword)
        throw new JunctionError('same_password', 'user', 'The new password must differ from the current one.', {
          details: { field: 'body.newPassword' },
        });
      await app.db.user.update({
        where: { id: user.id },
        data: {
          passwordHash: await hashPassword(request.body.newPassword),
          scramVerifier: await scramVerifier(request.body.newPassword),
        },
      });
      await app.db.session.deleteMany({ where: { userId: user.id, NOT: { id: p.sessionId } } });
      // the ended sessions may be cached, here and on the other servers (this one is read again)
      await app.principals.forgetUser(user.id);
      await app.audit(request, 'user.password_change', user.username);
      return { ok: true };
    },
  );
}
