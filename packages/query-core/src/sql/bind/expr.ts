import { t } from '@junction/connectors';
import type { AggFn, JType, ScalarFn, WindowFn } from '@junction/connectors';
import type * as C from 'sql-parser-cst';
import type { Expr, SortKey, WindowCall } from '../../plan/logical.js';
import type { NamePart } from '../../catalog/names.js';
import { formatInterval, parseInterval } from '../../expr/datetime.js';
import { aggregateReturnType, commonSupertype, parseTypeName, windowReturnType } from '../../expr/types.js';
import type { BindContext } from './context.js';
import { typeText } from './context.js';
import { call, coerce, fold, isUnknown, lit, unify } from './coerce.js';
import { AGGREGATES, SCALARS, WINDOWS, arithmeticCall, textArg } from './functions.js';
import type { Scope } from './scope.js';

export interface AggregateSink {
  add(fn: AggFn, args: Expr[], distinct: boolean, filter: Expr | undefined, name: string, node: C.Node): Expr;
}

export interface WindowSink {
  add(w: Omit<WindowCall, 'field'>, type: JType, name: string, node: C.Node): Expr;
}

/** `x op ANY (SELECT y …)`: the outer operand and the comparison (IN is `= ANY`). */
export interface QuantifiedCompare {
  readonly x: Expr;
  readonly fn: ScalarFn;
}

export interface SubquerySink {
  /** a scalar subquery used as a value; `scope` is the scope it may correlate with */
  scalar(node: C.Node, query: C.Node, scope: Scope): Expr;
  /**
   * EXISTS (SELECT …), or with `compare` x op ANY (SELECT …), as a boolean value: the sink
   * joins the subquery in as a mark join and returns its mark. Absent where no join can go.
   */
  mark?(env: ExprEnv, node: C.Node, query: C.Node, compare?: QuantifiedCompare): Expr;
  /** the same without joins (for positions below an Aggregate) */
  readonly plain?: SubquerySink;
}

export interface ExprEnv {
  readonly ctx: BindContext;
  readonly scope: Scope;
  /** clause name for messages ("WHERE", "GROUP BY") */
  readonly clause: string;
  readonly aggregates?: AggregateSink;
  readonly windows?: WindowSink;
  readonly subqueries?: SubquerySink;
  /** output-column aliases usable here (ORDER BY), by lower-cased name */
  readonly aliases?: ReadonlyMap<string, Expr>;
}

export function identPart(node: C.Identifier): NamePart {
  return { name: node.name, quoted: node.text.startsWith('"') };
}

/** Dotted name parts of an identifier or member chain, or undefined if it is not a plain name. */
export function nameParts(node: C.Node): NamePart[] | undefined {
  if (node.type === 'identifier') return [identPart(node)];
  if (node.type === 'member_expr' && node.property.type === 'identifier') {
    const head = nameParts(node.object);
    return head ? [...head, identPart(node.property)] : undefined;
  }
  return undefined;
}

const COMPARISONS: Record<string, ScalarFn> = {
  '=': 'eq',
  '<>': 'ne',
  '!=': 'ne',
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
};
const ARITHMETIC: Record<string, 'add' | 'sub' | 'mul' | 'div' | 'mod'> = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '/': 'div',
  '%': 'mod',
};

function kw(op: unknown): string {
  if (typeof op === 'string') return op.toUpperCase();
  if (Array.isArray(op)) return op.map((k) => (k as C.Keyword).name.toUpperCase()).join(' ');
  return (op as C.Keyword).name.toUpperCase();
}

export function bindExpr(env: ExprEnv, node: C.Node): Expr {
  const e = bindInner(env, node);
  if (!env.ctx.origins.has(e)) env.ctx.origins.set(e, node);
  return e;
}

