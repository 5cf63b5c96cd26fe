import type { LogicalPlan, NotPushed } from '../../plan/logical.js';

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

/** The sources any scan below `p` reads. */
export function sourcesUnder(p: LogicalPlan, out: Set<string> = new Set()): Set<string> {
  switch (p.kind) {
    case 'Scan':
      out.add(p.table.source);
      break;
    case 'Remote':
      out.add(p.source);
      break;
    case 'Values':
      break;
    case 'Join':
    case 'MarkJoin':
    case 'SetOp':
      sourcesUnder(p.left, out);
      sourcesUnder(p.right, out);
      break;
    default:
      sourcesUnder(p.input, out);
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
