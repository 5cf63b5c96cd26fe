import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { replaceRefs, sameType } from '../exprs.js';
import { addFilter } from './push-filter-into-join.js';

/**
 * Filter(SetOp(a, b)) → SetOp(Filter(a), Filter(b)): a predicate on the output columns selects
 * the same values from each input, for UNION, INTERSECT and EXCEPT alike (a view that unions
 * two sources is then filtered inside both). Only when each input column has exactly the
 * output's type, so the predicate means the same on both sides.
 */
export function pushFilterIntoSetOp(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Filter' || node.input.kind !== 'SetOp') return undefined;
  const setOp = node.input;
  const sides: LogicalPlan[] = [];
  for (const side of [setOp.left, setOp.right]) {
    const fields = outputFields(side);
    if (fields.length !== setOp.fields.length || fields.some((f, i) => !sameType(f.type, setOp.fields[i].type)))
      return undefined;
    const map = new Map<number, Expr>(
      setOp.fields.map((f, i) => [f.id, { kind: 'ref', id: fields[i].id, type: fields[i].type }]),
    );
    sides.push(addFilter(side, [replaceRefs(node.predicate, map)]));
  }
  return { ...setOp, left: sides[0], right: sides[1] };
}
