import type { CatalogSnapshot, ColumnMeta, Connector, JType, RenderedQuery, Row, SourceSemantics, Value } from '@junction/connectors';
import type { ExplainNode } from './explain/explain-node.js';
import type { CachePolicy } from './cache/statement.js';
import type { FragmentCachePolicy } from './cache/fragment-cache.js';
export type { CachePolicy } from './cache/statement.js';
export type { FragmentCachePolicy } from './cache/fragment-cache.js';
export type { CacheCounters, CacheEntryInfo } from './cache/cache-store.js';
export type { Materialization } from './materialize/substitute.js';

/** Decides what a caller may touch; checked at bind time, before any source is contacted. */
export interface AccessPolicy {
  canReadSource(source: string): boolean;
  canReadView(schema: string, view: string): boolean;
  /**
   * Names the decisions: two policies with the same key decide every source and view alike.
   * With a key, a plan bound under this policy is cached and reused by later queries of the same
   * SQL under the same key (a server answers one caller's repeated statement without parsing
   * and binding it again); without one, every query binds afresh.
   */
  readonly key?: string;
}

export interface EngineOptions {
  /** worker threads for large hash joins/aggregates; default: number of cores */
  readonly workers?: number;
  /** per-query memory budget in bytes; default 256 MiB */
  readonly memoryBudgetBytes?: number;
  /** directory for spill files; default os.tmpdir() */
  readonly spillDir?: string;
  /** per-query limit on spill file bytes; default 4 GiB */
  readonly maxSpillBytes?: number;
  readonly cache?: CacheOptions;
  /** a distributed engine queries may run on (Engine.setBackend sets or clears it later) */
  readonly backend?: ExecutionBackend;
}

/**
 * A distributed SQL engine (Trino) that reads the registered sources itself, through catalogs of
 * its own. A query chosen for it is still bound, checked against grants and stripped of virtual
 * views by Junction; then every table the backend can read is planned as read through it, so
 * the pushdown rules send joins across those sources to it as one statement, in its dialect and
 * with its capabilities. What it cannot read stays with its own source, joined in Junction.
 */
export interface ExecutionBackend {
  /** what queries and hints call it (`engine: "trino"`, `/*+ engine(trino) *\/`); never a source's name */
  readonly name: string;
  readonly connector: Connector;
  /** where the backend finds a source's tables, or why it cannot read them */
  tableOf(source: string): BackendTable | { readonly local: true; readonly reason: string };
  /**
   * `auto`: the backend runs a query when the rows Junction would fetch from its sources running
   * it locally are estimated above this; default 1,000,000
   */
  readonly autoRowsThreshold?: number;
  /** the choice of a query that names none (option or hint); default 'local' */
  readonly defaultEngine?: 'local' | 'auto';
  /** the backend's own plan of a statement, shown by EXPLAIN under the statement sent to it */
  explain?(query: RenderedQuery): Promise<string>;
  /**
   * Rejects when the backend cannot read through `catalog` now (its database down, a password
   * changed). Asked only after a statement failed, so the error names the source it could not
   * read instead of only the backend.
   */
  checkCatalog?(catalog: string, signal?: AbortSignal): Promise<void>;
}

/** A source's tables as the backend names them: `catalog.schema.table`, schema defaulting to the source's. */
export interface BackendTable {
  readonly catalog: string;
  readonly schema?: string;
  readonly local?: false;
}

/** Budgets of the result and fragment caches (shared by all queries of the engine). */
export interface CacheOptions {
  /** results held in memory; default 256 MiB */
  readonly maxMemoryBytes?: number;
  /** results spilled to files; default 1 GiB; 0: large results are not cached */
  readonly maxDiskBytes?: number;
  /** fragments held in memory; default 64 MiB (fragments are never spilled) */
  readonly fragmentMemoryBytes?: number;
  /** where spilled results go; default a fresh directory under spillDir, removed on close */
  readonly dir?: string;
}

/** What to purge: everything, or what read one source or one view. */
export type CachePurge = { readonly source: string } | { readonly view: { readonly schema: string; readonly name: string } } | Record<string, never>;

