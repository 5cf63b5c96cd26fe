import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { replaceRefs } from '../exprs.js';

/**
 * Filter(Project(x)) → Project(Filter(x)), rewriting the predicate in terms of x so it can
 * travel further down (into joins, then into sources).
 */
export function pushFilterThroughProject(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Filter' || node.input.kind !== 'Project') return undefined;
  const project = node.input;
  // a subquery expression is evaluated once per execution; copying it is harmless but noisy
  if (project.exprs.some((e) => e.expr.kind === 'subquery')) return undefined;
  const map = new Map<number, Expr>(project.exprs.map((e) => [e.field.id, e.expr]));
  const predicate = replaceRefs(node.predicate, map);
  return {
    ...project,
    input: {
      kind: 'Filter',
      input: project.input,
      predicate,
      ...(node.notPushed ? { notPushed: node.notPushed } : {}),
    },
  };
}
