import { t, type JType, type Value } from '../contract/types.js';
import { bytesOf, canonicalTimestamp, timestamptzToUtc } from '../runtime/values.js';
import { boolCell, int32Cell, utf8Cell, type CellDecoder } from './data-rows.js';

/** Result of mapping a native type: `warning` is set when Junction reads it as text only. */
export interface Mapped {
  readonly type: JType;
  readonly warning?: string;
}

/** Maps PostgreSQL's format_type() spelling ("character varying(25)", "numeric(15,2)") to a JType. */
export function mapNativeType(native: string): Mapped {
  const s = native.trim().toLowerCase();
  if (s.endsWith('[]')) return unknown(native, 'arrays are read as their text form');
  const m = /^([a-z" ]+?)\s*(?:\((\d+)(?:\s*,\s*(\d+))?\))?(\s+with(?:out)? time zone)?$/.exec(s);
  if (!m) return unknown(native);
  const base = m[1].trim();
  const p1 = m[2] !== undefined ? Number(m[2]) : undefined;
  const p2 = m[3] !== undefined ? Number(m[3]) : undefined;
  const tz = m[4]?.includes('without') === false;
  switch (base) {
    case 'smallint':
    case 'int2':
      return { type: t.int16 };
    case 'integer':
    case 'int':
    case 'int4':
      return { type: t.int32 };
    case 'bigint':
    case 'int8':
    case 'oid':
      return { type: t.int64 };
    case 'numeric':
    case 'decimal':
      return { type: p1 !== undefined ? t.decimal(p1, p2 ?? 0) : { kind: 'decimal' } };
    case 'real':
    case 'float4':
      return { type: t.float32 };
    case 'double precision':
    case 'float8':
      return { type: t.float64 };
    case 'boolean':
    case 'bool':
      return { type: t.bool };
    case 'character':
    case 'char':
    case 'bpchar':
      return { type: t.char(p1 ?? 1) };
    case 'character varying':
    case 'varchar':
      return { type: p1 !== undefined ? t.varchar(p1) : t.string };
    case 'text':
    case 'name':
    case '"char"':
    case 'citext':
      return { type: t.string };
    case 'date':
      return { type: t.date };
    case 'time':
      if (tz) return unknown(native, 'time with time zone is read as text');
      return { type: p1 !== undefined ? { kind: 'time', precision: p1 } : t.time };
    case 'timestamp':
      return {
        type:
          p1 !== undefined
            ? { kind: tz ? 'timestamptz' : 'timestamp', precision: p1 }
            : tz
              ? t.timestamptz
              : t.timestamp,
      };
    case 'timestamptz':
      return { type: t.timestamptz };
    case 'interval':
      return { type: t.interval };
    case 'bytea':
      return { type: t.binary };
    case 'json':
    case 'jsonb':
      return { type: t.json };
    case 'uuid':
      return { type: t.uuid };
    default:
      return unknown(native);
  }
}

function unknown(native: string, why = 'it has no Junction equivalent'): Mapped {
  return { type: t.unknown, warning: `type "${native}" is read as text: ${why}` };
}

/** Type OIDs of pg_type, for result columns of ad-hoc statements. */
export const OID = {
  bool: 16,
  bytea: 17,
  char: 18,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  unknown: 705,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

export function mapOid(oid: number, typmod: number): Mapped {
  switch (oid) {
    case OID.bool:
      return { type: t.bool };
    case OID.bytea:
      return { type: t.binary };
    case OID.char:
    case OID.name:
    case OID.text:
    case OID.unknown:
      return { type: t.string };
    case OID.int8:
    case OID.oid:
      return { type: t.int64 };
    case OID.int2:
      return { type: t.int16 };
    case OID.int4:
      return { type: t.int32 };
    case OID.json:
    case OID.jsonb:
      return { type: t.json };
    case OID.float4:
      return { type: t.float32 };
    case OID.float8:
      return { type: t.float64 };
    case OID.bpchar:
      return { type: typmod > 4 ? t.char(typmod - 4) : t.string };
    case OID.varchar:
      return { type: typmod > 4 ? t.varchar(typmod - 4) : t.string };
    case OID.date:
      return { type: t.date };
    case OID.time:
      return { type: t.time };
    case OID.timestamp:
      return { type: t.timestamp };
    case OID.timestamptz:
      return { type: t.timestamptz };
    case OID.interval:
      return { type: t.interval };
    case OID.numeric:
      if (typmod > 4) return { type: t.decimal(((typmod - 4) >> 16) & 0xffff, (typmod - 4) & 0xffff) };
      return { type: { kind: 'decimal' } };
    case OID.uuid:
      return { type: t.uuid };
    default:
      return { type: t.unknown, warning: `type oid ${oid} is read as text: it has no Junction equivalent` };
  }
}

export type Decoder = (text: string) => Value;

const asText: Decoder = (s) => s;

function parseFloatText(s: string): number {
  // PostgreSQL spells the specials differently from JS
  if (s === 'Infinity') return Infinity;
  if (s === '-Infinity') return -Infinity;
  if (s === 'NaN') return NaN;
  return Number(s);
}

/**
 * Decoders over the text wire format (every type parser is the identity, see connector.ts):
 * exact by construction, since int8 and numeric never become a JS number.
 */
export function decoderForOid(oid: number): Decoder {
  switch (oid) {
    case OID.bool:
      return (s) => s === 't';
    case OID.int2:
    case OID.int4:
      return (s) => Number(s);
    case OID.int8:
    case OID.oid:
      return (s) => BigInt(s);
    case OID.float4:
    case OID.float8:
      return parseFloatText;
    case OID.bytea:
      return (s) => bytesOf(Buffer.from(s.slice(2), 'hex'));
    case OID.timestamp:
      return canonicalTimestamp;
    case OID.timestamptz:
      return timestamptzToUtc;
    case OID.uuid:
      return (s) => s.toLowerCase();
    default:
      // numeric is already plain text with its scale; date/time (DateStyle ISO), char
      // (blank-padded by the server), json and interval (IntervalStyle iso_8601) as sent
      return asText;
  }
}

/** decoderForOid's decoder, applied to a cell's bytes in place (data-rows.ts): integers and booleans without a string */
export function cellDecoderForOid(oid: number): CellDecoder {
  switch (oid) {
    case OID.bool:
      return boolCell;
    case OID.int2:
    case OID.int4:
      return int32Cell;
    default:
      return cellOf(decoderForOid(oid));
  }
}

/** A text decoder over a cell's bytes. */
export function cellOf(decode: Decoder): CellDecoder {
  return decode === asText ? utf8Cell : (b, s, e) => decode(utf8Cell(b, s, e));
}
