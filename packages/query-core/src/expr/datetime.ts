import { JunctionError } from '@junction/connectors';

/**
 * Calendar arithmetic on Junction's canonical texts (date "YYYY-MM-DD", timestamp
 * "YYYY-MM-DDTHH:MM:SS[.ffffff]", timestamptz the same + "Z", interval ISO 8601).
 * Time zones: sessions run in UTC, so timestamptz arithmetic is timestamp arithmetic.
 */

const US_PER_DAY = 86_400_000_000;

function bad(type: string, text: string): JunctionError {
  return new JunctionError('invalid_datetime_format', 'user', `invalid input syntax for type ${type}: "${text}"`);
}

function pad(n: number, w: number): string {
  const s = String(Math.abs(n));
  return (n < 0 ? '-' : '') + (s.length >= w ? s : '0'.repeat(w - s.length) + s);
}

export function daysFromCivil(y: number, m: number, d: number): number {
  // Howard Hinnant's days_from_civil: exact for the proleptic Gregorian calendar
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [m <= 2 ? y + 1 : y, m, d];
}

export function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

export function formatDate(days: number): string {
  const [y, m, d] = civilFromDays(days);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** Canonical date text → days since 1970-01-01. */
export function dateToDays(s: string): number {
  return daysFromCivil(Number(s.slice(0, s.length - 6)), Number(s.slice(-5, -3)), Number(s.slice(-2)));
}

export interface Ts {
  readonly days: number;
  /** microseconds since midnight */
  readonly us: number;
}

export function parseCanonicalTs(s: string): Ts {
  const t = s.indexOf('T');
  const days = dateToDays(s.slice(0, t));
  const h = Number(s.slice(t + 1, t + 3));
  const mi = Number(s.slice(t + 4, t + 6));
  const sec = Number(s.slice(t + 7, t + 9));
  let frac = 0;
  let end = s.length;
  if (s.endsWith('Z')) end--;
  if (s.charCodeAt(t + 9) === 46) {
    const f = s.slice(t + 10, end);
    frac = Number((f + '000000').slice(0, 6));
  }
  return { days, us: ((h * 60 + mi) * 60 + sec) * 1_000_000 + frac };
}

export function formatTs(ts: Ts, tz = false): string {
  let { days, us } = ts;
  if (us < 0 || us >= US_PER_DAY) {
    const carry = Math.floor(us / US_PER_DAY);
    days += carry;
    us -= carry * US_PER_DAY;
  }
  const secs = Math.floor(us / 1_000_000);
  const frac = us - secs * 1_000_000;
  const h = Math.floor(secs / 3600);
  const mi = Math.floor((secs % 3600) / 60);
  const sec = secs % 60;
  let text = `${formatDate(days)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}`;
  if (frac > 0) text += '.' + pad(frac, 6).replace(/0+$/, '');
  return tz ? text + 'Z' : text;
}

export function formatTime(us: number): string {
  return formatTs({ days: 0, us }).slice(11);
}

const DATE_RE = /^\s*(\d{1,5})-(\d{1,2})-(\d{1,2})(?:\s+(?:AD))?\s*$/i;
const TS_RE =
  /^\s*(\d{1,5})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?\s*$/i;
const TIME_RE = /^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*$/;

function checkDate(y: number, m: number, d: number, type: string, text: string): void {
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || y < 1) {
    throw new JunctionError('datetime_field_overflow', 'user', `date/time field value out of range: "${text}"`, {
      details: { type },
    });
  }
}

/** Text → canonical date (accepts a trailing time part as PostgreSQL does: it is dropped). */
export function parseDate(text: string): string {
  let m = DATE_RE.exec(text);
  if (!m) {
    const t = TS_RE.exec(text);
    if (!t || t[8]) throw bad('date', text);
    m = t;
  }
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  checkDate(y, mo, d, 'date', text);
  return formatDate(daysFromCivil(y, mo, d));
}

function parseTsParts(text: string, type: string): { ts: Ts; offsetMinutes: number | undefined } {
  const m = TS_RE.exec(text);
  if (!m) throw bad(type, text);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  checkDate(y, mo, d, type, text);
  const h = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const s = m[6] === undefined ? 0 : Number(m[6]);
  if (h > 24 || mi > 59 || s > 60 || (h === 24 && (mi > 0 || s > 0))) {
    throw new JunctionError('datetime_field_overflow', 'user', `date/time field value out of range: "${text}"`);
  }
  // PostgreSQL rounds fractional seconds to microseconds
  const frac = m[7] === undefined ? 0 : Math.round(Number('0.' + m[7]) * 1e6);
  let offsetMinutes: number | undefined;
  const z = m[8];
  if (z !== undefined) {
    if (/^(z|utc)$/i.test(z)) offsetMinutes = 0;
    else {
      const sign = z[0] === '-' ? -1 : 1;
      const digits = z.slice(1).replace(':', '');
      const hh = Number(digits.length <= 2 ? digits : digits.slice(0, digits.length - 2));
      const mm = digits.length <= 2 ? 0 : Number(digits.slice(-2));
      offsetMinutes = sign * (hh * 60 + mm);
    }
  }
  return { ts: { days: daysFromCivil(y, mo, d), us: ((h * 60 + mi) * 60 + s) * 1_000_000 + frac }, offsetMinutes };
}

