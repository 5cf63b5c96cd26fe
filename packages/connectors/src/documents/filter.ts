import { JunctionError } from '../contract/errors.js';
import type { JType, Row, Value } from '../contract/types.js';
import { plainDecimal } from '../runtime/values.js';
import type { CmpOp, DocExpr } from './query-text.js';

/**
 * Pushed predicates evaluated on each row while a document streams, with Junction's meaning:
 * three-valued logic, numbers compared exactly (decimals digit by digit, never as floats),
 * strings by code point with char(n) blanks ignored as PostgreSQL's bpchar does, timestamps
 * in time order.
 */

export type Evaluator = (row: Row) => Value;

export interface BoundColumn {
  readonly index: number;
  readonly type: JType;
}

const NUMERIC = new Set(['int16', 'int32', 'int64', 'decimal', 'float32', 'float64']);
const TEMPORAL = new Set(['date', 'timestamp', 'timestamptz']);

/** Compiles an expression over the row's columns (looked up by name) and the statement's parameters. */
export function compileExpr(
  e: DocExpr,
  column: (name: string) => BoundColumn,
  params: readonly Value[],
): { readonly eval: Evaluator; readonly type: JType | undefined } {
  switch (e.k) {
    case 'col': {
      const c = column(e.name);
      const i = c.index;
      return { eval: (row) => row[i], type: c.type };
    }
    case 'param': {
      if (e.index < 0 || e.index >= params.length)
        throw new JunctionError(
          'document_query_invalid',
          'user',
          `The query text uses $${e.index + 1}, but only ${params.length} parameters were given.`,
        );
      const v = params[e.index];
      return { eval: () => v, type: e.type };
    }
    case 'cmp': {
      const l = compileExpr(e.l, column, params);
      const r = compileExpr(e.r, column, params);
      // an untyped parameter takes the type of the column it is compared with
      const lt = l.type ?? r.type;
      const rt = r.type ?? l.type;
      const cmp = comparator(lt, rt);
      const test = OPS[e.op];
      return {
        eval: (row) => {
          const a = l.eval(row);
          if (a === null) return null;
          const b = r.eval(row);
          if (b === null) return null;
          return test(cmp(a, b));
        },
        type: BOOL,
      };
    }
    case 'and':
    case 'or': {
      const args = e.args.map((a) => compileExpr(a, column, params).eval);
      const stop = e.k === 'or';
      return {
        eval: (row) => {
          let sawNull = false;
          for (const a of args) {
            const v = a(row);
            if (v === null) sawNull = true;
            else if (v === stop) return stop;
          }
          return sawNull ? null : !stop;
        },
        type: BOOL,
      };
    }
    case 'not': {
      const a = compileExpr(e.arg, column, params).eval;
      return {
        eval: (row) => {
          const v = a(row);
          return v === null ? null : !v;
        },
        type: BOOL,
      };
    }
    case 'isnull': {
      const a = compileExpr(e.arg, column, params).eval;
      const negated = e.negated;
      return { eval: (row) => (a(row) === null) !== negated, type: BOOL };
    }
    case 'in': {
      const arg = compileExpr(e.arg, column, params);
      const list = e.list.map((x) => compileExpr(x, column, params));
      const cmps = list.map((x) => comparator(arg.type ?? x.type, x.type ?? arg.type));
      const negated = e.negated;
      return {
        eval: (row) => {
          const a = arg.eval(row);
          if (a === null) return null;
          let sawNull = false;
          for (let i = 0; i < list.length; i++) {
            const b = list[i].eval(row);
            if (b === null) sawNull = true;
            else if (cmps[i](a, b) === 0) return !negated;
          }
          return sawNull ? null : negated;
        },
        type: BOOL,
      };
    }
  }
}

const BOOL: JType = { kind: 'bool' };

const OPS: Record<CmpOp, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '<>': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

type Comparator = (a: Value, b: Value) => number;

/** How two non-NULL values of these types compare: negative, zero or positive. */
export function comparator(a: JType | undefined, b: JType | undefined): Comparator {
  const ka = a?.kind;
  const kb = b?.kind;
  if (ka && kb && NUMERIC.has(ka) && NUMERIC.has(kb)) {
    // PostgreSQL compares a float with an exact number as floats
    if (ka.startsWith('float') || kb.startsWith('float')) return compareFloat;
    return (x, y) => compareDecimalText(decimalText(x), decimalText(y));
  }
  if (ka === 'string' || kb === 'string') {
    const trimA = a?.fixed === true;
    const trimB = b?.fixed === true;
    return (x, y) => compareCodePoints(trimA ? rtrim(String(x)) : String(x), trimB ? rtrim(String(y)) : String(y));
  }
  if ((ka && TEMPORAL.has(ka)) || (kb && TEMPORAL.has(kb))) return (x, y) => compareCodePoints(instant(x), instant(y));
  if (ka === 'bool' || kb === 'bool') return (x, y) => Number(x) - Number(y);
  return (x, y) => compareCodePoints(String(x), String(y));
}

/** How one side of an equality is turned into a hash key; the kind names the function. */
export interface EqualitySide {
  readonly kind: 'float' | 'decimal' | 'string' | 'string:trimmed' | 'instant' | 'bool' | 'text';
  readonly key: (v: Value) => string;
}

