import { t } from '@junction/connectors';
import type { AggFn, JType, ScalarFn, WindowFn } from '@junction/connectors';
import type { Node } from 'sql-parser-cst';
import type { Expr } from '../../plan/logical.js';
import { arithmeticType, isNumeric } from '../../expr/types.js';
import type { BindContext } from './context.js';
import { typeText } from './context.js';
import { call, coerce, fold, isUnknown, lit, unify } from './coerce.js';

/** SQL aggregate names → the closed aggregate list. */
export const AGGREGATES: Record<string, AggFn> = {
  count: 'count',
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
  bool_and: 'bool_and',
  bool_or: 'bool_or',
  every: 'bool_and',
  string_agg: 'string_agg',
};

export const WINDOWS: Record<string, WindowFn> = {
  row_number: 'row_number',
  rank: 'rank',
  dense_rank: 'dense_rank',
  lag: 'lag',
  lead: 'lead',
  first_value: 'first_value',
  last_value: 'last_value',
  ntile: 'ntile',
};

type Handler = (ctx: BindContext, args: Expr[], nodes: readonly Node[], node: Node) => Expr;

function arity(ctx: BindContext, name: string, args: Expr[], min: number, max: number, node: Node): void {
  if (args.length < min || args.length > max) {
    throw ctx.error(
      'user',
      'undefined_function',
      `function ${name} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, got ${args.length}`,
      node,
    );
  }
}

/** An argument used as text: unknown literals become text, other non-strings are cast. */
export function textArg(ctx: BindContext, e: Expr, node?: Node): Expr {
  if (e.type.kind === 'string' && !isUnknown(ctx, e)) return e;
  return coerce(ctx, e, t.string, node);
}

function intArg(ctx: BindContext, e: Expr, node?: Node): Expr {
  if (e.type.kind === 'int16' || e.type.kind === 'int32') return e;
  if (isUnknown(ctx, e) || e.type.kind === 'int64') return coerce(ctx, e, t.int32, node);
  throw ctx.typeMismatch(`argument must be an integer, not ${typeText(e.type)}`, node);
}

function numArg(ctx: BindContext, e: Expr, node?: Node): Expr {
  if (isUnknown(ctx, e)) return coerce(ctx, e, t.decimal(), node);
  if (!isNumeric(e.type)) throw ctx.typeMismatch(`argument must be numeric, not ${typeText(e.type)}`, node);
  return e;
}

function simple(
  fn: ScalarFn,
  min: number,
  max: number,
  prep: (ctx: BindContext, e: Expr, i: number, node?: Node) => Expr,
): Handler {
  return (ctx, args, nodes, node) => {
    arity(ctx, fn, args, min, max, node);
    return call(
      fn,
      args.map((a, i) => prep(ctx, a, i, nodes[i])),
    );
  };
}

const textThenInts = (ctx: BindContext, e: Expr, i: number, node?: Node) =>
  i === 0 ? textArg(ctx, e, node) : intArg(ctx, e, node);
const allText = (ctx: BindContext, e: Expr, _i: number, node?: Node) => textArg(ctx, e, node);

function rounding(fn: 'round' | 'trunc'): Handler {
  return (ctx, args, nodes, node) => {
    arity(ctx, fn, args, 1, 2, node);
    let x = numArg(ctx, args[0], nodes[0]);
    // round(int) resolves to round(double precision) in PostgreSQL; round(x, n) exists for numeric only
    if (args.length === 2 && x.type.kind !== 'decimal') x = coerce(ctx, x, t.decimal());
    if (args.length === 1 && x.type.kind !== 'decimal' && x.type.kind !== 'float64') x = coerce(ctx, x, t.float64);
    return call(fn, args.length === 2 ? [x, intArg(ctx, args[1], nodes[1])] : [x]);
  };
}

