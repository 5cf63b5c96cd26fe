import {
  NO_CAPABILITIES,
  type AggFn,
  type Capabilities,
  type JType,
  type ScalarFn,
  type TableInfo,
  type Value,
} from '@junction/connectors';
import type { AggregateCall, Expr, Field, LogicalPlan, SortKey } from '../plan/logical.js';
import { outputFields } from '../plan/fields.js';
import type { OptimizeInput, SourceInfo } from './context.js';

/** Hand-built plans for optimizer tests: fields get ids in creation order, refs resolve by name. */
export class PlanBuilder {
  private next = 1;

  field(name: string, type: string | JType, relation?: string, nullable = true): Field {
    return {
      id: this.next++,
      name,
      type: typeof type === 'string' ? parseType(type) : type,
      nullable,
      ...(relation ? { relation } : {}),
    };
  }

  scan(
    source: string,
    table: string,
    columns: Record<string, string>,
    rowCount?: number,
    schema = 'public',
  ): LogicalPlan {
    const fields = Object.entries(columns).map(([n, t]) => this.field(n, t, table));
    return {
      kind: 'Scan',
      table: { source, schema, table },
      fields,
      columns: fields.map((f) => f.name),
      alias: table,
      ...(rowCount !== undefined ? { rowCount } : {}),
    };
  }

  filter(input: LogicalPlan, predicate: Expr): LogicalPlan {
    return { kind: 'Filter', input, predicate };
  }

  project(input: LogicalPlan, exprs: [string, Expr][]): LogicalPlan {
    return { kind: 'Project', input, exprs: exprs.map(([n, e]) => ({ field: this.field(n, e.type), expr: e })) };
  }

  /** a Project that passes fields through by name, as the binder's final select list does */
  select(input: LogicalPlan, names: string[]): LogicalPlan {
    return this.project(
      input,
      names.map((n) => [n, col(input, n)]),
    );
  }

  join(
    type: Extract<LogicalPlan, { kind: 'Join' }>['type'],
    left: LogicalPlan,
    right: LogicalPlan,
    condition?: Expr,
  ): LogicalPlan {
    return { kind: 'Join', type, left, right, ...(condition ? { condition } : {}) };
  }

  aggregate(input: LogicalPlan, groups: string[], aggs: [string, AggFn, Expr[], JType?][]): LogicalPlan {
    const groupBy = groups.map((g) => {
      const e = col(input, g);
      return { field: this.field(g, e.type), expr: e };
    });
    const aggregates: AggregateCall[] = aggs.map(([n, fn, args, type]) => ({
      field: this.field(n, type ?? aggType(fn, args)),
      fn,
      args,
      distinct: false,
    }));
    return { kind: 'Aggregate', input, groupBy, aggregates };
  }

  sort(input: LogicalPlan, keys: [string, 'asc' | 'desc'][]): LogicalPlan {
    const k: SortKey[] = keys.map(([n, d]) => ({ expr: col(input, n), desc: d === 'desc', nullsFirst: d === 'desc' }));
    return { kind: 'Sort', input, keys: k };
  }

  limit(input: LogicalPlan, limit: number | undefined, offset = 0): LogicalPlan {
    return { kind: 'Limit', input, ...(limit !== undefined ? { limit } : {}), offset };
  }
}

export function parseType(t: string): JType {
  const m = /^(\w+)(?:\((\d+)(?:,(\d+))?\))?$/.exec(t);
  if (!m) throw new Error(`bad type ${t}`);
  const [, k, a, b] = m;
  switch (k) {
    case 'varchar':
      return a ? { kind: 'string', length: Number(a) } : { kind: 'string' };
    case 'char':
      return { kind: 'string', length: Number(a), fixed: true };
    case 'text':
      return { kind: 'string' };
    case 'decimal':
      return a ? { kind: 'decimal', precision: Number(a), scale: Number(b ?? 0) } : { kind: 'decimal' };
    default:
      return { kind: k as JType['kind'] };
  }
}

function aggType(fn: AggFn, args: Expr[]): JType {
  if (fn === 'count' || fn === 'count_star') return { kind: 'int64' };
  if (fn === 'sum' && args[0]?.type.kind === 'decimal') return { kind: 'decimal' };
  if (fn === 'sum' && (args[0]?.type.kind === 'int32' || args[0]?.type.kind === 'int16')) return { kind: 'int64' };
  if (fn === 'sum' && args[0]?.type.kind === 'int64') return { kind: 'decimal' };
  return args[0]?.type ?? { kind: 'int64' };
}

/** A reference to the output field called `name` (throws if absent or ambiguous). */
export function col(plan: LogicalPlan, name: string): Expr {
  const hits = outputFields(plan).filter((f) => f.name === name);
  if (hits.length !== 1) throw new Error(`${hits.length} fields named ${name}`);
  return { kind: 'ref', id: hits[0].id, type: hits[0].type };
}

