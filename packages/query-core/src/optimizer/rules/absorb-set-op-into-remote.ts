import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { sameType } from '../exprs.js';
import { annotate, sourcesUnder, spansSources } from '../pushdown/annotate.js';
import { canPushDistinct } from '../pushdown/can-push.js';

/**
 * SetOp(Remote s, Remote s) → Remote s (SetOp): UNION, INTERSECT and EXCEPT [ALL] between
 * two SELECTs of one source, sent as a subquery in FROM. Both sides must already produce the
 * output types (a source would unify int and numeric its own way), and a set operation
 * without ALL compares rows for equality, so strings need the source's exact equality.
 */
export function absorbSetOpIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'SetOp') return undefined;
  const { left, right } = node;
  const what = `${node.op}${node.all ? ' all' : ''}`;
  const sources = new Set([...sourcesUnder(left, ctx), ...sourcesUnder(right, ctx)]);
  if (sources.size > 1) return annotate(node, [{ what, reason: spansSources(sources, ctx) }]);
  if (left.kind !== 'Remote' || right.kind !== 'Remote') return undefined;
  const caps = capabilitiesOf(ctx, left.source);
  const notPushed: NotPushed[] = [];
  const key = node.all ? (`${node.op}_all` as const) : node.op;
  if (!caps.setOps[key]) notPushed.push({ what, reason: `${what.toUpperCase()} not supported by source` });
  else if (!caps.subqueryInFrom) notPushed.push({ what, reason: 'source cannot nest a subquery' });
  else if (!node.fields.every((f, i) => sameType(f.type, left.fields[i].type) && sameType(f.type, right.fields[i].type)))
    notPushed.push({ what, reason: 'the two sides have different column types' });
  else if (!node.all) {
    const check = canPushDistinct(node.fields, { ...caps, distinct: true });
    if (!check.ok) notPushed.push({ what, reason: check.reason });
  }
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, ...setOp } = node;
  void _drop;
  return { kind: 'Remote', source: left.source, plan: { ...setOp, left: left.plan, right: right.plan }, fields: node.fields };
}
