import type { JType, Value } from '@junction/connectors';
import { canonicalText, compareText } from './decimal.js';
import { formatSmall, parseSmall, reg, scaleUp } from './fast-decimal.js';

/**
 * Orders two non-NULL values of one type the way PostgreSQL with C collation does.
 * NULL handling belongs to callers (sorts place NULLs by NULLS FIRST/LAST, comparisons yield NULL).
 */
export type Comparator = (a: Value, b: Value) => number;

/** Code-point order for JS (UTF-16) strings: surrogate pairs sort above U+E000–U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) return fixup(x) - fixup(y);
      return x - y;
    }
  }
  return a.length - b.length;
}

function fixup(c: number): number {
  if (c >= 0xe000) return c - 0x800;
  if (c >= 0xd800 && c <= 0xdfff) return c + 0x2000;
  return c;
}

/** char(n) semantics: trailing blanks are not significant. */
export function trimTrailingBlanks(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  return end === s.length ? s : s.slice(0, end);
}

function compareNumbers(a: Value, b: Value): number {
  const x = a as number;
  const y = b as number;
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  // PostgreSQL orders NaN above every other float and equal to itself
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  return xn === yn ? 0 : xn ? 1 : -1;
}

function compareBigints(a: Value, b: Value): number {
  const x = typeof a === 'bigint' ? a : BigInt(a as number);
  const y = typeof b === 'bigint' ? b : BigInt(b as number);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareBytes(a: Value, b: Value): number {
  const x = a as Uint8Array;
  const y = b as Uint8Array;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function compareBools(a: Value, b: Value): number {
  return a === b ? 0 : a ? 1 : -1;
}

/** A comparator specialised for one type, for sort and join loops. */
export function comparatorFor(type: JType): Comparator {
  switch (type.kind) {
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return compareNumbers;
    case 'int64':
      return compareBigints;
    case 'decimal':
      return compareDecimalText;
    case 'bool':
      return compareBools;
    case 'binary':
      return compareBytes;
    case 'string':
      if (type.fixed)
        return (a, b) => compareCodePoints(trimTrailingBlanks(a as string), trimTrailingBlanks(b as string));
      return (a, b) => compareCodePoints(a as string, b as string);
    case 'interval':
      return (a, b) => compareIntervals(a as string, b as string);
    default:
      // date/time/timestamp(tz) texts are canonical, so code-point order is time order
      return (a, b) => compareCodePoints(String(a), String(b));
  }
}

/** Numeric order of two decimal texts; exact small values skip BigInt. */
export function compareDecimalText(a: Value, b: Value): number {
  if (a === b) return 0;
  if (parseSmall(a as string)) {
    const av = reg.v;
    const as = reg.s;
    if (parseSmall(b as string)) {
      const s = as > reg.s ? as : reg.s;
      const x = scaleUp(av, s - as);
      const y = scaleUp(reg.v, s - reg.s);
      if (x === x && y === y) return x < y ? -1 : x > y ? 1 : 0;
    }
  }
  return compareText(a as string, b as string);
}

export function compareValues(a: Value, b: Value, type: JType): number {
  return comparatorFor(type)(a, b);
}

/** Intervals compare by total length with months as 30 days, as PostgreSQL does. */
function compareIntervals(a: string, b: string): number {
  const x = intervalSortKey(a);
  const y = intervalSortKey(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const INTERVAL_RE =
  /^(-)?P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$/;

function intervalSortKey(s: string): bigint {
  const m = INTERVAL_RE.exec(s);
  if (!m) return 0n;
  const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
  const months = n(m[2]) * 12 + n(m[3]);
  const days = n(m[4]) * 7 + n(m[5]);
  const micros = BigInt(Math.round((n(m[6]) * 3600 + n(m[7]) * 60 + n(m[8])) * 1e6));
  const total = BigInt(months * 30 + days) * 86_400_000_000n + micros;
  return m[1] ? -total : total;
}

function decimalKey(v: Value): string {
  if (!parseSmall(v as string)) return canonicalText(v as string);
  let n = reg.v;
  let s = reg.s;
  if (n === 0) return '0';
  while (s > 0 && n % 10 === 0) {
    n /= 10;
    s--;
  }
  return formatSmall(n, s);
}

/** A string that is equal for two values exactly when PostgreSQL's `=` says they are equal. */
export type KeyPart = (v: Value) => string;

function keyPartFor(type: JType): KeyPart {
  switch (type.kind) {
    case 'int16':
    case 'int32':
    case 'int64':
      return (v) => String(v);
    case 'float32':
    case 'float64':
      // -0 = 0 in PostgreSQL; integral floats share the integer's key so mixed keys still match
      return (v) => (v === 0 ? '0' : String(v));
    case 'decimal':
      return decimalKey;
    case 'string':
      return type.fixed ? (v) => trimTrailingBlanks(v as string) : (v) => v as string;
    case 'bool':
      return (v) => (v ? 't' : 'f');
    case 'binary':
      return (v) => Buffer.from(v as Uint8Array).toString('hex');
    case 'interval':
      return (v) => String(intervalSortKey(v as string));
    default:
      return (v) => String(v);
  }
}

/**
 * Builds a hash-key function for rows of `types`: equal keys exactly when every column is
 * equal by PostgreSQL's `=` (1.50 = 1.5, 'a ' = 'a' for char(n), int32 5 = int64 5).
 * NULLs get a key of their own, so GROUP BY and DISTINCT put them together; hash joins must
 * skip NULL keys themselves.
 */
export function makeKeyFn(types: readonly JType[]): (values: readonly Value[]) => string {
  const parts = types.map(keyPartFor);
  if (parts.length === 1) {
    const p = parts[0];
    return (values) => {
      const v = values[0];
      return v === null ? '\u0000' : ':' + p(v);
    };
  }
  return (values) => {
    let key = '';
    for (let i = 0; i < parts.length; i++) {
      const v = values[i];
      if (v === null) key += '\u0000|';
      else {
        const s = parts[i](v);
        // length prefix keeps ('a|', 'b') and ('a', '|b') apart
        key += s.length + ':' + s;
      }
    }
    return key;
  };
}

export function makeKey(values: readonly Value[], types: readonly JType[]): string {
  return makeKeyFn(types)(values);
}
