import { JunctionError, t } from '@junction/connectors';
import type { JType, ScalarFn, Value } from '@junction/connectors';
import * as dec from '../decimal.js';
import { castValue, valueToText } from '../cast.js';
import { comparatorFor, trimTrailingBlanks } from '../compare.js';
import {
  dateToDays,
  datePart,
  dateTrunc,
  daysFromCivil,
  daysInMonth,
  formatDate,
  formatInterval,
  formatTs,
  parseCanonicalTs,
  parseInterval,
  timeToUs,
} from '../datetime.js';
import { arithmeticType, commonSupertype } from '../types.js';
import type { ArithmeticOp } from '../types.js';
import { arithmetic } from './arithmetic.js';
import { strict1, strict2, strictN } from './eval.js';
import type { Eval } from './eval.js';
import * as str from './strings.js';

/**
 * Argument conventions of the closed function list (connectors render the same order):
 *   like/ilike(value, pattern) with '\' as escape · substring(s, start[, count]) 1-based ·
 *   position(needle, haystack) like SQL's POSITION(needle IN haystack) · trim/ltrim/rtrim(s[, chars]) ·
 *   lpad/rpad(s, n[, fill]) · replace(s, from, to) · left/right(s, n) · round/trunc(x[, digits]) ·
 *   date_part(field, source) / date_trunc(field, source) with the field a string ·
 *   make_date(y, m, d) · concat(a, b) is `||` (NULL in → NULL out).
 */
export interface CallContext {
  /** statement start, so current_date/current_timestamp are stable within a statement */
  readonly now: Date;
}

/** Wraps `e` so its values arrive as `to` (implicit coercion the binder may have left out). */
export function coerceEval(e: Eval, from: JType, to: JType): Eval {
  if (from.kind === to.kind || from.kind === 'null') {
    if (!(from.kind === 'string' && from.fixed && !to.fixed)) return e;
  }
  if (to.kind === 'decimal' && from.kind === 'decimal') return e;
  const target: JType = to.kind === 'decimal' ? t.decimal() : to;
  return strict1(e, (v) => castValue(v, from, target));
}

const COMPARE: Record<string, (c: number) => boolean> = {
  eq: (c) => c === 0,
  ne: (c) => c !== 0,
  lt: (c) => c < 0,
  le: (c) => c <= 0,
  gt: (c) => c > 0,
  ge: (c) => c >= 0,
};

function comparisonType(a: JType, b: JType): JType {
  const s = commonSupertype(a, b);
  if (s === undefined) {
    throw new JunctionError(
      'undefined_function',
      'user',
      `cannot compare ${a.kind} with ${b.kind}; add an explicit cast`,
    );
  }
  return s;
}

function compileComparison(fn: string, args: readonly Eval[], types: readonly JType[]): Eval {
  const ct = comparisonType(types[0], types[1]);
  const a = coerceEval(args[0], types[0], ct);
  const b = coerceEval(args[1], types[1], ct);
  const test = COMPARE[fn];
  // identity equality is exact for these representations, so skip the comparator
  const identity =
    ct.kind === 'int16' ||
    ct.kind === 'int32' ||
    ct.kind === 'int64' ||
    ct.kind === 'date' ||
    ct.kind === 'bool' ||
    (ct.kind === 'string' && !ct.fixed);
  if (identity && fn === 'eq') return strict2(a, b, (x, y) => x === y);
  if (identity && fn === 'ne') return strict2(a, b, (x, y) => x !== y);
  const cmp = comparatorFor(ct);
  if (
    ct.kind === 'int32' ||
    ct.kind === 'int16' ||
    ct.kind === 'date' ||
    (ct.kind === 'string' && !ct.fixed && fn !== 'eq')
  ) {
    // primitive order matches PostgreSQL's for these except astral code points in strings
    if (ct.kind !== 'string') {
      switch (fn) {
        case 'lt':
          return strict2(a, b, (x, y) => (x as number) < (y as number));
        case 'le':
          return strict2(a, b, (x, y) => (x as number) <= (y as number));
        case 'gt':
          return strict2(a, b, (x, y) => (x as number) > (y as number));
        case 'ge':
          return strict2(a, b, (x, y) => (x as number) >= (y as number));
      }
    }
  }
  return strict2(a, b, (x, y) => test(cmp(x, y)));
}

