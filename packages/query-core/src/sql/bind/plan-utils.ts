import type { Expr, Field, LogicalPlan } from '../../plan/logical.js';
import { children, outputFields } from '../../plan/fields.js';
import { refsOf } from '../../plan/exprs.js';

/** Every expression a node holds (not its children's). */
export function nodeExprs(plan: LogicalPlan): Expr[] {
  switch (plan.kind) {
    case 'Filter':
      return [plan.predicate];
    case 'Project':
      return plan.exprs.map((e) => e.expr);
    case 'Join':
      return plan.condition ? [plan.condition] : [];
    case 'MarkJoin':
      return [...(plan.condition ? [plan.condition] : []), ...(plan.compare ? [plan.compare] : [])];
    case 'Aggregate':
      return [
        ...plan.groupBy.map((g) => g.expr),
        ...plan.aggregates.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : [])]),
      ];
    case 'Sort':
      return plan.keys.map((k) => k.expr);
    case 'Window':
      return plan.windows.flatMap((w) => [...w.args, ...w.partitionBy, ...w.orderBy.map((k) => k.expr)]);
    case 'Values':
      return plan.rows.flat();
    default:
      return [];
  }
}

/** Field ids referenced inside `plan` that no node of `plan` produces: correlation leftovers. */
export function freeRefs(plan: LogicalPlan): Set<number> {
  const defined = new Set<number>();
  const used = new Set<number>();
  const visit = (p: LogicalPlan): void => {
    for (const f of outputFields(p)) defined.add(f.id);
    for (const e of nodeExprs(p)) refsOf(e, used);
    if (p.kind === 'Remote') visit(p.plan);
    for (const c of children(p)) visit(c);
  };
  visit(plan);
  for (const id of defined) used.delete(id);
  return used;
}

export function fieldMap(fields: readonly Field[]): Map<number, Field> {
  return new Map(fields.map((f) => [f.id, f]));
}
