import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { conjuncts, fieldIds } from '../exprs.js';

/**
 * Filter(Join left) where a conjunct is false or NULL whenever the right side is
 * null-extended → the outer join is an inner join (PostgreSQL's reduce_outer_joins). This is
 * what lets `LEFT JOIN orders … WHERE o_comment NOT LIKE …` push into sources and reorder.
 */
export function simplifyOuterJoin(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Filter' || node.input.kind !== 'Join') return undefined;
  const join = node.input;
  if (join.type !== 'left' && join.type !== 'right' && join.type !== 'full') return undefined;
  const parts = conjuncts(node.predicate);
  const rejectsLeft = parts.some((c) => rejectsNulls(c, fieldIds(join.left)));
  const rejectsRight = parts.some((c) => rejectsNulls(c, fieldIds(join.right)));
  let type: 'inner' | 'left' | 'right' | 'full' = join.type;
  if (type === 'left' && rejectsRight) type = 'inner';
  else if (type === 'right' && rejectsLeft) type = 'inner';
  else if (type === 'full')
    type = rejectsLeft && rejectsRight ? 'inner' : rejectsLeft ? 'left' : rejectsRight ? 'right' : 'full';
  if (type === join.type) return undefined;
  return { ...node, input: { ...join, type } };
}

const STRICT_PREDICATES = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'like', 'ilike', 'starts_with', 'is_not_null']);
const STRICT_FUNCTIONS = new Set([
  'add',
  'sub',
  'mul',
  'div',
  'mod',
  'neg',
  'abs',
  'lower',
  'upper',
  'length',
  'substring',
  'trim',
  'ltrim',
  'rtrim',
  'concat',
  'left',
  'right',
]);

/** True when `c` cannot be true if every field in `ids` is NULL. */
function rejectsNulls(c: Expr, ids: ReadonlySet<number>): boolean {
  if (c.kind === 'in' && !c.negated) return strictRef(c.expr, ids);
  if (c.kind === 'in') return strictRef(c.expr, ids);
  if (c.kind !== 'call') return false;
  if (
    c.fn === 'not' &&
    c.args[0].kind === 'call' &&
    ['like', 'ilike', 'eq', 'lt', 'le', 'gt', 'ge', 'ne'].includes(c.args[0].fn)
  ) {
    return c.args[0].args.some((a) => strictRef(a, ids));
  }
  if (c.fn === 'and') return c.args.some((a) => rejectsNulls(a, ids));
  if (c.fn === 'or') return c.args.every((a) => rejectsNulls(a, ids));
  return STRICT_PREDICATES.has(c.fn) && c.args.some((a) => strictRef(a, ids));
}

/** An expression that is NULL when the field it reads is NULL. */
function strictRef(e: Expr, ids: ReadonlySet<number>): boolean {
  if (e.kind === 'ref') return ids.has(e.id);
  if (e.kind === 'cast') return strictRef(e.expr, ids);
  // concat in PostgreSQL's || is strict (NULL || 'x' is NULL)
  if (e.kind === 'call' && STRICT_FUNCTIONS.has(e.fn)) return e.args.some((a) => strictRef(a, ids));
  return false;
}
