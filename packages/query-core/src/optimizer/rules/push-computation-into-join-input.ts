import type { Expr, Field, LogicalPlan, NamedExpr } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { exprKey, fieldIds, isInteger, mapOperands, refExpr, refsOf, replaceRefs, subset } from '../exprs.js';
import { sourcesUnder } from '../pushdown/annotate.js';
import { canPushExpr } from '../pushdown/can-push.js';
import { isFloat } from '../../expr/types.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;
type Remote = Extract<LogicalPlan, { kind: 'Remote' }>;
type Aggregate = Extract<LogicalPlan, { kind: 'Aggregate' }>;
type Project = Extract<LogicalPlan, { kind: 'Project' }>;

/**
 * Computations above a federated join that read one source's columns only are computed in
 * that source: Project/Aggregate(Join(…Remote s…)) gets a projection over s that adds each
 * such expression as a column, which absorb-project-into-remote sends there. TPC-H Q14
 * fetches `l_extendedprice * (1 - l_discount)` (one decimal, not two) from lineitem's source
 * and `p_type LIKE 'PROMO%'` (a boolean, not a 25-character string) from part's: fewer bytes
 * cross the network and the source, not Junction's exact decimals, does the arithmetic.
 *
 * Below the join the expression is computed for rows the join may drop, so only expressions
 * that cannot fail are moved (an error on a dropped row would fail a query PostgreSQL
 * answers), and only into sides whose rows reach the output unchanged or not at all: inner
 * joins, the preserved side of a left join, the left side of semi/anti joins. A
 * NULL-supplying side would turn the expression's value for a missing row into NULL where
 * the expression itself (coalesce, IS NULL, CASE) might not be.
 */
export function pushComputationIntoJoinInput(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Project' && node.kind !== 'Aggregate') return undefined;
  if (node.input.kind === 'Join') return rewrite(node, node.input, ctx);
  // a column list between the node and the join only renames (a derived table's, TPC-H Q9's
  // profit): read through it
  const input = node.input;
  if (input.kind === 'Project' && input.input.kind === 'Join' && input.exprs.every((e) => e.expr.kind === 'ref')) {
    const map = new Map<number, Expr>(input.exprs.map((e) => [e.field.id, e.expr]));
    const r = (e: Expr): Expr => replaceRefs(e, map);
    const through: Project | Aggregate =
      node.kind === 'Project'
        ? { ...node, input: input.input, exprs: node.exprs.map((x) => ({ field: x.field, expr: r(x.expr) })) }
        : {
            ...node,
            input: input.input,
            groupBy: node.groupBy.map((g) => ({ field: g.field, expr: r(g.expr) })),
            aggregates: node.aggregates.map((a) => ({
              ...a,
              args: a.args.map(r),
              ...(a.filter ? { filter: r(a.filter) } : {}),
            })),
          };
    return rewrite(through, input.input, ctx);
  }
  return undefined;
}

/** A Remote reached from the top join through sides whose rows pass unchanged. */
interface Leaf {
  readonly remote: Remote;
  readonly path: readonly ('left' | 'right')[];
  readonly ids: ReadonlySet<number>;
}

function leavesOf(join: Join, ctx: OptimizerContext): Leaf[] {
  const out: Leaf[] = [];
  const walk = (p: LogicalPlan, path: ('left' | 'right')[]): void => {
    if (p.kind === 'Remote') {
      out.push({ remote: p, path, ids: fieldIds(p) });
      return;
    }
    // a join one source will run whole is not entered: it becomes one Remote first
    if (p.kind !== 'Join' || sourcesUnder(p, ctx).size < 2) return;
    if (p.type === 'inner' || p.type === 'cross' || p.type === 'left' || p.type === 'semi' || p.type === 'anti')
      walk(p.left, [...path, 'left']);
    if (p.type === 'inner' || p.type === 'cross') walk(p.right, [...path, 'right']);
  };
  walk(join, []);
  return out;
}

