import { dialectFor, JunctionError, PG_OID, type JType, type Value } from '@junction/connectors';

/**
 * Junction's value model (connectors' contract/types.ts) as PostgreSQL types on the wire: the
 * OID and type modifier a RowDescription carries, and each value in text and binary format.
 * Text is what PostgreSQL's own output functions print with DateStyle ISO, IntervalStyle
 * postgres and TimeZone UTC (the settings this server reports), so a client cannot tell the
 * difference.
 */
export const OID = PG_OID;

export interface WireType {
  readonly oid: number;
  /** pg_type.typlen: bytes of a fixed-size value, -1 for variable */
  readonly size: number;
  /** atttypmod: varchar(n)/char(n) n+4, numeric(p,s) (p<<16|s)+4, else -1 */
  readonly modifier: number;
}

export function wireType(type: JType): WireType {
  switch (type.kind) {
    case 'bool':
      return { oid: OID.bool, size: 1, modifier: -1 };
    case 'int16':
      return { oid: OID.int2, size: 2, modifier: -1 };
    case 'int32':
      return { oid: OID.int4, size: 4, modifier: -1 };
    case 'int64':
      return { oid: OID.int8, size: 8, modifier: -1 };
    case 'float32':
      return { oid: OID.float4, size: 4, modifier: -1 };
    case 'float64':
      return { oid: OID.float8, size: 8, modifier: -1 };
    case 'decimal':
      return {
        oid: OID.numeric,
        size: -1,
        modifier: type.precision !== undefined ? ((type.precision << 16) | (type.scale ?? 0)) + 4 : -1,
      };
    case 'string':
      if (type.fixed) return { oid: OID.bpchar, size: -1, modifier: (type.length ?? 1) + 4 };
      if (type.length !== undefined) return { oid: OID.varchar, size: -1, modifier: type.length + 4 };
      return { oid: OID.text, size: -1, modifier: -1 };
    case 'date':
      return { oid: OID.date, size: 4, modifier: -1 };
    case 'time':
      return { oid: OID.time, size: 8, modifier: type.precision ?? -1 };
    case 'timestamp':
      return { oid: OID.timestamp, size: 8, modifier: type.precision ?? -1 };
    case 'timestamptz':
      return { oid: OID.timestamptz, size: 8, modifier: type.precision ?? -1 };
    case 'interval':
      return { oid: OID.interval, size: 16, modifier: -1 };
    case 'binary':
      return { oid: OID.bytea, size: -1, modifier: -1 };
    case 'json':
      return { oid: OID.jsonb, size: -1, modifier: -1 };
    case 'uuid':
      return { oid: OID.uuid, size: 16, modifier: -1 };
    default:
      // a bare NULL and unmapped source types are text, as PostgreSQL types `SELECT NULL`
      return { oid: OID.text, size: -1, modifier: -1 };
  }
}

const postgres = dialectFor('postgresql');

/** PostgreSQL's SQL spelling of a type (the PostgreSQL dialect's casts), for the shadow catalog's columns. */
export function pgTypeName(type: JType): string {
  return postgres.castType(type) ?? 'text';
}

/** A type as formatType printed it (a stored view's columns): decimal(15,2), varchar(25), int64. */
export function typeOfText(text: string): JType {
  const m = /^(\w+)(?:\((\d+)(?:,(\d+))?\))?$/.exec(text.trim());
  const name = m?.[1] ?? 'unknown';
  const a = m?.[2] !== undefined ? Number(m[2]) : undefined;
  const b = m?.[3] !== undefined ? Number(m[3]) : undefined;
  switch (name) {
    case 'decimal':
      return { kind: 'decimal', ...(a !== undefined ? { precision: a, scale: b ?? 0 } : {}) };
    case 'varchar':
      return { kind: 'string', ...(a !== undefined ? { length: a } : {}) };
    case 'char':
      return { kind: 'string', length: a ?? 1, fixed: true };
    case 'text':
      return { kind: 'string' };
    default:
      return { kind: name as JType['kind'] };
  }
}

