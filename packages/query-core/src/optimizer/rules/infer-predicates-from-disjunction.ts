import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { conjoin, conjuncts, exprKey, fieldIds, refsOf, subset } from '../exprs.js';
import { knownPredicates } from './infer-predicates-through-join-keys.js';
import { FILTER_TO_LEFT, FILTER_TO_RIGHT, ON_TO_LEFT, ON_TO_RIGHT, addFilter } from './push-filter-into-join.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/**
 * TPC-H Q19's `(p.. AND l.. AND p_partkey = l_partkey) OR (p.. AND l..) OR …` spans two
 * sources, so neither can evaluate it and each would be read whole. But a row that passes the
 * disjunction passes one of its terms, so it passes that term's conjuncts on one side: the OR,
 * over the terms, of each term's conjuncts that read only that side is implied. That implied
 * predicate goes into the side (its source filters with it); the full disjunction stays where
 * it was. A side gets one only when every term has a conjunct on it (a term with none implies
 * nothing about that side). Only where a one-side conjunct could go into that side (the same
 * join types as push-filter-into-join); applied again, it finds its predicate among what the
 * side already guarantees and does not fire.
 */
export function inferPredicatesFromDisjunction(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind === 'Filter' && node.input.kind === 'Join') {
    const join = node.input;
    const input = implied(conjuncts(node.predicate), join, FILTER_TO_LEFT.has(join.type), FILTER_TO_RIGHT.has(join.type));
    return input && { ...node, input };
  }
  if (node.kind === 'Join' && node.condition) return implied(conjuncts(node.condition), node, ON_TO_LEFT.has(node.type), ON_TO_RIGHT.has(node.type));
  return undefined;
}

function implied(parts: readonly Expr[], join: Join, toLeft: boolean, toRight: boolean): Join | undefined {
  const left = fieldIds(join.left);
  const right = fieldIds(join.right);
  const newLeft: Expr[] = [];
  const newRight: Expr[] = [];
  for (const p of parts) {
    const terms = disjuncts(p);
    if (terms.length < 2) continue;
    const refs = refsOf(p);
    // a disjunction on one side is push-filter-into-join's to move, not this rule's
    if (subset(refs, left) || subset(refs, right)) continue;
    if (toLeft) push(newLeft, onSide(terms, left));
    if (toRight) push(newRight, onSide(terms, right));
  }
  const addLeft = fresh(newLeft, join.left);
  const addRight = fresh(newRight, join.right);
  if (addLeft.length + addRight.length === 0) return undefined;
  return { ...join, left: addFilter(join.left, addLeft), right: addFilter(join.right, addRight) };
}

function push(out: Expr[], e: Expr | undefined): void {
  if (e) out.push(e);
}

/** OR-ed parts of a predicate, flattened. */
function disjuncts(e: Expr): Expr[] {
  if (e.kind === 'call' && e.fn === 'or') return e.args.flatMap(disjuncts);
  return [e];
}

/** The OR over terms of each term's conjuncts that read only `side`; undefined when some term has none. */
function onSide(terms: readonly Expr[], side: ReadonlySet<number>): Expr | undefined {
  const perTerm: Expr[] = [];
  for (const t of terms) {
    const mine = conjuncts(t).filter((c) => {
      const refs = refsOf(c);
      return refs.size > 0 && subset(refs, side);
    });
    const c = conjoin(mine);
    if (!c) return undefined;
    perTerm.push(c);
  }
  return perTerm.reduce((a, b) => ({ kind: 'call', fn: 'or', args: [a, b], type: { kind: 'bool' } }));
}

/** Drops what the side already guarantees (this rule's own earlier output among it). */
function fresh(preds: readonly Expr[], side: LogicalPlan): Expr[] {
  if (preds.length === 0) return [];
  const have = new Set(knownPredicates(side).map(exprKey));
  const out: Expr[] = [];
  for (const p of preds) {
    const key = exprKey(p);
    if (have.has(key)) continue;
    have.add(key);
    out.push(p);
  }
  return out;
}
