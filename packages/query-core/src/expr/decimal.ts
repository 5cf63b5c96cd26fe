import { JunctionError } from '@junction/connectors';

/**
 * Exact decimal arithmetic with PostgreSQL's `numeric` result-scale rules. Values travel as
 * plain decimal text ("-12.50"); inside we work on a scaled BigInt so no digit ever passes
 * through a JS float.
 */
export interface Dec {
  /** unscaled value: the number is v / 10^s */
  readonly v: bigint;
  /** digits after the point (PostgreSQL's display scale) */
  readonly s: number;
}

const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  if (n < 64) {
    let p = POW10[n];
    if (p === undefined) {
      p = 10n ** BigInt(n);
      POW10[n] = p;
    }
    return p;
  }
  return 10n ** BigInt(n);
}

const DEC_RE = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/** Parses decimal text; returns undefined when it is not a number (callers word the error). */
export function tryParseDec(text: string): Dec | undefined {
  const plain = scanPlain(text);
  if (plain !== undefined) {
    const { neg, start, point } = plain;
    const digits = point < 0 ? text.slice(start) : text.slice(start, point) + text.slice(point + 1);
    const v = BigInt(digits);
    return { v: neg ? -v : v, s: point < 0 ? 0 : text.length - point - 1 };
  }
  const m = DEC_RE.exec(text);
  if (!m) return undefined;
  const intPart = m[2];
  const frac = m[3] ?? '';
  if (intPart === '' && frac === '') return undefined;
  let v = BigInt((intPart || '0') + frac);
  let s = frac.length;
  if (m[4] !== undefined) {
    const e = Number(m[4]);
    if (e >= s) {
      v *= pow10(e - s);
      s = 0;
    } else s -= e;
  }
  if (m[1] === '-') v = -v;
  return { v, s };
}

export function parseDec(text: string): Dec {
  const d = tryParseDec(text);
  if (d === undefined) {
    throw new JunctionError('invalid_text_representation', 'user', `invalid input syntax for type numeric: "${text}"`);
  }
  return d;
}

export function formatDec(d: Dec): string {
  const neg = d.v < 0n;
  let digits = (neg ? -d.v : d.v).toString();
  if (d.s > 0) {
    if (digits.length <= d.s) digits = '0'.repeat(d.s - digits.length + 1) + digits;
    digits = digits.slice(0, digits.length - d.s) + '.' + digits.slice(digits.length - d.s);
  }
  return neg ? '-' + digits : digits;
}

export function fromBigInt(v: bigint): Dec {
  return { v, s: 0 };
}

/** Re-expresses `d` at scale `s`, rounding half away from zero when digits are dropped. */
export function rescale(d: Dec, s: number): Dec {
  if (s === d.s) return d;
  if (s > d.s) return { v: d.v * pow10(s - d.s), s };
  return { v: divRound(d.v, pow10(d.s - s)), s };
}

/** Drops digits beyond scale `s` toward zero. */
export function truncScale(d: Dec, s: number): Dec {
  if (s >= d.s) return rescale(d, s);
  return { v: d.v / pow10(d.s - s), s };
}

/** Integer division of a by b rounded half away from zero. */
export function divRound(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  const bAbs = b < 0n ? -b : b;
  if (twice >= bAbs) return a < 0n !== b < 0n ? q - 1n : q + 1n;
  return q;
}

export function add(a: Dec, b: Dec): Dec {
  const s = Math.max(a.s, b.s);
  return { v: rescale(a, s).v + rescale(b, s).v, s };
}

export function sub(a: Dec, b: Dec): Dec {
  const s = Math.max(a.s, b.s);
  return { v: rescale(a, s).v - rescale(b, s).v, s };
}

export function mul(a: Dec, b: Dec): Dec {
  return { v: a.v * b.v, s: a.s + b.s };
}

export function neg(a: Dec): Dec {
  return { v: -a.v, s: a.s };
}

export function abs(a: Dec): Dec {
  return a.v < 0n ? { v: -a.v, s: a.s } : a;
}

export function sign(a: Dec): number {
  return a.v < 0n ? -1 : a.v > 0n ? 1 : 0;
}