function unaryNumeric(fn: ScalarFn, toFloatForInts: boolean): Handler {
  return (ctx, args, nodes, node) => {
    arity(ctx, fn, args, 1, 1, node);
    let x = numArg(ctx, args[0], nodes[0]);
    if (toFloatForInts && x.type.kind !== 'decimal' && x.type.kind !== 'float64') x = coerce(ctx, x, t.float64);
    return call(fn, [x]);
  };
}

function variadic(fn: 'coalesce' | 'greatest' | 'least'): Handler {
  return (ctx, args, _nodes, node) => {
    if (args.length === 0) throw ctx.error('user', 'undefined_function', `${fn} needs at least one argument`, node);
    const u = unify(ctx, args, fn.toUpperCase(), node);
    return call(fn, u.exprs, u.type);
  };
}

function datePartLike(fn: 'date_part' | 'date_trunc'): Handler {
  return (ctx, args, nodes, node) => {
    arity(ctx, fn, args, 2, 2, node);
    const field = textArg(ctx, args[0], nodes[0]);
    let source = args[1];
    if (isUnknown(ctx, source))
      source = coerce(ctx, source, fn === 'date_trunc' ? t.timestamptz : t.timestamp, nodes[1]);
    const k = source.type.kind;
    if (k !== 'date' && k !== 'timestamp' && k !== 'timestamptz' && k !== 'interval' && k !== 'time') {
      throw ctx.typeMismatch(`function ${fn}(text, ${typeText(source.type)}) does not exist`, node);
    }
    return call(fn, [field, source]);
  };
}

/** SQL concat(): NULL arguments are skipped, unlike `||`. */
function sqlConcat(ctx: BindContext, args: Expr[]): Expr {
  if (args.length === 0) return lit('', t.string);
  const parts = args.map((a) => call('coalesce', [textArg(ctx, a), lit('', t.string)], t.string));
  return parts.reduce((a, b) => call('concat', [a, b], t.string));
}

export const SCALARS: Record<string, Handler> = {
  lower: simple('lower', 1, 1, allText),
  lcase: simple('lower', 1, 1, allText),
  upper: simple('upper', 1, 1, allText),
  ucase: simple('upper', 1, 1, allText),
  length: (ctx, args, nodes, node) => {
    arity(ctx, 'length', args, 1, 1, node);
    const a = args[0];
    return call('length', [a.type.kind === 'string' && !isUnknown(ctx, a) ? a : textArg(ctx, a, nodes[0])]);
  },
  char_length: (ctx, args, nodes, node) => SCALARS.length(ctx, args, nodes, node),
  character_length: (ctx, args, nodes, node) => SCALARS.length(ctx, args, nodes, node),
  substring: simple('substring', 2, 3, textThenInts),
  substr: simple('substring', 2, 3, textThenInts),
  strpos: (ctx, args, nodes, node) => {
    arity(ctx, 'strpos', args, 2, 2, node);
    return call('position', [textArg(ctx, args[1], nodes[1]), textArg(ctx, args[0], nodes[0])]);
  },
  trim: simple('trim', 1, 2, allText),
  btrim: simple('trim', 1, 2, allText),
  ltrim: simple('ltrim', 1, 2, allText),
  rtrim: simple('rtrim', 1, 2, allText),
  replace: simple('replace', 3, 3, allText),
  left: simple('left', 2, 2, textThenInts),
  right: simple('right', 2, 2, textThenInts),
  lpad: simple('lpad', 2, 3, (ctx, e, i, n) => (i === 1 ? intArg(ctx, e, n) : textArg(ctx, e, n))),
  rpad: simple('rpad', 2, 3, (ctx, e, i, n) => (i === 1 ? intArg(ctx, e, n) : textArg(ctx, e, n))),
  starts_with: simple('starts_with', 2, 2, allText),
  concat: (ctx, args) => sqlConcat(ctx, args),
  abs: unaryNumeric('abs', false),
  sign: unaryNumeric('sign', false),
  floor: unaryNumeric('floor', true),
  ceil: unaryNumeric('ceil', true),
  ceiling: unaryNumeric('ceil', true),
  sqrt: unaryNumeric('sqrt', true),
  round: rounding('round'),
  trunc: rounding('trunc'),
  truncate: rounding('trunc'),
  power: (ctx, args, nodes, node) => {
    arity(ctx, 'power', args, 2, 2, node);
    const a = numArg(ctx, args[0], nodes[0]);
    const b = numArg(ctx, args[1], nodes[1]);
    const target: JType = a.type.kind === 'decimal' || b.type.kind === 'decimal' ? t.decimal() : t.float64;
    return call('power', [coerce(ctx, a, target), coerce(ctx, b, target)]);
  },
  pow: (ctx, args, nodes, node) => SCALARS.power(ctx, args, nodes, node),
  mod: (ctx, args, nodes, node) => {
    arity(ctx, 'mod', args, 2, 2, node);
    return arithmeticCall(ctx, 'mod', numArg(ctx, args[0], nodes[0]), numArg(ctx, args[1], nodes[1]), node);
  },
  coalesce: variadic('coalesce'),
  ifnull: variadic('coalesce'),
  greatest: variadic('greatest'),
  least: variadic('least'),
  nullif: (ctx, args, _nodes, node) => {
    arity(ctx, 'nullif', args, 2, 2, node);
    const u = unify(ctx, args, 'NULLIF', node);
    return call('nullif', u.exprs, u.type);
  },
  date_part: datePartLike('date_part'),
  date_trunc: datePartLike('date_trunc'),
  current_date: simple('current_date', 0, 0, (_c, e) => e),
  curdate: simple('current_date', 0, 0, (_c, e) => e),
  current_timestamp: simple('current_timestamp', 0, 0, (_c, e) => e),
  now: simple('current_timestamp', 0, 0, (_c, e) => e),
  localtimestamp: (ctx, args, nodes, node) => ({
    kind: 'cast',
    expr: SCALARS.now(ctx, args, nodes, node),
    type: t.timestamp,
  }),
  make_date: simple('make_date', 3, 3, (ctx, e, _i, n) => intArg(ctx, e, n)),
};

