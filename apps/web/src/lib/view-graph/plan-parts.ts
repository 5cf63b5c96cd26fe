import type { PlanNode } from '../plan.js';

/** One statement a plan sends to a source. */
export interface SourcePart {
  readonly source: string;
  readonly sql: string;
}

export interface PlanSummary {
  /** per source, the SQL sent to it, in plan order */
  readonly parts: readonly SourcePart[];
  /** operators Junction runs itself (joins across sources, filters a source cannot take…) */
  readonly local: readonly string[];
  /** what is not pushed down, and why */
  readonly notPushed: readonly string[];
}

/** Where each part of a view runs, read off the plan EXPLAIN returns. */
export function summarizePlan(root: PlanNode): PlanSummary {
  const parts: SourcePart[] = [];
  const local: string[] = [];
  const notPushed: string[] = [];
  const walk = (n: PlanNode) => {
    if (n.runsIn !== 'junction' && n.sql) parts.push({ source: n.runsIn, sql: n.sql });
    if (n.runsIn === 'junction') local.push(n.detail ? `${n.operator} (${n.detail})` : n.operator);
    for (const p of n.notPushed ?? []) notPushed.push(`${p.what}: ${p.reason}`);
    for (const c of n.children ?? []) walk(c);
  };
  walk(root);
  return { parts, local, notPushed };
}

/** The per-source SQL as one text per source, for a diff: `-- dbA` headers, sources sorted. */
export function sourcesText(parts: readonly SourcePart[]): string {
  const by = new Map<string, string[]>();
  for (const p of parts) by.set(p.source, [...(by.get(p.source) ?? []), p.sql]);
  return [...by]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, sqls]) => [`-- ${s}`, ...sqls].join('\n'))
    .join('\n');
}
