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
export type PurgeScope = { source: string } | { view: string } | Record<string, never>;

export const cacheApi = {
  state: () => requestJson<CacheState>('/cache'),
  purge: (scope: PurgeScope) => requestJson<{ purged: number }>('/cache/purge', { body: scope }),
};
