import type { ColumnMeta, Connector, Row, SourceConfig } from '@junction/connectors';

/** One materialization's bookkeeping row, as the store keeps it. */
export interface Stored {
  view: string;
  tbl: string | null;
  interval_seconds: number | null;
  max_staleness_seconds: number;
  status: 'never' | 'ok' | 'failed' | 'outdated';
  rows: number | null;
  bytes: number | null;
  refreshed_at: number | null;
  duration_ms: number | null;
  error: string | null;
  error_code: string | null;
  /** refreshes started and not finished: more than 0 with no refresh running means a server stopped during one */
  unfinished_refreshes: number;
}

export type StoredFields = Partial<Omit<Stored, 'view'>>;

/** the bookkeeping table both stores keep beside the materialized tables, one row per view */
export const BOOKKEEPING = '_junction_materializations';
/** its columns a store writes (all but the key, view) */
export const COLUMNS: readonly (keyof Stored)[] = [
  'tbl',
  'interval_seconds',
  'max_staleness_seconds',
  'status',
  'rows',
  'bytes',
  'refreshed_at',
  'duration_ms',
  'error',
  'error_code',
  'unfinished_refreshes',
];

/** The right to refresh one view, held until released. */
export interface Claim {
  release(): Promise<void>;
}

/** how long a replaced table stays, so a query planned on it just before a refresh can finish */
export const DROP_GRACE_MS = 60_000;

/**
 * Where materialized views' rows and their bookkeeping live. The materializer decides what to
 * refresh and when; a store keeps tables and bookkeeping consistent with each other, and says
 * whether other servers share it.
 */
export interface MvStore {
  /** other servers read and refresh the same materializations: the bookkeeping may change under this one */
  readonly shared: boolean;
  /** the engine source the stored tables are read through (known once open) */
  source(): SourceConfig;
  /** creates the bookkeeping if missing and drops the tables no refresh will ever point at */
  open(): Promise<void>;
  all(): Promise<Stored[]>;
  row(view: string): Promise<Stored | undefined>;
  insert(view: string, settings: { intervalSeconds: number | null; maxStalenessSeconds: number }): Promise<void>;
  /** false when the view is no longer materialized */
  update(view: string, fields: StoredFields): Promise<boolean>;
  /** forgets the view; its table is dropped after the grace period */
  delete(view: string): Promise<void>;
  /**
   * The right to refresh `view`, one server at a time. Without `wait`, undefined when another
   * server holds it; with it, granted once that server's refresh has ended.
   */
  claim(view: string, wait: boolean): Promise<Claim | undefined>;
  /** ends every wait for a claim (the server is stopping): those claims fail */
  stopWaiting?(): void;
  /** an empty table for the view's rows */
  create(view: string, table: string, columns: readonly ColumnMeta[]): Promise<void>;
  load(table: string, columns: readonly ColumnMeta[], batches: AsyncIterable<readonly Row[]>): Promise<{ rows: number; bytes: number }>;
  /**
   * Points the view's bookkeeping at a loaded table, or at none (its rows answered an older
   * definition); its previous table is dropped after the grace period. False when the view is no
   * longer materialized.
   */
  swap(view: string, table: string | null, fields: StoredFields): Promise<boolean>;
  /** drops a failed refresh's table now, or later when that fails too (a full disk) */
  discard(table: string): Promise<void>;
  /** the engine's connector to the store, for stores that load through it */
  useConnector?(c: Connector): void;
  /** periodic upkeep, once a second */
  tick(): Promise<void>;
  /** after each refresh, successful or not */
  afterRefresh(): void;
  close(): Promise<void>;
}

export function splitView(view: string): [string, string] {
  const i = view.indexOf('.');
  return [view.slice(0, i), view.slice(i + 1)];
}

export function rowBytes(row: Row): number {
  let n = 0;
  for (const v of row) n += typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.byteLength : 8;
  return n;
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