export function compare(a: Dec, b: Dec): number {
  if (a.s === b.s) return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  const s = Math.max(a.s, b.s);
  const x = rescale(a, s).v;
  const y = rescale(b, s).v;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Compares two decimal texts numerically. */
export function compareText(a: string, b: string): number {
  const x = scanPlain(a);
  const y = x && scanPlain(b);
  return y ? comparePlain(a, x, b, y) : compare(parseDec(a), parseDec(b));
}

/** Where the parts of plain decimal text ("-0012.50", "7", ".5") are. */
interface Plain {
  readonly neg: boolean;
  /** index of the first digit or point, after the sign */
  readonly start: number;
  /** index of the point, -1 without one */
  readonly point: number;
  /** index of the first non-zero digit, text.length when every digit is zero */
  readonly lead: number;
}

/** The layout of `text` when it is plain decimal text (sign, digits, at most one point), else undefined. */
function scanPlain(text: string): Plain | undefined {
  const n = text.length;
  const c0 = text.charCodeAt(0);
  const start = c0 === 45 /* - */ || c0 === 43 /* + */ ? 1 : 0;
  let i = start;
  let point = -1;
  let lead = n;
  let digits = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits++;
      if (c !== 48 && lead === n) lead = i;
    } else if (c === 46 /* . */ && point < 0) point = i;
    else return undefined;
  }
  return digits === 0 ? undefined : { neg: c0 === 45, start, point, lead };
}

/** Numeric order of two plain texts, digit by digit (no BigInt): the text order PostgreSQL's numeric has. */
function comparePlain(a: string, x: Plain, b: string, y: Plain): number {
  const xZero = x.lead === a.length;
  const yZero = y.lead === b.length;
  const xs = xZero ? 0 : x.neg ? -1 : 1;
  const ys = yZero ? 0 : y.neg ? -1 : 1;
  if (xs !== ys || xs === 0) return xs < ys ? -1 : xs > ys ? 1 : 0;
  const m = compareMagnitude(a, x, b, y);
  return m === 0 ? 0 : xs * m;
}

function compareMagnitude(a: string, x: Plain, b: string, y: Plain): number {
  const aEnd = x.point < 0 ? a.length : x.point;
  const bEnd = y.point < 0 ? b.length : y.point;
  // digits before the point, leading zeros dropped (lead may lie after the point: no integer digits)
  const aInt = Math.max(0, aEnd - x.lead);
  const bInt = Math.max(0, bEnd - y.lead);
  if (aInt !== bInt) return aInt < bInt ? -1 : 1;
  // same number of integer digits: compare digit by digit from the most significant one
  let i = aInt > 0 ? x.lead : aEnd + 1;
  let j = bInt > 0 ? y.lead : bEnd + 1;
  for (;;) {
    if (i === aEnd) i++;
    if (j === bEnd) j++;
    const c = i < a.length ? a.charCodeAt(i) : 48;
    const d = j < b.length ? b.charCodeAt(j) : 48;
    if (c !== d) return c < d ? -1 : 1;
    if (i >= a.length && j >= b.length) return 0;
    i++;
    j++;
  }
}

/**
 * The weight and first digit of |d| in PostgreSQL's base-10000 representation, which
 * `select_div_scale` uses to estimate the quotient's magnitude.
 */
function nbaseLead(d: Dec): { weight: number; first: number } {
  let v = d.v < 0n ? -d.v : d.v;
  if (v === 0n) return { weight: 0, first: 0 };
  const s4 = Math.ceil(d.s / 4) * 4;
  v *= pow10(s4 - d.s);
  const digits = v.toString();
  const groups = Math.ceil(digits.length / 4);
  const firstLen = digits.length - (groups - 1) * 4;
  return { weight: groups - 1 - s4 / 4, first: Number(digits.slice(0, firstLen)) };
}

/** PostgreSQL's select_div_scale: at least 16 significant digits, never fewer than either input's scale. */
export function divScale(a: Dec, b: Dec): number {
  const l1 = nbaseLead(a);
  const l2 = nbaseLead(b);
  let qweight = l1.weight - l2.weight;
  if (l1.first <= l2.first) qweight--;
  let rscale = 16 - qweight * 4;
  rscale = Math.max(rscale, a.s, b.s, 0);
  return Math.min(rscale, 1000);
}

export function divisionByZero(): JunctionError {
  return new JunctionError('division_by_zero', 'user', 'division by zero');
}

export function div(a: Dec, b: Dec, scale?: number): Dec {
  if (b.v === 0n) throw divisionByZero();
  const rscale = scale ?? divScale(a, b);
  // a/b * 10^rscale = a.v * 10^(b.s + rscale - a.s) / b.v
  const e = b.s + rscale - a.s;
  const num = e >= 0 ? a.v * pow10(e) : a.v;
  const den = e >= 0 ? b.v : b.v * pow10(-e);
  return { v: divRound(num, den), s: rscale };
}