/**
 * Hash keys mirroring comparator(a, b): whenever it says two non-NULL values are equal, the
 * left key of the one equals the right key of the other, so a hash index built with one side's
 * function finds every row the comparison would accept. Filters still make the final check
 * with the comparator, which keeps odd values (NaN among bools, text in a decimal) exact.
 */
export function equalityKeys(a: JType | undefined, b: JType | undefined): { left: EqualitySide; right: EqualitySide } {
  const ka = a?.kind;
  const kb = b?.kind;
  const both = (side: EqualitySide): { left: EqualitySide; right: EqualitySide } => ({ left: side, right: side });
  if (ka && kb && NUMERIC.has(ka) && NUMERIC.has(kb)) {
    if (ka.startsWith('float') || kb.startsWith('float')) return both(FLOAT_KEY);
    return both(DECIMAL_KEY);
  }
  if (ka === 'string' || kb === 'string')
    return { left: a?.fixed === true ? TRIMMED_KEY : STRING_KEY, right: b?.fixed === true ? TRIMMED_KEY : STRING_KEY };
  if ((ka && TEMPORAL.has(ka)) || (kb && TEMPORAL.has(kb))) return both(INSTANT_KEY);
  if (ka === 'bool' || kb === 'bool') return both(BOOL_KEY);
  return both(TEXT_KEY);
}

// String() of a number is its shortest round-trip spelling: one per value, and -0 prints as 0
const FLOAT_KEY: EqualitySide = { kind: 'float', key: (v) => String(Number(v)) };
const DECIMAL_KEY: EqualitySide = { kind: 'decimal', key: (v) => decimalKey(decimalText(v)) };
const STRING_KEY: EqualitySide = { kind: 'string', key: (v) => String(v) };
const TRIMMED_KEY: EqualitySide = { kind: 'string:trimmed', key: (v) => rtrim(String(v)) };
const INSTANT_KEY: EqualitySide = { kind: 'instant', key: (v) => instant(v) };
const BOOL_KEY: EqualitySide = { kind: 'bool', key: (v) => String(Number(v)) };
const TEXT_KEY: EqualitySide = { kind: 'text', key: (v) => String(v) };

/**
 * One text per value compareDecimalText calls equal ('1.50', '+1.5' and '01.5' → '+1.5'; every
 * zero → '0'): its sign, integer digits without leading zeros, fraction without trailing zeros.
 */
export function decimalKey(text: string): string {
  const neg = text.startsWith('-');
  const [int, frac] = splitDecimal(neg || text.startsWith('+') ? text.slice(1) : text);
  if (int === '' && !/[1-9]/.test(frac)) return '0';
  return (neg ? '-' : '+') + int + '.' + frac.replace(/0+$/, '');
}

function rtrim(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  return s.slice(0, end);
}

/**
 * Canonical timestamps compare as text once the 'Z' of timestamptz is gone ('…:00Z' would sort
 * after '…:00.5Z') and a date stands for its midnight, as PostgreSQL widens a date to compare it.
 */
function instant(v: Value): string {
  const s = String(v);
  if (s.length === 10) return s + 'T00:00:00';
  return s.endsWith('Z') ? s.slice(0, -1) : s;
}

/** Strings by Unicode code point: UTF-16 order differs for characters beyond U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // a surrogate (U+D800…U+DFFF) encodes a code point above every BMP character
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** PostgreSQL's float order: NaN equals NaN and is above every other value. */
function compareFloat(x: Value, y: Value): number {
  const a = Number(x);
  const b = Number(y);
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function decimalText(v: Value): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return plainDecimal(v);
  return plainDecimal(String(v));
}

/** Exact order of two plain decimal texts ('-12.50', '3', '0.001'). */
export function compareDecimalText(a: string, b: string): number {
  const na = a.startsWith('-');
  const nb = b.startsWith('-');
  const [ia, fa] = splitDecimal(na || a.startsWith('+') ? a.slice(1) : a);
  const [ib, fb] = splitDecimal(nb || b.startsWith('+') ? b.slice(1) : b);
  const za = ia === '' && !/[1-9]/.test(fa);
  const zb = ib === '' && !/[1-9]/.test(fb);
  const sa = za ? 0 : na ? -1 : 1;
  const sb = zb ? 0 : nb ? -1 : 1;
  if (sa !== sb) return sa - sb;
  if (sa === 0) return 0;
  let mag: number;
  if (ia.length !== ib.length) mag = ia.length - ib.length;
  else if (ia !== ib) mag = ia < ib ? -1 : 1;
  else {
    const len = Math.max(fa.length, fb.length);
    const pa = fa.padEnd(len, '0');
    const pb = fb.padEnd(len, '0');
    mag = pa === pb ? 0 : pa < pb ? -1 : 1;
  }
  return sa < 0 ? -mag : mag;
}

function splitDecimal(s: string): [string, string] {
  const dot = s.indexOf('.');
  const int = (dot < 0 ? s : s.slice(0, dot)).replace(/^0+/, '');
  const frac = dot < 0 ? '' : s.slice(dot + 1);
  return [int, frac];
}
