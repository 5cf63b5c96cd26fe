import { formatType } from '@junction/connectors';
import type { Expr, Field, LogicalPlan, SortKey } from './logical.js';
import { outputFields } from './fields.js';

/**
 * Prints a logical plan as an indented tree for golden tests and EXPLAIN (VERBOSE).
 * Field ids are printed as `name#id` so a test can follow a column through the plan;
 * nothing volatile (timings, object identity) is printed.
 */
export function printPlan(plan: LogicalPlan): string {
  const lines: string[] = [];
  walk(plan, 0, lines);
  return lines.join('\n');
}

function walk(plan: LogicalPlan, depth: number, lines: string[]): void {
  const names = fieldNames(plan);
  // a node's expressions read its inputs: name refs as the inputs call them (a Project may rename an id)
  const inputs = plan.kind === 'Join' || plan.kind === 'MarkJoin' || plan.kind === 'SetOp' ? [plan.left, plan.right] : plan.kind === 'Scan' || plan.kind === 'Values' || plan.kind === 'Remote' ? [] : [plan.input];
  for (const child of inputs) for (const f of outputFields(child)) names.set(f.id, f.name);
  lines.push('  '.repeat(depth) + header(plan, names));
  if ('notPushed' in plan && plan.notPushed) {
    for (const n of plan.notPushed) lines.push('  '.repeat(depth + 1) + `! not pushed: ${n.what}: ${n.reason}`);
  }
  if (plan.kind === 'Remote') {
    walk(plan.plan, depth + 1, lines);
    return;
  }
  if (plan.kind === 'Values' || plan.kind === 'Scan') return;
  if (plan.kind === 'Join' || plan.kind === 'MarkJoin' || plan.kind === 'SetOp') {
    walk(plan.left, depth + 1, lines);
    walk(plan.right, depth + 1, lines);
    return;
  }
  walk(plan.input, depth + 1, lines);
}

/** Every field visible anywhere below `plan` (its name by id), so refs print with their names. */
export function fieldNames(plan: LogicalPlan, names: Map<number, string> = new Map()): Map<number, string> {
  for (const f of outputFields(plan)) names.set(f.id, f.name);
  if (plan.kind === 'Remote') fieldNames(plan.plan, names);
  else if (plan.kind === 'Join' || plan.kind === 'MarkJoin' || plan.kind === 'SetOp') {
    fieldNames(plan.left, names);
    fieldNames(plan.right, names);
  } else if (plan.kind !== 'Scan' && plan.kind !== 'Values') fieldNames(plan.input, names);
  return names;
}

function header(plan: LogicalPlan, names: Map<number, string>): string {
  const e = (x: Expr) => printExpr(x, names);
  switch (plan.kind) {
    case 'Scan':
      return `Scan ${plan.table.source}.${plan.table.catalog ? plan.table.catalog + '.' : ''}${plan.table.schema}.${plan.table.table} AS ${plan.alias} [${plan.fields.map((f, i) => fieldText(f) + (plan.columns[i] !== f.name ? `=${plan.columns[i]}` : '')).join(', ')}]`;
    case 'Remote':
      return `Remote ${plan.source} [${plan.fields.map(fieldText).join(', ')}]`;
    case 'Filter':
      return `Filter ${e(plan.predicate)}`;
    case 'Project':
      return `Project${plan.securityBarrier ? ` [barrier ${plan.securityBarrier}]` : ''} ${plan.exprs.map((x) => `${fieldText(x.field)} := ${e(x.expr)}`).join(', ')}`;
    case 'Join': {
      const strategy = plan.strategy ? ` strategy=${strategyText(plan.strategy)}` : '';
      return `Join ${plan.type}${plan.condition ? ' ON ' + e(plan.condition) : ''}${strategy}`;
    }
    case 'MarkJoin':
      return `MarkJoin ${fieldText(plan.mark)}${plan.compare ? ' ANY ' + e(plan.compare) : ' EXISTS'}${plan.condition ? ' WHERE ' + e(plan.condition) : ''}`;
    case 'Aggregate':
      return `Aggregate group=[${plan.groupBy.map((g) => `${fieldText(g.field)} := ${e(g.expr)}`).join(', ')}] aggs=[${plan.aggregates
        .map((a) => `${fieldText(a.field)} := ${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${a.args.map(e).join(', ')})${a.filter ? ` FILTER (${e(a.filter)})` : ''}`)
        .join(', ')}]`;
    case 'Sort':
      return `Sort ${plan.keys.map((k) => sortText(k, names)).join(', ')}`;
    case 'Limit':
      return `Limit ${plan.limit ?? 'ALL'} OFFSET ${plan.offset}`;
    case 'Distinct':
      return 'Distinct';
    case 'SetOp':
      return `${plan.op.toUpperCase()}${plan.all ? ' ALL' : ''} [${plan.fields.map(fieldText).join(', ')}]`;
    case 'Window':
      return `Window ${plan.windows
        .map((w) => {
          const over = [
            ...(w.partitionBy.length > 0 ? [`PARTITION BY ${w.partitionBy.map(e).join(', ')}`] : []),
            ...(w.orderBy.length > 0 ? [`ORDER BY ${w.orderBy.map((k) => sortText(k, names)).join(', ')}`] : []),
          ];
          return `${fieldText(w.field)} := ${w.fn}(${w.args.map(e).join(', ')}) OVER (${over.join(' ')})`;
        })
        .join(', ')}`;
    case 'Values':
      return `Values ${plan.rows.length} rows [${plan.fields.map(fieldText).join(', ')}]`;
  }
}