function compileDistinct(negated: boolean, args: readonly Eval[], types: readonly JType[]): Eval {
  const ct = comparisonType(types[0], types[1]);
  const a = coerceEval(args[0], types[0], ct);
  const b = coerceEval(args[1], types[1], ct);
  const cmp = comparatorFor(ct);
  return (row, params) => {
    const x = a(row, params);
    const y = b(row, params);
    let distinct: boolean;
    if (x === null || y === null) distinct = x !== y;
    else distinct = cmp(x, y) !== 0;
    return negated ? !distinct : distinct;
  };
}

function compileAnd(args: readonly Eval[]): Eval {
  if (args.length === 2) {
    const [a, b] = args;
    return (row, params) => {
      const x = a(row, params);
      if (x === false) return false;
      const y = b(row, params);
      if (y === false) return false;
      return x === null || y === null ? null : true;
    };
  }
  return (row, params) => {
    let sawNull = false;
    for (const a of args) {
      const v = a(row, params);
      if (v === false) return false;
      if (v === null) sawNull = true;
    }
    return sawNull ? null : true;
  };
}

function compileOr(args: readonly Eval[]): Eval {
  return (row, params) => {
    let sawNull = false;
    for (const a of args) {
      const v = a(row, params);
      if (v === true) return true;
      if (v === null) sawNull = true;
    }
    return sawNull ? null : false;
  };
}

function datePartResult(field: string, sourceKind: string, type: JType): (n: number) => Value {
  if (type.kind !== 'decimal') return (n) => n;
  const f = field.toLowerCase();
  // EXTRACT returns numeric with the fractional digits PostgreSQL shows for the field
  const scale =
    f === 'second' || f === 'seconds' ? 6 : f === 'milliseconds' ? 3 : f === 'epoch' && sourceKind !== 'date' ? 6 : 0;
  return (n) => dec.formatDec(dec.rescale(dec.parseDec(n.toFixed(6)), scale));
}

function toTs(v: Value, kind: string): { days: number; us: number } {
  if (kind === 'date') return { days: dateToDays(v as string), us: 0 };
  if (kind === 'time') return { days: 0, us: timeToUs(v as string) };
  return parseCanonicalTs(v as string);
}

function int(v: Value): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

