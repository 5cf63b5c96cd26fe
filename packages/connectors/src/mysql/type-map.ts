import { t, type JType, type Value } from '../contract/types.js';
import { canonicalTimestamp, padChar, trimFraction } from '../runtime/values.js';

export interface Mapped {
  readonly type: JType;
  readonly warning?: string;
}

/** information_schema.COLUMNS.COLUMN_TYPE ("decimal(15,2)", "bigint(20) unsigned", "tinyint(1)") → JType. */
export function mapNativeType(columnType: string): Mapped {
  const s = columnType.trim().toLowerCase();
  const m = /^([a-z0-9_ ]+?)(?:\((\d+)(?:,(\d+))?\))?((?:\s+(?:unsigned|signed|zerofill))*)$/.exec(s);
  if (!m) {
    if (/^(enum|set)\(/.test(s)) return { type: t.string };
    return unknown(columnType);
  }
  const base = m[1].trim();
  const p1 = m[2] !== undefined ? Number(m[2]) : undefined;
  const p2 = m[3] !== undefined ? Number(m[3]) : undefined;
  const unsigned = m[4].includes('unsigned');
  switch (base) {
    case 'tinyint':
      // MySQL's BOOLEAN is tinyint(1)
      return { type: p1 === 1 ? t.bool : t.int16 };
    case 'bool':
    case 'boolean':
      return { type: t.bool };
    case 'smallint':
      return { type: unsigned ? t.int32 : t.int16 };
    case 'mediumint':
      return { type: t.int32 };
    case 'int':
    case 'integer':
      return { type: unsigned ? t.int64 : t.int32 };
    case 'bigint':
      return { type: unsigned ? t.decimal(20, 0) : t.int64 };
    case 'decimal':
    case 'numeric':
    case 'dec':
    case 'fixed':
      return { type: t.decimal(p1 ?? 10, p2 ?? 0) };
    case 'float':
      return { type: t.float32 };
    case 'double':
    case 'double precision':
    case 'real':
      return { type: t.float64 };
    case 'bit':
      return p1 === 1 || p1 === undefined ? { type: t.bool } : unknown(columnType, 'bit strings are read as text');
    case 'char':
      return { type: t.char(p1 ?? 1) };
    case 'varchar':
      return { type: t.varchar(p1) };
    case 'tinytext':
    case 'text':
    case 'mediumtext':
    case 'longtext':
      return { type: t.string };
    case 'binary':
    case 'varbinary':
      return { type: p1 !== undefined ? { kind: 'binary', length: p1 } : t.binary };
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return { type: t.binary };
    case 'date':
      return { type: t.date };
    case 'time':
      return { type: p1 !== undefined ? { kind: 'time', precision: p1 } : t.time };
    case 'datetime':
      return { type: p1 !== undefined ? { kind: 'timestamp', precision: p1 } : t.timestamp };
    case 'timestamp':
      // stored in UTC and shown in the session time zone, which the connector pins to UTC
      return { type: p1 !== undefined ? { kind: 'timestamptz', precision: p1 } : t.timestamptz };
    case 'year':
      return { type: t.int16 };
    case 'json':
      return { type: t.json };
    case 'uuid':
      return { type: t.uuid };
    default:
      return unknown(columnType);
  }
}

function unknown(native: string, why = 'it has no Junction equivalent'): Mapped {
  return { type: t.unknown, warning: `type "${native}" is read as text: ${why}` };
}

/** Protocol column type codes (include/mysql_com.h enum_field_types). */
export const MYSQL_TYPE = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;
const BINARY_CHARSET = 63;

export interface FieldLike {
  readonly name: string;
  readonly columnType: number;
  readonly columnLength: number;
  readonly decimals: number;
  readonly flags: number;
  readonly characterSet: number;
}

// utf8mb3 and single-byte collation ids; everything else is taken as utf8mb4 (4 bytes a character).
// MariaDB numbers its NO PAD variants at id + 1024.
function bytesPerChar(collationId: number): number {
  const id = collationId >= 1024 && collationId < 2048 ? collationId - 1024 : collationId;
  if (id === 33 || id === 83 || id === 76 || (id >= 192 && id <= 215) || id === 223) return 3;
  if ([5, 8, 15, 31, 47, 48, 49, 94, 11, 65, 63].includes(id)) return 1;
  return 4;
}

/** A result column's JType from the protocol metadata (for ad-hoc statements). */
export function mapField(f: FieldLike): Mapped {
  const unsigned = (f.flags & UNSIGNED_FLAG) !== 0;
  const binary = f.characterSet === BINARY_CHARSET;
  switch (f.columnType) {
    case MYSQL_TYPE.TINY:
      return { type: f.columnLength === 1 ? t.bool : t.int16 };
    case MYSQL_TYPE.SHORT:
      return { type: unsigned ? t.int32 : t.int16 };
    case MYSQL_TYPE.INT24:
      return { type: t.int32 };
    case MYSQL_TYPE.LONG:
      return { type: unsigned ? t.int64 : t.int32 };
    case MYSQL_TYPE.LONGLONG:
      return { type: unsigned ? t.decimal(20, 0) : t.int64 };
    case MYSQL_TYPE.DECIMAL:
    case MYSQL_TYPE.NEWDECIMAL: {
      const precision = f.columnLength - (f.decimals > 0 ? 1 : 0) - (unsigned ? 0 : 1);
      return { type: t.decimal(precision, f.decimals) };
    }
    case MYSQL_TYPE.FLOAT:
      return { type: t.float32 };
    case MYSQL_TYPE.DOUBLE:
      return { type: t.float64 };
    case MYSQL_TYPE.NULL:
      return { type: t.null };
    case MYSQL_TYPE.TIMESTAMP:
      return { type: t.timestamptz };
    case MYSQL_TYPE.DATE:
    case MYSQL_TYPE.NEWDATE:
      return { type: t.date };
    case MYSQL_TYPE.TIME:
      return { type: t.time };
    case MYSQL_TYPE.DATETIME:
      return { type: t.timestamp };
    case MYSQL_TYPE.YEAR:
      return { type: t.int16 };
    case MYSQL_TYPE.BIT:
      return { type: f.columnLength === 1 ? t.bool : t.binary };
    case MYSQL_TYPE.JSON:
      return { type: t.json };
    case MYSQL_TYPE.STRING:
      if (binary) return { type: t.binary };
      if (f.flags & (ENUM_FLAG | SET_FLAG)) return { type: t.string };
      return { type: t.char(Math.max(1, Math.round(f.columnLength / bytesPerChar(f.characterSet)))) };
    case MYSQL_TYPE.VARCHAR:
    case MYSQL_TYPE.VAR_STRING:
      if (binary) return { type: t.binary };
      return { type: t.varchar(Math.round(f.columnLength / bytesPerChar(f.characterSet))) };
    case MYSQL_TYPE.ENUM:
    case MYSQL_TYPE.SET:
      return { type: t.string };
    case MYSQL_TYPE.TINY_BLOB:
    case MYSQL_TYPE.MEDIUM_BLOB:
    case MYSQL_TYPE.LONG_BLOB:
    case MYSQL_TYPE.BLOB:
      return { type: binary ? t.binary : t.string };
    default:
      return {
        type: t.unknown,
        warning: `column "${f.name}" of protocol type ${f.columnType} is read as text: it has no Junction equivalent`,
      };
  }
}

export type Decoder = (raw: Buffer) => Value;

/**
 * Decoders over the text protocol's raw bytes (typeCast is off, every value is a Buffer):
 * numbers are parsed from their decimal text, so BIGINT and DECIMAL stay exact.
 */
export function decoderFor(type: JType): Decoder {
  switch (type.kind) {
    case 'bool':
      // tinyint(1) as '0'/'1'; BIT(1) as one raw byte
      return (b) => (b.length === 1 && b[0] < 2 ? b[0] === 1 : b.toString('latin1') !== '0');
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return (b) => Number(b.toString('latin1'));
    case 'int64':
      return (b) => BigInt(b.toString('latin1'));
    case 'decimal':
    case 'date':
      return (b) => b.toString('latin1');
    case 'time':
      return (b) => trimFraction(b.toString('latin1'));
    case 'timestamp':
      return (b) => canonicalTimestamp(b.toString('latin1'));
    case 'timestamptz':
      return (b) => canonicalTimestamp(b.toString('latin1')) + 'Z';
    case 'binary':
      // copy: the slice would otherwise pin the whole network chunk
      return (b) => new Uint8Array(b);
    case 'string':
      // CHAR loses its trailing blanks on the way out of MySQL; PostgreSQL keeps them padded
      if (type.fixed) return (b) => padChar(b.toString('utf8'), type.length);
      return (b) => b.toString('utf8');
    case 'uuid':
      return (b) => b.toString('latin1').toLowerCase();
    default:
      return (b) => b.toString('utf8');
  }
}
