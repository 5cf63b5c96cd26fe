import { t, type JType, type Value } from '../contract/types.js';
import { bytesOf, canonicalTimestamp, padChar, plainDecimal, trimFraction, withScale } from '../runtime/values.js';

export interface Mapped {
  readonly type: JType;
  readonly warning?: string;
}

export interface NativeColumn {
  /** sys.types.name */
  readonly typeName: string;
  /** sys.columns.max_length in bytes; -1 for (max) */
  readonly maxLength: number;
  readonly precision: number;
  readonly scale: number;
}

/** The spelling SQL Server's own tools show: "nvarchar(25)", "decimal(15,2)", "datetime2(7)". */
export function nativeTypeText(c: NativeColumn): string {
  const n = c.typeName.toLowerCase();
  switch (n) {
    case 'char':
    case 'varchar':
    case 'binary':
    case 'varbinary':
      return `${n}(${c.maxLength === -1 ? 'max' : c.maxLength})`;
    case 'nchar':
    case 'nvarchar':
      return `${n}(${c.maxLength === -1 ? 'max' : c.maxLength / 2})`;
    case 'decimal':
    case 'numeric':
      return `${n}(${c.precision},${c.scale})`;
    case 'time':
    case 'datetime2':
    case 'datetimeoffset':
      return `${n}(${c.scale})`;
    default:
      return n;
  }
}

export function mapNativeType(c: NativeColumn): Mapped {
  const n = c.typeName.toLowerCase();
  switch (n) {
    case 'bit':
      return { type: t.bool };
    case 'tinyint':
    case 'smallint':
      return { type: t.int16 };
    case 'int':
      return { type: t.int32 };
    case 'bigint':
      return { type: t.int64 };
    case 'decimal':
    case 'numeric':
      return { type: t.decimal(c.precision, c.scale) };
    case 'money':
      return { type: t.decimal(19, 4) };
    case 'smallmoney':
      return { type: t.decimal(10, 4) };
    case 'real':
      return { type: t.float32 };
    case 'float':
      return { type: c.precision <= 24 ? t.float32 : t.float64 };
    case 'char':
      return { type: t.char(c.maxLength) };
    case 'nchar':
      return { type: t.char(c.maxLength / 2) };
    case 'varchar':
      return { type: c.maxLength === -1 ? t.string : t.varchar(c.maxLength) };
    case 'nvarchar':
      return { type: c.maxLength === -1 ? t.string : t.varchar(c.maxLength / 2) };
    case 'text':
    case 'ntext':
    case 'sysname':
      return { type: t.string };
    case 'date':
      return { type: t.date };
    case 'time':
      return { type: { kind: 'time', precision: c.scale } };
    case 'datetime2':
      return { type: { kind: 'timestamp', precision: c.scale } };
    case 'datetime':
      return { type: { kind: 'timestamp', precision: 3 } };
    case 'smalldatetime':
      return { type: { kind: 'timestamp', precision: 0 } };
    case 'datetimeoffset':
      return { type: { kind: 'timestamptz', precision: c.scale } };
    case 'binary':
    case 'varbinary':
      return { type: c.maxLength === -1 ? t.binary : { kind: 'binary', length: c.maxLength } };
    case 'image':
    case 'timestamp':
    case 'rowversion':
      return { type: t.binary };
    case 'uniqueidentifier':
      return { type: t.uuid };
    default:
      return { type: t.unknown, warning: `type "${nativeTypeText(c)}" is read as text: it has no Junction equivalent` };
  }
}

