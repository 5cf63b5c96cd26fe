import { JunctionError } from '@junction/connectors';
import type { LogicalPlan } from '../plan/logical.js';
import { outputFields } from '../plan/fields.js';
import type { OptimizeInput, OptimizerContext, Rule } from './context.js';
import { sameType } from './exprs.js';
import { absorbDistinctIntoRemote } from './rules/absorb-distinct-into-remote.js';
import { globalAggregateAsWindow } from './rules/global-aggregate-as-window.js';
import { dropAggregateOverUniqueRows } from './rules/drop-aggregate-over-unique-rows.js';
import { groupByUniqueKey } from './rules/group-by-unique-key.js';
import { pushComputationIntoJoinInput } from './rules/push-computation-into-join-input.js';
import { absorbAggregateIntoRemote } from './rules/absorb-aggregate-into-remote.js';
import { absorbFilterIntoRemote } from './rules/absorb-filter-into-remote.js';
import { absorbJoinIntoRemote } from './rules/absorb-join-into-remote.js';
import { absorbMarkJoinIntoRemote } from './rules/absorb-mark-join-into-remote.js';
import { absorbLimitIntoRemote } from './rules/absorb-limit-into-remote.js';
import { absorbProjectIntoRemote } from './rules/absorb-project-into-remote.js';
import { absorbSetOpIntoRemote } from './rules/absorb-set-op-into-remote.js';
import { absorbSortIntoRemote } from './rules/absorb-sort-into-remote.js';
import { absorbWindowIntoRemote } from './rules/absorb-window-into-remote.js';
import { chooseJoinStrategy } from './rules/choose-join-strategy.js';
import { inferPredicatesFromDisjunction } from './rules/infer-predicates-from-disjunction.js';
import { inferPredicatesThroughJoinKeys } from './rules/infer-predicates-through-join-keys.js';
import { liftResidualFilterAboveJoin } from './rules/lift-residual-filter-above-join.js';
import { mergeProjections } from './rules/merge-projections.js';
import { mergeAdjacentFilters } from './rules/merge-adjacent-filters.js';
import { pruneColumns } from './rules/prune-columns.js';
import { projectColumnsInJunction } from './rules/project-columns-in-junction.js';
import { pushFilterIntoSetOp } from './rules/push-filter-into-set-op.js';
import { pushFilterIntoJoin } from './rules/push-filter-into-join.js';
import { pushFilterThroughProject } from './rules/push-filter-through-project.js';
import { pushSemiJoinIntoJoinInput } from './rules/push-semi-join-into-join-input.js';
import { reorderJoins } from './rules/reorder-joins.js';
import { simplifyOuterJoin } from './rules/simplify-outer-join.js';
import { wrapScanInRemote } from './rules/wrap-scan-in-remote.js';

export interface NamedRule {
  readonly name: string;
  readonly apply: Rule;
}

export interface Phase {
  readonly name: string;
  readonly rules: readonly NamedRule[];
  /**
   * 'fixpoint': apply the rules everywhere until none fires. 'once': one top-down pass that
   * does not revisit what a rule produced (for rules that rebuild a whole subtree).
   */
  readonly mode: 'fixpoint' | 'once';
}

const r = (name: string, apply: Rule): NamedRule => ({ name, apply });

const PREDICATES: Phase = {
  // Logical rewrites first, while the plan still has bare Scans: every predicate moves as
  // low as semantics allow so later phases see filters next to the tables they read.
  name: 'predicates',
  mode: 'fixpoint',
  rules: [
    // stacked filters first, so the others see one predicate per node
    r('merge-adjacent-filters', mergeAdjacentFilters),
    // through projections before joins: the binder's Project sits between WHERE and the join
    r('push-filter-through-project', pushFilterThroughProject),
    // outer→inner before pushing, so WHERE on the null-supplying side may move into it
    r('simplify-outer-join', simplifyOuterJoin),
    r('push-filter-into-join', pushFilterIntoJoin),
    r('push-filter-into-set-op', pushFilterIntoSetOp),
    // while a repeated subquery still matches its twin node for node: pushed predicates and
    // join order may make the copies differ
    r('global-aggregate-as-window', globalAggregateAsWindow),
    // IN/EXISTS down to the table they test, where the source holding both can run them
    r('push-semi-join-into-join-input', pushSemiJoinIntoJoinInput),
    // after pushing: inference reads the predicates now sitting on each join input
    r('infer-predicates-through-join-keys', inferPredicatesThroughJoinKeys),
    // a disjunction spanning the join's sides implies one per side, which each source can run
    r('infer-predicates-from-disjunction', inferPredicatesFromDisjunction),
  ],
};

