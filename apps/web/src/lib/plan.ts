/** Mirror of query-core's ExplainNode (plain JSON from POST /explain). */
export interface PlanNode {
  readonly operator: string;
  readonly runsIn: string;
  readonly detail?: string;
  readonly sql?: string;
  readonly params?: readonly unknown[];
  readonly notPushed?: readonly { readonly what: string; readonly reason: string }[];
  readonly estimatedRows?: number;
  /** a statement sent to Trino: Trino's own distributed plan of it, as Trino printed it */
  readonly remotePlan?: string;
  readonly actual?: {
    readonly rows: number;
    readonly batches: number;
    readonly timeMs: number;
    readonly statements?: number;
  };
  /** the complete SQL and parameters when the shown ones had a long IN list summarised */
  readonly fullSql?: string;
  readonly fullParams?: readonly unknown[];
  /** EXPLAIN ANALYZE, root only: every statement sent to a source */
  readonly timeline?: readonly StatementTiming[];
  readonly children: readonly PlanNode[];
}

export interface StatementTiming {
  readonly source: string;
  readonly sql: string;
  readonly rows: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly stoppedEarly: boolean;
}

export function formatParams(params: readonly unknown[]): string {
  return params
    .map((p, i) => `$${i + 1} = ${p === null ? 'NULL' : typeof p === 'string' ? `'${p}'` : JSON.stringify(p)}`)
    .join(', ');
}

/**
 * The lines the server's EXPLAIN text puts before the plan tree: a materialized view read from
 * its stored rows (and how old they are), a result or fragment served from cache. The tree
 * (PlanNode) does not carry them, so the drawn plan reads them from the text.
 */
export function planNotes(text: string, plan: Pick<PlanNode, 'operator'>): string[] {
  const lines = text.split('\n');
  const root = lines.findIndex((l) => l === plan.operator || l.startsWith(`${plan.operator} `));
  return root <= 0 ? [] : lines.slice(0, root).filter((l) => l.trim() !== '');
}
