import type { Expr, LogicalPlan } from '../plan/logical.js';
import { conjuncts, keyColumn } from '../plan/exprs.js';
import { coversRowKey } from '../catalog/tables.js';
import { tableInfo, type OptimizeInput } from './context.js';
import { fieldIds } from './exprs.js';

/**
 * Whether no two rows of `plan` agree on all of the fields `ids` (NULLs counted equal, as
 * GROUP BY counts them). Conservative: false whenever it cannot be shown. Sources of
 * uniqueness are a table's primary key or unique index on NOT NULL columns, a grouping's
 * keys, DISTINCT and a global aggregate's one row; a join keeps a side's uniqueness when each
 * of that side's rows meets at most one row of the other (the other side is unique on its
 * join keys), which is how a grouped result joined to a table by its key stays unique.
 */
export function uniqueOn(plan: LogicalPlan, ids: ReadonlySet<number>, ctx: OptimizeInput): boolean {
  switch (plan.kind) {
    case 'Scan': {
      const columns = new Set<string>();
      plan.fields.forEach((f, i) => ids.has(f.id) && columns.add(plan.columns[i]));
      return coversRowKey(tableInfo(ctx, plan.table), columns);
    }
    case 'Remote':
      return uniqueOn(plan.plan, ids, ctx);
    case 'Filter':
    case 'Sort':
    case 'Limit':
    case 'Window':
      return uniqueOn(plan.input, ids, ctx);
    case 'Project': {
      // a field the projection computes proves nothing; the rest are the input's own
      const below = new Set<number>();
      for (const e of plan.exprs) if (ids.has(e.field.id) && e.expr.kind === 'ref') below.add(e.expr.id);
      return uniqueOn(plan.input, below, ctx);
    }
    case 'Aggregate':
      return plan.groupBy.every((g) => ids.has(g.field.id));
    case 'Distinct':
      return [...fieldIds(plan.input)].every((id) => ids.has(id));
    case 'MarkJoin':
      return uniqueOn(plan.left, ids, ctx);
    case 'Join':
      return joinUniqueOn(plan, ids, ctx);
    default:
      return false;
  }
}

function joinUniqueOn(join: Extract<LogicalPlan, { kind: 'Join' }>, ids: ReadonlySet<number>, ctx: OptimizeInput): boolean {
  if (join.type === 'semi' || join.type === 'anti') return uniqueOn(join.left, ids, ctx);
  if (join.type === 'full') return false;
  const leftIds = fieldIds(join.left);
  const pairs = equiPairs(join.condition, leftIds, fieldIds(join.right));
  const onLeft = new Set([...ids].filter((id) => leftIds.has(id)));
  const onRight = new Set([...ids].filter((id) => !leftIds.has(id)));
  const leftKeys = new Set(pairs.map(([l]) => l));
  const rightKeys = new Set(pairs.map(([, r]) => r));
  // each left row meets at most one right row (a NULL-extended one for a left join's misses)
  const byLeft = (): boolean => pairs.length > 0 && uniqueOn(join.right, rightKeys, ctx) && uniqueOn(join.left, onLeft, ctx);
  const byRight = (): boolean => pairs.length > 0 && uniqueOn(join.left, leftKeys, ctx) && uniqueOn(join.right, onRight, ctx);
  switch (join.type) {
    case 'left':
      return byLeft();
    case 'right':
      return byRight();
    default:
      // inner or cross: also every pair of rows unique on each side's part is a distinct pair
      return byLeft() || byRight() || (uniqueOn(join.left, onLeft, ctx) && uniqueOn(join.right, onRight, ctx));
  }
}

/** The condition's `left column = right column` conjuncts, as [left id, right id]. */
function equiPairs(condition: Expr | undefined, left: ReadonlySet<number>, right: ReadonlySet<number>): [number, number][] {
  const pairs: [number, number][] = [];
  for (const c of condition ? conjuncts(condition) : []) {
    if (c.kind !== 'call' || c.fn !== 'eq') continue;
    const a = keyColumn(c.args[0])?.id;
    const b = keyColumn(c.args[1])?.id;
    if (a === undefined || b === undefined) continue;
    if (left.has(a) && right.has(b)) pairs.push([a, b]);
    else if (left.has(b) && right.has(a)) pairs.push([b, a]);
  }
  return pairs;
}
