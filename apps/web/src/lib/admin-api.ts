import { requestJson } from './http.js';
import type { Role } from './api.js';

export type Scope = 'read' | 'run' | 'query' | 'design' | 'admin' | 'tokens';
export const SCOPES: readonly Scope[] = ['read', 'run', 'query', 'design', 'admin', 'tokens'];

export interface AdminUser {
  readonly id: string;
  readonly username: string;
  readonly role: Role;
  readonly disabled: boolean;
  readonly createdAt: string;
}
export interface Grant {
  readonly id: string;
  readonly role: Role | null;
  readonly userId: string | null;
  readonly sourceName: string | null;
  readonly viewSchema: string | null;
  readonly viewName: string | null;
  readonly privilege: string;
  readonly createdAt: string;
}
export interface NewGrant {
  role?: Role;
  userId?: string;
  sourceName?: string;
  viewSchema?: string;
  viewName?: string;
  /** design (views only): create, change and delete views; it does not include read */
  privilege?: 'read' | 'design';
}
export interface Token {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly expiresAt: string | null;
}
export interface AuditEntry {
  readonly id: string;
  readonly actorName: string | null;
  readonly action: string;
  readonly target: string | null;
  readonly details: unknown;
  readonly ip: string | null;
  readonly createdAt: string;
}

/** How many queries may run at once, how many more may wait, and how long one waits. */
export interface QueueLimit {
  readonly maxConcurrent: number;
  readonly maxQueued: number;
  readonly queueTimeoutMs: number;
}
export type LimitScope = 'role' | 'user' | 'token';
/** A stored setting; null fields inherit (token → user → role → default). */
export interface LimitOverride {
  readonly scope: 'server' | LimitScope;
  readonly subject: string;
  readonly maxConcurrent: number | null;
  readonly maxQueued: number | null;
  readonly queueTimeoutMs: number | null;
  readonly updatedAt: string;
}
export interface LimitsState {
  /** the server-wide limit in force (a stored setting over the environment's) */
  readonly server: QueueLimit;
  readonly defaults: { readonly server: QueueLimit; readonly principal: QueueLimit };
  readonly overrides: readonly LimitOverride[];
  readonly running: number;
  readonly queued: number;
}
export type LimitBody = { -readonly [K in keyof QueueLimit]?: number | null };

export const LIMIT_FIELDS = [
  { key: 'maxConcurrent', label: 'Running at once', min: 1, max: 100_000 },
  { key: 'maxQueued', label: 'Waiting', min: 0, max: 100_000 },
  { key: 'queueTimeoutMs', label: 'Wait at most (ms)', min: 0, max: 3_600_000 },
] as const satisfies readonly { key: keyof QueueLimit; label: string; min: number; max: number }[];

/**
 * Limit form fields → PUT body. A blank field inherits (null): the API keeps a field left out
 * at its stored value, so the form sends every field and what is shown is what is stored.
 * Throws a sentence naming the field when a value is not a whole number in range.
 */
export function limitBody(f: Readonly<Record<keyof QueueLimit, string>>): LimitBody {
  const body: LimitBody = {};
  for (const { key, label, min, max } of LIMIT_FIELDS) {
    const t = (f[key] ?? '').trim();
    if (t === '') {
      body[key] = null;
      continue;
    }
    const n = Number(t);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new Error(`${label} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, or blank to inherit.`);
    }
    body[key] = n;
  }
  if (Object.values(body).every((v) => v === null)) {
    throw new Error('Set at least one value; to inherit everything, remove the setting instead.');
  }
  return body;
}

export interface MaterializationSettings {
  readonly intervalSeconds: number | null;
  readonly maxStalenessSeconds: number;
}

/**
 * Materialize form → PUT body: the schedule in seconds (blank: refresh on demand only) and how
 * old the stored rows may be before queries read the view itself again.
 */
export function materializationBody(f: { interval: string; staleness: string }): MaterializationSettings {
  const whole = (t: string, label: string, max: number) => {
    const n = Number(t.trim());
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new Error(`${label} must be a whole number of seconds from 1 to ${max.toLocaleString('en-US')}.`);
    }
    return n;
  };
  return {
    intervalSeconds: f.interval.trim() === '' ? null : whole(f.interval, 'The refresh schedule', 30 * 86400),
    maxStalenessSeconds: whole(f.staleness, 'The staleness allowed', 365 * 86400),
  };
}

const id = encodeURIComponent;

/** The admin and account endpoints; kept apart from api.ts, which the query pages share. */
export const adminApi = {
  users: () => requestJson<AdminUser[]>('/users'),
  createUser: (u: { username: string; password: string; role: Role }) => requestJson<AdminUser>('/users', { body: u }),
  updateUser: (userId: string, change: { role?: Role; disabled?: boolean; password?: string }) =>
    requestJson<AdminUser>(`/users/${id(userId)}`, { method: 'PATCH', body: change }),
  deleteUser: (userId: string) => requestJson<void>(`/users/${id(userId)}`, { method: 'DELETE' }),

  grants: () => requestJson<Grant[]>('/grants'),
  createGrant: (g: NewGrant) => requestJson<Grant>('/grants', { body: g }),
  deleteGrant: (grantId: string) => requestJson<void>(`/grants/${id(grantId)}`, { method: 'DELETE' }),

  tokens: () => requestJson<Token[]>('/tokens'),
  allTokens: () => requestJson<(Token & { username: string })[]>('/tokens/all'),
  createToken: (t: { name: string; scopes: Scope[]; expiresAt?: string }) => requestJson<Token & { token: string }>('/tokens', { body: t }),
  revokeToken: (tokenId: string) => requestJson<void>(`/tokens/${id(tokenId)}`, { method: 'DELETE' }),

  audit: (filter: { action?: string; limit?: number }) => {
    const q = new URLSearchParams();
    if (filter.action) q.set('action', filter.action);
    q.set('limit', String(filter.limit ?? 200));
    return requestJson<AuditEntry[]>(`/audit?${q.toString()}`);
  },

  limits: () => requestJson<LimitsState>('/limits'),
  setServerLimit: (body: LimitBody) => requestJson<LimitOverride>('/limits/server', { method: 'PUT', body }),
  clearServerLimit: () => requestJson<void>('/limits/server', { method: 'DELETE' }),
  setLimit: (scope: LimitScope, subject: string, body: LimitBody) =>
    requestJson<LimitOverride>(`/limits/${scope}/${id(subject)}`, { method: 'PUT', body }),
  clearLimit: (scope: LimitScope, subject: string) =>
    requestJson<void>(`/limits/${scope}/${id(subject)}`, { method: 'DELETE' }),

  /** materialize a view of a virtual schema, or change its schedule */
  materialize: (schema: string, name: string, settings: MaterializationSettings) =>
    requestJson<unknown>(`/materializations/${id(schema)}/${id(name)}`, { method: 'PUT', body: settings }),
  stopMaterializing: (schema: string, name: string) =>
    requestJson<void>(`/materializations/${id(schema)}/${id(name)}`, { method: 'DELETE' }),

  changePassword: (currentPassword: string, newPassword: string) =>
    requestJson<void>('/auth/password', { body: { currentPassword, newPassword } }),
};
