import type { LogicalPlan } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { annotate } from '../pushdown/annotate.js';

/**
 * Limit(Remote) → Remote(Limit). With Sort already absorbed below (absorb-sort runs first)
 * this is top-N in the source. A source with LIMIT but no OFFSET gets LIMIT limit+offset and
 * Junction keeps the Limit with the OFFSET above it.
 */
export function absorbLimitIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Limit' || node.input.kind !== 'Remote') return undefined;
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  if (!caps.limit) return annotate(node, [{ what: 'LIMIT', reason: 'LIMIT not supported by source' }]);
  const { notPushed: _drop, ...limit } = node;
  void _drop;
  if (node.offset === 0 || caps.offset) return { ...remote, plan: { ...limit, input: remote.plan } };
  if (node.limit === undefined) return annotate(node, [{ what: 'OFFSET', reason: 'OFFSET not supported by source' }]);
  const fetch = node.limit + node.offset;
  const top = remote.plan;
  // already pushed as LIMIT limit+offset: only the annotation may be missing
  if (top.kind === 'Limit' && top.offset === 0 && top.limit !== undefined && top.limit <= fetch) {
    return annotate(node, [{ what: 'OFFSET', reason: 'OFFSET not supported by source (pushed LIMIT limit+offset)' }]);
  }
  return {
    ...node,
    notPushed: [{ what: 'OFFSET', reason: 'OFFSET not supported by source (pushed LIMIT limit+offset)' }],
    input: { ...remote, plan: { kind: 'Limit', input: top, limit: fetch, offset: 0 } },
  };
}
