import { requestJson } from './http.js';

export interface CacheCounters {
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  readonly admissions: number;
  readonly rejections: number;
  readonly invalidations: number;
  readonly expirations: number;
  readonly entries: number;
  readonly memoryBytes: number;
  readonly diskBytes: number;
  readonly maxMemoryBytes: number;
  readonly maxDiskBytes: number;
}
export interface CacheEntry {
  readonly label: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly ageSeconds: number;
  readonly rows: number;
  readonly bytes: number;
  readonly where: 'memory' | 'disk';
  readonly hits: number;
  readonly sources: readonly string[];
  readonly views: readonly string[];
}
export interface CacheState {
  readonly results: { readonly stats: CacheCounters; readonly entries: readonly CacheEntry[] };
  readonly fragments: { readonly stats: CacheCounters; readonly entries: readonly CacheEntry[] };
}
export interface MaterializationStatus {
  readonly view: string;
  readonly status: 'never' | 'ok' | 'failed' | 'outdated';
  readonly refreshing: boolean;
  readonly intervalSeconds: number | null;
  readonly maxStalenessSeconds: number;
  readonly rows: number | null;
  readonly bytes: number | null;
  readonly refreshedAt: string | null;
  readonly durationMs: number | null;
  /** the driver's message for admins; a generic one for everyone else, who get the code */
  readonly error: string | null;
  readonly errorCode?: string | null;
}
export type PurgeScope = { source: string } | { view: string } | Record<string, never>;

export const cacheApi = {
  state: () => requestJson<CacheState>('/cache'),
  purge: (scope: PurgeScope) => requestJson<{ purged: number }>('/cache/purge', { body: scope }),
  materializations: () => requestJson<MaterializationStatus[]>('/materializations'),
  refresh: (view: string) => {
    const [schema, name] = splitView(view);
    return requestJson<MaterializationStatus>(`/materializations/${encodeURIComponent(schema)}/${encodeURIComponent(name)}/refresh`, { method: 'POST' });
  },
};

function splitView(view: string): [string, string] {
  const i = view.indexOf('.');
  return [view.slice(0, i), view.slice(i + 1)];
}