/**
 * The oracle plan: base tables fetched whole, everything else computed in Junction. The
 * predicate rewrites still run (they touch no source), because without them a comma join
 * is a cartesian product no test machine can hold.
 */
export const NO_PUSHDOWN_PHASES: readonly Phase[] = [
  PREDICATES,
  { name: 'columns', mode: 'fixpoint', rules: [r('project-columns-in-junction', projectColumnsInJunction)] },
  { name: 'fetch base tables', mode: 'fixpoint', rules: [r('wrap-scan-in-remote', wrapScanInRemote)] },
];

export const PHASES: readonly Phase[] = [
  PREDICATES,
  {
    // Join order needs every join predicate in a join condition and every single-table
    // predicate on its table (for estimates), and must run before absorb-join so the
    // same-source units it forms are what gets sent to sources. Runs once: it rebuilds a
    // whole join tree, and re-running on its own output would only redo the same work.
    name: 'join order',
    mode: 'once',
    rules: [r('reorder-joins', reorderJoins)],
  },
  {
    // Once the tree's shape is final, cut every input to the columns read above it, so the
    // scans wrapped next select only those.
    name: 'columns',
    mode: 'fixpoint',
    rules: [r('prune-columns', pruneColumns)],
  },
  {
    // Pushdown, bottom-up in effect: scans become Remote, then each operator directly above a
    // Remote is absorbed if its source runs it exactly. Filter before project (a filter under
    // a projection is the usual shape), join after both (its inputs are complete remote
    // subtrees by then), aggregate after join (a join inside one source is absorbed before
    // an aggregate would be split across it), sort before limit (top-N: Limit(Sort(Remote))
    // absorbs the sort, then the limit).
    name: 'pushdown',
    mode: 'fixpoint',
    rules: [
      r('wrap-scan-in-remote', wrapScanInRemote),
      r('absorb-filter-into-remote', absorbFilterIntoRemote),
      r('absorb-project-into-remote', absorbProjectIntoRemote),
      // a residual the source cannot evaluate must not keep a same-source join out of it
      r('lift-residual-filter-above-join', liftResidualFilterAboveJoin),
      r('absorb-join-into-remote', absorbJoinIntoRemote),
      // like a semi join: both sides complete remote subtrees, before what sits above it
      r('absorb-mark-join-into-remote', absorbMarkJoinIntoRemote),
      r('absorb-set-op-into-remote', absorbSetOpIntoRemote),
      r('absorb-aggregate-into-remote', absorbAggregateIntoRemote),
      // after the aggregate split: a partial aggregate in the source computes its arguments there anyway
      r('push-computation-into-join-input', pushComputationIntoJoinInput),
      r('absorb-window-into-remote', absorbWindowIntoRemote),
      r('absorb-distinct-into-remote', absorbDistinctIntoRemote),
      r('absorb-sort-into-remote', absorbSortIntoRemote),
      r('absorb-limit-into-remote', absorbLimitIntoRemote),
    ],
  },
  {
    // After pushdown: a projection a source absorbed is gone from here; what is left runs in
    // Junction, where two stacked projections are two operators.
    name: 'cleanup',
    mode: 'fixpoint',
    rules: [
      r('merge-projections', mergeProjections),
      // only aggregates left in Junction: a source groups by what it likes
      r('drop-aggregate-over-unique-rows', dropAggregateOverUniqueRows),
      r('group-by-unique-key', groupByUniqueKey),
    ],
  },
  {
    // Last: only joins that stayed in Junction need a strategy, and Remote nodes must be final
    // (a dependent join needs its probed side to be a Remote).
    name: 'join strategy',
    mode: 'fixpoint',
    rules: [r('choose-join-strategy', chooseJoinStrategy)],
  },
];

/** Firings allowed per phase before the optimizer gives up: a rule pair undoing each other is a bug. */
const MAX_FIRINGS = 10_000;

/** Optimizes a bound plan: the source-bound parts become Remote nodes, joins get strategies. */
export function optimize(plan: LogicalPlan, input: OptimizeInput): LogicalPlan {
  return runPhases(plan, input, input.options.pushdown ? PHASES : NO_PUSHDOWN_PHASES);
}