/** Arithmetic with PostgreSQL's operand resolution (unknown literals adopt the other side's type). */
export function arithmeticCall(
  ctx: BindContext,
  fn: 'add' | 'sub' | 'mul' | 'div' | 'mod',
  a: Expr,
  b: Expr,
  node?: Node,
): Expr {
  if (isUnknown(ctx, a) && !isUnknown(ctx, b)) a = coerce(ctx, a, unknownPartner(b.type, fn));
  else if (isUnknown(ctx, b) && !isUnknown(ctx, a)) b = coerce(ctx, b, unknownPartner(a.type, fn));
  else if (isUnknown(ctx, a) && isUnknown(ctx, b)) {
    a = coerce(ctx, a, t.decimal());
    b = coerce(ctx, b, t.decimal());
  }
  return coerceArithmetic(ctx, fn, a, b, node);
}

/** date - '…' reads the literal as a date (date - date), timestamp ± '…' as an interval. */
function unknownPartner(other: JType, fn: string): JType {
  if (other.kind === 'timestamp' || other.kind === 'timestamptz') return t.interval;
  if (other.kind === 'date' && fn === 'add') return t.int32;
  return other;
}

function coerceArithmetic(
  ctx: BindContext,
  fn: 'add' | 'sub' | 'mul' | 'div' | 'mod',
  a: Expr,
  b: Expr,
  node?: Node,
): Expr {
  let at: ReturnType<typeof arithmeticType>;
  try {
    at = arithmeticType(fn, a.type, b.type);
  } catch (e) {
    throw ctx.error('user', 'undefined_function', (e as Error).message, node);
  }
  const left = a.type.kind === at.left.kind ? a : coerce(ctx, a, at.left);
  const right = b.type.kind === at.right.kind ? b : coerce(ctx, b, at.right);
  return fold({ kind: 'call', fn, args: [left, right], type: at.result });
}
