import type { JType, Row, Value } from '../contract/types.js';

/** Drops trailing zeros of a fractional second (and the dot when nothing is left): the canonical form. */
export function trimFraction(text: string): string {
  const dot = text.lastIndexOf('.');
  if (dot < 0) return text;
  let end = text.length;
  while (end > dot + 1 && text.charCodeAt(end - 1) === 48) end--;
  return end === dot + 1 ? text.slice(0, dot) : text.slice(0, end);
}

/** 'YYYY-MM-DD HH:MM:SS[.ffffff]' (any separator) → 'YYYY-MM-DDTHH:MM:SS[.ffffff]'. */
export function canonicalTimestamp(text: string): string {
  const t = text.length > 10 && text[10] === ' ' ? text.slice(0, 10) + 'T' + text.slice(11) : text;
  return trimFraction(t);
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** Blank-pads a char(n) value to n characters, as PostgreSQL returns bpchar. */
export function padChar(s: string, n: number | undefined): string {
  if (n === undefined || s.length >= n * 2) return s;
  const len = codePointLength(s);
  return len >= n ? s : s + ' '.repeat(n - len);
}

/** Plain decimal text of a number or exponent-notation string: never an exponent. */
export function plainDecimal(x: number | string): string {
  const s = typeof x === 'number' ? String(x) : x;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?[eE]([+-]?\d+)$/.exec(s);
  if (!m) return s;
  const sign = m[1] === '-' ? '-' : '';
  const digits = (m[2] ?? '') + (m[3] ?? '');
  const point = (m[2] ?? '').length + Number(m[4]);
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = digits.slice(0, point) + '.' + digits.slice(point);
  out = out.replace(/^0+(?=\d)/, '');
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return sign && out !== '0' ? sign + out : out;
}

/** Pads the fraction of decimal text to `scale` digits (never rounds): numeric(15,2) shows 5 as 5.00. */
export function withScale(text: string, scale: number | undefined): string {
  if (scale === undefined || scale <= 0) return text;
  const dot = text.indexOf('.');
  const have = dot < 0 ? 0 : text.length - dot - 1;
  if (have >= scale) return text;
  return (dot < 0 ? text + '.' : text) + '0'.repeat(scale - have);
}

/** A zero-copy plain Uint8Array over a Buffer (Buffer must not leave the connector). */
export function bytesOf(buf: Buffer | Uint8Array): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function formatYear(y: number): string {
  return y >= 0 && y < 10000 ? String(y).padStart(4, '0') : String(y);
}

/**
 * Text with a UTC offset ('2021-03-28 03:00:00+02', '…+05:30', '…-00:53:28') → UTC 'Z' form.
 * The fraction is carried as text so microseconds never pass through a float.
 */
export function timestamptzToUtc(text: string): string {
  const m =
    /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/.exec(
      text,
    );
  if (!m || m[13]) return text;
  const fraction = m[7] ? trimFraction('0' + m[7]).slice(1) : '';
  let offsetSec = 0;
  if (m[9]) {
    offsetSec = Number(m[10]) * 3600 + Number(m[11] ?? 0) * 60 + Number(m[12] ?? 0);
    if (m[9] === '-') offsetSec = -offsetSec;
  }
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]) - offsetSec, 0);
  return (
    `${formatYear(d.getUTCFullYear())}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}${fraction}Z`
  );
}

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += hex[bytes[i]];
  return s;
}

/**
 * Brings a value decoded by the source's own column type to the type the query expects
 * (a pushed-down expression may come back as int4 where int8 was asked for, say).
 */
export function coerce(v: Value, type: JType): Value {
  if (v === null) return null;
  switch (type.kind) {
    case 'int64':
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number') return BigInt(Math.trunc(v));
      if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) return BigInt(v.trim());
      if (typeof v === 'boolean') return v ? 1n : 0n;
      return v;
    case 'int16':
    case 'int32':
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint' || typeof v === 'string') return Number(v);
      if (typeof v === 'boolean') return v ? 1 : 0;
      return v;
    case 'float32':
    case 'float64':
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint' || typeof v === 'string') return Number(v);
      return v;
    case 'decimal':
      if (typeof v === 'string') return withScale(plainDecimal(v), type.scale);
      if (typeof v === 'bigint') return withScale(v.toString(), type.scale);
      if (typeof v === 'number') return withScale(plainDecimal(v), type.scale);
      return v;
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      if (typeof v === 'bigint') return v !== 0n;
      if (typeof v === 'string') return v === 't' || v === 'true' || v === '1';
      return v;
    case 'string':
      if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
      return type.fixed ? padChar(String(v), type.length) : String(v);
    case 'timestamp':
      return typeof v === 'string' ? canonicalTimestamp(v) : v;
    case 'timestamptz':
      return typeof v === 'string' ? timestamptzToUtc(v) : v;
    case 'time':
      return typeof v === 'string' ? trimFraction(v) : v;
    case 'uuid':
      return typeof v === 'string' ? v.toLowerCase() : v;
    case 'json':
    case 'unknown':
    case 'interval':
    case 'date':
      return v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : typeof v === 'string' ? v : String(v);
    default:
      return v;
  }
}

/** True when a value decoded as `from` already has the representation of `to`. */
export function sameRepresentation(from: JType, to: JType): boolean {
  if (from.kind !== to.kind) return false;
  if (to.kind === 'string') return !to.fixed || (from.fixed === true && from.length === to.length);
  if (to.kind === 'decimal') return to.scale === undefined || from.scale === to.scale;
  return true;
}

/**
 * Raw driver rows (text, bytes…) into Junction's values, one decoder per column; SQL NULL
 * stays null. Plain loops: this runs for every value a source sends.
 */
export function decodeRows<R>(raws: readonly (readonly (R | null)[])[], decoders: readonly ((raw: R) => Value)[]): Row[] {
  const out: Row[] = new Array(raws.length);
  for (let r = 0; r < raws.length; r++) out[r] = decodeRow(raws[r], decoders);
  return out;
}

export function decodeRow<R>(raw: readonly (R | null)[], decoders: readonly ((raw: R) => Value)[]): Row {
  const row: Row = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    row[i] = v === null ? null : decoders[i](v);
  }
  return row;
}

const TAB_TEXT_SPECIAL = /[\\\t\n\r]/;
const TAB_TEXT_SPECIAL_NUL = /[\\\t\n\r\0]/;

/**
 * A string in the tab-separated text of PostgreSQL's COPY and MySQL's LOAD DATA: backslash,
 * tab, newline and carriage return backslash-escaped, and NUL too where the format allows it.
 */
export function escapeTabText(s: string, escapeNul: boolean): string {
  if (!(escapeNul ? TAB_TEXT_SPECIAL_NUL : TAB_TEXT_SPECIAL).test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') out += '\\\\';
    else if (c === '\t') out += '\\t';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\0' && escapeNul) out += '\\0';
    else out += c;
  }
  return out;
}
