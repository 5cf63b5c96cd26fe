import { t, type JType, type Value } from '../contract/types.js';
import {
  bytesOf,
  canonicalTimestamp,
  padChar,
  plainDecimal,
  timestamptzToUtc,
  trimFraction,
  withScale,
} from '../runtime/values.js';

export interface Mapped {
  readonly type: JType;
  readonly warning?: string;
}

/**
 * A declared column type → JType. SQLite stores whatever it is given, so the declared
 * name is all there is; names SQLite itself has no notion of (DATE, DECIMAL(p,s), CHAR(n))
 * are honoured because loaders declare them to keep the meaning.
 */
export function mapDeclaredType(declared: string | null | undefined): Mapped {
  const s = (declared ?? '').trim().toUpperCase();
  if (s === '') return { type: t.unknown, warning: 'column has no declared type and is read by its stored values' };
  const m = /^([A-Z_ ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(s);
  const base = m ? m[1].trim() : s;
  const p1 = m?.[2] !== undefined ? Number(m[2]) : undefined;
  const p2 = m?.[3] !== undefined ? Number(m[3]) : undefined;
  switch (base) {
    case 'BOOLEAN':
    case 'BOOL':
      return { type: t.bool };
    case 'SMALLINT':
    case 'INT2':
    case 'TINYINT':
      return { type: t.int16 };
    case 'MEDIUMINT':
    case 'INT4':
      return { type: t.int32 };
    case 'DECIMAL':
    case 'NUMERIC':
      return { type: p1 !== undefined ? t.decimal(p1, p2 ?? 0) : { kind: 'decimal' } };
    case 'REAL':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DOUBLE PRECISION':
      return { type: t.float64 };
    case 'CHAR':
    case 'CHARACTER':
    case 'NCHAR':
      return { type: t.char(p1 ?? 1) };
    case 'VARCHAR':
    case 'CHARACTER VARYING':
    case 'NVARCHAR':
    case 'VARYING CHARACTER':
      return { type: p1 !== undefined ? t.varchar(p1) : t.string };
    case 'TEXT':
    case 'CLOB':
      return { type: t.string };
    case 'DATE':
      return { type: t.date };
    case 'TIME':
      return { type: t.time };
    case 'DATETIME':
    case 'TIMESTAMP':
      return { type: t.timestamp };
    case 'TIMESTAMPTZ':
    case 'TIMESTAMP WITH TIME ZONE':
      return { type: t.timestamptz };
    case 'BLOB':
    case 'BYTEA':
    case 'BINARY':
    case 'VARBINARY':
      return { type: t.binary };
    case 'JSON':
    case 'JSONB':
      return { type: t.json };
    case 'UUID':
      return { type: t.uuid };
  }
  // SQLite's own affinity rules, in its order
  if (s.includes('INT')) return { type: t.int64 };
  if (s.includes('CHAR') || s.includes('CLOB') || s.includes('TEXT')) return { type: t.string };
  if (s.includes('BLOB')) return { type: t.binary };
  if (s.includes('REAL') || s.includes('FLOA') || s.includes('DOUB')) return { type: t.float64 };
  return { type: t.unknown, warning: `type "${declared}" is read as text: it has no Junction equivalent` };
}

type Raw = null | bigint | number | string | Buffer;

/** Decodes a stored value (read with safeIntegers, so integers are bigint) to `type`'s representation. */
export function decodeValue(v: Raw, type: JType): Value {
  if (v === null) return null;
  switch (type.kind) {
    case 'int64':
      return typeof v === 'bigint' ? v : typeof v === 'number' ? BigInt(Math.trunc(v)) : BigInt(String(v));
    case 'int16':
    case 'int32':
      return typeof v === 'bigint' ? Number(v) : Number(v);
    case 'float32':
    case 'float64':
      return Number(v);
    case 'bool':
      return typeof v === 'bigint'
        ? v !== 0n
        : typeof v === 'number'
          ? v !== 0
          : v === '1' || v === 't' || v === 'true' || v === 'TRUE';
    case 'decimal':
      if (typeof v === 'bigint') return withScale(v.toString(), type.scale);
      if (typeof v === 'number')
        return withScale(
          type.scale !== undefined ? trimDecimal(v.toFixed(type.scale), type.scale) : plainDecimal(v),
          type.scale,
        );
      return withScale(plainDecimal(String(v)), type.scale);
    case 'string':
      if (Buffer.isBuffer(v)) return v.toString('utf8');
      return type.fixed ? padChar(String(v), type.length) : String(v);
    case 'binary':
      return Buffer.isBuffer(v) ? bytesOf(v) : bytesOf(Buffer.from(String(v), 'utf8'));
    case 'timestamp':
      return canonicalTimestamp(String(v));
    case 'timestamptz':
      return timestamptzToUtc(String(v));
    case 'time':
      return trimFraction(String(v));
    case 'uuid':
      return String(v).toLowerCase();
    default:
      return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
}

// toFixed pads to exactly `scale` digits already; kept as a hook for the -0 case
function trimDecimal(text: string, _scale: number): string {
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** Columns without a declared type (expressions) come back by what SQLite holds. */
export function decodeByValue(v: Raw): Value {
  if (Buffer.isBuffer(v)) return bytesOf(v);
  return v;
}

export function typeOfValue(v: Raw): JType {
  if (typeof v === 'bigint') return t.int64;
  if (typeof v === 'number') return t.float64;
  if (Buffer.isBuffer(v)) return t.binary;
  return t.string;
}
