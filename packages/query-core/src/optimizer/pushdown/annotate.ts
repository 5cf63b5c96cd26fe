import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { runsIn, type OptimizeInput } from '../context.js';

/**
 * Sets a node's `notPushed` list; undefined when it already says exactly that, so an
 * annotating rule does not fire forever.
 */
export function annotate<T extends LogicalPlan & { readonly notPushed?: readonly NotPushed[] }>(
  node: T,
  notPushed: readonly NotPushed[],
): T | undefined {
  const before = JSON.stringify(node.notPushed ?? []);
  if (before === JSON.stringify(notPushed)) return undefined;
  if (notPushed.length === 0) {
    const { notPushed: _drop, ...rest } = node;
    void _drop;
    return rest as T;
  }
  return { ...node, notPushed };
}

/** The sources any scan below `p` reads (with `ctx`: where each is read, a backend for those it reads). */
export function sourcesUnder(p: LogicalPlan, ctx?: OptimizeInput, out: Set<string> = new Set()): Set<string> {
  switch (p.kind) {
    case 'Scan':
      out.add(runsIn(ctx, p.table.source));
      break;
    case 'Remote':
      out.add(p.source);
      break;
    case 'Values':
      break;
    case 'Join':
    case 'MarkJoin':
    case 'SetOp':
      sourcesUnder(p.left, ctx, out);
      sourcesUnder(p.right, ctx, out);
      break;
    default:
      sourcesUnder(p.input, ctx, out);
  }
  return out;
}

/** For each field id produced by a scan below `p`, the source it comes from. */
export function fieldSources(p: LogicalPlan, out: Map<number, string> = new Map()): Map<number, string> {
  switch (p.kind) {
    case 'Scan':
      for (const f of p.fields) out.set(f.id, p.table.source);
      break;
    case 'Remote':
      for (const f of p.fields) out.set(f.id, p.source);
      fieldSources(p.plan, out);
      break;
    case 'Values':
      break;
    case 'Join':
    case 'MarkJoin':
    case 'SetOp':
      fieldSources(p.left, out);
      fieldSources(p.right, out);
      break;
    default:
      fieldSources(p.input, out);
  }
  return out;
}

/**
 * Why an operator over several sources stays in Junction: the sources, and, when a backend reads
 * the others, why it cannot read these (so a query asked to run on Trino says what kept a join out).
 */
export function spansSources(sources: Iterable<string>, ctx: OptimizeInput): string {
  const list = [...new Set(sources)].sort();
  const why = list.flatMap((s) => {
    const reason = ctx.backend?.unreadable.get(s);
    return reason === undefined ? [] : [reason];
  });
  return `spans sources (${list.join(', ')})${why.length > 0 ? `; ${why.join('; ')}` : ''}`;
}
