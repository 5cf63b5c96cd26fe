import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { capabilitiesOf, runsIn, type OptimizerContext } from '../context.js';
import { BOOL, conjoin, conjuncts, fieldIds, planKey, refExpr, refsOf, sameType, subset } from '../exprs.js';
import { estimateRows } from '../stats.js';
import { addFilter } from './push-filter-into-join.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/**
 * Reorders a tree of inner/cross joins greedily by estimated cardinality (source row counts
 * and default selectivities). Outer, semi and anti joins are not crossed: they stay leaves,
 * so their semantics are untouched. Tables of one source that can be joined inside it are
 * ordered among themselves first and joined as one unit, so absorb-join-into-remote can
 * send the whole unit to the source; the greedy order then places the units. The output
 * columns keep their order through a Project of references.
 */
export function reorderJoins(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Join' || (node.type !== 'inner' && node.type !== 'cross')) return undefined;
  const leaves: LogicalPlan[] = [];
  const all: Expr[] = [];
  flatten(node, leaves, all);
  if (leaves.length < 3) return undefined;
  // the phase does not revisit what this rule returns, so join trees inside the leaves (a
  // subquery's, below an aggregate or a semi join) are ordered here
  for (let i = 0; i < leaves.length; i++) leaves[i] = orderWithin(leaves[i], ctx);

  // conditions on one leaf (or none) are not join predicates: keep them as filters
  const conditions: Expr[] = [];
  const constant: Expr[] = [];
  for (const c of all) {
    const refs = refsOf(c);
    const i = leaves.findIndex((l) => subset(refs, fieldIds(l)));
    if (refs.size === 0) constant.push(c);
    else if (i >= 0) leaves[i] = addFilter(leaves[i], [c]);
    else conditions.push(c);
  }
  conditions.push(...impliedSameSourceEqualities(leaves, conditions, ctx));
  const units = groupBySource(leaves, conditions, ctx).map((group) => greedy(group, conditions, ctx));
  let joined: LogicalPlan = greedy(units, conditions, ctx);
  if (constant.length > 0) joined = addFilter(joined, constant);
  if (planKey(joined) === planKey(node)) return undefined;
  const before = outputFields(node);
  const after = outputFields(joined);
  if (before.every((f, i) => after[i]?.id === f.id)) return joined;
  return { kind: 'Project', input: joined, exprs: before.map((f) => ({ field: f, expr: refExpr(f) })) };
}

/** `p` with every outermost inner-join tree below it reordered (Remote subtrees are final). */
function orderWithin(p: LogicalPlan, ctx: OptimizerContext): LogicalPlan {
  if (p.kind === 'Join' && (p.type === 'inner' || p.type === 'cross') && !p.strategy) {
    const out = reorderJoins(p, ctx);
    if (out) return out;
  }
  switch (p.kind) {
    case 'Scan':
    case 'Values':
    case 'Remote':
      return p;
    case 'Join':
    case 'MarkJoin':
    case 'SetOp': {
      const left = orderWithin(p.left, ctx);
      const right = orderWithin(p.right, ctx);
      return left === p.left && right === p.right ? p : { ...p, left, right };
    }
    default: {
      const input = orderWithin(p.input, ctx);
      return input === p.input ? p : { ...p, input };
    }
  }
}

function flatten(p: LogicalPlan, leaves: LogicalPlan[], conditions: Expr[]): void {
  if (p.kind === 'Join' && (p.type === 'inner' || p.type === 'cross') && !p.strategy) {
    flatten(p.left, leaves, conditions);
    flatten(p.right, leaves, conditions);
    if (p.condition) conditions.push(...conjuncts(p.condition));
  } else leaves.push(p);
}

/**
 * The one source every scan below `p` reads, if the subtree is scans, filters, projections and
 * the semi/anti joins and aggregates IN and EXISTS bring (a source may run all of them).
 */
function soleSource(p: LogicalPlan, ctx: OptimizerContext): string | undefined {
  // a backend reading several sources is one source here: its tables are joined inside it
  if (p.kind === 'Scan') return runsIn(ctx, p.table.source);
  if (p.kind === 'Filter' || p.kind === 'Project' || p.kind === 'Aggregate') return soleSource(p.input, ctx);
  if (p.kind === 'Remote') return p.source;
  if (p.kind === 'Join' && p.type !== 'full') {
    const l = soleSource(p.left, ctx);
    return l !== undefined && l === soleSource(p.right, ctx) ? l : undefined;
  }
  return undefined;
}

/**
 * Equalities implied by transitivity between two leaves of one source that no condition joins
 * directly (part.p_partkey = lineitem.l_partkey = partsupp.ps_partkey gives p_partkey =
 * ps_partkey): with them the source can join its tables itself instead of each being fetched
 * alone and met only through another source's table. Inner-join equalities are transitive
 * for columns of one type; an added one is redundant, so the answer does not change.
 */
