import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { describe, refsOf } from '../exprs.js';
import { barrierBelow } from '../../plan/barrier.js';
import { barrierReason, isLeakproof } from '../leakproof.js';
import { annotate, fieldSources, sourcesUnder, spansSources } from '../pushdown/annotate.js';
import { canPushExpr } from '../pushdown/can-push.js';
import { joinNeedsSubquery } from '../pushdown/shape.js';

/**
 * Join(Remote s, Remote s) → Remote s (Join): only both sides in the SAME source, a join
 * type the source declares and a condition it evaluates exactly (Trino's applyJoin); semi
 * and anti joins (IN, EXISTS and their negations) go as a correlated [NOT] EXISTS. A join
 * across sources stays in Junction with its condition annotated 'spans sources'.
 */
export function absorbJoinIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Join') return undefined;
  const { left, right } = node;
  const sources = new Set([...sourcesUnder(left, ctx), ...sourcesUnder(right, ctx)]);
  if (sources.size > 1) {
    // name the sources the condition reads (all of them for a condition-less join)
    const bySource = fieldSources(node);
    const read = node.condition
      ? new Set([...refsOf(node.condition)].map((id) => bySource.get(id)).filter((s): s is string => s !== undefined))
      : sources;
    const what = node.condition ? describe(node.condition, [left, right]) : `${node.type} join`;
    return annotate(node, [
      { what, reason: spansSources(read.size > 1 ? read : sources, ctx) },
    ]);
  }
  if (left.kind !== 'Remote' || right.kind !== 'Remote') return undefined;
  const caps = capabilitiesOf(ctx, left.source);
  const notPushed: NotPushed[] = [];
  const type = node.type === 'inner' && !node.condition ? 'cross' : node.type;
  const semi = type === 'semi' || type === 'anti';
  if (semi && !caps.existsSubquery) notPushed.push({ what: `${type} join`, reason: 'source cannot run a correlated EXISTS subquery' });
  else if (!semi && !caps.joins[type]) notPushed.push({ what: `${type} join`, reason: `${type} join not supported by source` });
  else if (joinNeedsSubquery(node.type, left.plan, right.plan) && !caps.subqueryInFrom)
    notPushed.push({ what: `${type} join`, reason: 'source cannot nest a subquery' });
  else if (node.condition) {
    // the source may test a join condition before a view's own filter on the same join
    const view = barrierBelow(left.plan) ?? barrierBelow(right.plan);
    const check =
      view !== undefined && !isLeakproof(node.condition)
        ? { ok: false as const, reason: barrierReason(view) }
        : canPushExpr(node.condition, caps);
    if (!check.ok) notPushed.push({ what: describe(node.condition, [left, right]), reason: check.reason });
  }
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, strategy: _s, ...join } = node;
  void _drop;
  void _s;
  const plan: LogicalPlan = { ...join, left: left.plan, right: right.plan };
  return { kind: 'Remote', source: left.source, plan, fields: outputFields(node) };
}