function bindInner(env: ExprEnv, node: C.Node): Expr {
  const { ctx } = env;
  switch (node.type) {
    case 'identifier':
    case 'member_expr': {
      const parts = nameParts(node);
      if (!parts) throw ctx.unsupported(`expression ${ctx.sql.text.slice(node.range![0], node.range![1])}`, node);
      if (parts.length === 1 && !parts[0].quoted && env.aliases) {
        const byAlias = env.aliases.get(parts[0].name.toLowerCase());
        if (byAlias) return byAlias;
      }
      const field = env.scope.resolve(ctx, parts, node);
      return { kind: 'ref', id: field.id, type: field.type };
    }
    case 'number_literal':
      return numberLiteral(node.text);
    case 'string_literal': {
      const e = lit(node.value, t.string);
      ctx.unknownLiterals.add(e);
      return e;
    }
    case 'boolean_literal':
      return lit(node.value, t.bool);
    case 'null_literal':
      return lit(null, t.null);
    case 'date_literal':
      return coerce(ctx, unknownString(ctx, node.string.value), t.date, node);
    case 'timestamp_literal':
      return coerce(ctx, unknownString(ctx, node.string.value), t.timestamp, node);
    case 'time_literal':
      return coerce(ctx, unknownString(ctx, node.string.value), t.time, node);
    case 'interval_literal':
      return intervalLiteral(env, node);
    case 'parameter':
      return parameter(env, node);
    case 'paren_expr': {
      const inner = node.expr as C.Node;
      if (inner.type === 'select_stmt' || inner.type === 'compound_select_stmt') {
        if (!env.subqueries) throw ctx.unsupported(`a subquery in ${env.clause}`, node);
        return env.subqueries.scalar(node, inner, env.scope);
      }
      if (inner.type === 'list_expr') throw ctx.unsupported('a row value', node);
      return bindExpr(env, inner);
    }
    case 'binary_expr':
      return binary(env, node as C.BinaryExpr);
    case 'prefix_op_expr':
      return prefix(env, node);
    case 'postfix_op_expr': {
      const op = kw(node.operator);
      const x = bindExpr(env, node.expr);
      if (op === 'ISNULL') return call('is_null', [x]);
      if (op === 'NOTNULL' || op === 'NOT NULL') return call('is_not_null', [x]);
      if (op === 'IS UNKNOWN') return call('is_null', [coerce(ctx, x, t.bool)]);
      if (op === 'IS NOT UNKNOWN') return call('is_not_null', [coerce(ctx, x, t.bool)]);
      throw ctx.unsupported(`operator ${op}`, node);
    }
    case 'between_expr': {
      const op = kw(node.betweenKw);
      if (op.includes('SYMMETRIC')) throw ctx.unsupported('BETWEEN SYMMETRIC', node);
      const x = bindExpr(env, node.left);
      const lo = comparison(env, 'ge', x, bindExpr(env, node.begin), node);
      const hi = comparison(env, 'le', x, bindExpr(env, node.end), node);
      const both = call('and', [lo, hi]);
      return op.startsWith('NOT') ? call('not', [both]) : both;
    }
    case 'case_expr':
      return caseExpr(env, node);
    case 'cast_expr':
      return cast(env, node.args.expr.expr, node.args.expr.dataType, node);
    case 'cast_operator_expr':
      return cast(env, node.left, node.right, node);
    case 'extract_expr': {
      const unit = node.args.expr.unit;
      if (unit.type !== 'interval_unit') throw ctx.unsupported('EXTRACT(WEEK(…))', node);
      let source = bindExpr(env, node.args.expr.expr);
      if (isUnknown(ctx, source)) source = coerce(ctx, source, t.timestamp);
      const k = source.type.kind;
      if (k !== 'date' && k !== 'timestamp' && k !== 'timestamptz' && k !== 'interval' && k !== 'time') {
        throw ctx.typeMismatch(`cannot EXTRACT from ${typeText(source.type)}`, node);
      }
      // EXTRACT returns numeric (PostgreSQL 14+); date_part() returns double precision
      return call('date_part', [lit(unit.unitKw.name.toLowerCase(), t.string), source], t.decimal());
    }
    case 'func_call':
      return funcCall(env, node);
    default:
      throw ctx.unsupported(`expression ${describeNode(ctx, node)}`, node);
  }
}

function describeNode(ctx: BindContext, node: C.Node): string {
  return node.range ? `"${ctx.sql.text.slice(node.range[0], node.range[1]).slice(0, 40)}"` : node.type;
}

function unknownString(ctx: BindContext, value: string): Expr {
  const e = lit(value, t.string);
  ctx.unknownLiterals.add(e);
  return e;
}

