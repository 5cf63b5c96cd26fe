import type { LogicalPlan } from '../../plan/logical.js';
import type { OptimizerContext } from '../context.js';

/**
 * Every base table is read through its source: Scan → Remote(Scan), the start of all pushdown.
 * A query running on a backend reads the tables it can reach through it instead, so scans of
 * different sources share one Remote's source and later rules can join them inside it.
 */
export function wrapScanInRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Scan') return undefined;
  const backend = ctx.backend?.readable.has(node.table.source) ? ctx.backend.name : undefined;
  return { kind: 'Remote', source: backend ?? node.table.source, plan: node, fields: node.fields };
}