export function parseTimestamp(text: string): string {
  // PostgreSQL ignores a zone written into a timestamp-without-time-zone literal
  return formatTs(parseTsParts(text, 'timestamp without time zone').ts);
}

export function parseTimestamptz(text: string): string {
  const { ts, offsetMinutes } = parseTsParts(text, 'timestamp with time zone');
  return formatTs({ days: ts.days, us: ts.us - (offsetMinutes ?? 0) * 60_000_000 }, true);
}

export function parseTime(text: string): string {
  const m = TIME_RE.exec(text);
  if (!m) throw bad('time without time zone', text);
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 24 || mi > 59 || s > 60)
    throw new JunctionError('datetime_field_overflow', 'user', `date/time field value out of range: "${text}"`);
  const frac = m[4] === undefined ? 0 : Math.round(Number('0.' + m[4]) * 1e6);
  return formatTime(((h * 60 + mi) * 60 + s) * 1_000_000 + frac);
}

export function timeToUs(s: string): number {
  const h = Number(s.slice(0, 2));
  const mi = Number(s.slice(3, 5));
  const sec = Number(s.slice(6, 8));
  const frac = s.length > 9 ? Number((s.slice(9) + '000000').slice(0, 6)) : 0;
  return ((h * 60 + mi) * 60 + sec) * 1_000_000 + frac;
}

/* ------------------------------------------------------------------ intervals */

export interface Interval {
  readonly months: number;
  readonly days: number;
  readonly us: number;
}

const ISO_RE =
  /^(-)?P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$/;

const UNIT_US: Record<string, number> = {
  microsecond: 1,
  millisecond: 1000,
  second: 1_000_000,
  minute: 60_000_000,
  hour: 3_600_000_000,
};

function unitOf(word: string): string | undefined {
  const w = word.toLowerCase().replace(/s$/, '');
  const map: Record<string, string> = {
    y: 'year',
    yr: 'year',
    year: 'year',
    mon: 'month',
    month: 'month',
    w: 'week',
    week: 'week',
    d: 'day',
    day: 'day',
    h: 'hour',
    hr: 'hour',
    hour: 'hour',
    m: 'minute',
    min: 'minute',
    minute: 'minute',
    s: 'second',
    sec: 'second',
    second: 'second',
    ms: 'millisecond',
    millisecond: 'millisecond',
    u: 'microsecond',
    microsecond: 'microsecond',
    decade: 'decade',
    century: 'century',
    centurie: 'century',
    millennium: 'millennium',
    millennia: 'millennium',
  };
  return map[w] ?? map[word.toLowerCase()];
}

/** Parses ISO 8601 durations and PostgreSQL's interval input ("3 days", "1 year 2 mons 04:05:06", "-1 day"). */
export function parseInterval(text: string, unit?: string): Interval {
  const s = text.trim();
  const iso = ISO_RE.exec(s);
  if (iso) {
    const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
    const sign = iso[1] ? -1 : 1;
    return {
      months: sign * (n(iso[2]) * 12 + n(iso[3])),
      days: sign * (n(iso[4]) * 7 + n(iso[5])),
      us: sign * Math.round((n(iso[6]) * 3600 + n(iso[7]) * 60 + n(iso[8])) * 1e6),
    };
  }
  let months = 0;
  let days = 0;
  let us = 0;
  const tokens = s.split(/\s+/).filter((x) => x !== '');
  if (tokens.length === 0) throw bad('interval', text);
  let ago = false;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (/^ago$/i.test(tok)) {
      ago = true;
      continue;
    }
    const hms = /^([+-])?(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?$/.exec(tok);
    if (hms) {
      const v = (Number(hms[2]) * 3600 + Number(hms[3]) * 60 + Number(hms[4] ?? 0)) * 1e6;
      us += hms[1] === '-' ? -Math.round(v) : Math.round(v);
      continue;
    }
    if (!/^[+-]?\d+(\.\d+)?$/.test(tok)) throw bad('interval', text);
    const num = Number(tok);
    const next = tokens[i + 1];
    const u =
      next !== undefined && unitOf(next) !== undefined ? unitOf(next)! : unit !== undefined ? unitOf(unit) : 'second';
    if (next !== undefined && unitOf(next) !== undefined) i++;
    if (u === undefined) throw bad('interval', text);
    switch (u) {
      case 'millennium':
        months += num * 12000;
        break;
      case 'century':
        months += num * 1200;
        break;
      case 'decade':
        months += num * 120;
        break;
      case 'year':
        months += Math.trunc(num * 12);
        break;
      case 'month': {
        const whole = Math.trunc(num);
        months += whole;
        const fracDays = (num - whole) * 30;
        days += Math.trunc(fracDays);
        us += Math.round((fracDays - Math.trunc(fracDays)) * US_PER_DAY);
        break;
      }
      case 'week':
        days += Math.trunc(num * 7);
        us += Math.round((num * 7 - Math.trunc(num * 7)) * US_PER_DAY);
        break;
      case 'day':
        days += Math.trunc(num);
        us += Math.round((num - Math.trunc(num)) * US_PER_DAY);
        break;
      default:
        us += Math.round(num * UNIT_US[u]);
    }
  }
  return ago ? { months: -months, days: -days, us: -us } : { months, days, us };
}