export function lit(value: Value, type: string | JType = typeof value === 'string' ? 'text' : 'int64'): Expr {
  return {
    kind: 'literal',
    value: typeof value === 'number' && (type === 'int64' || type === 'int64') ? BigInt(value) : value,
    type: typeof type === 'string' ? parseType(type) : type,
  };
}

export function param(index: number, type: string): Expr {
  return { kind: 'param', index, type: parseType(type) };
}

const BOOL_FNS = new Set<ScalarFn>([
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'and',
  'or',
  'not',
  'like',
  'ilike',
  'is_null',
  'is_not_null',
  'starts_with',
]);

export function call(fn: ScalarFn, ...args: Expr[]): Expr {
  return { kind: 'call', fn, args, type: BOOL_FNS.has(fn) ? { kind: 'bool' } : args[0].type };
}

export const eq = (a: Expr, b: Expr) => call('eq', a, b);
export const lt = (a: Expr, b: Expr) => call('lt', a, b);
export const gt = (a: Expr, b: Expr) => call('gt', a, b);
export const and = (...xs: Expr[]) => xs.reduce((a, b) => call('and', a, b));

/** PostgreSQL-like: everything exact. */
export const PG_CAPS: Capabilities = {
  ...NO_CAPABILITIES,
  functions: Object.fromEntries(
    (
      [
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
        'add',
        'sub',
        'mul',
        'div',
        'mod',
        'neg',
        'abs',
        'round',
        'trunc',
        'floor',
        'ceil',
        'concat',
        'lower',
        'upper',
        'length',
        'substring',
        'trim',
        'like',
        'ilike',
        'starts_with',
        'date_part',
        'date_trunc',
      ] as ScalarFn[]
    ).map((f) => [f, true]),
  ),
  aggregates: {
    count: true,
    count_star: true,
    sum: true,
    avg: true,
    min: true,
    max: true,
    bool_and: true,
    bool_or: true,
  },
  distinctAggregates: true,
  joins: { inner: true, left: true, right: true, full: true, cross: true },
  in: true,
  case: true,
  casts: ['int16', 'int32', 'int64', 'decimal', 'float64', 'string', 'date', 'timestamp'],
  castsFrom: {},
  groupBy: true,
  having: true,
  distinct: true,
  orderBy: true,
  nullsOrdering: true,
  limit: true,
  offset: true,
  subqueryInFrom: true,
  existsSubquery: true,
  setOps: { union: true, union_all: true, intersect: true, intersect_all: true, except: true, except_all: true },
  windowFunctions: { row_number: true, rank: true, dense_rank: true, lag: true, lead: true, first_value: true, last_value: true, ntile: true },
  exactStringEquality: true,
  exactStringOrdering: true,
  caseSensitiveLike: true,
  maxBindParams: 65535,
  maxInList: 10000,
  maxIdentifierLength: 63,
};

/** MariaDB with its default case-insensitive, pad-space collation: strings are not exact. */
export const MARIADB_CI_CAPS: Capabilities = {
  ...PG_CAPS,
  joins: { inner: true, left: true, right: true, cross: true },
  exactStringEquality: false,
  exactStringOrdering: false,
  caseSensitiveLike: false,
  functions: { ...PG_CAPS.functions, ilike: undefined, date_trunc: undefined },
  maxInList: 1000,
  maxIdentifierLength: 64,
};

export function sources(entries: Record<string, Capabilities | SourceInfo>, pushdown = true): OptimizeInput {
  return {
    sources: new Map(Object.entries(entries).map(([k, v]) => [k, 'capabilities' in v ? v : { capabilities: v }])),
    options: { pushdown },
  };
}

/** A source whose catalog holds one table in schema public (keys, columns, row count as given). */
export function withTable(capabilities: Capabilities, table: Partial<TableInfo> & { name: string }): SourceInfo {
  const info: TableInfo = { schema: 'public', kind: 'table', columns: [], foreignKeys: [], indexes: [], ...table };
  return { capabilities, catalog: { defaultSchema: 'public', introspectedAt: '2026-01-01T00:00:00Z', tables: [info] } };
}

/** Remote(plan) on the source of the plan's first scan. */
export function remote(plan: LogicalPlan): LogicalPlan {
  let p = plan;
  while (p.kind !== 'Scan') {
    if (p.kind === 'Join' || p.kind === 'MarkJoin' || p.kind === 'SetOp') p = p.left;
    else if (p.kind === 'Remote' || p.kind === 'Values') throw new Error('no scan');
    else p = p.input;
  }
  return { kind: 'Remote', source: p.table.source, plan, fields: outputFields(plan) };
}