function strategyText(s: NonNullable<Extract<LogicalPlan, { kind: 'Join' }>['strategy']>): string {
  switch (s.kind) {
    case 'hash':
      return `hash(build=${s.buildSide})`;
    case 'nested-loop':
      return 'nested-loop';
    case 'dependent':
      return `dependent(driver=${s.driver}, maxInList=${s.maxInList}, parallel=${s.maxParallel})`;
  }
}

function fieldText(f: Field): string {
  return `${f.name}#${f.id}`;
}

function sortText(k: SortKey, names: Map<number, string>): string {
  return `${printExpr(k.expr, names)} ${k.desc ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`;
}

const INFIX: Record<string, string> = {
  eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=', and: 'AND', or: 'OR',
  add: '+', sub: '-', mul: '*', div: '/', mod: '%', concat: '||', like: 'LIKE', ilike: 'ILIKE',
};

export interface PrintExprOptions {
  /** Print column references by name only, as EXPLAIN shows them to users. */
  readonly omitIds?: boolean;
}

export function printExpr(expr: Expr, names: Map<number, string> = new Map(), options: PrintExprOptions = {}): string {
  const p = (x: Expr) => printExpr(x, names, options);
  switch (expr.kind) {
    case 'ref':
      return options.omitIds ? (names.get(expr.id) ?? '?') : `${names.get(expr.id) ?? '?'}#${expr.id}`;
    case 'literal':
      return literalText(expr.value) + (expr.type.kind === 'string' || expr.type.kind === 'null' || expr.type.kind.startsWith('int') ? '' : `::${formatType(expr.type)}`);
    case 'param':
      return `$${expr.index + 1}`;
    case 'call': {
      const op = INFIX[expr.fn];
      if (op && expr.args.length === 2) return `(${p(expr.args[0])} ${op} ${p(expr.args[1])})`;
      if (expr.fn === 'not') return `(NOT ${p(expr.args[0])})`;
      if (expr.fn === 'is_null') return `(${p(expr.args[0])} IS NULL)`;
      if (expr.fn === 'is_not_null') return `(${p(expr.args[0])} IS NOT NULL)`;
      if (expr.fn === 'neg') return `(-${p(expr.args[0])})`;
      return `${expr.fn}(${expr.args.map(p).join(', ')})`;
    }
    case 'in':
      return `(${p(expr.expr)} ${expr.negated ? 'NOT IN' : 'IN'} (${expr.list.map(p).join(', ')}))`;
    case 'case':
      return `CASE${expr.operand ? ' ' + p(expr.operand) : ''}${expr.whens.map((w) => ` WHEN ${p(w.when)} THEN ${p(w.then)}`).join('')}${expr.else ? ' ELSE ' + p(expr.else) : ''} END`;
    case 'cast':
      return `CAST(${p(expr.expr)} AS ${formatType(expr.type)})`;
    case 'subquery':
      return `(subquery ${expr.plan.kind})`;
    case 'raise':
      return `raise(${expr.code})`;
  }
}

function literalText(v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `'\\x${Buffer.from(v).toString('hex')}'`;
  return String(v);
}