function impliedSameSourceEqualities(leaves: readonly LogicalPlan[], conditions: readonly Expr[], ctx: OptimizerContext): Expr[] {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const root = find(p);
    parent.set(x, root);
    return root;
  };
  const refs = new Map<number, Expr>();
  const direct = new Set<string>();
  for (const c of conditions) {
    if (c.kind !== 'call' || c.fn !== 'eq' || c.args[0].kind !== 'ref' || c.args[1].kind !== 'ref') continue;
    const [a, b] = c.args;
    if (!sameType(a.type, b.type)) continue;
    refs.set(a.id, a);
    refs.set(b.id, b);
    direct.add(`${a.id}=${b.id}`).add(`${b.id}=${a.id}`);
    parent.set(find(a.id), find(b.id));
  }
  const leafOf = new Map<number, number>();
  const ids = leaves.map(fieldIds);
  for (const id of refs.keys()) leafOf.set(id, ids.findIndex((s) => s.has(id)));
  const sources = leaves.map((l) => soleSource(l, ctx));
  const out: Expr[] = [];
  const members = [...refs.keys()];
  for (let i = 0; i < members.length; i++) {
    for (let j = i + 1; j < members.length; j++) {
      const [a, b] = [members[i], members[j]];
      const [la, lb] = [leafOf.get(a)!, leafOf.get(b)!];
      if (la < 0 || lb < 0 || la === lb || find(a) !== find(b) || direct.has(`${a}=${b}`)) continue;
      if (sources[la] === undefined || sources[la] !== sources[lb]) continue;
      out.push({ kind: 'call', fn: 'eq', args: [refs.get(a)!, refs.get(b)!], type: BOOL });
    }
  }
  return out;
}

/** Leaves grouped into same-source units connected by join predicates (order of first appearance). */
function groupBySource(
  leaves: readonly LogicalPlan[],
  conditions: readonly Expr[],
  ctx: OptimizerContext,
): LogicalPlan[][] {
  const parent = leaves.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const ids = leaves.map(fieldIds);
  const sources = leaves.map((l) => soleSource(l, ctx));
  for (const c of conditions) {
    const refs = refsOf(c);
    const touched = leaves.map((_, i) => i).filter((i) => [...refs].some((r) => ids[i].has(r)));
    if (touched.length !== 2) continue;
    const [a, b] = touched;
    const src = sources[a];
    if (src === undefined || src !== sources[b] || !capabilitiesOf(ctx, src).joins.inner) continue;
    parent[find(a)] = find(b);
  }
  const groups = new Map<number, LogicalPlan[]>();
  leaves.forEach((leaf, i) => {
    const root = find(i);
    const g = groups.get(root) ?? [];
    g.push(leaf);
    groups.set(root, g);
  });
  const order = [...groups.values()].sort((x, y) => leaves.indexOf(x[0]) - leaves.indexOf(y[0]));
  return order;
}

/**
 * Greedy join ordering: from a connected starting pair, repeatedly add the connected unit
 * giving the smallest result; a cross product only when no unit is connected. Every connected
 * pair is tried as the start and the order whose intermediate results sum smallest wins (the
 * smallest first join can force large ones later: Q8's nation⋈supplier before part⋈lineitem).
 * Ties keep the query's order, so the result is deterministic.
 */
function greedy(units: readonly LogicalPlan[], conditions: readonly Expr[], ctx: OptimizerContext): LogicalPlan {
  if (units.length === 1) return units[0];
  const connected = (a: LogicalPlan, b: LogicalPlan) => {
    const ia = fieldIds(a);
    const ib = fieldIds(b);
    return conditions.some((c) => {
      const refs = [...refsOf(c)];
      return refs.some((r) => ia.has(r)) && refs.some((r) => ib.has(r));
    });
  };
  let best: { plan: LogicalPlan; cost: number } | undefined;
  for (let i = 0; i < units.length; i++) {
    for (let j = i + 1; j < units.length; j++) {
      if (!connected(units[i], units[j])) continue;
      const order = from(units, i, j, conditions, ctx, connected);
      if (!best || order.cost < best.cost) best = order;
    }
  }
  return (best ?? from(units, -1, -1, conditions, ctx, connected)).plan;
}

/** The greedy order starting with units i and j (none connected: -1, the first unit), and its cost. */
function from(
  units: readonly LogicalPlan[],
  i: number,
  j: number,
  conditions: readonly Expr[],
  ctx: OptimizerContext,
  connected: (a: LogicalPlan, b: LogicalPlan) => boolean,
): { plan: LogicalPlan; cost: number } {
  const remaining = [...units];
  let current: LogicalPlan;
  let cost = 0;
  if (i >= 0) {
    const [a, b] = [remaining[i], remaining[j]];
    current = estimateRows(a, ctx) <= estimateRows(b, ctx) ? join(a, b, conditions) : join(b, a, conditions);
    cost += estimateRows(current, ctx);
    remaining.splice(j, 1);
    remaining.splice(i, 1);
  } else {
    current = remaining.shift()!;
  }
  while (remaining.length > 0) {
    let pick = -1;
    let pickRows = Infinity;
    for (let k = 0; k < remaining.length; k++) {
      if (!connected(current, remaining[k])) continue;
      const rows = estimateRows(join(current, remaining[k], conditions), ctx);
      if (rows < pickRows) {
        pick = k;
        pickRows = rows;
      }
    }
    if (pick < 0) {
      for (let k = 0; k < remaining.length; k++) {
        const rows = estimateRows(remaining[k], ctx);
        if (rows < pickRows) {
          pick = k;
          pickRows = rows;
        }
      }
    }
    current = join(current, remaining[pick], conditions);
    cost += estimateRows(current, ctx);
    remaining.splice(pick, 1);
  }
  return { plan: current, cost };
}

/** Joins two subtrees with every condition that reads both and nothing outside them. */
function join(left: LogicalPlan, right: LogicalPlan, conditions: readonly Expr[]): Join {
  const l = fieldIds(left);
  const r = fieldIds(right);
  const both = new Set([...l, ...r]);
  const mine = conditions.filter((c) => {
    const refs = refsOf(c);
    return subset(refs, both) && !subset(refs, l) && !subset(refs, r);
  });
  const condition = conjoin(mine);
  return condition
    ? { kind: 'Join', type: 'inner', left, right, condition }
    : { kind: 'Join', type: 'cross', left, right };
}
