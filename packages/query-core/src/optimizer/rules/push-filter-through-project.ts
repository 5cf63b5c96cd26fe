import type { Expr, LogicalPlan, NotPushed } from '../../plan/logical.js';
import { conjoin, conjuncts, describe, replaceRefs } from '../exprs.js';
import { barrierReason, isLeakproof } from '../leakproof.js';

/**
 * Filter(Project(x)) → Project(Filter(x)), rewriting the predicate in terms of x so it can
 * travel further down (into joins, then into sources). Through a view's security barrier
 * only the leakproof conjuncts travel (judged after the rewrite, since the view's own
 * expressions then run below it too); the rest stay above, after the view's own filter.
 */
export function pushFilterThroughProject(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Filter' || node.input.kind !== 'Project') return undefined;
  const project = node.input;
  // a subquery expression is evaluated once per execution; copying it is harmless but noisy
  if (project.exprs.some((e) => e.expr.kind === 'subquery')) return undefined;
  const map = new Map<number, Expr>(project.exprs.map((e) => [e.field.id, e.expr]));
  const view = project.securityBarrier;
  const push: Expr[] = [];
  const keep: Expr[] = [];
  for (const c of conjuncts(node.predicate)) {
    const below = replaceRefs(c, map);
    if (view === undefined || isLeakproof(below)) push.push(below);
    else keep.push(c);
  }
  if (push.length === 0) {
    const notPushed: NotPushed[] = keep.map((c) => ({ what: describe(c, [project]), reason: barrierReason(view!) }));
    return JSON.stringify(node.notPushed ?? []) === JSON.stringify(notPushed) ? undefined : { ...node, notPushed };
  }
  const moved: LogicalPlan = {
    ...project,
    input: {
      kind: 'Filter',
      input: project.input,
      predicate: conjoin(push)!,
      ...(node.notPushed && keep.length === 0 ? { notPushed: node.notPushed } : {}),
    },
  };
  return keep.length === 0 ? moved : { kind: 'Filter', input: moved, predicate: conjoin(keep)! };
}