/** numeric % numeric: remainder with the dividend's sign, scale max(s1, s2). */
export function mod(a: Dec, b: Dec): Dec {
  if (b.v === 0n) throw divisionByZero();
  const s = Math.max(a.s, b.s);
  return { v: rescale(a, s).v % rescale(b, s).v, s };
}

/** round(numeric, n): half away from zero; negative n rounds left of the point (scale 0). */
export function round(d: Dec, n = 0): Dec {
  if (n >= 0) return rescale(d, n);
  const f = pow10(d.s - n);
  return { v: divRound(d.v, f) * pow10(-n), s: 0 };
}

export function trunc(d: Dec, n = 0): Dec {
  if (n >= 0) return truncScale(d, n);
  const f = pow10(d.s - n);
  return { v: (d.v / f) * pow10(-n), s: 0 };
}

export function floor(d: Dec): Dec {
  const f = pow10(d.s);
  let q = d.v / f;
  if (d.v < 0n && d.v % f !== 0n) q -= 1n;
  return { v: q, s: 0 };
}

export function ceil(d: Dec): Dec {
  const f = pow10(d.s);
  let q = d.v / f;
  if (d.v > 0n && d.v % f !== 0n) q += 1n;
  return { v: q, s: 0 };
}

/** Removes trailing fractional zeros: the canonical form equal values share (1.50 → 1.5, 2.00 → 2). */
export function normalize(d: Dec): Dec {
  if (d.s === 0 || d.v % 10n !== 0n) return d;
  let v = d.v;
  let s = d.s;
  while (s > 0 && v % 10n === 0n) {
    v /= 10n;
    s--;
  }
  return { v, s };
}

/** Canonical text of a decimal string: equal numbers give equal text. */
export function canonicalText(text: string): string {
  const d = parseDec(text);
  if (d.v === 0n) return '0';
  return formatDec(normalize(d));
}

/** Applies a declared numeric(p,s) typmod: rounds to s and checks the integer digits fit. */
export function applyTypmod(d: Dec, precision: number | undefined, scale: number | undefined): Dec {
  if (precision === undefined) return d;
  const s = scale ?? 0;
  const r = rescale(d, s);
  const limit = pow10(precision);
  const absV = r.v < 0n ? -r.v : r.v;
  if (absV >= limit) {
    throw new JunctionError(
      'numeric_value_out_of_range',
      'user',
      `numeric field overflow: a field with precision ${precision}, scale ${s} must round to an absolute value less than 10^${precision - s}`,
    );
  }
  return r;
}

export function toNumber(d: Dec): number {
  return Number(formatDec(d));
}

/**
 * float8 → numeric as PostgreSQL does it: 15 significant digits (DBL_DIG), trailing zeros
 * dropped, so 0.1::float8::numeric is 0.1 and not 0.1000000000000000055….
 */
export function fromFloat(x: number): Dec {
  if (!Number.isFinite(x)) {
    throw new JunctionError('invalid_parameter_value', 'user', `cannot convert ${x} to numeric`);
  }
  if (x === 0) return { v: 0n, s: 0 };
  return normalize(parseDec(x.toPrecision(15)));
}

/** Integer part as bigint, rounding half away from zero (numeric → int cast). */
export function toBigIntRounded(d: Dec): bigint {
  return rescale(d, 0).v;
}

/** sqrt(numeric) to PostgreSQL's result scale: at least 16 significant digits, at least the input scale. */
export function sqrt(d: Dec): Dec {
  if (d.v < 0n) {
    throw new JunctionError(
      'invalid_argument_for_power_function',
      'user',
      'cannot take square root of a negative number',
    );
  }
  const lead = nbaseLead(d);
  const sweight = Math.trunc(((lead.weight + 1) * 4) / 2) - 1;
  const rscale = Math.min(Math.max(16 - sweight, d.s, 0), 1000);
  // integer sqrt of v * 10^(2*rscale - s) at one extra digit, then round
  const extra = rscale + 1;
  const n = d.v * pow10(2 * extra - d.s);
  const root = isqrt(n);
  return { v: divRound(root, 10n), s: rscale };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  if (x === 0n) x = 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) {
      // Newton converges from above; step down while still too big
      while (x * x > n) x -= 1n;
      while ((x + 1n) * (x + 1n) <= n) x += 1n;
      return x;
    }
    x = y;
  }
}
