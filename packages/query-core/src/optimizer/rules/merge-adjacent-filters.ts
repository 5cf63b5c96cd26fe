import type { LogicalPlan } from '../../plan/logical.js';
import { conjoin, conjuncts, exprKey } from '../exprs.js';

/** Filter(Filter(x)) → Filter(x) with the conjuncts of both, duplicates dropped. */
export function mergeAdjacentFilters(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Filter' || node.input.kind !== 'Filter') return undefined;
  const seen = new Set<string>();
  const parts = [...conjuncts(node.input.predicate), ...conjuncts(node.predicate)].filter((c) => {
    const k = exprKey(c);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const notPushed = [...(node.input.notPushed ?? []), ...(node.notPushed ?? [])];
  return {
    kind: 'Filter',
    input: node.input.input,
    predicate: conjoin(parts)!,
    ...(notPushed.length ? { notPushed } : {}),
  };
}