export interface QueryOptions {
  readonly params?: readonly Value[];
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** more rows than this fails with a 'resources' error (not silent truncation) */
  readonly maxRows?: number;
  /** false: fetch base tables and compute everything in Junction (correctness oracle) */
  readonly pushdown?: boolean;
  readonly access?: AccessPolicy;
  readonly memoryBudgetBytes?: number;
  /** schemas searched for unqualified names, in order */
  readonly searchPath?: readonly string[];
  /**
   * Cache the result (or reuse a stored one no older than the policy allows), as a leading
   * `/*+ cache(ttl=…) *\/` hint does; 'off' runs the statement even when it or its views ask
   * for the cache. Default: the statement's hint, else its views' (cache/statement.ts).
   */
  readonly cache?: CachePolicy | 'off';
  /**
   * Where the query runs: 'local' (Junction and its sources), the backend's name, or 'auto' (the
   * backend when the estimate of rows fetched passes its threshold). Default: a leading
   * `/*+ engine(NAME) *\/` hint, else the backend's defaultEngine, else 'local'.
   */
  readonly engine?: string;
}

/** Which engine ran (or would run) a query, and why. */
export interface EngineChoice {
  /** 'local' or the backend's name */
  readonly engine: string;
  readonly reason: string;
}

export interface StepStats {
  readonly node: string;
  readonly rows: number;
  readonly batches: number;
  readonly timeMs: number;
}

export interface QueryStats {
  readonly rows: number;
  readonly elapsedMs: number;
  /** one entry per statement sent to a source; start and end in ms since the query started */
  readonly sourceStatements: readonly {
    readonly source: string;
    readonly sql: string;
    readonly rows: number;
    readonly timeMs: number;
    readonly startMs?: number;
    readonly endMs?: number;
    /** closed before its last row: a limit was met, or the query stopped */
    readonly stoppedEarly?: boolean;
  }[];
  readonly peakMemoryBytes: number;
  /** 'hit': the rows came from the result cache, stored cacheAgeMs ago; 'miss': run and stored when complete */
  readonly cache?: 'hit' | 'miss' | 'off';
  readonly cacheAgeMs?: number;
  /** bytes written to spill files by joins, aggregates and sorts that passed the memory budget */
  readonly spilledBytes: number;
  /** 'local', or the backend's name when statements went to it */
  readonly engine: string;
  /** why that engine: asked for, auto's estimate, or what kept it local */
  readonly engineReason?: string;
}

export interface QueryResult {
  readonly id: string;
  readonly columns: readonly ColumnMeta[];
  /** batches of rows; the first arrives before the last is read wherever the plan allows */
  readonly rows: AsyncIterable<readonly Row[]>;
  stats(): QueryStats;
  cancel(reason?: string): void;
}

export interface DescribeResult {
  readonly columns: readonly ColumnMeta[];
  /** one per `$n` up to the highest used; 'unknown' where nothing in the statement decides it */
  readonly paramTypes: readonly JType[];
}

export interface ExplainResult {
  readonly plan: ExplainNode;
  readonly text: string;
  /** the query would be answered from the result cache, from an entry this old */
  readonly cache?: { readonly ageMs: number };
  /** set when a backend is configured or the query named an engine */
  readonly engine?: EngineChoice;
}

export interface RegisteredSource {
  readonly name: string;
  readonly connector: Connector;
  readonly catalog: CatalogSnapshot;
  readonly semantics?: SourceSemantics;
  /** results of this source's fragments may be reused for this long (all or some tables) */
  readonly fragmentCache?: FragmentCachePolicy;
}

export interface ViewDefinition {
  readonly schema: string;
  readonly name: string;
  readonly sql: string;
}

/** A table or view a statement names itself (not what the views it reads name in turn). */
export type RelationReference =
  | { readonly kind: 'table'; readonly source: string; readonly schema: string; readonly table: string }
  | { readonly kind: 'view'; readonly schema: string; readonly name: string };
