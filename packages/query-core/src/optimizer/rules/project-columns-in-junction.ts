import type { LogicalPlan } from '../../plan/logical.js';
import { pruneColumnsWith, type AtScan } from './prune-columns.js';

const projectAboveScan: AtScan = Object.assign(
  (scan: Extract<LogicalPlan, { kind: 'Scan' }>, keep: readonly number[]): LogicalPlan => ({
    kind: 'Project',
    input: scan,
    exprs: keep.map((i) => ({ field: scan.fields[i], expr: { kind: 'ref' as const, id: scan.fields[i].id, type: scan.fields[i].type } })),
  }),
  { keepsScan: true },
);

/**
 * The oracle plan's column pruning (pushdown off): each base table is still fetched whole, but
 * the columns nothing above reads are dropped right after the scan, in Junction, so joins,
 * sorts and spill files hold only what is read. TPC-H Q5 with pushdown off held and spilled all
 * 16 lineitem columns where its joins and sum read four.
 */
export function projectColumnsInJunction(node: LogicalPlan): LogicalPlan | undefined {
  return pruneColumnsWith(node, projectAboveScan);
}