export function formatInterval(iv: Interval): string {
  let text = 'P';
  const y = Math.trunc(iv.months / 12);
  const mo = iv.months - y * 12;
  if (y !== 0) text += `${y}Y`;
  if (mo !== 0) text += `${mo}M`;
  if (iv.days !== 0) text += `${iv.days}D`;
  if (iv.us !== 0) {
    text += 'T';
    const neg = iv.us < 0;
    const a = Math.abs(iv.us);
    const h = Math.floor(a / 3_600_000_000);
    const mi = Math.floor((a % 3_600_000_000) / 60_000_000);
    const sus = a % 60_000_000;
    const sg = neg ? '-' : '';
    if (h) text += `${sg}${h}H`;
    if (mi) text += `${sg}${mi}M`;
    if (sus) {
      const whole = Math.floor(sus / 1e6);
      const frac = sus % 1e6;
      text += `${sg}${whole}${frac ? '.' + pad(frac, 6).replace(/0+$/, '') : ''}S`;
    }
  }
  return text === 'P' ? 'PT0S' : text;
}

/** PostgreSQL's interval output style ("1 year 2 mons 3 days 04:05:06"), for casts to text. */
export function intervalToPgText(iv: Interval): string {
  const parts: string[] = [];
  const y = Math.trunc(iv.months / 12);
  const mo = iv.months - y * 12;
  if (y) parts.push(`${y} year${Math.abs(y) === 1 ? '' : 's'}`);
  if (mo) parts.push(`${mo} mon${Math.abs(mo) === 1 ? '' : 's'}`);
  if (iv.days) parts.push(`${iv.days} day${Math.abs(iv.days) === 1 ? '' : 's'}`);
  if (iv.us || parts.length === 0) {
    const neg = iv.us < 0;
    const a = Math.abs(iv.us);
    const t = formatTime(a % US_PER_DAY);
    const h = Math.floor(a / 3_600_000_000);
    parts.push(`${neg ? '-' : ''}${pad(h, 2)}${t.slice(2)}`);
  }
  return parts.join(' ');
}

export function addMonths(days: number, months: number): number {
  if (months === 0) return days;
  const [y, m, d] = civilFromDays(days);
  const total = y * 12 + (m - 1) + months;
  const ny = Math.floor(total / 12);
  const nm = total - ny * 12 + 1;
  return daysFromCivil(ny, nm, Math.min(d, daysInMonth(ny, nm)));
}

/** timestamp + interval: months first (clamping the day to the month's end), then days, then time. */
export function addInterval(ts: Ts, iv: Interval, sign = 1): Ts {
  const days = addMonths(ts.days, sign * iv.months) + sign * iv.days;
  return { days, us: ts.us + sign * iv.us };
}

export function tsDiff(a: Ts, b: Ts): Interval {
  // PostgreSQL's timestamp - timestamp: days and time, justified so the time part is below a day
  let us = (a.days - b.days) * US_PER_DAY + (a.us - b.us);
  const days = Math.trunc(us / US_PER_DAY);
  us -= days * US_PER_DAY;
  return { months: 0, days, us };
}

/* ------------------------------------------------------------------ date_part / date_trunc */

export function isoWeek(days: number): { year: number; week: number } {
  const dow = ((days % 7) + 7 + 3) % 7; // 0 = Monday
  const thursday = days - dow + 3;
  const [ty] = civilFromDays(thursday);
  const jan1 = daysFromCivil(ty, 1, 1);
  return { year: ty, week: Math.floor((thursday - jan1) / 7) + 1 };
}

