import type { AggregateCall, LogicalPlan, NamedExpr } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { coversRowKey } from '../../catalog/tables.js';
import { tableInfo, type OptimizerContext } from '../context.js';
import { refExpr } from '../exprs.js';

type Scan = Extract<LogicalPlan, { kind: 'Scan' }>;

/**
 * GROUP BY columns of one table row that include a primary key or a unique index on NOT NULL
 * columns of that table: the others depend on the key, so Junction groups by the key alone and carries them as min()
 * (every row of a group holds the same value; a left join's NULL-extended rows form one group
 * whose values are all NULL, as no table row has a NULL key). TPC-H Q10 groups 38,900 joined rows by
 * customer key, name, balance, phone, address and comment; hashing the key instead of six
 * columns (two of them long strings) is what PostgreSQL's functional-dependency rule saves too.
 * Runs after pushdown, on aggregates left in Junction: a source groups as it likes.
 */
export function groupByUniqueKey(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Aggregate' || node.groupBy.length < 2) return undefined;
  // each group key's table row: the scan it is read from, unchanged, and the column
  const byScan = new Map<Scan, { index: number; column: string }[]>();
  node.groupBy.forEach((g, index) => {
    const o = g.expr.kind === 'ref' ? origin(g.expr.id, node.input) : undefined;
    if (!o) return;
    const list = byScan.get(o.scan) ?? [];
    list.push({ index, column: o.column });
    byScan.set(o.scan, list);
  });
  const dependent = new Set<number>();
  for (const [scan, keys] of byScan) {
    const info = tableInfo(ctx, scan.table);
    const kept = new Set(keys.map((k) => k.column));
    if (keys.length < 2 || !coversRowKey(info, kept)) continue;
    // drop each column the rest still determine: what is left is one key, the dropped depend on it
    for (const k of keys) {
      kept.delete(k.column);
      if (coversRowKey(info, kept)) dependent.add(k.index);
      else kept.add(k.column);
    }
  }
  if (dependent.size === 0) return undefined;
  const groupBy: NamedExpr[] = node.groupBy.filter((_, i) => !dependent.has(i));
  const carried: AggregateCall[] = node.groupBy
    .filter((_, i) => dependent.has(i))
    .map((g) => ({ field: g.field, fn: 'min', args: [g.expr], distinct: false }));
  const { notPushed: _drop, ...rest } = node;
  void _drop;
  return {
    kind: 'Project',
    input: { ...rest, groupBy, aggregates: [...node.aggregates, ...carried] },
    exprs: outputFields(node).map((f) => ({ field: f, expr: refExpr(f) })),
  };
}

/**
 * The scan and column a field is read from, through operators that pass a row's values on
 * unchanged. Not through an aggregate or a set operation: their rows are no table's rows.
 */
function origin(id: number, plan: LogicalPlan): { scan: Scan; column: string } | undefined {
  switch (plan.kind) {
    case 'Scan': {
      const i = plan.fields.findIndex((f) => f.id === id);
      return i < 0 ? undefined : { scan: plan, column: plan.columns[i] };
    }
    case 'Remote':
      return origin(id, plan.plan);
    case 'Project': {
      const e = plan.exprs.find((x) => x.field.id === id);
      return e?.expr.kind === 'ref' ? origin(e.expr.id, plan.input) : undefined;
    }
    case 'Filter':
    case 'Sort':
    case 'Limit':
    case 'Distinct':
    case 'Window':
      return origin(id, plan.input);
    case 'Join':
      return origin(id, plan.left) ?? origin(id, plan.right);
    case 'MarkJoin':
      return origin(id, plan.left);
    default:
      return undefined;
  }
}
