import type { ExplainNode } from './explain-node.js';

export interface TextOptions {
  /** print estimated rows (off in golden tests that should not move with statistics) */
  readonly estimates?: boolean;
}

/**
 * EXPLAIN as text: one line per operator with where it runs, then its SQL, parameters and
 * the reasons something was not pushed down; ANALYZE adds actual rows, batches and time.
 */
export function explainText(root: ExplainNode, options: TextOptions = {}): string {
  const lines: string[] = [];
  const walk = (n: ExplainNode, depth: number): void => {
    const pad = '  '.repeat(depth);
    let head = `${pad}${n.operator}`;
    if (n.runsIn !== 'junction') head += ` [${n.runsIn}]`;
    if (n.detail) head += ` ${n.detail}`;
    if (options.estimates && n.estimatedRows !== undefined) head += ` (rows≈${n.estimatedRows})`;
    if (n.actual) {
      head += ` (actual rows=${n.actual.rows} batches=${n.actual.batches} time=${n.actual.timeMs.toFixed(3)}ms${n.actual.statements !== undefined ? ` statements=${n.actual.statements}` : ''})`;
    }
    lines.push(head);
    if (n.sql !== undefined) lines.push(`${pad}  SQL: ${n.sql}`);
    if (n.params && n.params.length > 0) lines.push(`${pad}  params: ${JSON.stringify(n.params)}`);
    for (const np of n.notPushed ?? []) lines.push(`${pad}  not pushed: ${np.what}: ${np.reason}`);
    if (n.remotePlan !== undefined) {
      lines.push(`${pad}  plan in ${n.runsIn}:`);
      for (const l of n.remotePlan.replace(/\s+$/, '').split('\n')) lines.push(`${pad}    ${l}`);
    }
    for (const c of n.children) walk(c, depth + 1);
  };
  walk(root, 0);
  return lines.join('\n');
}