/** Round half to even (C's rint), which PostgreSQL's round(double precision) uses. */
function rint(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * Compiles one scalar call. `args` are compiled operands with `types`; `type` is the call's
 * result type as the binder inferred it.
 */
export function compileCall(
  fn: ScalarFn,
  args: readonly Eval[],
  types: readonly JType[],
  type: JType,
  ctx: CallContext,
): Eval {
  switch (fn) {
    case 'eq':
    case 'ne':
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge':
      return compileComparison(fn, args, types);
    case 'is_distinct_from':
    case 'is_not_distinct_from':
      return compileDistinct(fn === 'is_not_distinct_from', args, types);
    case 'and':
      return compileAnd(args);
    case 'or':
      return compileOr(args);
    case 'not':
      return strict1(args[0], (x) => !x);
    case 'is_null': {
      const a = args[0];
      return (row, params) => a(row, params) === null;
    }
    case 'is_not_null': {
      const a = args[0];
      return (row, params) => a(row, params) !== null;
    }
    case 'coalesce': {
      const cs = args.map((a, i) => coerceEval(a, types[i], type));
      return (row, params) => {
        for (const a of cs) {
          const v = a(row, params);
          if (v !== null) return v;
        }
        return null;
      };
    }
    case 'nullif': {
      const eq = compileComparison('eq', args, types);
      const a = args[0];
      return (row, params) => {
        const x = a(row, params);
        if (x === null) return null;
        return eq(row, params) === true ? null : x;
      };
    }
    case 'greatest':
    case 'least': {
      const cs = args.map((a, i) => coerceEval(a, types[i], type));
      const cmp = comparatorFor(type);
      const sign = fn === 'greatest' ? 1 : -1;
      return (row, params) => {
        let best: Value = null;
        for (const a of cs) {
          const v = a(row, params);
          if (v !== null && (best === null || sign * cmp(v, best) > 0)) best = v;
        }
        return best;
      };
    }
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'mod': {
      const at = arithmeticType(fn as ArithmeticOp, types[0], types[1]);
      if (at.result.kind === 'null') return () => null;
      const op = arithmetic(fn as ArithmeticOp, at.left, at.right, at.result);
      return strict2(coerceEval(args[0], types[0], at.left), coerceEval(args[1], types[1], at.right), op);
    }
    case 'neg':
      switch (types[0].kind) {
        case 'int64':
          return strict1(args[0], (x) => -(x as bigint));
        case 'decimal':
          return strict1(args[0], (x) => dec.formatDec(dec.neg(dec.parseDec(x as string))));
        case 'interval':
          return strict1(args[0], (x) => {
            const iv = parseInterval(x as string);
            return formatIntervalNeg(iv);
          });
        default:
          return strict1(args[0], (x) => (x === 0 ? 0 : -(x as number)));
      }
    case 'abs':
      switch (types[0].kind) {
        case 'int64':
          return strict1(args[0], (x) => ((x as bigint) < 0n ? -(x as bigint) : x));
        case 'decimal':
          return strict1(args[0], (x) => dec.formatDec(dec.abs(dec.parseDec(x as string))));
        default:
          return strict1(args[0], (x) => Math.abs(x as number));
      }
    case 'sign':
      if (types[0].kind === 'decimal')
        return strict1(args[0], (x) => dec.formatDec({ v: BigInt(dec.sign(dec.parseDec(x as string))), s: 0 }));
      return strict1(coerceEval(args[0], types[0], t.float64), (x) => Math.sign(x as number));
    case 'round':
    case 'trunc':
    case 'floor':
    case 'ceil':
      return compileRounding(fn, args, types, type);
    case 'power':
    case 'sqrt':
      return compilePower(fn, args, types, type);
    case 'concat': {
      const parts = args.map((a, i) => textEval(a, types[i]));
      return strict2(parts[0], parts[1], (x, y) => (x as string) + (y as string));
    }
    case 'lower':
      return strict1(textEval(args[0], types[0]), (x) => (x as string).toLowerCase());
    case 'upper':
      return strict1(textEval(args[0], types[0]), (x) => (x as string).toUpperCase());
    case 'length': {
      const fixed = types[0].kind === 'string' && !!types[0].fixed;
      return strict1(args[0], (x) => str.length(typeof x === 'string' ? x : valueToText(x, types[0]), fixed));
    }
    case 'substring':
      return strictN([textEval(args[0], types[0]), ...args.slice(1)], (xs) =>
        str.substring(xs[0] as string, int(xs[1]), xs.length > 2 ? int(xs[2]) : undefined),
      );
    case 'position':
      return strict2(textEval(args[0], types[0]), textEval(args[1], types[1]), (n, h) =>
        str.position(n as string, h as string),
      );
    case 'trim':
    case 'ltrim':
    case 'rtrim': {
      const side = fn === 'trim' ? 'both' : fn === 'ltrim' ? 'leading' : 'trailing';
      return strictN(
        args.map((a, i) => textEval(a, types[i])),
        (xs) => str.trim(xs[0] as string, xs.length > 1 ? (xs[1] as string) : ' ', side),
      );
    }
    case 'replace':
      return strictN(
        args.map((a, i) => textEval(a, types[i])),
        (xs) => str.replace(xs[0] as string, xs[1] as string, xs[2] as string),
      );
    case 'left':
    case 'right': {
      const f = fn === 'left' ? str.left : str.right;
      return strict2(textEval(args[0], types[0]), args[1], (s, n) => f(s as string, int(n)));
    }
    case 'lpad':
    case 'rpad': {
      const f = fn === 'lpad' ? str.lpad : str.rpad;
      const fill = args.length > 2 ? textEval(args[2], types[2]) : undefined;
      return strictN([textEval(args[0], types[0]), args[1], ...(fill ? [fill] : [])], (xs) =>
        f(xs[0] as string, int(xs[1]), xs.length > 2 ? (xs[2] as string) : ' '),
      );
    }
    case 'like':
    case 'ilike': {
      const m = str.likeMatcher(fn === 'ilike');
      return strict2(args[0], textEval(args[1], types[1]), (v, p) =>
        m(typeof v === 'string' ? v : valueToText(v, types[0]), p as string),
      );
    }
    case 'starts_with':
      return strict2(textEval(args[0], types[0]), textEval(args[1], types[1]), (s, p) =>
        (s as string).startsWith(p as string),
      );
    case 'date_part': {
      const kind = types[1].kind;
      return strict2(args[0], args[1], (f, v) => {
        const field = f as string;
        const n =
          kind === 'interval'
            ? datePart(field, { days: 0, us: 0 }, parseInterval(v as string))
            : datePart(field, toTs(v, kind));
        return datePartResult(field, kind, type)(n);
      });
    }
    case 'date_trunc': {
      const kind = types[1].kind;
      const tz = type.kind === 'timestamptz';
      if (kind === 'interval') {
        throw new JunctionError(
          'feature_not_supported',
          'unsupported',
          'date_trunc on an interval is not supported; truncate a timestamp instead',
        );
      }
      return strict2(args[0], args[1], (f, v) => formatTs(dateTrunc(f as string, toTs(v, kind)), tz));
    }
    case 'current_date': {
      const d = ctx.now.toISOString().slice(0, 10);
      return () => d;
    }
    case 'current_timestamp': {
      const iso = ctx.now.toISOString();
      const ts = iso.slice(0, 19) + (iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23)) + 'Z';
      return () => ts;
    }
    case 'make_date':
      return strictN(args, (xs) => {
        const y = int(xs[0]);
        const m = int(xs[1]);
        const d = int(xs[2]);
        if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || y === 0) {
          throw new JunctionError('datetime_field_overflow', 'user', `date field value out of range: ${y}-${m}-${d}`);
        }
        return formatDate(daysFromCivil(y, m, d));
      });
  }
  throw new JunctionError('internal_error', 'internal', `no evaluator for function ${String(fn)}`);
}

