import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { JunctionError } from '@junction/connectors';
import { conflict, forbidden, notFound } from '../lib/errors.js';
import { errors, IdParams, Limit, Name, Ok, Role, Scope } from '../lib/schemas.js';
import { hashPassword, randomToken, sha256 } from '../lib/secrets.js';
import { scramVerifier } from '../pg-wire/auth.js';
import { runtimeStats, startRuntimeMonitor, stopRuntimeMonitor } from '../lib/runtime-stats.js';

const User = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: Role,
  disabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
const Username = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' });
const Password = Type.String({ minLength: 8, maxLength: 1000 });
const CreateUser = Type.Object({ username: Username, password: Password, role: Role }, { additionalProperties: false });
const UpdateUser = Type.Object(
  {
    password: Type.Optional(Password),
    role: Type.Optional(Role),
    disabled: Type.Optional(Type.Boolean()),
    unlock: Type.Optional(Type.Literal(true, { description: 'end a sign-in lock-out now (a new password does too)' })),
  },
  { additionalProperties: false },
);

const Grant = Type.Object({
  id: Type.String(),
  role: Type.Union([Role, Type.Null()]),
  userId: Type.Union([Type.String(), Type.Null()]),
  sourceName: Type.Union([Type.String(), Type.Null()]),
  viewSchema: Type.Union([Type.String(), Type.Null()]),
  viewName: Type.Union([Type.String(), Type.Null()]),
  privilege: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});
