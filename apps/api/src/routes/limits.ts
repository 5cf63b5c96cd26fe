import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../lib/errors.js';
import type { LimitOverride, LimitScope } from '../lib/limits.js';
import { errors, Ok, Role } from '../lib/schemas.js';

const Queue = Type.Object({
  maxConcurrent: Type.Integer(),
  maxQueued: Type.Integer(),
  queueTimeoutMs: Type.Integer(),
});
const nullable = (min: number, max: number, description: string) =>
  Type.Optional(Type.Union([Type.Integer({ minimum: min, maximum: max }), Type.Null()], { description }));
const LimitBody = Type.Object(
  {
    maxConcurrent: nullable(1, 100_000, 'queries that may run at once (null: inherit)'),
    maxQueued: nullable(0, 100_000, 'further queries that may wait for a slot; 0 refuses at once (null: inherit)'),
    queueTimeoutMs: nullable(0, 3_600_000, 'how long one waits before it is refused (null: inherit)'),
  },
  { additionalProperties: false, minProperties: 1 },
);
const Override = Type.Object({
  scope: Type.String(),
  subject: Type.String(),
  maxConcurrent: Type.Union([Type.Integer(), Type.Null()]),
  maxQueued: Type.Union([Type.Integer(), Type.Null()]),
  queueTimeoutMs: Type.Union([Type.Integer(), Type.Null()]),
  updatedAt: Type.String({ format: 'date-time' }),
});
const SubjectParams = Type.Object({
  scope: Type.Union([Type.Literal('role'), Type.Literal('user'), Type.Literal('token')]),
  subject: Type.String({ minLength: 1, maxLength: 200 }),
});

const out = (o: LimitOverride) => ({ ...o, updatedAt: o.updatedAt.toISOString() });

/**
 * Concurrency limits, settable while the server runs (lib/limits.ts has the rules). Over a
 * principal's limit a query waits in that principal's queue, then gets 429 with Retry-After;
 * over the server's, it waits in the server's queue, then gets 503.
 */
export default async function limitRoutes(app: FastifyInstance): Promise<void> {
  const store = app.junction.limitStore;

  app.get(
    '/limits',
    {
      schema: {
        tags: ['limits'],
        summary: 'Concurrency limits: the server-wide one in force, the environment defaults, and the stored settings',
        response: {
          200: Type.Object({
            server: Queue,
            defaults: Type.Object({ server: Queue, principal: Queue }),
            overrides: Type.Array(Override),
            running: Type.Integer(),
            queued: Type.Integer(),
          }),
          ...errors(),
        },
      },
    },
    async () => {
      const d = store.defaults;
      return {
        server: store.server(),
        defaults: {
          server: { maxConcurrent: d.maxConcurrent, maxQueued: d.maxQueued, queueTimeoutMs: d.queueTimeoutMs },
          principal: { maxConcurrent: d.perUser, maxQueued: d.perUserQueued, queueTimeoutMs: d.perUserQueueTimeoutMs },
        },
        overrides: store.list().map(out),
        running: app.junction.admission.running,
        queued: app.junction.admission.queued,
      };
    },
  );

  app.get(
    '/limits/mine',
    {
      schema: {
        tags: ['limits'],
        summary: 'The limit that applies to your queries (this token\u2019s, yours, your role\u2019s or the default)',
        response: {
          200: Type.Intersect([
            Type.Object({ scope: Type.String({ description: 'token | user | role | default' }) }),
            Queue,
          ]),
          ...errors(),
        },
      },
    },
    async (request) => {
      const b = store.bucketOf(request.principal!);
      return { scope: b.scope, ...b.limit };
    },
  );

  app.put<{ Body: Static<typeof LimitBody> }>(
    '/limits/server',
    {
      schema: {
        tags: ['limits'],
        summary: 'Set the server-wide limit (over it: the server queue, then 503)',
        body: LimitBody,
        response: { 200: Override, ...errors() },
      },
    },
    async (request) => {
      const row = await store.set('server', '', request.body);
      await app.audit(request, 'limits.set', 'server', { ...request.body });
      return out(row);
    },
  );

  app.delete(
    '/limits/server',
    {
      schema: {
        tags: ['limits'],
        summary: 'Back to the environment\u2019s server-wide limit',
        response: { 200: Ok, ...errors() },
      },
    },
    async (request) => {
      await store.remove('server', '');
      await app.audit(request, 'limits.clear', 'server');
      return { ok: true };
    },
  );

  const checkSubject = async (scope: LimitScope, subject: string) => {
    if (scope === 'role') {
      if (!(Role.anyOf as { const: string }[]).some((r) => r.const === subject)) throw notFound('role', subject);
    } else if (scope === 'user') {
      if (!(await app.db.user.findUnique({ where: { id: subject } }))) throw notFound('user', subject);
    } else if (!(await app.db.apiToken.findUnique({ where: { id: subject } }))) throw notFound('token', subject);
  };

  app.put<{ Params: Static<typeof SubjectParams>; Body: Static<typeof LimitBody> }>(
    '/limits/:scope/:subject',
    {
      schema: {
        tags: ['limits'],
        summary: 'Set the limit of a role (per member), a user (by id) or a token (by id)',
        description:
          'Fields left out keep their stored value; null inherits (token \u2192 user \u2192 role \u2192 default). ' +
          'A token with a setting of its own is counted on its own, not against its user.',
        params: SubjectParams,
        body: LimitBody,
        response: { 200: Override, ...errors(404) },
      },
    },
    async (request) => {
      const { scope, subject } = request.params;
      await checkSubject(scope, subject);
      const row = await store.set(scope, subject, request.body);
      await app.audit(request, 'limits.set', `${scope}:${subject}`, { ...request.body });
      return out(row);
    },
  );

  app.delete<{ Params: Static<typeof SubjectParams> }>(
    '/limits/:scope/:subject',
    {
      schema: {
        tags: ['limits'],
        summary: 'Remove a setting: the role, user or token inherits again',
        params: SubjectParams,
        response: { 200: Ok, ...errors(404) },
      },
    },
    async (request) => {
      const { scope, subject } = request.params;
      if (!(await store.remove(scope, subject))) throw notFound('limit', `${scope}:${subject}`);
      await app.audit(request, 'limits.clear', `${scope}:${subject}`);
      return { ok: true };
    },
  );
}