/**
 * date_part on a timestamp (dates arrive as midnight). Returns the value as a number with
 * up to 6 fractional digits for seconds/epoch.
 */
export function datePart(field: string, ts: Ts, isInterval?: Interval): number {
  const f = field.toLowerCase();
  if (isInterval) return intervalPart(f, isInterval);
  const [y, m, d] = civilFromDays(ts.days);
  const secUs = ts.us % 60_000_000;
  switch (f) {
    case 'year':
    case 'years':
      return y;
    case 'month':
    case 'months':
      return m;
    case 'day':
    case 'days':
      return d;
    case 'hour':
    case 'hours':
      return Math.floor(ts.us / 3_600_000_000);
    case 'minute':
    case 'minutes':
      return Math.floor((ts.us % 3_600_000_000) / 60_000_000);
    case 'second':
    case 'seconds':
      return secUs / 1e6;
    case 'milliseconds':
      return secUs / 1e3;
    case 'microseconds':
      return secUs;
    case 'quarter':
      return Math.floor((m - 1) / 3) + 1;
    case 'week':
      return isoWeek(ts.days).week;
    case 'isoyear':
      return isoWeek(ts.days).year;
    case 'dow':
      return (((ts.days + 4) % 7) + 7) % 7;
    case 'isodow': {
      const dow = (((ts.days + 4) % 7) + 7) % 7;
      return dow === 0 ? 7 : dow;
    }
    case 'doy':
      return ts.days - daysFromCivil(y, 1, 1) + 1;
    case 'epoch':
      return ts.days * 86400 + ts.us / 1e6;
    case 'decade':
      return Math.floor(y / 10);
    case 'century':
      return y > 0 ? Math.floor((y - 1) / 100) + 1 : -Math.floor(-y / 100) - 1;
    case 'millennium':
      return y > 0 ? Math.floor((y - 1) / 1000) + 1 : -Math.floor(-y / 1000) - 1;
    default:
      throw new JunctionError('invalid_parameter_value', 'user', `unit "${field}" not recognized for type timestamp`);
  }
}

function intervalPart(f: string, iv: Interval): number {
  switch (f) {
    case 'year':
    case 'years':
      return Math.trunc(iv.months / 12);
    case 'month':
    case 'months':
      return iv.months % 12;
    case 'day':
    case 'days':
      return iv.days;
    case 'hour':
    case 'hours':
      return Math.trunc(iv.us / 3_600_000_000);
    case 'minute':
    case 'minutes':
      return Math.trunc((iv.us % 3_600_000_000) / 60_000_000);
    case 'second':
    case 'seconds':
      return (iv.us % 60_000_000) / 1e6;
    case 'epoch':
      return (iv.months / 12) * 365.25 * 86400 + iv.days * 86400 + iv.us / 1e6;
    default:
      throw new JunctionError('invalid_parameter_value', 'user', `unit "${f}" not recognized for type interval`);
  }
}

export function dateTrunc(field: string, ts: Ts): Ts {
  const f = field.toLowerCase();
  const [y, m] = civilFromDays(ts.days);
  switch (f) {
    case 'microseconds':
      return ts;
    case 'milliseconds':
      return { days: ts.days, us: ts.us - (ts.us % 1000) };
    case 'second':
      return { days: ts.days, us: ts.us - (ts.us % 1_000_000) };
    case 'minute':
      return { days: ts.days, us: ts.us - (ts.us % 60_000_000) };
    case 'hour':
      return { days: ts.days, us: ts.us - (ts.us % 3_600_000_000) };
    case 'day':
      return { days: ts.days, us: 0 };
    case 'week': {
      const dow = (((ts.days + 3) % 7) + 7) % 7; // 0 = Monday
      return { days: ts.days - dow, us: 0 };
    }
    case 'month':
      return { days: daysFromCivil(y, m, 1), us: 0 };
    case 'quarter':
      return { days: daysFromCivil(y, Math.floor((m - 1) / 3) * 3 + 1, 1), us: 0 };
    case 'year':
      return { days: daysFromCivil(y, 1, 1), us: 0 };
    case 'decade':
      return { days: daysFromCivil(Math.floor(y / 10) * 10, 1, 1), us: 0 };
    case 'century':
      return { days: daysFromCivil(Math.floor((y - 1) / 100) * 100 + 1, 1, 1), us: 0 };
    case 'millennium':
      return { days: daysFromCivil(Math.floor((y - 1) / 1000) * 1000 + 1, 1, 1), us: 0 };
    default:
      throw new JunctionError('invalid_parameter_value', 'user', `unit "${field}" not recognized for date_trunc`);
  }
}
