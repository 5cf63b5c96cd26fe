/** Mirror of query-core's ExplainNode (plain JSON from POST /explain). */
export interface PlanNode {
  readonly operator: string;
  readonly runsIn: string;
  readonly detail?: string;
  readonly sql?: string;
  readonly params?: readonly unknown[];
  readonly notPushed?: readonly { readonly what: string; readonly reason: string }[];
  readonly estimatedRows?: number;
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

/** One row of the plan viewer: a node with its depth and what to print about it. */
export interface PlanRow {
  readonly id: string;
  readonly depth: number;
  readonly operator: string;
  readonly runsIn: string;
  readonly isRemote: boolean;
  /** HashJoin, DependentJoin, NestedLoopJoin, MergeJoin… shown as the join strategy */
  readonly joinStrategy?: string;
  readonly detail?: string;
  readonly sql?: string;
  readonly params?: string;
  readonly rows: string;
  readonly time?: string;
  readonly notPushed: readonly string[];
}

/** Depth-first rows, ids are the path of child indexes ("0", "0.1", …). */
export function flattenPlan(root: PlanNode): PlanRow[] {
  const out: PlanRow[] = [];
  const walk = (n: PlanNode, depth: number, id: string) => {
    out.push(toRow(n, depth, id));
    (n.children ?? []).forEach((c, i) => walk(c, depth + 1, `${id}.${i}`));
  };
  walk(root, 0, '0');
  return out;
}

function toRow(n: PlanNode, depth: number, id: string): PlanRow {
  return {
    id,
    depth,
    operator: n.operator,
    runsIn: n.runsIn,
    isRemote: n.runsIn !== 'junction',
    ...(/Join$/.test(n.operator) ? { joinStrategy: n.operator.replace(/Join$/, '') || n.operator } : {}),
    ...(n.detail ? { detail: n.detail } : {}),
    ...(n.sql ? { sql: n.sql } : {}),
    ...(n.params && n.params.length > 0 ? { params: formatParams(n.params) } : {}),
    rows: formatRows(n),
    ...(n.actual ? { time: `${formatMs(n.actual.timeMs)}` } : {}),
    notPushed: (n.notPushed ?? []).map((p) => `${p.what}: ${p.reason}`),
  };
}

export function formatParams(params: readonly unknown[]): string {
  return params
    .map((p, i) => `$${i + 1} = ${p === null ? 'NULL' : typeof p === 'string' ? `'${p}'` : JSON.stringify(p)}`)
    .join(', ');
}

function formatRows(n: PlanNode): string {
  const est = n.estimatedRows === undefined ? '?' : String(Math.round(n.estimatedRows));
  return n.actual ? `est ${est} / actual ${n.actual.rows}` : `est ${est}`;
}

function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`;
}
