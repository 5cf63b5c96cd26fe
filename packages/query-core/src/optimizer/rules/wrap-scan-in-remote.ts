import type { LogicalPlan } from '../../plan/logical.js';

/** Every base table is read through its source: Scan → Remote(Scan), the start of all pushdown. */
export function wrapScanInRemote(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Scan') return undefined;
  return { kind: 'Remote', source: node.table.source, plan: node, fields: node.fields };
}
