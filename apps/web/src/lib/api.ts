import { toCatalog, type CatalogColumn, type CatalogSource } from './catalog.js';
import { ApiError, forgetSession, mayHaveSession, request, requestJson, setCsrfToken } from './http.js';
import type { EngineChoice, EnginesInfo } from './engine-choice.js';
import type { ConnectionInfo } from './pg-connect.js';
import type { PlanNode } from './plan.js';
import type { Diagnosis } from './source-form.js';

export type Role = 'admin' | 'analyst' | 'viewer';
export interface User {
  readonly id: string;
  readonly username: string;
  readonly role: Role;
}

export type Engine = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite' | 'duckdb' | 'documents';
/** the engines whose sources are files and documents, not servers */
export type FileEngine = Extract<Engine, 'duckdb' | 'documents'>;
export interface Source {
  readonly id: string;
  readonly name: string;
  readonly engine: Engine;
  readonly status: string;
  readonly demo?: boolean;
}
/** GET /sources/:id: connection settings without the password (write-only) */
export interface SourceDetail extends Source {
  readonly host: string | null;
  readonly port: number | null;
  readonly database: string | null;
  readonly user: string | null;
  readonly file: string | null;
  readonly hasPassword: boolean;
  readonly statusMessage: string | null;
  readonly tables: number;
  readonly options?: SourceOptions;
  /** what the probe found when the source was registered or refreshed */
  readonly semantics?: SourceSemantics | null;
}
export interface SourceOptions {
  schema?: string;
  pool?: { max?: number; idleTimeoutMs?: number; maxLifetimeMs?: number };
  tls?: { enabled: boolean; rejectUnauthorized?: boolean; ca?: string };
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** duckdb: CSV, Parquet and JSON files as tables */
  files?: FilesOptions;
  /** documents: tables read by paths from XML and JSON documents */
  documents?: DocumentsOptions;
}
export interface FileTableSpec {
  name: string;
  path: string;
  format?: 'csv' | 'parquet' | 'json';
  csv?: { delimiter?: string; quote?: string; escape?: string; header?: boolean; nullValues?: string[] };
  json?: { format?: 'auto' | 'newline_delimited' | 'array' };
  columns?: Record<string, string>;
}
export interface FilesOptions {
  root?: string;
  tables?: FileTableSpec[];
}
export interface DocumentTableSpec {
  name: string;
  format: 'xml' | 'json';
  from: { path: string } | { url: string };
  rowPath: string;
  namespaces?: Record<string, string>;
  columns: { name: string; path: string; type: string }[];
}
export interface DocumentsOptions {
  root?: string;
  tables: DocumentTableSpec[];
}
/** POST /sources/preview: one table of unsaved settings, as queries would read it */
export interface SourcePreview {
  readonly table: string;
  readonly tables: readonly string[];
  readonly columns: readonly { readonly name: string; readonly type: string; readonly nativeType: string }[];
  readonly rows: readonly (readonly unknown[])[];
}
export interface SourceSemantics {
  readonly serverVersion?: string;
  readonly defaultCollation?: string;
  readonly caseSensitive?: boolean;
  readonly accentSensitive?: boolean;
  readonly padSpace?: boolean;
  readonly timeZone?: string;
  readonly maxBindParams?: number;
  readonly maxIdentifierLength?: number;
}
export type SourcePatch = Partial<Pick<NewSource, 'host' | 'port' | 'database' | 'user' | 'password' | 'file'>> & {
  options?: SourceOptions;
};
export interface NewSource {
  name: string;
  engine: Engine;
  host?: string;
  port?: number;
  database?: string;
  file?: string;
  user?: string;
  password?: string;
  options?: Record<string, unknown>;
}
export interface CatalogHit {
  readonly kind: 'table' | 'column' | 'view';
  readonly source: string;
  readonly schema: string;
  readonly table: string;
  readonly column?: string;
  readonly type?: string;
}
export interface SavedQuery {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly sql: string;
  readonly params?: unknown[] | null;
  readonly example?: boolean;
  readonly owner?: string | null;
  readonly shared?: boolean;
}
export interface HistoryEntry {
  readonly id: string;
  readonly sql: string;
  readonly params?: unknown[] | null;
  readonly status: string;
  readonly rows?: number | null;
  readonly elapsedMs?: number | null;
  readonly errorCode?: string | null;
  readonly createdAt: string;
}
export interface ExplainResponse {
  readonly plan: PlanNode;
  readonly text: string;
  /** where the query would run and why (set when Trino is configured or the query named an engine) */
  readonly engine?: { readonly engine: string; readonly reason: string };
}

