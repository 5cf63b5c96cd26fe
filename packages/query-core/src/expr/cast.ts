import { JunctionError, formatType } from '@junction/connectors';
import type { JType, Value } from '@junction/connectors';
import * as dec from './decimal.js';
import { trimTrailingBlanks } from './compare.js';
import {
  formatInterval,
  formatTs,
  intervalToPgText,
  parseCanonicalTs,
  parseDate,
  parseInterval,
  parseTime,
  parseTimestamp,
  parseTimestamptz,
} from './datetime.js';

/**
 * CAST with PostgreSQL's rules: integer casts round half away from zero from numeric and
 * half to even from float (rint), out-of-range values and bad text fail with a message
 * naming the type and the input, char(n) pads and varchar(n) truncates on explicit casts.
 */

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function outOfRange(type: string): JunctionError {
  return new JunctionError('numeric_value_out_of_range', 'user', `${type} out of range`);
}

function invalid(type: string, text: string): JunctionError {
  return new JunctionError('invalid_text_representation', 'user', `invalid input syntax for type ${type}: "${text}"`);
}

export function checkInt32(n: number): number {
  if (n < INT32_MIN || n > INT32_MAX) throw outOfRange('integer');
  return n;
}

export function checkInt16(n: number): number {
  if (n < -32768 || n > 32767) throw outOfRange('smallint');
  return n;
}

export function checkInt64(n: bigint): bigint {
  if (n < INT64_MIN || n > INT64_MAX) throw outOfRange('bigint');
  return n;
}