const CreateGrant = Type.Object(
  {
    role: Type.Optional(Role),
    userId: Type.Optional(Type.String({ maxLength: 200 })),
    sourceName: Type.Optional(Type.Union([Name, Type.Literal('*')])),
    viewSchema: Type.Optional(Name),
    viewName: Type.Optional(Type.Union([Name, Type.Literal('*')], { description: "'*' or none: every view of the schema" })),
    privilege: Type.Optional(
      Type.Union([Type.Literal('read'), Type.Literal('design'), Type.Literal('native')], {
        description:
          'read (default); design: create, change and delete the views of a virtual schema, or change one view ' +
          '(viewSchema only); design does not include read; native: also send the source its own SQL, read-only, ' +
          'in the benchmark lab (one named sourceName, not *)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Token = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const CreateToken = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true }),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'after this instant the token is refused (401 token_expired); none: until revoked' }),
    ),
  },
  { additionalProperties: false },
);
const AuditEntry = Type.Object({
  id: Type.String(),
  actorName: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  details: Type.Union([Type.Unknown(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

type UserRow = { id: string; username: string; role: string; disabled: boolean; createdAt: Date };
const userOut = (u: UserRow) => ({
  id: u.id,
  username: u.username,
  role: u.role as Static<typeof Role>,
  disabled: u.disabled,
  createdAt: u.createdAt.toISOString(),
});

const Bytes = Type.Integer({ minimum: 0 });
const RuntimeOut = Type.Object({
  pid: Type.Integer(),
  uptimeSeconds: Type.Integer(),
  memory: Type.Object({
    rssBytes: Bytes,
    heapUsedBytes: Bytes,
    heapTotalBytes: Bytes,
    externalBytes: Bytes,
    arrayBuffersBytes: Bytes,
  }),
  handles: Type.Record(Type.String(), Type.Integer()),
  fds: Type.Union([Type.Integer(), Type.Null()]),
  sockets: Type.Union([Type.Integer(), Type.Null()]),
  eventLoop: Type.Object({
    sinceSeconds: Type.Number(),
    meanMs: Type.Number(),
    p50Ms: Type.Number(),
    p99Ms: Type.Number(),
    maxMs: Type.Number(),
  }),
  queries: Type.Object({ running: Type.Integer(), queued: Type.Integer() }),
  replica: Type.Object(
    {
      id: Type.String({ description: 'new at every start' }),
      name: Type.String({ description: 'JUNCTION_REPLICA_NAME, default host:pid; also in the x-junction-replica header' }),
      shared: Type.Boolean({ description: 'other servers may share the metadata database (PostgreSQL)' }),
    },
    { description: 'this server, one of those sharing the metadata database' },
  ),
});

export default async function adminRoutes(app: FastifyInstance): Promise<void> {
  startRuntimeMonitor();
  app.addHook('onClose', async () => stopRuntimeMonitor());
  app.get(
    '/runtime',
    {
      schema: {
        tags: ['runtime'],
        summary: "The server process's memory, handles, descriptors and event-loop delay (since the previous call)",
        response: { 200: RuntimeOut, ...errors() },
      },
    },
    async () => {
      const { running, queued } = app.junction.admission;
      const { id, name } = app.cluster.self;
      return { ...runtimeStats({ running, queued }), replica: { id, name, shared: app.cluster.shared } };
    },
  );

  app.get(
    '/users',
    { schema: { tags: ['users'], response: { 200: Type.Array(User), ...errors() } } },
    async () => (await app.db.user.findMany({ orderBy: { username: 'asc' } })).map(userOut),
  );

  app.post<{ Body: Static<typeof CreateUser> }>(
    '/users',
    { schema: { tags: ['users'], body: CreateUser, response: { 201: User, ...errors(409) } } },
    async (request, reply) => {
      const { username, password, role } = request.body;
      if (await app.db.user.findUnique({ where: { username } }))
        throw conflict('user_exists', `A user named "${username}" already exists.`);
      const user = await app.db.user.create({
        data: {
          id: randomUUID(),
          username,
          role,
          passwordHash: await hashPassword(password),
          scramVerifier: await scramVerifier(password),
        },
      });
      await app.audit(request, 'user.create', username, { role });
      return reply.status(201).send(userOut(user));
    },
  );

  app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateUser> }>(
    '/users/:id',
    {
      schema: { tags: ['users'], params: IdParams, body: UpdateUser, response: { 200: User, ...errors(404) } },
    },
    async (request) => {
      const user = await app.db.user.findUnique({ where: { id: request.params.id } });
      if (!user) throw notFound('user', request.params.id);
      const { password, role, disabled, unlock } = request.body;
      if (user.id === request.principal!.userId && ((role && role !== 'admin') || disabled))
        throw forbidden('You cannot demote or disable yourself.');
      const updated = await app.db.user.update({
        where: { id: user.id },
        data: {
          ...(role ? { role } : {}),
          ...(disabled !== undefined ? { disabled } : {}),
          ...(password
            ? { passwordHash: await hashPassword(password), scramVerifier: await scramVerifier(password) }
            : {}),
        },
      });
      // a changed password or a disabled account ends every session of that user
      if (password || disabled) await app.db.session.deleteMany({ where: { userId: user.id } });
      const unlocked = unlock || password ? app.signIns.unlock(user.username) : false;
      await app.principals.forgetUser(user.id); // cached tokens and sessions carry the old role and flags
      await app.audit(request, 'user.update', user.username, {
        ...(role ? { role } : {}),
        ...(disabled !== undefined ? { disabled } : {}),
        ...(password ? { passwordChanged: true } : {}),
        ...(unlocked ? { unlocked: true } : {}),
      });
      return userOut(updated);
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/users/:id',
    { schema: { tags: ['users'], params: IdParams, response: { 200: Ok, ...errors(404) } } },
    async (request) => {
      const user = await app.db.user.findUnique({ where: { id: request.params.id } });
      if (!user) throw notFound('user', request.params.id);
      if (user.id === request.principal!.userId) throw forbidden('You cannot delete yourself.');
      const tokens = await app.db.apiToken.findMany({ where: { userId: user.id }, select: { id: true } });
      await app.db.user.delete({ where: { id: user.id } });
      await app.junction.limitStore.forgetUser(
        user.id,
        tokens.map((t) => t.id),
      );
      await app.principals.forgetUser(user.id);
      await app.db.grant.deleteMany({ where: { userId: user.id } });
      await app.junction.invalidateAccess();
      await app.audit(request, 'user.delete', user.username);
      return { ok: true };
    },
  );

  app.get(
    '/grants',
    { schema: { tags: ['grants'], response: { 200: Type.Array(Grant), ...errors() } } },
    async () =>
      (await app.db.grant.findMany({ orderBy: { createdAt: 'asc' } })).map((g) => ({
        ...g,
        role: g.role as Static<typeof Role> | null,
        createdAt: g.createdAt.toISOString(),
      })),
  );

  app.post<{ Body: Static<typeof CreateGrant> }>(
    '/grants',
    { schema: { tags: ['grants'], body: CreateGrant, response: { 201: Grant, ...errors(404) } } },
    async (request, reply) => {
      const b = request.body;
      if ((b.role === undefined) === (b.userId === undefined))
        throw new JunctionError('grant_grantee', 'user', 'A grant names exactly one of role or userId.', {
          details: { field: 'body.role' },
        });
      if ((b.sourceName === undefined) === (b.viewSchema === undefined))
        throw new JunctionError(
          'grant_object',
          'user',
          'A grant names exactly one of sourceName or viewSchema (with an optional viewName).',
          { details: { field: 'body.sourceName' } },
        );
      if (b.privilege === 'design' && b.viewSchema === undefined)
        throw new JunctionError('grant_privilege', 'user', 'A design grant names a viewSchema (and optionally a viewName).', {
          details: { field: 'body.privilege' },
        });
      if (b.privilege === 'native' && (b.sourceName === undefined || b.sourceName === '*'))
        throw new JunctionError('grant_privilege', 'user', 'A native grant names one source (sourceName), not * and not a view.', {
          details: { field: 'body.privilege' },
        });
      if (b.userId && !(await app.db.user.findUnique({ where: { id: b.userId } }))) throw notFound('user', b.userId);
      // a grant on nothing would reach whatever later takes the name (views are read with their
      // definer's rights, so the grantee would read what that view exposes)
      const viewName = b.viewName === '*' ? undefined : b.viewName;
      if (b.sourceName !== undefined && b.sourceName !== '*') {
        // the materialized store is no registered source: its rows are reached only through views
        if (!(await app.db.source.findUnique({ where: { name: b.sourceName } }))) throw notFound('source', b.sourceName);
      }
      if (b.viewSchema !== undefined) {
        const schema = await app.db.virtualSchema.findUnique({ where: { name: b.viewSchema } });
        if (!schema) throw notFound('schema', b.viewSchema);
        if (viewName && !(await app.db.view.findUnique({ where: { schemaId_name: { schemaId: schema.id, name: viewName } } })))
          throw notFound('view', `${b.viewSchema}.${viewName}`);
      }
      const g = await app.db.grant.create({
        data: {
          id: randomUUID(),
          role: b.role ?? null,
          userId: b.userId ?? null,
          sourceName: b.sourceName ?? null,
          viewSchema: b.viewSchema ?? null,
          viewName: viewName ?? null,
          privilege: b.privilege ?? 'read',
        },
      });
      await app.junction.invalidateAccess();
      await app.audit(request, 'grant.create', g.sourceName ?? `${g.viewSchema}.${g.viewName ?? '*'}`, {
        role: g.role,
        userId: g.userId,
        privilege: g.privilege,
      });
      return reply
        .status(201)
        .send({ ...g, role: g.role as Static<typeof Role> | null, createdAt: g.createdAt.toISOString() });
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/grants/:id',
    { schema: { tags: ['grants'], params: IdParams, response: { 200: Ok, ...errors(404) } } },
    async (request) => {
      const g = await app.db.grant.findUnique({ where: { id: request.params.id } });
      if (!g) throw notFound('grant', request.params.id);
      await app.db.grant.delete({ where: { id: g.id } });
      await app.junction.invalidateAccess();
      await app.audit(request, 'grant.delete', g.sourceName ?? `${g.viewSchema}.${g.viewName ?? '*'}`, {
        role: g.role,
        userId: g.userId,
        privilege: g.privilege,
      });
      return { ok: true };
    },
  );

  app.get<{ Querystring: { limit?: string; action?: string } }>(
    '/audit',
    {
      schema: {
        tags: ['audit'],
        querystring: Type.Object(
          { limit: Type.Optional(Limit), action: Type.Optional(Type.String({ maxLength: 100 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(AuditEntry), ...errors() },
      },
    },
    async (request) => {
      await app.records.flush(); // rows still waiting in the writer are part of the log
      return (
        await app.db.auditLog.findMany({
          where: request.query.action ? { action: request.query.action } : {},
          orderBy: { createdAt: 'desc' },
          take: request.query.limit ? Number(request.query.limit) : 100,
        })
      ).map((a) => ({
        id: a.id,
        actorName: a.actorName,
        action: a.action,
        target: a.target,
        details: a.details ? JSON.parse(a.details) : null,
        ip: a.ip,
        createdAt: a.createdAt.toISOString(),
      }));
    },
  );

  // Tokens belong to their creator; any role may create one, capped by its own permissions.
  type TokenRow = {
    id: string;
    name: string;
    prefix: string;
    scopes: string;
    createdAt: Date;
    lastUsedAt: Date | null;
    revokedAt: Date | null;
    expiresAt: Date | null;
  };
  const tokenOut = (t: TokenRow) => ({
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    scopes: JSON.parse(t.scopes) as string[],
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
  });

  app.get(
    '/tokens',
    { schema: { tags: ['tokens'], response: { 200: Type.Array(Token), ...errors() } } },
    async (request) =>
      (
        await app.db.apiToken.findMany({ where: { userId: request.principal!.userId }, orderBy: { createdAt: 'asc' } })
      ).map(tokenOut),
  );

  app.get(
    '/tokens/all',
    {
      schema: {
        tags: ['tokens'],
        summary: "Every user's tokens, for an admin to find and revoke stale or leaked ones",
        response: { 200: Type.Array(Type.Intersect([Token, Type.Object({ username: Type.String() })])), ...errors() },
      },
    },
    async () => {
      const [tokens, users] = await Promise.all([
        app.db.apiToken.findMany({ orderBy: { createdAt: 'asc' } }),
        app.db.user.findMany({ select: { id: true, username: true } }),
      ]);
      const names = new Map(users.map((u) => [u.id, u.username]));
      return tokens.map((t) => ({ ...tokenOut(t), username: names.get(t.userId) ?? '?' }));
    },
  );

  app.post<{ Body: Static<typeof CreateToken> }>(
    '/tokens',
    {
      schema: {
        tags: ['tokens'],
        summary: 'Create an API token; the token is in this reply only',
        description:
          'Scopes are hierarchical, as roles are: `read` allows reading the catalog; `run` implies read and allows ' +
          'running saved queries and views; `query` implies read and run and allows ad hoc SQL; `design` implies ' +
          'read, query and run and allows designing views; `admin` implies every permission. A token may do what ' +
          "its scopes imply, capped by its user's role at the time of each request; you can grant only scopes you have. " +
          '`tokens` allows creating and revoking your tokens and nothing else; a token needs it (or `admin`) to ' +
          'create a token, which then has no scope beyond its own and expires no later than it.',
        body: CreateToken,
        response: { 201: Type.Intersect([Token, Type.Object({ token: Type.String() })]), ...errors() },
      },
    },
    async (request, reply) => {
      const p = request.principal!;
      const beyond = request.body.scopes.filter((s) => !p.permissions.has(s));
      if (beyond.length) throw forbidden(`You cannot grant scopes you do not have: ${beyond.join(', ')}.`);
      let expiresAt = request.body.expiresAt === undefined ? null : new Date(request.body.expiresAt);
      if (expiresAt && expiresAt.getTime() <= Date.now())
        throw new JunctionError('invalid_expiry', 'user', 'A token must expire in the future; leave the expiry out for a token that lasts until revoked.');
      // a token's offspring must not outlive it by expiry (revoking the parent does not reach them)
      const parent = p.tokenId ? await app.db.apiToken.findUnique({ where: { id: p.tokenId } }) : null;
      if (parent?.expiresAt) {
        if (expiresAt && expiresAt > parent.expiresAt)
          throw new JunctionError(
            'invalid_expiry',
            'user',
            `A token created with a token cannot expire after it (${parent.expiresAt.toISOString()}).`,
            { details: { field: 'body.expiresAt' } },
          );
        expiresAt ??= parent.expiresAt;
      }
      const secret = `jct_${randomToken(32)}`;
      const t = await app.db.apiToken.create({
        data: {
          id: randomUUID(),
          userId: p.userId,
          name: request.body.name,
          tokenHash: sha256(secret),
          prefix: secret.slice(0, 10),
          scopes: JSON.stringify(request.body.scopes),
          expiresAt,
        },
      });
      await app.audit(request, 'token.create', request.body.name, {
        tokenId: t.id,
        prefix: t.prefix,
        scopes: request.body.scopes,
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
        // which token made it, to find what a leaked token minted
        ...(p.tokenId ? { viaToken: p.tokenId } : {}),
      });
      return reply.status(201).send({ ...tokenOut(t), token: secret });
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/tokens/:id',
    { schema: { tags: ['tokens'], params: IdParams, response: { 200: Ok, ...errors(404) } } },
    async (request) => {
      const p = request.principal!;
      const t = await app.db.apiToken.findUnique({ where: { id: request.params.id } });
      // another user's token: only with the admin permission (an admin's read-scoped token may not)
      if (!t || (t.userId !== p.userId && !p.permissions.has('admin'))) throw notFound('token', request.params.id);
      await app.db.apiToken.update({ where: { id: t.id }, data: { revokedAt: t.revokedAt ?? new Date() } });
      await app.principals.forgetToken(t.id);
      await app.audit(request, 'token.revoke', t.name, {
        tokenId: t.id,
        prefix: t.prefix,
        ...(t.userId !== p.userId ? { ownerId: t.userId } : {}),
        ...(p.tokenId ? { viaToken: p.tokenId } : {}),
      });
      return { ok: true };
    },
  );
}
