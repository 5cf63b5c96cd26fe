import { requestJson } from './http.js';
import type { Role } from './api.js';

export type Scope = 'read' | 'run' | 'query' | 'design' | 'admin';
export const SCOPES: readonly Scope[] = ['read', 'run', 'query', 'design', 'admin'];

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

  changePassword: (currentPassword: string, newPassword: string) =>
    requestJson<void>('/auth/password', { body: { currentPassword, newPassword } }),
};