/** Round half to even, as C's rint() does for float → integer casts. */
function rint(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** PostgreSQL's text output of a value (what `value::text` and `||` produce). */
export function valueToText(v: Value, type: JType): string {
  switch (type.kind) {
    case 'bool':
      return v ? 'true' : 'false';
    case 'float32':
    case 'float64': {
      const x = v as number;
      if (Number.isNaN(x)) return 'NaN';
      if (x === Infinity) return 'Infinity';
      if (x === -Infinity) return '-Infinity';
      return floatText(type.kind === 'float32' ? Number(Math.fround(x).toPrecision(9)) : x);
    }
    case 'timestamp':
      return (v as string).replace('T', ' ');
    case 'timestamptz':
      return (v as string).replace('T', ' ').replace(/Z$/, '+00');
    case 'interval':
      return intervalToPgText(parseInterval(v as string));
    case 'binary':
      return '\\x' + Buffer.from(v as Uint8Array).toString('hex');
    default:
      return typeof v === 'string' ? v : String(v);
  }
}

/** PostgreSQL 12+ prints floats in shortest round-trip form, with exponents past 1e15 / below 1e-4. */
function floatText(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e15) return String(x);
  const [m, e] = x.toExponential().split('e');
  const exp = Number(e);
  return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** Casts a non-NULL value from one type to another; NULL → NULL for every cast. */
export function castValue(v: Value, from: JType, to: JType): Value {
  if (v === null) return null;
  switch (to.kind) {
    case 'bool':
      return toBool(v, from);
    case 'int16':
      return checkInt16(toInt(v, from, 'smallint'));
    case 'int32':
      return checkInt32(toInt(v, from, 'integer'));
    case 'int64':
      return toInt64(v, from);
    case 'decimal':
      return toDecimal(v, from, to);
    case 'float32':
    case 'float64': {
      const x = toFloat(v, from);
      return to.kind === 'float32' ? Math.fround(x) : x;
    }
    case 'string': {
      let s = from.kind === 'string' ? (v as string) : valueToText(v, from);
      // bpchar → text/varchar drops the padding, as PostgreSQL's rtrim in bpchar_text does
      if (from.kind === 'string' && from.fixed && !to.fixed) s = trimTrailingBlanks(s);
      if (to.length !== undefined) {
        if (s.length > to.length) s = to.fixed ? trimTrailingBlanks(s).slice(0, to.length) : s.slice(0, to.length);
        if (to.fixed && s.length < to.length) s = s + ' '.repeat(to.length - s.length);
      }
      return s;
    }
    case 'date':
      if (from.kind === 'date') return v;
      if (from.kind === 'timestamp' || from.kind === 'timestamptz')
        return (v as string).slice(0, (v as string).indexOf('T'));
      if (isText(from)) return parseDate(v as string);
      break;
    case 'timestamp':
      if (from.kind === 'timestamp') return v;
      if (from.kind === 'date') return `${v as string}T00:00:00`;
      if (from.kind === 'timestamptz') return (v as string).slice(0, -1);
      if (isText(from)) return parseTimestamp(v as string);
      break;
    case 'timestamptz':
      if (from.kind === 'timestamptz') return v;
      if (from.kind === 'date') return `${v as string}T00:00:00Z`;
      if (from.kind === 'timestamp') return `${v as string}Z`;
      if (isText(from)) return parseTimestamptz(v as string);
      break;
    case 'time':
      if (from.kind === 'time') return v;
      if (from.kind === 'timestamp' || from.kind === 'timestamptz') {
        const ts = parseCanonicalTs(v as string);
        return formatTs({ days: 0, us: ts.us }).slice(11);
      }
      if (isText(from)) return parseTime(v as string);
      break;
    case 'interval':
      if (from.kind === 'interval') return v;
      if (isText(from)) return formatInterval(parseInterval(v as string));
      break;
    case 'uuid':
      if (isText(from) || from.kind === 'uuid') {
        const s = (v as string).trim().toLowerCase().replace(/[{}]/g, '');
        const hex = s.replace(/-/g, '');
        if (!/^[0-9a-f]{32}$/.test(hex)) throw invalid('uuid', v as string);
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      }
      break;
    case 'json':
      if (isText(from) || from.kind === 'json') {
        try {
          JSON.parse(v as string);
        } catch {
          throw invalid('json', v as string);
        }
        return v;
      }
      break;
    case 'binary':
      if (from.kind === 'binary') return v;
      if (isText(from)) {
        const s = v as string;
        if (s.startsWith('\\x')) return Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
        return Uint8Array.from(Buffer.from(s, 'utf8'));
      }
      break;
    case 'null':
    case 'unknown':
      return v;
  }
  throw cannotCast(from, to);
}

function cannotCast(from: JType, to: JType): JunctionError {
  return new JunctionError('cannot_coerce', 'user', `cannot cast type ${formatType(from)} to ${formatType(to)}`);
}

function isText(type: JType): boolean {
  return type.kind === 'string' || type.kind === 'unknown' || type.kind === 'null';
}

function toBool(v: Value, from: JType): boolean {
  if (from.kind === 'bool') return v as boolean;
  if (from.kind === 'int16' || from.kind === 'int32') return (v as number) !== 0;
  if (from.kind === 'int64') return (v as bigint) !== 0n;
  if (isText(from)) {
    const s = (v as string).trim().toLowerCase();
    if (
      ['t', 'true', 'y', 'yes', 'on', '1'].includes(s) ||
      (s.length > 1 && 'true'.startsWith(s)) ||
      (s.length > 1 && 'yes'.startsWith(s))
    )
      return true;
    if (
      ['f', 'false', 'n', 'no', 'off', '0'].includes(s) ||
      (s.length > 1 && 'false'.startsWith(s)) ||
      (s.length > 2 && 'off'.startsWith(s))
    )
      return false;
    throw invalid('boolean', v as string);
  }
  throw cannotCast(from, { kind: 'bool' });
}

function toInt(v: Value, from: JType, name: string): number {
  switch (from.kind) {
    case 'int16':
    case 'int32':
      return v as number;
    case 'int64': {
      const b = v as bigint;
      if (b < -2147483648n || b > 2147483647n) throw outOfRange(name);
      return Number(b);
    }
    case 'bool':
      return v ? 1 : 0;
    case 'decimal': {
      const b = dec.toBigIntRounded(dec.parseDec(v as string));
      if (b < -2147483648n || b > 2147483647n) throw outOfRange(name);
      return Number(b);
    }
    case 'float32':
    case 'float64': {
      const x = v as number;
      if (!Number.isFinite(x)) throw outOfRange(name);
      return rint(x);
    }
  }
  if (isText(from)) {
    const s = (v as string).trim();
    if (!/^[+-]?\d+$/.test(s)) throw invalid(name, v as string);
    const n = Number(s);
    if (n < INT32_MIN || n > INT32_MAX)
      throw new JunctionError(
        'numeric_value_out_of_range',
        'user',
        `value "${v as string}" is out of range for type ${name}`,
      );
    return n;
  }
  throw cannotCast(from, { kind: 'int32' });
}

function toInt64(v: Value, from: JType): bigint {
  switch (from.kind) {
    case 'int16':
    case 'int32':
      return BigInt(v as number);
    case 'int64':
      return v as bigint;
    case 'bool':
      return v ? 1n : 0n;
    case 'decimal':
      return checkInt64(dec.toBigIntRounded(dec.parseDec(v as string)));
    case 'float32':
    case 'float64': {
      const x = v as number;
      if (!Number.isFinite(x) || Math.abs(x) >= 9.223372036854776e18) throw outOfRange('bigint');
      return BigInt(rint(x));
    }
  }
  if (isText(from)) {
    const s = (v as string).trim();
    if (!/^[+-]?\d+$/.test(s)) throw invalid('bigint', v as string);
    const n = BigInt(s);
    if (n < INT64_MIN || n > INT64_MAX)
      throw new JunctionError(
        'numeric_value_out_of_range',
        'user',
        `value "${v as string}" is out of range for type bigint`,
      );
    return n;
  }
  throw cannotCast(from, { kind: 'int64' });
}

function toDecimal(v: Value, from: JType, to: JType): string {
  let d: dec.Dec;
  switch (from.kind) {
    case 'int16':
    case 'int32':
      d = { v: BigInt(v as number), s: 0 };
      break;
    case 'int64':
      d = { v: v as bigint, s: 0 };
      break;
    case 'decimal':
      if (to.precision === undefined && to.scale === undefined) return v as string;
      d = dec.parseDec(v as string);
      break;
    case 'float32':
    case 'float64':
      d = dec.fromFloat(from.kind === 'float32' ? Number((v as number).toPrecision(6)) : (v as number));
      break;
    default:
      if (!isText(from)) throw cannotCast(from, to);
      {
        const parsed = dec.tryParseDec(v as string);
        if (parsed === undefined) throw invalid('numeric', v as string);
        d = parsed;
      }
  }
  if (to.precision !== undefined) d = dec.applyTypmod(d, to.precision, to.scale);
  else if (to.scale !== undefined) d = dec.rescale(d, to.scale);
  return dec.formatDec(d);
}

function toFloat(v: Value, from: JType): number {
  switch (from.kind) {
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return v as number;
    case 'int64':
      return Number(v as bigint);
    case 'decimal':
      return Number(v as string);
    case 'bool':
      throw cannotCast(from, { kind: 'float64' });
  }
  if (isText(from)) {
    const s = (v as string).trim();
    const l = s.toLowerCase();
    if (l === 'nan') return NaN;
    if (l === 'infinity' || l === '+infinity' || l === 'inf') return Infinity;
    if (l === '-infinity' || l === '-inf') return -Infinity;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw invalid('double precision', v as string);
    return Number(s);
  }
  throw cannotCast(from, { kind: 'float64' });
}