function formatIntervalNeg(iv: { months: number; days: number; us: number }): string {
  return formatInterval({ months: -iv.months, days: -iv.days, us: -iv.us });
}

/** Operand as text, as PostgreSQL's implicit anything→text for string functions and `||`. */
function textEval(e: Eval, type: JType): Eval {
  if (type.kind === 'string') return type.fixed ? strict1(e, (x) => trimTrailingBlanks(x as string)) : e;
  if (type.kind === 'null' || type.kind === 'unknown') return e;
  return strict1(e, (x) => valueToText(x, type));
}

function compileRounding(
  fn: 'round' | 'trunc' | 'floor' | 'ceil',
  args: readonly Eval[],
  types: readonly JType[],
  type: JType,
): Eval {
  if (type.kind === 'decimal' || types[0].kind === 'decimal') {
    const a = coerceEval(args[0], types[0], t.decimal());
    if (fn === 'floor') return strict1(a, (x) => dec.formatDec(dec.floor(dec.parseDec(x as string))));
    if (fn === 'ceil') return strict1(a, (x) => dec.formatDec(dec.ceil(dec.parseDec(x as string))));
    const f = fn === 'round' ? dec.round : dec.trunc;
    if (args.length === 1) return strict1(a, (x) => dec.formatDec(f(dec.parseDec(x as string), 0)));
    return strict2(a, args[1], (x, n) => dec.formatDec(f(dec.parseDec(x as string), int(n))));
  }
  const a = coerceEval(args[0], types[0], t.float64);
  switch (fn) {
    case 'round':
      if (args.length > 1) {
        throw new JunctionError(
          'undefined_function',
          'user',
          'function round(double precision, integer) does not exist; cast the first argument to numeric',
        );
      }
      return strict1(a, (x) => rint(x as number));
    case 'trunc':
      return strict1(a, (x) => Math.trunc(x as number));
    case 'floor':
      return strict1(a, (x) => Math.floor(x as number));
    case 'ceil':
      return strict1(a, (x) => Math.ceil(x as number));
  }
}

