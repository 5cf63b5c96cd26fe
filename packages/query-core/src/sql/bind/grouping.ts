import type { AggFn, JType } from '@junction/connectors';
import type { AggregateCall, Expr, Field, WindowCall } from '../../plan/logical.js';
import { aggregateReturnType } from '../../expr/types.js';
import { mapOperands } from '../../plan/exprs.js';
import type { BindContext } from './context.js';
import { exprKey } from './coerce.js';
import type { AggregateSink, WindowSink } from './expr.js';

/** After GROUP BY, an expression may use group keys, aggregates and windows only. */
export function rewriteGrouped(
  ctx: BindContext,
  e: Expr,
  groupKeys: Map<string, Field>,
  groupIds: Set<number>,
  aggIds: Set<number>,
  winIds: Set<number>,
): Expr {
  const go = (x: Expr): Expr => {
    const g = groupKeys.get(exprKey(x));
    if (g) return { kind: 'ref', id: g.id, type: g.type };
    switch (x.kind) {
      case 'ref':
        if (groupIds.has(x.id) || aggIds.has(x.id) || winIds.has(x.id)) return x;
        throw ctx.error(
          'user',
          'grouping_error',
          `column must appear in the GROUP BY clause or be used in an aggregate function`,
          ctx.origins.get(x),
        );
      default:
        return mapOperands(x, go);
    }
  };
  return go(e);
}

export class AggCollector implements AggregateSink {
  readonly calls: AggregateCall[] = [];
  private readonly byKey = new Map<string, AggregateCall>();

  constructor(private readonly ctx: BindContext) {}

  add(fn: AggFn, args: Expr[], distinct: boolean, filter: Expr | undefined, name: string): Expr {
    const key = exprKey({ fn, args, distinct, filter } as unknown as Expr);
    let callDef = this.byKey.get(key);
    if (!callDef) {
      const type = aggregateReturnType(fn, args[0]?.type);
      // count is never NULL; every other aggregate is NULL over no rows
      const field: Field = { id: this.ctx.newId(), name, type, nullable: fn !== 'count' && fn !== 'count_star' };
      callDef = { field, fn, args, distinct, ...(filter ? { filter } : {}) };
      this.byKey.set(key, callDef);
      this.calls.push(callDef);
    }
    return { kind: 'ref', id: callDef.field.id, type: callDef.field.type };
  }

  ids(): Set<number> {
    return new Set(this.calls.map((c) => c.field.id));
  }
}

export class WindowCollector implements WindowSink {
  readonly calls: WindowCall[] = [];

  constructor(private readonly ctx: BindContext) {}

  add(w: Omit<WindowCall, 'field'>, type: JType, name: string): Expr {
    const field: Field = {
      id: this.ctx.newId(),
      name,
      type,
      nullable: !['row_number', 'rank', 'dense_rank', 'count', 'count_star', 'ntile'].includes(w.fn),
    };
    this.calls.push({ field, ...w });
    return { kind: 'ref', id: field.id, type };
  }

  ids(): Set<number> {
    return new Set(this.calls.map((c) => c.field.id));
  }
}