/** tedious's type names (metadata.type.name) for result columns of ad-hoc statements. */
export function mapTediousType(name: string, precision?: number, scale?: number, length?: number): Mapped {
  switch (name) {
    case 'Bit':
    case 'BitN':
      return { type: t.bool };
    case 'TinyInt':
    case 'SmallInt':
      return { type: t.int16 };
    case 'Int':
      return { type: t.int32 };
    case 'BigInt':
      return { type: t.int64 };
    case 'IntN':
      return { type: length === 8 ? t.int64 : length === 4 ? t.int32 : t.int16 };
    case 'Decimal':
    case 'Numeric':
    case 'DecimalN':
    case 'NumericN':
      return { type: t.decimal(precision ?? 38, scale ?? 0) };
    case 'Money':
    case 'MoneyN':
      return { type: t.decimal(19, 4) };
    case 'SmallMoney':
      return { type: t.decimal(10, 4) };
    case 'Real':
      return { type: t.float32 };
    case 'Float':
    case 'FloatN':
      return { type: length === 4 ? t.float32 : t.float64 };
    case 'Char':
    case 'NChar':
      return { type: length !== undefined ? t.char(name === 'NChar' ? length / 2 : length) : t.string };
    case 'VarChar':
    case 'NVarChar':
    case 'Text':
    case 'NText':
      return { type: t.string };
    case 'Date':
      return { type: t.date };
    case 'Time':
      return { type: t.time };
    case 'DateTime':
    case 'DateTimeN':
    case 'SmallDateTime':
    case 'DateTime2':
      return { type: t.timestamp };
    case 'DateTimeOffset':
      return { type: t.timestamptz };
    case 'Binary':
    case 'VarBinary':
    case 'Image':
      return { type: t.binary };
    case 'UniqueIdentifier':
      return { type: t.uuid };
    default:
      return { type: t.unknown, warning: `result type ${name} is read as text: it has no Junction equivalent` };
  }
}

const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;

/**
 * The fraction of a tedious Date: milliseconds plus `nanosecondsDelta` (seconds below the
 * millisecond, set for time/datetime2/datetimeoffset with scale > 3), rounded to `scale`.
 */
function fraction(d: Date, scale: number): string {
  const delta = (d as Date & { nanosecondsDelta?: number }).nanosecondsDelta ?? 0;
  const units = Math.round((d.getUTCMilliseconds() / 1000 + delta) * 10 ** scale);
  if (units === 0 || scale === 0) return '';
  return trimFraction('.' + String(units).padStart(scale, '0'));
}

function dateText(d: Date): string {
  const y = d.getUTCFullYear();
  return `${String(y).padStart(4, '0')}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

function timeText(d: Date, scale: number): string {
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}${fraction(d, scale)}`;
}

type Native = null | boolean | number | string | Date | Buffer;

/**
 * Decodes what tedious hands over (with useUTC: true) to the value model. tedious returns
 * bigint as a string (exact) and DECIMAL as a JS number: toFixed(scale) restores the exact
 * text for up to 15 significant digits. Exact wider decimals need the server-side text
 * conversion connector.ts adds to rendered queries.
 */
export function decodeNative(v: Native, type: JType): Value {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'bool':
      return typeof v === 'boolean' ? v : Number(v) !== 0;
    case 'int16':
    case 'int32':
      return Number(v);
    case 'int64':
      return BigInt(typeof v === 'number' ? Math.trunc(v) : String(v));
    case 'float32':
    case 'float64':
      return Number(v);
    case 'decimal':
      if (typeof v === 'number') return type.scale !== undefined ? v.toFixed(type.scale) : plainDecimal(v);
      return withScale(plainDecimal(String(v).trim()), type.scale);
    case 'date':
      return v instanceof Date ? dateText(v) : String(v).slice(0, 10);
    case 'time':
      return v instanceof Date ? timeText(v, type.precision ?? 7) : trimFraction(String(v));
    case 'timestamp':
      return v instanceof Date ? `${dateText(v)}T${timeText(v, type.precision ?? 7)}` : canonicalTimestamp(String(v));
    case 'timestamptz':
      return v instanceof Date ? `${dateText(v)}T${timeText(v, type.precision ?? 7)}Z` : timestamptzText(String(v));
    case 'binary':
      return Buffer.isBuffer(v) ? bytesOf(v) : bytesOf(Buffer.from(String(v), 'utf8'));
    case 'string':
      return type.fixed ? padChar(String(v), type.length) : String(v);
    case 'uuid':
      return String(v).toLowerCase();
    default:
      return Buffer.isBuffer(v) ? v.toString('utf8') : v instanceof Date ? v.toISOString() : String(v);
  }
}

/** CONVERT(nvarchar, datetimeoffset) text ('2021-03-28 03:00:00.1234567 +02:00') → UTC 'Z' form. */
export function timestamptzText(s: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)? ([+-])(\d{2}):(\d{2})$/.exec(s.trim());
  if (!m) return s;
  const offsetMin = (m[6] === '-' ? -1 : 1) * (Number(m[7]) * 60 + Number(m[8]));
  const d = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  d.setUTCMinutes(d.getUTCMinutes() - offsetMin);
  return `${dateText(d)}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}${m[5] ? trimFraction(m[5]) : ''}Z`;
}
