import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { fieldIds, refsOf, replaceRefs, subset } from '../exprs.js';
import { isLeakproof } from '../leakproof.js';
import { sourcesUnder } from '../pushdown/annotate.js';
import type { OptimizerContext } from '../context.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/**
 * Semi/anti join (IN, EXISTS and their negations) moved below the joins and projections that
 * produce its probing rows, onto the input its condition reads, when one source holds both
 * that input and the tested rows: Semi(Join(x, y), s) → Join(Semi(x, s), y) when the
 * condition reads x and s only. The semi join keeps or drops each row of x by x's own
 * columns, so it does the same below an inner join (each row of y meets the same rows of x
 * that survive) or on the preserved side of a left join; it never adds rows. Next to the
 * table it tests, the source runs it (Q18's `o_orderkey IN (…lineitem…)` over orders, Q21's
 * EXISTS on lineitem) instead of Junction fetching the joined rows first. Elsewhere it stays:
 * the join above may be one a source runs whole (customer ⋈ its own average in Q22), and a
 * semi join moved into it would split it into two statements joined in Junction.
 *
 * The rule looks down the whole path at once, because a step that does not end beside the
 * tested source is no improvement on its own.
 */
export function pushSemiJoinIntoJoinInput(node: LogicalPlan, ctx?: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Join' || (node.type !== 'semi' && node.type !== 'anti') || node.strategy) return undefined;
  const tested = sourcesUnder(node.right, ctx);
  if (tested.size !== 1) return undefined;
  return sink(node, [...tested][0], ctx);
}

function sink(semi: Join, source: string, ctx: OptimizerContext | undefined): LogicalPlan | undefined {
  const below = semi.left;
  if (below.kind === 'Project') {
    // a subquery expression is evaluated once per execution; copying it is harmless but noisy
    if (below.exprs.some((e) => e.expr.kind === 'subquery')) return undefined;
    const map = new Map<number, Expr>(below.exprs.map((e) => [e.field.id, e.expr]));
    const condition = semi.condition && replaceRefs(semi.condition, map);
    // a semi join drops rows like a filter: below a view's own filter only if leakproof
    if (below.securityBarrier !== undefined && condition && !isLeakproof(condition)) return undefined;
    const inner = sink({ ...semi, left: below.input, ...(condition ? { condition } : {}) }, source, ctx);
    return inner && { ...below, input: inner };
  }
  if (below.kind !== 'Join' || below.strategy) return undefined;
  if (below.type !== 'inner' && below.type !== 'cross' && below.type !== 'left') return undefined;
  const probing = refsOf(semi.condition ?? { kind: 'literal', value: true, type: { kind: 'bool' } });
  for (const id of fieldIds(semi.right)) probing.delete(id);
  // a condition reading nothing of the probing side tests every row alike: leave it
  if (probing.size === 0) return undefined;
  const sides: ('left' | 'right')[] = below.type === 'left' ? ['left'] : ['left', 'right'];
  for (const side of sides) {
    if (!subset(probing, fieldIds(below[side]))) continue;
    const moved: Join = { ...semi, left: below[side] };
    const deeper = sink(moved, source, ctx);
    if (deeper) return { ...below, [side]: deeper };
    const target = sourcesUnder(below[side], ctx);
    return target.size === 1 && target.has(source) ? { ...below, [side]: moved } : undefined;
  }
  return undefined;
}