type Obj = Record<string, unknown>;
/** Lists come bare or wrapped (`{items}`, `{sources}`…): accept either. */
function list<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  const o = (body ?? {}) as Obj;
  const v = o[key] ?? o.items ?? o.data;
  return Array.isArray(v) ? (v as T[]) : [];
}

function userOf(body: unknown): User {
  const o = (body ?? {}) as Obj;
  return (o.user && typeof o.user === 'object' ? o.user : o) as User;
}

export const api = {
  async login(username: string, password: string): Promise<User> {
    const body = await requestJson<Obj>('/auth/login', { body: { username, password } });
    setCsrfToken(typeof body?.csrfToken === 'string' ? body.csrfToken : undefined);
    return userOf(body);
  },
  async logout(): Promise<void> {
    await request('/auth/logout', { method: 'POST', body: {} }).catch(() => undefined);
    setCsrfToken(undefined);
  },
  /** Who is signed in, or null: without a session cookie there is no one to ask about. */
  async me(): Promise<User | null> {
    if (!mayHaveSession()) return null;
    let body: Obj;
    try {
      body = await requestJson<Obj>('/auth/me');
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) throw e;
      forgetSession();
      return null;
    }
    if (typeof body?.csrfToken === 'string') setCsrfToken(body.csrfToken);
    return userOf(body);
  },

  async sources(): Promise<Source[]> {
    return list<Source>(await requestJson('/sources'), 'sources');
  },
  source: (id: string) => requestJson<SourceDetail>(`/sources/${encodeURIComponent(id)}`),
  createSource: (s: NewSource) => requestJson<SourceDetail>('/sources', { body: s }),
  updateSource: (id: string, patch: SourcePatch) =>
    requestJson<SourceDetail>(`/sources/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch }),
  deleteSource: (id: string) => requestJson<void>(`/sources/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  testSource: (id: string) =>
    requestJson<Diagnosis>(`/sources/${encodeURIComponent(id)}/test`, { method: 'POST', body: {} }),
  previewSource: (source: NewSource, table: string | undefined, signal?: AbortSignal) =>
    requestJson<SourcePreview>('/sources/preview', {
      body: { source, ...(table ? { table } : {}), limit: 20 },
      signal,
    }),
  refreshSource: (id: string) =>
    requestJson<SourceDetail>(`/sources/${encodeURIComponent(id)}/refresh`, { method: 'POST', body: {} }),

  /** where the PostgreSQL listener is (psql, JDBC), and the user name to sign in there with */
  connectionInfo: () => requestJson<ConnectionInfo>('/connection-info'),

  async catalog(): Promise<CatalogSource[]> {
    return toCatalog(await requestJson('/catalog'));
  },
  async tableColumns(source: string, schema: string, table: string): Promise<CatalogColumn[]> {
    const body = await requestJson<{ columns?: CatalogColumn[] }>(
      `/catalog/${[source, schema, table].map(encodeURIComponent).join('/')}`,
    );
    return body?.columns ?? [];
  },
  searchCatalog: (q: string) => requestJson<CatalogHit[]>(`/catalog/search?q=${encodeURIComponent(q)}&limit=500`),

  async savedQueries(): Promise<SavedQuery[]> {
    return list<SavedQuery>(await requestJson('/saved-queries'), 'savedQueries');
  },
  saveQuery: (q: { name: string; sql: string; description?: string; params?: readonly unknown[] }) =>
    requestJson<SavedQuery>('/saved-queries', { body: q }),
  updateSavedQuery: (id: string, patch: { name?: string; sql?: string; params?: readonly unknown[] }) =>
    requestJson<SavedQuery>(`/saved-queries/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch }),
  deleteSavedQuery: (id: string) =>
    requestJson<void>(`/saved-queries/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  async history(): Promise<HistoryEntry[]> {
    return list<HistoryEntry>(await requestJson('/history'), 'history');
  },
  explain: (sql: string, analyze: boolean, params?: readonly unknown[], engine?: EngineChoice) =>
    requestJson<ExplainResponse>('/explain', {
      body: { sql, analyze, ...(params ? { params } : {}), ...(engine ? { engine } : {}) },
    }),
  /**
   * The engines queries may run on. A server without the route (404) has no Trino to offer: the
   * studio then shows nothing about it, as when `trino` is null.
   */
  async engines(): Promise<EnginesInfo> {
    try {
      return await requestJson<EnginesInfo>('/engines');
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return { default: 'local', trino: null };
      throw e;
    }
  },
};
