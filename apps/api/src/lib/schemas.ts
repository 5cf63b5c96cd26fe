import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorReply = Type.Object(
  {
    code: Type.String(),
    kind: Type.String(),
    message: Type.String(),
    position: Type.Optional(
      Type.Object({
        offset: Type.Integer(),
        line: Type.Integer(),
        column: Type.Integer(),
        length: Type.Optional(Type.Integer()),
      }),
    ),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: 'Error: kind decides the status code' },
);

/** Error replies every authenticated route may give, so the OpenAPI document lists them. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of [400, 401, 403, ...statuses]) out[s] = ErrorReply;
  return out;
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export const Ok = Type.Object({ ok: Type.Boolean() });

/** Names of sources, schemas, views: what an identifier may be without quoting tricks. */
export const Name = Type.String({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' });

export const Role = Type.Union([Type.Literal('admin'), Type.Literal('analyst'), Type.Literal('viewer')]);
// `tokens` (mint and revoke API tokens) is apart from the data permissions: a token that reads or
// runs must not be able to copy itself into tokens that outlive its revocation
export const PERMISSIONS = ['read', 'query', 'run', 'design', 'admin', 'tokens'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const Scope = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));

export const Json = Type.Unknown();

/** Query strings arrive as text and bodies are never coerced, so a limit is digits, read with Number(). */
export const Limit = Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: 'a number from 1 to 999' });