function rewrite(node: Project | Aggregate, join: Join, ctx: OptimizerContext): LogicalPlan | undefined {
  const leaves = leavesOf(join, ctx);
  if (leaves.length === 0) return undefined;
  // per leaf, the expressions it will compute, by structure (Q14 reads its revenue twice)
  const added = new Map<Leaf, Map<string, NamedExpr>>();
  const place = (e: Expr): Expr => {
    if (e.kind === 'ref' || e.kind === 'literal' || e.kind === 'param') return e;
    const refs = refsOf(e);
    const leaf = refs.size > 0 && safe(e) ? leaves.find((l) => subset(refs, l.ids)) : undefined;
    if (leaf && canPushExpr(e, capabilitiesOf(ctx, leaf.remote.source)).ok) {
      let exprs = added.get(leaf);
      if (!exprs) added.set(leaf, (exprs = new Map()));
      const key = exprKey(e);
      let named = exprs.get(key);
      if (!named) {
        const id = ctx.newFieldId();
        const field: Field = { id, name: `computed_${id}`, type: e.type, nullable: true };
        named = { field, expr: e };
        exprs.set(key, named);
      }
      return refExpr(named.field);
    }
    return mapOperands(e, place);
  };
  const top: Project | Aggregate =
    node.kind === 'Project'
      ? { ...node, exprs: node.exprs.map((x) => ({ field: x.field, expr: place(x.expr) })) }
      : {
          ...node,
          groupBy: node.groupBy.map((g) => ({ field: g.field, expr: place(g.expr) })),
          aggregates: node.aggregates.map((a) => ({
            ...a,
            args: a.args.map(place),
            ...(a.filter ? { filter: place(a.filter) } : {}),
          })),
        };
  if (added.size === 0) return undefined;
  // what still reads each leaf's columns: the rewritten node and the join conditions above it
  const read = new Set<number>();
  if (top.kind === 'Project') for (const x of top.exprs) refsOf(x.expr, read);
  else {
    for (const g of top.groupBy) refsOf(g.expr, read);
    for (const a of top.aggregates) {
      for (const x of a.args) refsOf(x, read);
      if (a.filter) refsOf(a.filter, read);
    }
  }
  conditionRefs(join, read);
  let input: LogicalPlan = join;
  for (const [leaf, exprs] of added) {
    const kept: NamedExpr[] = outputFields(leaf.remote)
      .filter((f) => read.has(f.id))
      .map((f) => ({ field: f, expr: refExpr(f) }));
    const project: Project = { kind: 'Project', input: leaf.remote, exprs: [...kept, ...exprs.values()] };
    input = replaceAt(input, leaf.path, project);
  }
  return { ...top, input } as LogicalPlan;
}

function conditionRefs(p: LogicalPlan, out: Set<number>): void {
  if (p.kind !== 'Join') return;
  if (p.condition) refsOf(p.condition, out);
  conditionRefs(p.left, out);
  conditionRefs(p.right, out);
}

function replaceAt(plan: LogicalPlan, path: readonly ('left' | 'right')[], by: LogicalPlan): LogicalPlan {
  if (path.length === 0) return by;
  if (plan.kind !== 'Join') return plan;
  const [side, ...rest] = path;
  return { ...plan, [side]: replaceAt(plan[side], rest, by) };
}

/** Functions that return a value for every input; arithmetic only where it cannot overflow. */
const TOTAL = new Set([
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'is_distinct_from',
  'is_not_distinct_from',
  'and',
  'or',
  'not',
  'is_null',
  'is_not_null',
  'coalesce',
  'nullif',
  'lower',
  'upper',
  'length',
  'concat',
  'trim',
  'ltrim',
  'rtrim',
  'replace',
  'position',
  'starts_with',
  'greatest',
  'least',
]);
const DATE_FIELDS = new Set([
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'dow',
  'doy',
  'isodow',
  'isoyear',
  'hour',
  'minute',
  'second',
  'decade',
  'century',
  'millennium',
]);
const EXACT_ARITHMETIC = new Set(['add', 'sub', 'mul', 'neg', 'abs']);

/**
 * An expression no row can make fail: no division, no cast that can reject a value, no
 * integer arithmetic (it overflows), LIKE only with a constant pattern (a malformed one
 * fails), date_part/date_trunc only with a constant field, nothing that reads the clock (a
 * source's differs from Junction's).
 */
function safe(e: Expr): boolean {
  switch (e.kind) {
    case 'ref':
    case 'literal':
    case 'param':
      return true;
    case 'subquery':
    case 'raise':
      return false;
    case 'in':
      return safe(e.expr) && e.list.every(safe);
    case 'case':
      return (
        (!e.operand || safe(e.operand)) &&
        e.whens.every((w) => safe(w.when) && safe(w.then)) &&
        (!e.else || safe(e.else))
      );
    case 'cast': {
      const from = e.expr.type;
      const to = e.type;
      const widening =
        (isInteger(from) && (to.kind === 'int64' || to.kind === 'decimal' || to.kind === 'float64')) ||
        (from.kind === 'decimal' && to.kind === 'float64');
      return widening && safe(e.expr);
    }
    case 'call': {
      if (!e.args.every(safe)) return false;
      if (TOTAL.has(e.fn)) return true;
      if (EXACT_ARITHMETIC.has(e.fn)) return e.type.kind === 'decimal' || isFloat(e.type);
      if (e.fn === 'like' || e.fn === 'ilike') return e.args[1].kind === 'literal';
      // an unknown field name fails; a time zone's offset would be the source's session's
      if (e.fn === 'date_part' || e.fn === 'date_trunc') {
        const [field, value] = e.args;
        return (
          field.kind === 'literal' &&
          DATE_FIELDS.has(String(field.value).toLowerCase()) &&
          (value.type.kind === 'date' || value.type.kind === 'timestamp')
        );
      }
      return false;
    }
  }
}
