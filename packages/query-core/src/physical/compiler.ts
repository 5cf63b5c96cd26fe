import type { Row, Value } from '@junction/connectors';
import { compileExpr } from '../expr/compile.js';
import { makeAccumulator } from '../expr/aggregates.js';
import type { AggregateCall, Expr, LogicalPlan, WindowCall } from '../plan/logical.js';
import type { AggregateSpec } from '../exec/hash-aggregate/index.js';
import type { RowFn } from '../exec/expr-fn.js';
import type { ExprCompiler, Layout } from './planner.js';

/**
 * The expression layer bound to one execution: parameters are fixed, and uncorrelated
 * scalar subqueries have already been run (their single value is looked up by plan).
 */
export function makeCompiler(params: readonly Value[], subqueryValues: ReadonlyMap<LogicalPlan, Value> = new Map(), now?: Date): ExprCompiler {
  const options = {
    now,
    subquery: (plan: LogicalPlan) => {
      const v = subqueryValues.get(plan) ?? null;
      return () => v;
    },
  };
  const expr = (e: Expr, layout: Layout): RowFn => {
    if (e.kind === 'ref') {
      const p = layout.get(e.id);
      if (p !== undefined) return (row: Row) => row[p];
    }
    if (e.kind === 'literal') {
      const v = e.value;
      return () => v;
    }
    const ev = compileExpr(e, layout, options);
    return (row: Row) => ev(row, params);
  };
  // a plain column stays a position, so the worker path reads it once for every aggregate using it
  const input = (e: Expr, layout: Layout): number | RowFn => (e.kind === 'ref' && layout.has(e.id) ? layout.get(e.id)! : expr(e, layout));
  const aggregate = (fn: AggregateCall['fn'], args: readonly Expr[], distinct: boolean, filter: Expr | undefined, layout: Layout): AggregateSpec => {
    const acc = makeAccumulator(fn, args[0]?.type, { distinct });
    const a0 = args[0] ? expr(args[0], layout) : undefined;
    const a1 = args[1] ? expr(args[1], layout) : undefined;
    const f = filter ? expr(filter, layout) : undefined;
    return {
      mergeable: {
        fn,
        argType: args[0]?.type,
        distinct,
        acc,
        args: args.slice(0, 2).map((a) => input(a, layout)),
        filter: filter ? input(filter, layout) : undefined,
      },
      create() {
        let s = acc.init();
        return {
          add(row: Row) {
            if (f && f(row) !== true) return;
            s = acc.add(s, a0 ? a0(row) : null, a1 ? a1(row) : undefined);
          },
          result: () => acc.finish(s),
        };
      },
    };
  };
  return {
    expr,
    aggregate: (call: AggregateCall, layout: Layout) => aggregate(call.fn, call.args, call.distinct, call.filter, layout),
    windowAggregate: (call: WindowCall, layout: Layout) => aggregate(call.fn as AggregateCall['fn'], call.args, false, undefined, layout),
  };
}