/** The JType a client means by a parameter OID it declared in Parse (0 or unknown: undefined). */
export function typeOfOid(oid: number): JType | undefined {
  switch (oid) {
    case OID.bool:
      return { kind: 'bool' };
    case OID.int2:
      return { kind: 'int16' };
    case OID.int4:
    case OID.oid:
      return { kind: 'int32' };
    case OID.int8:
      return { kind: 'int64' };
    case OID.float4:
      return { kind: 'float32' };
    case OID.float8:
      return { kind: 'float64' };
    case OID.numeric:
      return { kind: 'decimal' };
    case OID.text:
    case OID.varchar:
    case OID.bpchar:
      return { kind: 'string' };
    case OID.date:
      return { kind: 'date' };
    case OID.time:
      return { kind: 'time' };
    case OID.timestamp:
      return { kind: 'timestamp' };
    case OID.timestamptz:
      return { kind: 'timestamptz' };
    case OID.interval:
      return { kind: 'interval' };
    case OID.bytea:
      return { kind: 'binary' };
    case OID.json:
    case OID.jsonb:
      return { kind: 'json' };
    case OID.uuid:
      return { kind: 'uuid' };
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// text format

/**
 * float8out since PostgreSQL 12: the shortest text that reads back as the same double, in
 * exponent form when the decimal exponent is below -4 or at least 15 (%g with 15 digits' rule).
 */
export function float8Text(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  return shortestText(v.toExponential().replace(/\.?0*e/, 'e'), 15);
}

/** float4out: the shortest text that reads back as the same float (Math.fround), same layout. */
export function float4Text(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  let exp = '';
  for (let digits = 1; digits <= 9; digits++) {
    exp = v.toExponential(digits - 1);
    if (Math.fround(Number(exp)) === v) break;
  }
  return shortestText(exp.replace(/\.?0*e/, 'e'), 6);
}

/** `d.ddde±x` (shortest digits) laid out as PostgreSQL does: plain up to 10^(limit-1), else `1e+15`. */
function shortestText(expForm: string, limit: number): string {
  const [mantissa, e] = expForm.split('e') as [string, string];
  const exponent = Number(e);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exponent < -4 || exponent >= limit) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const x = Math.abs(exponent);
    return `${negative ? '-' : ''}${m}e${exponent < 0 ? '-' : '+'}${x < 10 ? '0' : ''}${x}`;
  }
  let out: string;
  if (exponent < 0) out = `0.${'0'.repeat(-exponent - 1)}${digits}`;
  else if (digits.length <= exponent + 1) out = digits + '0'.repeat(exponent + 1 - digits.length);
  else out = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  return negative ? `-${out}` : out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function byteaText(v: Uint8Array): string {
  let out = '\\x';
  for (let i = 0; i < v.length; i++) out += HEX[v[i]!];
  return out;
}

/** ISO 8601 duration (the value model's interval) as IntervalStyle postgres prints it. */
export function intervalText(iso: string): string {
  const { months, days, micros } = parseIsoInterval(iso);
  const parts: string[] = [];
  const years = Math.trunc(months / 12);
  const mons = months % 12;
  if (years) parts.push(`${years} year${years === 1 ? '' : 's'}`);
  if (mons) parts.push(`${mons} mon${mons === 1 ? '' : 's'}`);
  if (days) parts.push(`${days} day${days === 1 ? '' : 's'}`);
  if (micros !== 0n || parts.length === 0) {
    const negative = micros < 0n;
    let u = negative ? -micros : micros;
    const h = u / 3_600_000_000n;
    u -= h * 3_600_000_000n;
    const m = u / 60_000_000n;
    u -= m * 60_000_000n;
    const s = u / 1_000_000n;
    const frac = u - s * 1_000_000n;
    const sign = negative ? '-' : parts.length > 0 && (months < 0 || days < 0) ? '+' : '';
    let time = `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
    if (frac) time += `.${String(frac).padStart(6, '0').replace(/0+$/, '')}`;
    if (micros !== 0n || parts.length === 0) parts.push(time);
  }
  return parts.join(' ');
}

/** P[nY][nM][nW][nD][T[nH][nM][n[.f]S]], each part optionally signed. */
export function parseIsoInterval(iso: string): { months: number; days: number; micros: bigint } {
  const m =
    /^(-)?P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+)(?:\.(\d+))?S)?)?$/.exec(
      iso,
    );
  if (!m) throw new JunctionError('invalid_interval', 'internal', `Not an ISO 8601 interval: ${iso}`);
  const n = (s: string | undefined) => (s ? Number(s) : 0);
  const sign = m[1] ? -1 : 1;
  const months = sign * (n(m[2]) * 12 + n(m[3]));
  const days = sign * (n(m[4]) * 7 + n(m[5]));
  const secondsWhole = BigInt(m[8] ?? '0');
  const fraction = BigInt((m[9] ?? '').padEnd(6, '0').slice(0, 6) || '0') * (m[8]?.startsWith('-') ? -1n : 1n);
  const micros =
    BigInt(sign) *
    (BigInt(n(m[6])) * 3_600_000_000n + BigInt(n(m[7])) * 60_000_000n + secondsWhole * 1_000_000n + fraction);
  return { months, days, micros };
}

/** One value as PostgreSQL's text output; null stays null (the wire's -1 length). */
export function textOf(type: JType, v: Value): string | null {
  if (v === null) return null;
  switch (type.kind) {
    case 'bool':
      return v ? 't' : 'f';
    case 'float64':
      return float8Text(v as number);
    case 'float32':
      return float4Text(v as number);
    case 'timestamp':
      return (v as string).replace('T', ' ');
    case 'timestamptz':
      return `${(v as string).replace('T', ' ').replace('Z', '')}+00`;
    case 'interval':
      return intervalText(v as string);
    case 'binary':
      return byteaText(v as Uint8Array);
    default:
      return typeof v === 'string' ? v : v instanceof Uint8Array ? byteaText(v) : String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// binary format

const PG_EPOCH_DAYS = 10957; // 2000-01-01 - 1970-01-01

function daysOf(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000) - PG_EPOCH_DAYS;
}

function microsOfTime(time: string): bigint {
  const [hms, frac = ''] = time.split('.') as [string, string?];
  const [h, m, s] = hms.split(':').map(Number) as [number, number, number];
  return BigInt(h * 3600 + m * 60 + s) * 1_000_000n + BigInt((frac ?? '').padEnd(6, '0').slice(0, 6) || '0');
}

/** Value-model timestamp text (with or without Z) as microseconds since 2000-01-01. */
function microsOfTimestamp(ts: string): bigint {
  const [date, rest] = ts.replace('Z', '').split('T') as [string, string];
  return BigInt(daysOf(date)) * 86_400_000_000n + microsOfTime(rest);
}

/** numeric's binary form: ndigits, weight, sign, dscale, then base-10000 digits. */
export function numericBinary(text: string): Buffer {
  if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') {
    const b = Buffer.alloc(8);
    b.writeUInt16BE(text === 'NaN' ? 0xc000 : text === 'Infinity' ? 0xd000 : 0xf000, 4);
    return b;
  }
  const negative = text.startsWith('-');
  const unsigned = negative || text.startsWith('+') ? text.slice(1) : text;
  const [intPart, fracPart = ''] = unsigned.split('.') as [string, string?];
  const dscale = (fracPart ?? '').length;
  const intDigits = intPart.replace(/^0+/, '');
  // pad to whole base-10000 groups around the decimal point
  const intPadded = intDigits.padStart(Math.ceil(intDigits.length / 4) * 4, '0');
  const fracPadded = (fracPart ?? '').padEnd(Math.ceil((fracPart ?? '').length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  let weight = intPadded.length / 4 - 1;
  let start = 0;
  while (start < groups.length && groups[start] === 0) {
    start++;
    weight--;
  }
  let end = groups.length;
  while (end > start && groups[end - 1] === 0) end--;
  const digits = groups.slice(start, end);
  if (digits.length === 0) weight = 0;
  const b = Buffer.alloc(8 + 2 * digits.length);
  b.writeInt16BE(digits.length, 0);
  b.writeInt16BE(weight, 2);
  b.writeUInt16BE(negative && digits.length > 0 ? 0x4000 : 0, 4);
  b.writeUInt16BE(dscale, 6);
  digits.forEach((d, i) => b.writeUInt16BE(d, 8 + 2 * i));
  return b;
}

export function numericFromBinary(b: Buffer): string {
  const ndigits = b.readInt16BE(0);
  const weight = b.readInt16BE(2);
  const sign = b.readUInt16BE(4);
  const dscale = b.readUInt16BE(6);
  if (sign === 0xc000) return 'NaN';
  if (sign === 0xd000) return 'Infinity';
  if (sign === 0xf000) return '-Infinity';
  const digits: number[] = [];
  for (let i = 0; i < ndigits; i++) digits.push(b.readUInt16BE(8 + 2 * i));
  let int = '';
  for (let w = 0; w <= weight; w++) int += String(digits[w] ?? 0).padStart(4, '0');
  int = int.replace(/^0+/, '') || '0';
  let frac = '';
  for (let i = weight + 1; frac.length < dscale; i++) frac += String(i < 0 ? 0 : (digits[i] ?? 0)).padStart(4, '0');
  frac = frac.slice(0, dscale);
  const out = dscale > 0 ? `${int}.${frac}` : int;
  return sign === 0x4000 && /[1-9]/.test(out) ? `-${out}` : out;
}

function uuidBytes(u: string): Buffer {
  return Buffer.from(u.replaceAll('-', ''), 'hex');
}

/** One value in PostgreSQL's binary send format. */
export function binaryOf(type: JType, v: Value): Buffer | null {
  if (v === null) return null;
  let b: Buffer;
  switch (type.kind) {
    case 'bool':
      return Buffer.from([v ? 1 : 0]);
    case 'int16':
      b = Buffer.alloc(2);
      b.writeInt16BE(Number(v));
      return b;
    case 'int32':
      b = Buffer.alloc(4);
      b.writeInt32BE(Number(v));
      return b;
    case 'int64':
      b = Buffer.alloc(8);
      b.writeBigInt64BE(BigInt(v as bigint | number));
      return b;
    case 'float32':
      b = Buffer.alloc(4);
      b.writeFloatBE(v as number);
      return b;
    case 'float64':
      b = Buffer.alloc(8);
      b.writeDoubleBE(v as number);
      return b;
    case 'decimal':
      return numericBinary(String(v));
    case 'date':
      b = Buffer.alloc(4);
      b.writeInt32BE(daysOf(v as string));
      return b;
    case 'time':
      b = Buffer.alloc(8);
      b.writeBigInt64BE(microsOfTime(v as string));
      return b;
    case 'timestamp':
    case 'timestamptz':
      b = Buffer.alloc(8);
      b.writeBigInt64BE(microsOfTimestamp(v as string));
      return b;
    case 'interval': {
      const { months, days, micros } = parseIsoInterval(v as string);
      b = Buffer.alloc(16);
      b.writeBigInt64BE(micros);
      b.writeInt32BE(days, 8);
      b.writeInt32BE(months, 12);
      return b;
    }
    case 'binary':
      return Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength);
    case 'uuid':
      return uuidBytes(v as string);
    case 'json':
      // jsonb's send format: a version byte, then the text
      return Buffer.concat([Buffer.from([1]), Buffer.from(v as string, 'utf8')]);
    default:
      return Buffer.from(typeof v === 'string' ? v : String(v), 'utf8');
  }
}

// ---------------------------------------------------------------------------------------------
// parameters from the client

function isoDate(days: number): string {
  return new Date((days + PG_EPOCH_DAYS) * 86_400_000).toISOString().slice(0, 10);
}

function timeOfMicros(micros: bigint): string {
  const s = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const hh = String(s / 3600n).padStart(2, '0');
  const mm = String((s / 60n) % 60n).padStart(2, '0');
  const ss = String(s % 60n).padStart(2, '0');
  return `${hh}:${mm}:${ss}${frac ? `.${String(frac).padStart(6, '0').replace(/0+$/, '')}` : ''}`;
}

function timestampOfMicros(micros: bigint): string {
  const dayMicros = 86_400_000_000n;
  let days = micros / dayMicros;
  let rest = micros % dayMicros;
  if (rest < 0n) {
    rest += dayMicros;
    days -= 1n;
  }
  return `${isoDate(Number(days))}T${timeOfMicros(rest)}`;
}

function isoInterval(months: number, days: number, micros: bigint): string {
  const neg = micros < 0n;
  let u = neg ? -micros : micros;
  const s = u / 1_000_000n;
  u %= 1_000_000n;
  const seconds = `${neg ? '-' : ''}${s}${u ? `.${String(u).padStart(6, '0').replace(/0+$/, '')}` : ''}`;
  return `P${months ? `${months}M` : ''}${days ? `${days}D` : ''}T${seconds}S`;
}

/**
 * A parameter the client sent, as a value the engine takes. Text stays text unless the client
 * declared a type: the engine casts strings to the type binding inferred, as PostgreSQL casts an
 * untyped literal. Binary needs a type, the declared one or else the inferred one.
 */
export function paramValue(
  raw: Buffer | null,
  format: number,
  declared: JType | undefined,
  inferred: JType | undefined,
): Value {
  if (raw === null) return null;
  if (format === 0) {
    const text = raw.toString('utf8');
    switch (declared?.kind) {
      case 'int16':
      case 'int32':
        return /^\s*[-+]?\d+\s*$/.test(text) ? Number(text) : text;
      case 'int64':
        return /^\s*[-+]?\d+\s*$/.test(text) ? BigInt(text.trim()) : text;
      case 'bool':
        return /^\s*(t|true|y|yes|on|1)\s*$/i.test(text)
          ? true
          : /^\s*(f|false|n|no|off|0)\s*$/i.test(text)
            ? false
            : text;
      case 'float32':
      case 'float64':
        return Number.isNaN(Number(text)) && !/^\s*nan\s*$/i.test(text) ? text : Number(text);
      case 'binary':
        return text.startsWith('\\x')
          ? new Uint8Array(Buffer.from(text.slice(2), 'hex'))
          : new Uint8Array(Buffer.from(text, 'latin1'));
      default:
        return text;
    }
  }
  const type = declared ?? inferred;
  if (!type || type.kind === 'unknown' || type.kind === 'null')
    throw new JunctionError(
      'indeterminate_datatype',
      'user',
      'A binary parameter needs a type: declare it in Parse or use it where its type is known.',
    );
  switch (type.kind) {
    case 'bool':
      return raw[0] !== 0;
    case 'int16':
      return raw.length === 2 ? raw.readInt16BE() : raw.length === 4 ? raw.readInt32BE() : Number(raw.readBigInt64BE());
    case 'int32':
      return raw.length === 4 ? raw.readInt32BE() : raw.length === 2 ? raw.readInt16BE() : Number(raw.readBigInt64BE());
    case 'int64':
      return raw.length === 8 ? raw.readBigInt64BE() : BigInt(raw.length === 4 ? raw.readInt32BE() : raw.readInt16BE());
    case 'float32':
      return raw.length === 4 ? raw.readFloatBE() : raw.readDoubleBE();
    case 'float64':
      return raw.length === 8 ? raw.readDoubleBE() : raw.readFloatBE();
    case 'decimal':
      return numericFromBinary(raw);
    case 'date':
      return isoDate(raw.readInt32BE());
    case 'time':
      return timeOfMicros(raw.readBigInt64BE());
    case 'timestamp':
      return timestampOfMicros(raw.readBigInt64BE());
    case 'timestamptz':
      return `${timestampOfMicros(raw.readBigInt64BE())}Z`;
    case 'interval':
      return isoInterval(raw.readInt32BE(12), raw.readInt32BE(8), raw.readBigInt64BE(0));
    case 'binary':
      return new Uint8Array(raw);
    case 'uuid': {
      const h = raw.toString('hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    case 'json':
      // jsonb carries a version byte (1); json text never starts with that byte
      return raw[0] === 1 ? raw.subarray(1).toString('utf8') : raw.toString('utf8');
    default:
      return raw.toString('utf8');
  }
}