export function numberLiteral(text: string): Expr {
  if (/^\d+$/.test(text)) {
    const n = BigInt(text);
    if (n <= 2147483647n) return lit(Number(n), t.int32);
    if (n <= 9223372036854775807n) return lit(n, t.int64);
    return lit(text, t.decimal());
  }
  if (/^0x[0-9a-f]+$/i.test(text)) return lit(Number(text), t.int32);
  // 1.5, .5, 1e3: numeric constants, exact
  const d = /^(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!d) return lit(text, t.decimal());
  let digits = (d[1] || '0') + '.' + (d[2] ?? '');
  if (d[3] !== undefined) {
    const e = Number(d[3]);
    const intPart = d[1] || '0';
    const frac = d[2] ?? '';
    const all = intPart + frac;
    const point = intPart.length + e;
    if (point <= 0) digits = '0.' + '0'.repeat(-point) + all;
    else if (point >= all.length) digits = all + '0'.repeat(point - all.length);
    else digits = all.slice(0, point) + '.' + all.slice(point);
    digits = digits.replace(/^0+(?=\d)/, '');
  }
  if (digits.endsWith('.')) digits = digits.slice(0, -1);
  return lit(digits, t.decimal());
}

function intervalLiteral(env: ExprEnv, node: C.IntervalLiteral): Expr {
  const { ctx } = env;
  if (node.value.type !== 'string_literal' && node.value.type !== 'number_literal')
    throw ctx.unsupported('INTERVAL with a non-literal value', node);
  const text = node.value.type === 'string_literal' ? node.value.value : node.value.text;
  let unit: string | undefined;
  if (node.unit) {
    if (node.unit.type !== 'interval_unit') throw ctx.unsupported('INTERVAL unit ranges', node.unit);
    unit = node.unit.unitKw.name.toLowerCase();
  }
  try {
    return lit(formatInterval(parseInterval(text, unit)), t.interval);
  } catch (e) {
    throw ctx.error('user', 'invalid_datetime_format', (e as Error).message, node);
  }
}

function parameter(env: ExprEnv, node: C.Parameter): Expr {
  const { ctx } = env;
  let index: number;
  if (node.text === '?') index = ctx.sql.questionMarks.get(node.range![0]) ?? 0;
  else {
    index = Number(node.text.slice(1)) - 1;
    if (!(index >= 0)) throw ctx.error('user', 'syntax_error', `invalid parameter ${node.text}`, node);
  }
  const known = ctx.paramTypes[index];
  return { kind: 'param', index, type: known ?? t.unknown };
}

/** Comparison with PostgreSQL's operand resolution; unknown literals take the other side's type. */
export function comparison(env: ExprEnv, fn: ScalarFn, a: Expr, b: Expr, node: C.Node): Expr {
  const { ctx } = env;
  if (isUnknown(ctx, a) && !isUnknown(ctx, b)) a = coerce(ctx, a, b.type);
  else if (isUnknown(ctx, b) && !isUnknown(ctx, a)) b = coerce(ctx, b, a.type);
  else if (isUnknown(ctx, a) && isUnknown(ctx, b)) {
    a = coerce(ctx, a, t.string);
    b = coerce(ctx, b, t.string);
  }
  // date vs a midnight timestamp constant compares exactly as date vs date, which sources can index
  if (a.type.kind === 'date' && isMidnight(b))
    b = lit((b as Extract<Expr, { kind: 'literal' }>).value!.toString().slice(0, 10), t.date);
  else if (b.type.kind === 'date' && isMidnight(a))
    a = lit((a as Extract<Expr, { kind: 'literal' }>).value!.toString().slice(0, 10), t.date);
  const ct = commonSupertype(a.type, b.type);
  if (ct === undefined) {
    throw ctx.error(
      'user',
      'undefined_function',
      `operator does not exist: ${typeText(a.type)} ${opText(fn)} ${typeText(b.type)}; add an explicit cast`,
      node,
    );
  }
  return call(fn, [coerce(ctx, a, ct), coerce(ctx, b, ct)]);
}

function isMidnight(e: Expr): boolean {
  return (
    e.kind === 'literal' && e.type.kind === 'timestamp' && typeof e.value === 'string' && e.value.endsWith('T00:00:00')
  );
}

