import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { describe } from '../exprs.js';
import { annotate, sourcesUnder, spansSources } from '../pushdown/annotate.js';
import { canPushExpr } from '../pushdown/can-push.js';
import { markJoinNesting } from '../pushdown/shape.js';

/**
 * MarkJoin(Remote s, Remote s) → Remote s (MarkJoin): the source runs the subquery as the
 * SQL it was written as, `EXISTS (…)` or `x IN (…)` in the select list, and so gives SQL's
 * NULL answers itself. Only within one source, with correlated subqueries declared
 * (existsSubquery), and for IN only the equality (other quantified comparisons stay in
 * Junction). Across sources the mark join runs in Junction, annotated why.
 */
export function absorbMarkJoinIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'MarkJoin') return undefined;
  const { left, right } = node;
  const what = node.compare ? `${node.mark.name} := ANY ${describe(node.compare, [left, right])}` : `${node.mark.name} := EXISTS (…)`;
  const sources = new Set([...sourcesUnder(left, ctx), ...sourcesUnder(right, ctx)]);
  if (sources.size > 1) return annotate(node, [{ what, reason: spansSources(sources, ctx) }]);
  if (left.kind !== 'Remote' || right.kind !== 'Remote') return undefined;
  const caps = capabilitiesOf(ctx, left.source);
  const notPushed: NotPushed[] = [];
  const nesting = markJoinNesting(left.plan, right.plan);
  if (!caps.existsSubquery) notPushed.push({ what, reason: 'source cannot run a correlated subquery in an expression' });
  else if (node.compare && (node.compare.kind !== 'call' || node.compare.fn !== 'eq'))
    notPushed.push({ what, reason: 'only = ANY (IN) is sent to sources' });
  else if ((nesting.left || nesting.right) && !caps.subqueryInFrom) notPushed.push({ what, reason: 'source cannot nest a subquery' });
  else {
    for (const e of [node.condition, node.compare]) {
      if (!e) continue;
      const check = canPushExpr(e, caps);
      if (!check.ok) {
        notPushed.push({ what: describe(e, [left, right]), reason: check.reason });
        break;
      }
    }
  }
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, ...mark } = node;
  void _drop;
  const plan: LogicalPlan = { ...mark, left: left.plan, right: right.plan };
  return { kind: 'Remote', source: left.source, plan, fields: outputFields(node) };
}
