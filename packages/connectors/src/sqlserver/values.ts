import { TYPES } from 'tedious';

type DataType = (typeof TYPES)[keyof typeof TYPES];
import type { JType, Value } from '../contract/types.js';

export interface TediousParam {
  readonly type: DataType;
  readonly value: unknown;
  readonly options?: { length?: number; precision?: number; scale?: number };
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * A bound value by its JS representation. Decimal and temporal values are strings in the
 * value model; they bind as NVARCHAR and the dialect wraps them in CAST(… AS DECIMAL(p,s))
 * or CAST(… AS DATETIME2) so SQL Server converts them exactly.
 */
export function parameterFor(v: Value): TediousParam {
  if (v === null) return { type: TYPES.NVarChar, value: null };
  switch (typeof v) {
    case 'string':
      return { type: TYPES.NVarChar, value: v };
    case 'bigint':
      return { type: TYPES.BigInt, value: v };
    case 'number':
      return Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX
        ? { type: TYPES.Int, value: v }
        : { type: TYPES.Float, value: v };
    case 'boolean':
      return { type: TYPES.Bit, value: v };
    default:
      return { type: TYPES.VarBinary, value: Buffer.from(v.buffer, v.byteOffset, v.byteLength) };
  }
}

/** The bulk-load column declaration for a JType. */
export function bulkColumn(type: JType): {
  type: DataType;
  options: { length?: number; precision?: number; scale?: number };
} {
  switch (type.kind) {
    case 'bool':
      return { type: TYPES.Bit, options: {} };
    case 'int16':
      return { type: TYPES.SmallInt, options: {} };
    case 'int32':
      return { type: TYPES.Int, options: {} };
    case 'int64':
      return { type: TYPES.BigInt, options: {} };
    case 'decimal':
      return { type: TYPES.Decimal, options: { precision: type.precision ?? 38, scale: type.scale ?? 0 } };
    case 'float32':
      return { type: TYPES.Real, options: {} };
    case 'float64':
      return { type: TYPES.Float, options: {} };
    case 'date':
      return { type: TYPES.Date, options: {} };
    case 'time':
      return { type: TYPES.Time, options: { scale: Math.min(7, type.precision ?? 7) } };
    case 'timestamp':
      return { type: TYPES.DateTime2, options: { scale: Math.min(7, type.precision ?? 7) } };
    case 'timestamptz':
      return { type: TYPES.DateTimeOffset, options: { scale: Math.min(7, type.precision ?? 7) } };
    case 'binary':
      return { type: TYPES.VarBinary, options: { length: type.length ?? Infinity } };
    case 'uuid':
      return { type: TYPES.UniqueIdentifier, options: {} };
    case 'string':
      if (type.fixed) return { type: TYPES.NChar, options: { length: type.length ?? 1 } };
      return { type: TYPES.NVarChar, options: { length: type.length ?? Infinity } };
    default:
      return { type: TYPES.NVarChar, options: { length: Infinity } };
  }
}

/**
 * A JS Date in UTC for tedious (useUTC), carrying the sub-millisecond digits in
 * `nanosecondDelta` (seconds), which tedious adds when it encodes time/datetime2.
 */
export function utcDate(text: string): Date {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}:\d{2})(\.\d+)?)?Z?$/.exec(text);
  if (!m) return new Date(text);
  const frac = m[3] ?? '';
  const ms = frac.slice(1, 4).padEnd(3, '0');
  const d = new Date(`${m[1]}T${m[2] ?? '00:00:00'}.${ms}Z`);
  if (frac.length > 4) (d as Date & { nanosecondDelta: number }).nanosecondDelta = Number('0.000' + frac.slice(4));
  return d;
}

export function bulkValue(type: JType): (v: Value) => unknown {
  switch (type.kind) {
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return (v) => (typeof v === 'string' ? utcDate(v) : v);
    case 'time':
      return (v) => (typeof v === 'string' ? utcDate(`1970-01-01T${v}`) : v);
    case 'binary':
      return (v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);
    default:
      return (v) => v;
  }
}