function opText(fn: ScalarFn): string {
  return ({ eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=' } as Record<string, string>)[fn] ?? fn;
}

function boolOperand(env: ExprEnv, e: Expr, node: C.Node): Expr {
  if (e.type.kind === 'bool') return e;
  if (isUnknown(env.ctx, e)) return coerce(env.ctx, e, t.bool, node);
  throw env.ctx.typeMismatch(`argument of ${env.clause} must be type boolean, not type ${typeText(e.type)}`, node);
}

export function requireBool(env: ExprEnv, e: Expr, node: C.Node): Expr {
  return boolOperand(env, e, node);
}

function binary(env: ExprEnv, node: C.BinaryExpr): Expr {
  const { ctx } = env;
  const op = kw(node.operator);
  if (op === 'AND' || op === 'OR') {
    const a = boolOperand(env, bindExpr(env, node.left), node.left);
    const b = boolOperand(env, bindExpr(env, node.right), node.right);
    return call(op === 'AND' ? 'and' : 'or', [a, b]);
  }
  if (COMPARISONS[op] && (node.right as C.Node).type === 'quantifier_expr') return quantified(env, node, COMPARISONS[op]);
  if (COMPARISONS[op])
    return comparison(env, COMPARISONS[op], bindExpr(env, node.left), bindExpr(env, node.right), node);
  if (ARITHMETIC[op])
    return arithmeticCall(ctx, ARITHMETIC[op], bindExpr(env, node.left), bindExpr(env, node.right), node);
  switch (op) {
    case '||': {
      const a = bindExpr(env, node.left);
      const b = bindExpr(env, node.right);
      return fold(call('concat', [textArg(ctx, a, node.left), textArg(ctx, b, node.right)], t.string));
    }
    case '^':
      return SCALARS.power(ctx, [bindExpr(env, node.left), bindExpr(env, node.right)], [node.left, node.right], node);
    case 'IS':
    case 'IS NOT': {
      const x = bindExpr(env, node.left);
      const right = node.right as C.Node;
      const negate = op === 'IS NOT';
      if (right.type === 'null_literal') return call(negate ? 'is_not_null' : 'is_null', [x]);
      if (right.type === 'boolean_literal') {
        return call(negate ? 'is_distinct_from' : 'is_not_distinct_from', [
          boolOperand(env, x, node.left),
          lit(right.value, t.bool),
        ]);
      }
      throw ctx.unsupported(`IS ${negate ? 'NOT ' : ''}${describeNode(ctx, right)}`, node);
    }
    case 'IS DISTINCT FROM':
    case 'IS NOT DISTINCT FROM': {
      const c = comparison(env, 'eq', bindExpr(env, node.left), bindExpr(env, node.right), node) as Extract<
        Expr,
        { kind: 'call' }
      >;
      return call(op === 'IS DISTINCT FROM' ? 'is_distinct_from' : 'is_not_distinct_from', c.args);
    }
    case 'IN':
    case 'NOT IN':
      return inList(env, node, op === 'NOT IN');
    case 'LIKE':
    case 'NOT LIKE':
    case 'ILIKE':
    case 'NOT ILIKE':
      return like(env, node.left, node.right, undefined, op, node);
    case 'ESCAPE': {
      const inner = node.left as C.Node;
      if (inner.type !== 'binary_expr' || !/LIKE$/.test(kw(inner.operator)))
        throw ctx.unsupported('ESCAPE outside LIKE', node);
      return like(env, inner.left, inner.right, node.right, kw(inner.operator), node);
    }
    case 'SIMILAR TO':
    case 'NOT SIMILAR TO':
      throw ctx.unsupported('SIMILAR TO', node);
  }
  throw ctx.unsupported(`operator ${op}`, node);
}

function like(
  env: ExprEnv,
  valueNode: C.Node,
  patternNode: C.Node,
  escapeNode: C.Node | undefined,
  op: string,
  _node: C.Node,
): Expr {
  const { ctx } = env;
  if (!escapeNode && patternNode.type === 'binary_expr' && kw(patternNode.operator) === 'ESCAPE') {
    // the parser reads `x LIKE p ESCAPE e` as x LIKE (p ESCAPE e)
    escapeNode = patternNode.right;
    patternNode = patternNode.left;
  }
  let value = bindExpr(env, valueNode);
  if (value.type.kind !== 'string' || isUnknown(ctx, value)) value = textArg(ctx, value, valueNode);
  let pattern = textArg(ctx, bindExpr(env, patternNode), patternNode);
  if (escapeNode) {
    const esc = bindExpr(env, escapeNode);
    if (
      esc.kind !== 'literal' ||
      typeof esc.value !== 'string' ||
      pattern.kind !== 'literal' ||
      typeof pattern.value !== 'string'
    ) {
      throw ctx.unsupported('LIKE … ESCAPE with a non-constant pattern or escape', escapeNode);
    }
    if (esc.value.length > 1)
      throw ctx.error(
        'user',
        'invalid_escape_sequence',
        'invalid escape string: it must be empty or one character',
        escapeNode,
      );
    pattern = lit(rewriteEscape(pattern.value, esc.value), t.string);
  }
  const fn: ScalarFn = op.includes('ILIKE') ? 'ilike' : 'like';
  const c = call(fn, [value, pattern]);
  return op.startsWith('NOT') ? call('not', [c]) : c;
}

/** Rewrites a LIKE pattern written with a custom (or no) escape character to the '\' form. */
function rewriteEscape(pattern: string, escape: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (escape !== '' && c === escape && i + 1 < pattern.length) {
      out += '\\' + pattern[++i];
    } else if (c === '\\') out += '\\\\';
    else out += c;
  }
  return out;
}

function inList(env: ExprEnv, node: C.BinaryExpr, negated: boolean): Expr {
  const { ctx } = env;
  const right = node.right as C.Node;
  if (right.type !== 'paren_expr') throw ctx.unsupported('IN without a parenthesised list', node);
  const inner = right.expr as C.Node;
  if (inner.type === 'select_stmt' || inner.type === 'compound_select_stmt') {
    if (!env.subqueries?.mark) throw ctx.unsupported(`IN (subquery) in ${env.clause}`, node);
    const m = env.subqueries.mark(env, node, inner, { x: bindExpr(env, node.left), fn: 'eq' });
    return negated ? call('not', [m]) : m;
  }
  const items = inner.type === 'list_expr' ? inner.items : [inner];
  const x = bindExpr(env, node.left);
  const list = items.map((i) => bindExpr(env, i as C.Node));
  const u = unify(ctx, [x, ...list], 'IN', node);
  return { kind: 'in', expr: u.exprs[0], list: u.exprs.slice(1), negated, type: t.bool };
}

const NEGATED: Partial<Record<ScalarFn, ScalarFn>> = { eq: 'ne', ne: 'eq', lt: 'ge', le: 'gt', gt: 'le', ge: 'lt' };

/**
 * x op ANY|SOME (SELECT …) is a mark join on `x op y`; x op ALL (…) is NOT (x op' ANY (…))
 * with op' the negated comparison, which keeps SQL's NULL answers (NOT (x < y) is x >= y).
 */
function quantified(env: ExprEnv, node: C.BinaryExpr, fn: ScalarFn): Expr {
  const { ctx } = env;
  const q = node.right as C.QuantifierExpr;
  const word = q.quantifierKw.name.toUpperCase();
  const inner = q.expr.expr as C.Node;
  if (inner.type !== 'select_stmt' && inner.type !== 'compound_select_stmt')
    throw ctx.unsupported(`${word} over a list or an array`, node);
  if (!env.subqueries?.mark) throw ctx.unsupported(`${word} (subquery) in ${env.clause}`, node);
  const x = bindExpr(env, node.left);
  if (word === 'ALL') return call('not', [env.subqueries.mark(env, node, inner, { x, fn: NEGATED[fn]! })]);
  return env.subqueries.mark(env, node, inner, { x, fn });
}

function prefix(env: ExprEnv, node: C.PrefixOpExpr): Expr {
  const { ctx } = env;
  const op = kw(node.operator);
  if (op === 'NOT') return call('not', [boolOperand(env, bindExpr(env, node.expr), node.expr)]);
  if (op === '-') {
    const x = bindExpr(env, node.expr);
    if (x.kind === 'literal' && x.value !== null && !isUnknown(ctx, x)) {
      if (typeof x.value === 'number') return lit(-x.value, x.type);
      if (typeof x.value === 'bigint') {
        const v = -x.value;
        return v === -2147483648n ? lit(-2147483648, t.int32) : lit(v, t.int64);
      }
      if (x.type.kind === 'decimal') {
        const s = x.value as string;
        // -9223372036854775808 is an int8 constant in PostgreSQL
        if (s === '9223372036854775808') return lit(-9223372036854775808n, t.int64);
        return lit(s.startsWith('-') ? s.slice(1) : '-' + s, x.type);
      }
    }
    const operand = isUnknown(ctx, x) ? coerce(ctx, x, t.decimal()) : x;
    return call('neg', [operand]);
  }
  if (op === '+') return bindExpr(env, node.expr);
  if (op === 'EXISTS') {
    const inner = node.expr.type === 'paren_expr' ? (node.expr.expr as C.Node) : undefined;
    if (!inner || (inner.type !== 'select_stmt' && inner.type !== 'compound_select_stmt'))
      throw ctx.error('user', 'syntax_error', 'EXISTS needs a parenthesised subquery', node);
    if (!env.subqueries?.mark) throw ctx.unsupported(`EXISTS in ${env.clause}`, node);
    return env.subqueries.mark(env, node, inner);
  }
  throw ctx.unsupported(`operator ${op}`, node);
}

function caseExpr(env: ExprEnv, node: C.CaseExpr): Expr {
  const { ctx } = env;
  const whens = node.clauses.filter((c): c is C.CaseWhen<C.Expr> => c.type === 'case_when');
  const elseClause = node.clauses.find((c): c is C.CaseElse<C.Expr> => c.type === 'case_else');
  let operand = node.expr ? bindExpr(env, node.expr) : undefined;
  let conds = whens.map((w) => bindExpr(env, w.condition));
  if (operand) {
    const u = unify(ctx, [operand, ...conds], 'CASE/WHEN', node);
    operand = u.exprs[0];
    conds = u.exprs.slice(1);
  } else conds = conds.map((c, i) => boolOperand(env, c, whens[i].condition));
  const results = whens.map((w) => bindExpr(env, w.result));
  const elseExpr = elseClause ? bindExpr(env, elseClause.result) : undefined;
  const u = unify(ctx, elseExpr ? [...results, elseExpr] : results, 'CASE', node);
  return {
    kind: 'case',
    ...(operand ? { operand } : {}),
    whens: conds.map((c, i) => ({ when: c, then: u.exprs[i] })),
    ...(elseExpr ? { else: u.exprs[u.exprs.length - 1] } : {}),
    type: u.type,
  };
}

export function dataType(ctx: BindContext, node: C.Node): JType {
  switch (node.type) {
    case 'data_type_name': {
      const name = Array.isArray(node.name) ? node.name.map((k) => k.name).join(' ') : node.name.name;
      const ty = parseTypeName(name);
      if (ty) return ty;
      break;
    }
    case 'identifier': {
      const ty = parseTypeName(node.name);
      if (ty) return ty;
      break;
    }
    case 'modified_data_type': {
      const base = node.dataType;
      const name =
        base.type === 'data_type_name'
          ? Array.isArray(base.name)
            ? base.name.map((k) => k.name).join(' ')
            : base.name.name
          : base.type === 'identifier'
            ? base.name
            : '';
      const mods = node.modifiers;
      const params: number[] = [];
      if (mods && mods.type === 'paren_expr') {
        for (const m of mods.expr.items) {
          if ((m as C.Node).type !== 'number_literal')
            throw ctx.unsupported('a non-numeric type modifier', m as C.Node);
          params.push((m as C.NumberLiteral).value);
        }
      }
      const ty = parseTypeName(name, params);
      if (ty) return ty;
      break;
    }
    case 'time_data_type': {
      const tz = node.timeZoneKw && node.timeZoneKw[0].name.toUpperCase() === 'WITH';
      if (node.timeKw.name.toUpperCase() === 'TIME') {
        if (tz) throw ctx.unsupported('time with time zone', node);
        return t.time;
      }
      return tz ? t.timestamptz : t.timestamp;
    }
    case 'interval_data_type':
      return t.interval;
  }
  throw ctx.error(
    'user',
    'undefined_object',
    `type ${describeNode(ctx, node)} does not exist or is not supported`,
    node,
  );
}

function cast(env: ExprEnv, exprNode: C.Node, typeNode: C.Node, node: C.Node): Expr {
  const { ctx } = env;
  const x = bindExpr(env, exprNode);
  const target = dataType(ctx, typeNode);
  if (x.kind === 'param' && x.type.kind === 'unknown') return coerce(ctx, x, target, node);
  if (x.kind === 'literal') {
    // fold constant casts, keeping the declared typmod (numeric(10,2), varchar(5))
    const folded = coerce(ctx, lit(x.value, isUnknown(ctx, x) ? t.string : x.type), target, node);
    if (folded.kind === 'literal') return { kind: 'literal', value: folded.value, type: target };
    return folded;
  }
  if (x.type.kind === target.kind && target.kind !== 'decimal' && target.kind !== 'string') return x;
  return { kind: 'cast', expr: x, type: target };
}

function funcCall(env: ExprEnv, node: C.FuncCall): Expr {
  const { ctx } = env;
  const parts = nameParts(node.name);
  if (!parts || parts.length !== 1) throw ctx.unsupported(`function ${describeNode(ctx, node.name)}`, node);
  const name = parts[0].name.toLowerCase();
  const fargs = node.args?.expr;
  const argNodes = (fargs?.args.items ?? []) as C.Node[];
  if (fargs?.orderBy || fargs?.limit || fargs?.having || fargs?.nullHandlingKw)
    throw ctx.unsupported(`${name}(… ORDER BY/LIMIT …)`, node);

  if (node.over) return windowCall(env, node, name, argNodes);
  const agg = AGGREGATES[name];
  if (agg) {
    if (!env.aggregates) {
      throw ctx.error('user', 'grouping_error', `aggregate functions are not allowed in ${env.clause}`, node);
    }
    // a subquery inside an aggregate's arguments must be evaluated below the Aggregate: keep it an expression
    const inner: ExprEnv = {
      ctx,
      scope: env.scope,
      clause: `the arguments of ${name}()`,
      subqueries: env.subqueries?.plain ?? env.subqueries,
    };
    const star = argNodes.length === 1 && argNodes[0].type === 'all_columns';
    let fn: AggFn = agg;
    let args: Expr[];
    if (star) {
      if (agg !== 'count') throw ctx.error('user', 'syntax_error', `${name}(*) is not valid; only count(*) is`, node);
      fn = 'count_star';
      args = [];
    } else {
      args = argNodes.map((a) => bindExpr(inner, a));
      const expected = agg === 'string_agg' ? 2 : 1;
      if (args.length !== expected)
        throw ctx.error(
          'user',
          'undefined_function',
          `${name} takes ${expected} argument${expected > 1 ? 's' : ''}`,
          node,
        );
      args = args.map((a) =>
        isUnknown(ctx, a) ? coerce(ctx, a, agg === 'sum' || agg === 'avg' ? t.decimal() : t.string) : a,
      );
      if (agg === 'string_agg') args = args.map((a, i) => textArg(ctx, a, argNodes[i]));
      try {
        aggregateReturnType(fn, args[0]?.type);
      } catch (e) {
        throw ctx.error('user', 'undefined_function', (e as Error).message, node);
      }
    }
    const filter = node.filter
      ? boolOperand(inner, bindExpr({ ...inner, clause: 'FILTER' }, node.filter.where.expr.expr), node.filter)
      : undefined;
    return env.aggregates.add(fn, args, !!fargs?.distinctKw, filter, name, node);
  }
  if (WINDOWS[name])
    throw ctx.error('user', 'wrong_object_type', `window function ${name} requires an OVER clause`, node);
  if (node.filter)
    throw ctx.error('user', 'wrong_object_type', `FILTER is only allowed for aggregate functions`, node.filter);
  if (fargs?.distinctKw)
    throw ctx.error('user', 'wrong_object_type', `DISTINCT is only allowed for aggregate functions`, node);
  if (
    name === 'position' &&
    argNodes.length === 1 &&
    argNodes[0].type === 'binary_expr' &&
    kw(argNodes[0].operator) === 'IN'
  ) {
    // POSITION(needle IN haystack)
    const b = argNodes[0];
    return call('position', [
      textArg(ctx, bindExpr(env, b.left), b.left),
      textArg(ctx, bindExpr(env, b.right), b.right),
    ]);
  }
  const handler = SCALARS[name];
  if (!handler) throw ctx.unsupported(`function ${name}()`, node.name);
  const args = argNodes.map((a) => bindExpr(env, a));
  return fold(handler(ctx, args, argNodes, node));
}

function windowCall(env: ExprEnv, node: C.FuncCall, name: string, argNodes: C.Node[]): Expr {
  const { ctx } = env;
  if (!env.windows)
    throw ctx.error('user', 'windowing_error', `window functions are not allowed in ${env.clause}`, node);
  const fn: WindowFn | AggFn | undefined = WINDOWS[name] ?? (AGGREGATES[name] as AggFn | undefined);
  if (!fn) throw ctx.unsupported(`window function ${name}()`, node.name);
  const over = node.over!;
  if (over.window.type === 'identifier') throw ctx.unsupported('named windows', over.window);
  const def = over.window.expr;
  if (def.baseWindowName) throw ctx.unsupported('named windows', def.baseWindowName);
  const inner: ExprEnv = {
    ctx,
    scope: env.scope,
    clause: 'window function arguments',
    aggregates: env.aggregates,
    subqueries: env.subqueries,
  };
  const star = argNodes.length === 1 && argNodes[0].type === 'all_columns';
  let realFn: WindowFn | AggFn = fn;
  let args: Expr[] = [];
  if (star) {
    if ((fn as string) !== 'count') throw ctx.error('user', 'syntax_error', `${name}(*) is not valid`, node);
    realFn = 'count_star';
  } else args = argNodes.map((a) => bindExpr(inner, a));
  if (node.args?.expr.distinctKw) throw ctx.unsupported('DISTINCT in window functions', node);
  if (node.filter) throw ctx.unsupported('FILTER in window functions', node.filter);
  if ((realFn === 'lag' || realFn === 'lead') && args.length > 1) {
    args[1] = coerce(ctx, args[1], t.int32);
    if (args.length > 2) args = [args[0], args[1], coerce(ctx, args[2], args[0].type)];
  }
  if (realFn === 'ntile') args = args.map((a) => coerce(ctx, a, t.int32));
  args = args.map((a) => (isUnknown(ctx, a) ? coerce(ctx, a, t.string) : a));
  const partitionBy = (def.partitionBy?.specifications.items ?? []).map((p) => bindExpr(inner, p as C.Node));
  const orderBy = (def.orderBy?.specifications.items ?? []).map((s) => sortKey(inner, s as C.Node));
  const frame = def.frame && def.frame.range ? ctx.sql.text.slice(def.frame.range[0], def.frame.range[1]) : undefined;
  let type: JType;
  try {
    type = windowReturnType(
      realFn,
      args.map((a) => a.type),
    );
  } catch (e) {
    throw ctx.error('user', 'undefined_function', (e as Error).message, node);
  }
  return env.windows.add({ fn: realFn, args, partitionBy, orderBy, ...(frame ? { frame } : {}) }, type, name, node);
}

/** ORDER BY item → SortKey with explicit NULLS placement (ASC → LAST, DESC → FIRST). */
export function sortKey(env: ExprEnv, node: C.Node, bind: (n: C.Node) => Expr = (n) => bindExpr(env, n)): SortKey {
  if (node.type !== 'sort_specification') {
    return { expr: bind(node), desc: false, nullsFirst: false };
  }
  if (node.direction?.type === 'sort_direction_using_operator')
    throw env.ctx.unsupported('ORDER BY … USING', node.direction);
  const desc = node.direction?.type === 'sort_direction_desc';
  const nulls = node.nullHandlingKw ? node.nullHandlingKw[1].name.toUpperCase() === 'FIRST' : desc;
  return { expr: bind(node.expr), desc, nullsFirst: nulls };
}