function compilePower(fn: 'power' | 'sqrt', args: readonly Eval[], types: readonly JType[], type: JType): Eval {
  if (type.kind === 'decimal') {
    const a = coerceEval(args[0], types[0], t.decimal());
    if (fn === 'sqrt') return strict1(a, (x) => dec.formatDec(dec.sqrt(dec.parseDec(x as string))));
    const b = coerceEval(args[1], types[1], t.decimal());
    return strict2(a, b, (x, y) => decimalPower(x as string, y as string));
  }
  const a = coerceEval(args[0], types[0], t.float64);
  if (fn === 'sqrt') {
    return strict1(a, (x) => {
      if ((x as number) < 0)
        throw new JunctionError(
          'invalid_argument_for_power_function',
          'user',
          'cannot take square root of a negative number',
        );
      return Math.sqrt(x as number);
    });
  }
  const b = coerceEval(args[1], types[1], t.float64);
  return strict2(a, b, (x, y) => floatPower(x as number, y as number));
}

function floatPower(x: number, y: number): number {
  if (x === 0 && y < 0)
    throw new JunctionError(
      'invalid_argument_for_power_function',
      'user',
      'zero raised to a negative power is undefined',
    );
  if (x < 0 && !Number.isInteger(y)) {
    throw new JunctionError(
      'invalid_argument_for_power_function',
      'user',
      'a negative number raised to a non-integer power yields a complex result',
    );
  }
  return Math.pow(x, y);
}

/**
 * numeric ^ numeric. Integer exponents are computed exactly; the result scale follows
 * PostgreSQL's power_var_int (at least 16 significant digits, at least the base's scale).
 */
function decimalPower(xs: string, ys: string): string {
  const x = dec.parseDec(xs);
  const y = dec.parseDec(ys);
  const yNorm = dec.normalize(y);
  if (yNorm.s === 0 && (yNorm.v < 0n ? -yNorm.v : yNorm.v) <= 1000n) {
    const n = Number(yNorm.v);
    if (x.v === 0n && n < 0)
      throw new JunctionError(
        'invalid_argument_for_power_function',
        'user',
        'zero raised to a negative power is undefined',
      );
    let r: dec.Dec = { v: 1n, s: 0 };
    for (let i = 0; i < Math.abs(n); i++) r = dec.mul(r, x);
    // power_var_int's scale: 16 digits after the point, or the base's scale if larger
    const rscale = Math.min(Math.max(16, x.s), 1000);
    if (n < 0) r = dec.div({ v: 1n, s: 0 }, r, rscale);
    return dec.formatDec(dec.rescale(r, Math.max(rscale, 0)));
  }
  const f = floatPower(dec.toNumber(x), dec.toNumber(y));
  const weight = f === 0 ? 0 : Math.floor(Math.log10(Math.abs(f)));
  const rscale = Math.min(Math.max(16 - weight - 1, x.s, y.s, 0), 1000);
  return dec.formatDec(dec.rescale(dec.fromFloat(f), rscale));
}
