import type { AggregateCall, Expr, LogicalPlan, NamedExpr } from '../../plan/logical.js';
import { widensExactly } from '../../plan/exprs.js';
import { sameType } from '../exprs.js';
import type { OptimizerContext } from '../context.js';
import { uniqueOn } from '../unique-rows.js';

/**
 * A grouping whose input already holds one row per group is a projection: each group's
 * aggregate is its one value. TPC-H Q10 groups by customer key the rows of a join between
 * the orders source's answer, grouped by customer key there, and customer by its key; the
 * grouping in Junction held 388,000 groups of customer strings at SF 10 to change nothing.
 * Calcite's AggregateRemoveRule does the same. Runs after pushdown, on groupings left in
 * Junction. Only aggregates whose one-row value is their argument, of the same type or
 * cast exactly to it: not avg (PostgreSQL gives a one-row avg of a decimal more scale), not
 * count, not FILTER.
 */
export function dropAggregateOverUniqueRows(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  // a global aggregate answers one row even for no input: not a projection
  if (node.kind !== 'Aggregate' || node.groupBy.length === 0) return undefined;
  const values = node.aggregates.map(oneRowValue);
  if (values.some((v) => v === undefined)) return undefined;
  const keys = new Set<number>();
  for (const g of node.groupBy) if (g.expr.kind === 'ref') keys.add(g.expr.id);
  if (!uniqueOn(node.input, keys, ctx)) return undefined;
  const exprs: NamedExpr[] = [
    ...node.groupBy,
    ...node.aggregates.map((a, i) => ({ field: a.field, expr: values[i] as Expr })),
  ];
  return { kind: 'Project', input: node.input, exprs };
}

function oneRowValue(a: AggregateCall): Expr | undefined {
  if (a.filter || a.args.length !== 1) return undefined;
  const arg = a.args[0];
  switch (a.fn) {
    case 'min':
    case 'max':
    case 'bool_and':
    case 'bool_or':
      return sameType(arg.type, a.field.type) ? arg : undefined;
    case 'sum':
      if (sameType(arg.type, a.field.type)) return arg;
      // an integer's sum is a wider integer or a decimal, which holds the one value as it is
      return widensExactly(arg.type, a.field.type) ? { kind: 'cast', expr: arg, type: a.field.type } : undefined;
    default:
      return undefined;
  }
}