export function runPhases(plan: LogicalPlan, input: OptimizeInput, phases: readonly Phase[]): LogicalPlan {
  let nextId = maxFieldId(plan) + 1;
  const ctx: OptimizerContext = { ...input, newFieldId: () => nextId++ };
  for (const phase of phases) plan = phase.mode === 'once' ? once(plan, phase, ctx) : fixpoint(plan, phase, ctx);
  return plan;
}

/** Applies one rule list to a single node (as used by rule tests). */
export function applyRule(plan: LogicalPlan, rule: NamedRule, input: OptimizeInput): LogicalPlan | undefined {
  let nextId = maxFieldId(plan) + 1;
  const ctx: OptimizerContext = { ...input, newFieldId: () => nextId++ };
  const out = rule.apply(plan, ctx);
  if (out) checkSchema(plan, out, rule.name);
  return out;
}

function fixpoint(plan: LogicalPlan, phase: Phase, ctx: OptimizerContext): LogicalPlan {
  const budget = { firings: 0, last: '' };
  for (;;) {
    const before = budget.firings;
    plan = pass(plan, phase, ctx, budget);
    if (budget.firings === before) return plan;
  }
}

function pass(
  node: LogicalPlan,
  phase: Phase,
  ctx: OptimizerContext,
  budget: { firings: number; last: string },
): LogicalPlan {
  node = applyAtNode(node, phase, ctx, budget);
  return mapChildren(node, (c) => pass(c, phase, ctx, budget));
}

function applyAtNode(
  node: LogicalPlan,
  phase: Phase,
  ctx: OptimizerContext,
  budget: { firings: number; last: string },
): LogicalPlan {
  for (let i = 0; i < phase.rules.length; i++) {
    const rule = phase.rules[i];
    const out = rule.apply(node, ctx);
    if (out === undefined) continue;
    checkSchema(node, out, rule.name);
    budget.firings++;
    budget.last = rule.name;
    if (budget.firings > MAX_FIRINGS) {
      throw new JunctionError(
        'optimizer_no_fixpoint',
        'internal',
        `Internal optimizer error: phase '${phase.name}' did not reach a fixed point (last rule: ${rule.name}).`,
        {
          details: { phase: phase.name, rule: rule.name },
        },
      );
    }
    node = out;
    i = -1; // the new node may enable earlier rules
  }
  return node;
}

function once(node: LogicalPlan, phase: Phase, ctx: OptimizerContext): LogicalPlan {
  for (const rule of phase.rules) {
    const out = rule.apply(node, ctx);
    if (out !== undefined) {
      checkSchema(node, out, rule.name);
      return out;
    }
  }
  return mapChildren(node, (c) => once(c, phase, ctx));
}

/** Rebuilds `node` with mapped children; Remote subtrees are final and not entered. */
function mapChildren(node: LogicalPlan, f: (c: LogicalPlan) => LogicalPlan): LogicalPlan {
  switch (node.kind) {
    case 'Scan':
    case 'Values':
    case 'Remote':
      return node;
    case 'Join':
    case 'MarkJoin':
    case 'SetOp': {
      const left = f(node.left);
      const right = f(node.right);
      return left === node.left && right === node.right ? node : { ...node, left, right };
    }
    default: {
      const input = f(node.input);
      return input === node.input ? node : { ...node, input };
    }
  }
}

/** A rule may restructure a node but never change what it produces (ids and types, in order). */
function checkSchema(before: LogicalPlan, after: LogicalPlan, rule: string): void {
  const a = outputFields(before);
  const b = outputFields(after);
  const same = a.length === b.length && a.every((f, i) => f.id === b[i].id && sameType(f.type, b[i].type));
  if (!same) {
    const text = (fs: typeof a) => fs.map((f) => `${f.name}#${f.id}`).join(', ');
    throw new JunctionError(
      'optimizer_schema_changed',
      'internal',
      `Internal optimizer error: rule ${rule} changed the output of a ${before.kind} node from [${text(a)}] to [${text(b)}].`,
      {
        details: { rule },
      },
    );
  }
}

function maxFieldId(plan: LogicalPlan): number {
  // every field id anywhere, including inside subquery expressions
  let max = 0;
  JSON.stringify(plan, (k, v) => {
    if (k === 'id' && typeof v === 'number' && v > max) max = v;
    return typeof v === 'bigint' ? v.toString() : v;
  });
  return max;
}
