import type { CatalogSnapshot, ColumnMeta, Connector, Row, SourceSemantics, Value } from '@junction/connectors';
import type { ExplainNode } from './explain/explain-node.js';

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
}

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
}

export interface QueryResult {
  readonly id: string;
  readonly columns: readonly ColumnMeta[];
  /** batches of rows; the first arrives before the last is read wherever the plan allows */
  readonly rows: AsyncIterable<readonly Row[]>;
  stats(): QueryStats;
  cancel(reason?: string): void;
}

export interface ExplainResult {
  readonly plan: ExplainNode;
  readonly text: string;
}

export interface RegisteredSource {
  readonly name: string;
  readonly connector: Connector;
  readonly catalog: CatalogSnapshot;
  readonly semantics?: SourceSemantics;
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
