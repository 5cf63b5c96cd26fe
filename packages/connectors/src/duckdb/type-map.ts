import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBListValue,
  DuckDBArrayValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimeValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBUUIDValue,
  DuckDBUnionValue,
  type DuckDBValue,
} from '@duckdb/node-api';
import { JunctionError } from '../contract/errors.js';
import { t, type JType, type Value } from '../contract/types.js';
import { bytesOf, padChar, trimFraction, withScale } from '../runtime/values.js';

export interface Mapped {
  readonly type: JType;
  readonly warning?: string;
}

/** DuckDB's type text (DESCRIBE, a result column's type) → JType. */
export function mapDuckType(text: string): Mapped {
  const s = text.trim().toUpperCase();
  // nested values are read as JSON text (views turn them into JSON already; ad-hoc queries may not)
  if (s.endsWith(']') || /^(STRUCT|MAP|UNION)\s*\(/.test(s)) return { type: t.json };
  const m = /^([A-Z_ ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(s);
  const base = m ? m[1].trim() : s;
  const p1 = m?.[2] !== undefined ? Number(m[2]) : undefined;
  const p2 = m?.[3] !== undefined ? Number(m[3]) : undefined;
  switch (base) {
    case 'BOOLEAN':
    case 'BOOL':
      return { type: t.bool };
    case 'TINYINT':
    case 'SMALLINT':
    case 'UTINYINT':
      return { type: t.int16 };
    case 'INTEGER':
    case 'INT':
    case 'USMALLINT':
      return { type: t.int32 };
    case 'BIGINT':
    case 'UINTEGER':
      return { type: t.int64 };
    // wider than int64: exact as decimals
    case 'UBIGINT':
      return { type: t.decimal(20, 0) };
    case 'HUGEINT':
    case 'UHUGEINT':
      return { type: t.decimal(39, 0) };
    case 'DECIMAL':
    case 'NUMERIC':
      return { type: t.decimal(p1 ?? 18, p1 !== undefined ? (p2 ?? 0) : 3) };
    case 'FLOAT':
    case 'REAL':
      return { type: t.float32 };
    case 'DOUBLE':
      return { type: t.float64 };
    case 'VARCHAR':
    case 'TEXT':
    case 'STRING':
    case 'CHAR':
    case 'BPCHAR':
    case 'ENUM':
      return { type: t.string };
    case 'JSON':
      return { type: t.json };
    case 'DATE':
      return { type: t.date };
    case 'TIME':
      return { type: t.time };
    case 'TIMESTAMP':
    case 'DATETIME':
    case 'TIMESTAMP_S':
    case 'TIMESTAMP_MS':
    case 'TIMESTAMP_NS':
      return { type: t.timestamp };
    case 'TIMESTAMP WITH TIME ZONE':
    case 'TIMESTAMPTZ':
      return { type: t.timestamptz };
    case 'INTERVAL':
      return { type: t.interval };
    case 'BLOB':
      return { type: t.binary };
    case 'UUID':
      return { type: t.uuid };
    case 'NULL':
      return { type: t.null };
  }
  if (base.startsWith('ENUM')) return { type: t.string };
  return { type: t.unknown, warning: `type "${text}" is read as text: it has no Junction equivalent` };
}

/**
 * A FileTableSpec column override (PostgreSQL-ish type text) → DuckDB type text. Only known
 * spellings pass: the text goes into the view's SQL.
 */
export function overrideType(source: string, table: string, column: string, text: string): string {
  const s = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const dec = /^(?:decimal|numeric)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/.exec(s);
  if (dec) {
    const p = Number(dec[1]);
    const sc = Number(dec[2] ?? 0);
    if (p >= 1 && p <= 38 && sc <= p) return `DECIMAL(${p},${sc})`;
  }
  const vc = /^(?:varchar|character varying|char|character)\s*\(\s*\d+\s*\)$/.exec(s);
  if (vc) return 'VARCHAR';
  const known: Record<string, string> = {
    text: 'VARCHAR',
    varchar: 'VARCHAR',
    string: 'VARCHAR',
    'character varying': 'VARCHAR',
    boolean: 'BOOLEAN',
    bool: 'BOOLEAN',
    smallint: 'SMALLINT',
    int2: 'SMALLINT',
    integer: 'INTEGER',
    int: 'INTEGER',
    int4: 'INTEGER',
    bigint: 'BIGINT',
    int8: 'BIGINT',
    real: 'FLOAT',
    float4: 'FLOAT',
    'double precision': 'DOUBLE',
    double: 'DOUBLE',
    float8: 'DOUBLE',
    float: 'DOUBLE',
    date: 'DATE',
    time: 'TIME',
    timestamp: 'TIMESTAMP',
    'timestamp without time zone': 'TIMESTAMP',
    timestamptz: 'TIMESTAMPTZ',
    'timestamp with time zone': 'TIMESTAMPTZ',
    interval: 'INTERVAL',
    uuid: 'UUID',
    json: 'JSON',
    bytea: 'BLOB',
    blob: 'BLOB',
  };
  const duck = known[s];
  if (duck) return duck;
  throw new JunctionError(
    'file_column_type_unknown',
    'user',
    `Source "${source}": column "${column}" of table "${table}" has type "${text}", which is not one Junction knows (use e.g. decimal(15,2), bigint, double precision, text, date, timestamp, timestamptz, boolean).`,
    { details: { source, table, column, type: text } },
  );
}

const MICROS_PER_DAY = 86_400_000_000n;

function pad(n: number | bigint, width: number): string {
  return String(n).padStart(width, '0');
}

function ymd(days: number): string {
  const d = new Date(days * 86_400_000);
  const y = d.getUTCFullYear();
  const year = y >= 0 && y < 10000 ? pad(y, 4) : String(y);
  return `${year}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

function timeOfDay(micros: bigint): string {
  const s = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const text = `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}.${pad(frac, 6)}`;
  return trimFraction(text);
}

/** Microseconds since the epoch → 'YYYY-MM-DDTHH:MM:SS[.ffffff]' (the fraction never passes through a float). */
export function timestampText(micros: bigint): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  return `${ymd(Number(days))}T${timeOfDay(rest)}`;
}

/** An exact decimal from its unscaled integer and scale: 190957271610n, 2 → '1909572716.10'. */
export function decimalText(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString();
  if (scale <= 0) return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  const padded = digits.padStart(scale + 1, '0');
  return (neg ? '-' : '') + padded.slice(0, -scale) + '.' + padded.slice(-scale);
}

/** PostgreSQL's iso_8601 interval style: 'P1Y2M3DT4H', 'PT0S' for zero. */
export function intervalText(months: number, days: number, micros: bigint): string {
  let out = 'P';
  const y = Math.trunc(months / 12);
  const mo = months % 12;
  if (y) out += `${y}Y`;
  if (mo) out += `${mo}M`;
  if (days) out += `${days}D`;
  if (micros !== 0n) {
    const neg = micros < 0n;
    const abs = neg ? -micros : micros;
    const h = abs / 3_600_000_000n;
    const m = (abs / 60_000_000n) % 60n;
    const us = abs % 60_000_000n;
    const sign = neg ? '-' : '';
    out += 'T';
    if (h) out += `${sign}${h}H`;
    if (m) out += `${sign}${m}M`;
    if (us) out += `${sign}${trimFraction(`${us / 1_000_000n}.${pad(us % 1_000_000n, 6)}`)}S`;
  }
  return out === 'P' ? 'PT0S' : out;
}

function asMicros(v: DuckDBValue): bigint | undefined {
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return v.micros;
  if (v instanceof DuckDBTimestampSecondsValue) return v.seconds * 1_000_000n;
  if (v instanceof DuckDBTimestampMillisecondsValue) return v.millis * 1000n;
  if (v instanceof DuckDBTimestampNanosecondsValue) return v.nanos / 1000n;
  return undefined;
}

/** Exact decimal text of a numeric DuckDB value. */
function numericText(v: DuckDBValue): string {
  if (v instanceof DuckDBDecimalValue) return decimalText(v.value, v.scale);
  return String(v);
}

/** A nested value (LIST, STRUCT, MAP, …) as JSON text; decimals and big integers keep every digit. */
export function nestedJson(v: DuckDBValue): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof DuckDBDecimalValue) return decimalText(v.value, v.scale);
  if (v instanceof DuckDBListValue || v instanceof DuckDBArrayValue) return `[${v.items.map(nestedJson).join(',')}]`;
  if (v instanceof DuckDBStructValue)
    return `{${Object.entries(v.entries)
      .map(([k, x]) => `${JSON.stringify(k)}:${nestedJson(x)}`)
      .join(',')}}`;
  if (v instanceof DuckDBMapValue)
    return `{${v.entries.map((e) => `${JSON.stringify(String(e.key))}:${nestedJson(e.value)}`).join(',')}}`;
  if (v instanceof DuckDBUnionValue) return nestedJson(v.value);
  const scalar = decodeDuckValue(v, undefined);
  return scalar instanceof Uint8Array
    ? JSON.stringify(Buffer.from(scalar).toString('base64'))
    : JSON.stringify(String(scalar));
}

/**
 * A DuckDB value → Junction's value model, as `type` wants it (the rendered query's column
 * type, or the result column's own). Temporal values are built from their integer fields,
 * never from DuckDB's display text, so no session setting can change them.
 */
export function decodeDuckValue(v: DuckDBValue, type: JType | undefined): Value {
  if (v === null || v === undefined) return null;
  const kind = type?.kind;
  switch (kind) {
    case 'int64':
      return typeof v === 'bigint' ? v : typeof v === 'number' ? BigInt(v) : BigInt(numericText(v));
    case 'int16':
    case 'int32':
      return typeof v === 'number' ? v : Number(numericText(v));
    case 'float32':
    case 'float64':
      return typeof v === 'number' ? v : Number(numericText(v));
    case 'decimal':
      return withScale(numericText(v), type?.scale);
    case 'bool':
      return typeof v === 'boolean' ? v : Boolean(v);
    case 'string':
      if (typeof v === 'string') return type?.fixed ? padChar(v, type.length) : v;
      break;
    case 'json':
      return typeof v === 'string' ? v : nestedJson(v);
  }
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof DuckDBDecimalValue) return decimalText(v.value, v.scale);
  if (v instanceof DuckDBDateValue) return ymd(v.days);
  const micros = asMicros(v);
  if (micros !== undefined) return timestampText(micros) + (v instanceof DuckDBTimestampTZValue ? 'Z' : '');
  if (v instanceof DuckDBTimeValue) return timeOfDay(v.micros);
  if (v instanceof DuckDBIntervalValue) return intervalText(v.months, v.days, v.micros);
  if (v instanceof DuckDBBlobValue) return bytesOf(v.bytes);
  if (v instanceof DuckDBUUIDValue) return v.toString().toLowerCase();
  if (
    v instanceof DuckDBListValue ||
    v instanceof DuckDBArrayValue ||
    v instanceof DuckDBStructValue ||
    v instanceof DuckDBMapValue ||
    v instanceof DuckDBUnionValue
  )
    return nestedJson(v);
  return String(v);
}
