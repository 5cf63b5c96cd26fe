/** What EXPLAIN returns: a tree the text printer, the web viewer and golden files all read. */
export interface ExplainNode {
  /** operator name: RemoteQuery, HashJoin, DependentJoin, Filter, HashAggregate, Sort, Limit, Union, … */
  readonly operator: string;
  /** 'junction' or the source name the step runs in */
  readonly runsIn: string;
  /** short, human-readable details: join keys, predicates, sort keys */
  readonly detail?: string;
  /** source fragments: the exact SQL and its parameters (long IN lists summarised) */
  readonly sql?: string;
  readonly params?: readonly unknown[];
  /** predicates or operators kept in Junction, with why: missing capability, collation, spans sources */
  readonly notPushed?: readonly { readonly what: string; readonly reason: string }[];
  readonly estimatedRows?: number;
  /** a statement sent to a backend engine (Trino): that engine's own plan of it, as it printed it */
  readonly remotePlan?: string;
  /** EXPLAIN ANALYZE only */
  readonly actual?: {
    readonly rows: number;
    readonly batches: number;
    readonly timeMs: number;
    readonly statements?: number;
    /** spilling operators that wrote to disk: bytes, hash partitions (sort: runs), recursion depth, partitions joined in blocks, whether a hash join swapped its sides */
    readonly spill?: { readonly bytes: number; readonly partitions: number; readonly depth: number; readonly blocks: number; readonly swapped: boolean };
  };
  /** the complete SQL when `sql` had a long IN list summarised, for copying */
  readonly fullSql?: string;
  /** every parameter when `params` was summarised */
  readonly fullParams?: readonly unknown[];
  /** EXPLAIN ANALYZE, on the root only: every statement sent to a source, in the order sent */
  readonly timeline?: readonly StatementTiming[];
  readonly children: readonly ExplainNode[];
}

/** One source statement of an analysed run; times in ms since the query started. */
export interface StatementTiming {
  readonly source: string;
  readonly sql: string;
  readonly rows: number;
  readonly startMs: number;
  readonly endMs: number;
  /** closed before its last row: a limit was met, or the query stopped */
  readonly stoppedEarly: boolean;
}
