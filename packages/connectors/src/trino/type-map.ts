import type { JType, Value } from '../contract/types.js';
import { bytesOf, canonicalTimestamp, padChar, timestamptzToUtc, trimFraction } from '../runtime/values.js';

export type TrinoDecoder = (raw: unknown) => Value;

export interface MappedType {
  readonly type: JType;
  readonly decode: TrinoDecoder;
  /** set when the type is read with less fidelity (as text) */
  readonly warning?: string;
}

function num(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  // doubles that JSON cannot hold arrive as strings: "NaN", "Infinity", "-Infinity"
  if (raw === 'NaN') return NaN;
  if (raw === 'Infinity') return Infinity;
  if (raw === '-Infinity') return -Infinity;
  return Number(raw);
}

function int64(raw: unknown): bigint {
  if (typeof raw === 'bigint') return raw;
  if (typeof raw === 'number') return BigInt(raw);
  return BigInt(String(raw));
}

const text = (raw: unknown): string => (typeof raw === 'string' ? raw : JSON.stringify(raw));

/** '2024-01-01 10:11:12.5 UTC', '… +02:00', '… Europe/Berlin' → '2024-01-01T08:11:12.5Z'. */
export function zonedToUtc(raw: string): string {
  const m = /^(\d{4,}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) (.+)$/.exec(raw);
  if (!m) return raw;
  const [, local, zone] = m;
  if (zone === 'UTC' || zone === 'Z' || zone === 'Etc/UTC' || zone === 'GMT') return timestamptzToUtc(`${local}Z`);
  if (/^[+-]\d{2}:\d{2}$/.test(zone)) return timestamptzToUtc(`${local}${zone}`);
  // a named zone: its offset at that wall-clock time, from the runtime's zone database
  const offset = zoneOffset(local, zone);
  return offset === undefined ? raw : timestamptzToUtc(`${local}${offset}`);
}

function zoneOffset(local: string, zone: string): string | undefined {
  try {
    const asUtc = Date.parse(`${local.slice(0, 19).replace(' ', 'T')}Z`);
    const fmt = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    // the offset in force at the instant whose wall-clock time is `local`: two passes settle it
    let guess = asUtc;
    let minutes = 0;
    for (let i = 0; i < 2; i++) {
      const name = fmt.formatToParts(new Date(guess)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
      const o = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
      minutes = o ? (o[1] === '-' ? -1 : 1) * (Number(o[2]) * 60 + Number(o[3])) : 0;
      guess = asUtc - minutes * 60_000;
    }
    const sign = minutes < 0 ? '-' : '+';
    const a = Math.abs(minutes);
    return `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
  } catch {
    return undefined;
  }
}

/**
 * Trino numbers the years before 1 astronomically ('0000-12-31' is in 1 BC, '-0001-01-01' in
 * 2 BC); PostgreSQL, whose text Junction's value of such a date or timestamp is, counts 1 BC,
 * 2 BC … and writes the era after the value: '0001-12-31 BC'.
 */
export function eraYear(text: string): string {
  const m = /^(-?)(\d{4,})(-[\s\S]*)$/.exec(text);
  if (!m) return text;
  const year = Number(m[2]) * (m[1] ? -1 : 1);
  return year > 0 ? text : `${String(1 - year).padStart(4, '0')}${m[3]} BC`;
}

/** '2024-01-01 10:11:12.500000' → '2024-01-01T10:11:12.5'; '-0001-01-01 00:00:00' → '0002-01-01T00:00:00 BC'. */
function timestamp(raw: string): string {
  const negative = raw.startsWith('-');
  const canonical = canonicalTimestamp(negative ? raw.slice(1) : raw);
  return eraYear(negative ? `-${canonical}` : canonical);
}

/** '1 02:03:04.500' (interval day to second) → 'P1DT2H3M4.5S'; '-1-2' (year to month) → '-P1Y2M'. */
export function intervalToIso(raw: string, dayToSecond: boolean): string {
  if (dayToSecond) {
    const m = /^(-)?(\d+) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(raw);
    if (!m) return raw;
    const [, neg, d, h, mi, s, f] = m;
    const sec = trimFraction(`${Number(s)}${f ? `.${f}` : ''}`);
    let out = 'P';
    if (Number(d)) out += `${Number(d)}D`;
    const time = `${Number(h) ? `${Number(h)}H` : ''}${Number(mi) ? `${Number(mi)}M` : ''}${sec !== '0' ? `${sec}S` : ''}`;
    if (time) out += `T${time}`;
    if (out === 'P') out = 'PT0S';
    return neg ? `-${out}` : out;
  }
  const m = /^(-)?(\d+)-(\d+)$/.exec(raw);
  if (!m) return raw;
  const [, neg, y, mo] = m;
  let out = 'P';
  if (Number(y)) out += `${Number(y)}Y`;
  if (Number(mo) || out === 'P') out += `${Number(mo)}M`;
  return neg ? `-${out}` : out;
}

/**
 * A Trino result type, as the protocol's `columns[].type` spells it ("decimal(12, 2)",
 * "timestamp(6) with time zone"), to Junction's type and a decoder from the JSON value Trino
 * sends (with the PARAMETRIC_DATETIME capability) to Junction's value model.
 */
export function mapTrinoType(spelling: string): MappedType {
  const t = spelling.trim().toLowerCase();
  const params = /^[a-z ]+\((\d+)(?:,\s*(\d+))?\)/.exec(t);
  const p = params ? Number(params[1]) : undefined;
  const s = params?.[2] !== undefined ? Number(params[2]) : undefined;
  const base = t.replace(/\(.*?\)/, '').trim();
  switch (base) {
    case 'boolean':
      return { type: { kind: 'bool' }, decode: (r) => r === true || r === 'true' };
    case 'tinyint':
    case 'smallint':
      return { type: { kind: 'int16' }, decode: num };
    case 'integer':
      return { type: { kind: 'int32' }, decode: num };
    case 'bigint':
      return { type: { kind: 'int64' }, decode: int64 };
    case 'real':
      return { type: { kind: 'float32' }, decode: num };
    case 'double':
      return { type: { kind: 'float64' }, decode: num };
    case 'decimal':
      // Trino sends decimals as exact text with their scale ("1909572716.10")
      return { type: { kind: 'decimal', precision: p, scale: s ?? 0 }, decode: text };
    case 'varchar':
      return { type: { kind: 'string', length: p }, decode: text };
    case 'char':
      return { type: { kind: 'string', length: p ?? 1, fixed: true }, decode: (r) => padChar(text(r), p ?? 1) };
    case 'varbinary':
      return { type: { kind: 'binary' }, decode: (r) => bytesOf(Buffer.from(text(r), 'base64')) };
    case 'date':
      return { type: { kind: 'date' }, decode: (r) => eraYear(text(r)) };
    case 'time':
      return { type: { kind: 'time', precision: p ?? 3 }, decode: (r) => trimFraction(text(r)) };
    case 'timestamp':
      return { type: { kind: 'timestamp', precision: p ?? 3 }, decode: (r) => timestamp(text(r)) };
    case 'timestamp with time zone':
      return { type: { kind: 'timestamptz', precision: p ?? 3 }, decode: (r) => zonedToUtc(text(r)) };
    case 'uuid':
      return { type: { kind: 'uuid' }, decode: (r) => text(r).toLowerCase() };
    case 'json':
      return { type: { kind: 'json' }, decode: text };
    case 'interval day to second':
      return { type: { kind: 'interval' }, decode: (r) => intervalToIso(text(r), true) };
    case 'interval year to month':
      return { type: { kind: 'interval' }, decode: (r) => intervalToIso(text(r), false) };
    case 'unknown':
      // the type of a bare NULL
      return { type: { kind: 'null' }, decode: () => null };
    default:
      return {
        type: { kind: 'unknown' },
        decode: text,
        warning: `type "${spelling}" is read as text (arrays, maps, rows and the remaining Trino types have no Junction equivalent)`,
      };
  }
}
