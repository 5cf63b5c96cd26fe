import { JunctionError } from '../contract/errors.js';
import { formatType, type JType, type Value } from '../contract/types.js';
import { mapNativeType } from '../postgres/type-map.js';
import { padChar, plainDecimal, timestamptzToUtc, trimFraction } from '../runtime/values.js';

/**
 * Text read from a document → Junction's value for the column's declared type, with
 * PostgreSQL's input rules (what `'…'::type` accepts), so a value means the same whether it
 * came from a document or from a database.
 */

/** The kinds a document column may declare: every one has an exact text form. */
const DECLARABLE = new Set<JType['kind']>([
  'bool',
  'int16',
  'int32',
  'int64',
  'decimal',
  'float32',
  'float64',
  'string',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'json',
  'uuid',
]);

/** The JType of a column's SQL type text ('decimal(15,2)', 'integer', 'text', 'timestamptz'…), PostgreSQL's spelling. */
export function parseColumnType(text: string, where: { table: string; column: string }): JType {
  const mapped = mapNativeType(text);
  if (!DECLARABLE.has(mapped.type.kind))
    throw new JunctionError(
      'document_type_unsupported',
      'user',
      `Column "${where.column}" of document table "${where.table}" declares type "${text}", which documents cannot hold. ` +
        'Use one of: text, varchar(n), char(n), boolean, smallint, integer, bigint, decimal(p,s), real, double precision, date, time, timestamp, timestamptz, json, uuid.',
      { details: where },
    );
  return mapped.type;
}

/** Where a value came from, for the error that names it. */
export interface ValueSite {
  readonly source: string;
  readonly table: string;
  readonly column: string;
  readonly path: string;
  readonly rowPath: string;
  readonly document: string;
}

export function invalidValue(site: ValueSite, value: string, type: JType, why?: string): JunctionError {
  const shown = value.length > 80 ? value.slice(0, 77) + '...' : value;
  return new JunctionError(
    'invalid_text_representation',
    'user',
    `Document table "${site.table}" (source "${site.source}"): column "${site.column}" (path "${site.path}" under rows "${site.rowPath}") ` +
      `holds ${JSON.stringify(shown)}, which is not a valid ${formatType(type)}${why ? ` (${why})` : ''}. Fix the document or declare the column as text.`,
    {
      details: {
        source: site.source,
        table: site.table,
        column: site.column,
        path: site.path,
        rowPath: site.rowPath,
        document: site.document,
      },
    },
  );
}

const INTEGER = /^[+-]?\d+$/;

const INT_LIMITS: Record<string, [number, number]> = { int16: [-32768, 32767], int32: [-2147483648, 2147483647] };

const INT_RANGE: Record<string, [bigint, bigint]> = {
  int16: [-32768n, 32767n],
  int32: [-2147483648n, 2147483647n],
  int64: [-9223372036854775808n, 9223372036854775807n],
};

/**
 * A column value from element or attribute text. `null` (missing) stays NULL; an empty text
 * is '' for text columns and NULL for every other type (an empty element carries no number).
 */
export function fromText(text: string | null, type: JType, site: ValueSite): Value {
  if (text === null) return null;
  if (type.kind === 'string') return type.fixed ? padChar(text, type.length) : text;
  const s = text.trim();
  if (s === '') return null;
  return convert(s, text, type, site);
}

function convert(s: string, text: string, type: JType, site: ValueSite): Value {
  switch (type.kind) {
    case 'int16':
    case 'int32':
    case 'int64': {
      if (!INTEGER.test(s)) fail(site, text, type);
      // most ids fit a double exactly: no BigInt on the way
      if (s.length < 16) {
        const x = Number(s);
        if (type.kind === 'int64') return BigInt(x);
        if (x >= INT_LIMITS[type.kind][0] && x <= INT_LIMITS[type.kind][1]) return x === 0 ? 0 : x;
        fail(site, text, type, 'out of range');
      }
      const n = BigInt(s);
      const [lo, hi] = INT_RANGE[type.kind];
      if (n < lo || n > hi) fail(site, text, type, 'out of range');
      return type.kind === 'int64' ? n : Number(n);
    }
    case 'decimal':
      if (!DECIMAL.test(s)) fail(site, text, type);
      // expanding 1e999999999 into digits would exhaust memory
      if (/[eE][+-]?\d{4,}/.test(s)) fail(site, text, type, 'exponent too large');
      return (
        exactDecimal(s, type) ??
        fail(site, text, type, `more than ${(type.precision ?? 0) - (type.scale ?? 0)} digits before the point`)
      );
    case 'float32':
    case 'float64': {
      const lower = s.toLowerCase();
      if (lower === 'nan') return NaN;
      if (lower === 'infinity' || lower === '+infinity' || lower === 'inf') return Infinity;
      if (lower === '-infinity' || lower === '-inf') return -Infinity;
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) fail(site, text, type);
      const n = Number(s);
      return type.kind === 'float32' ? Math.fround(n) : n;
    }
    case 'bool': {
      const b = BOOL_TEXT[s.toLowerCase()];
      return b ?? fail(site, text, type);
    }
    case 'date':
      return dateText(s) ?? fail(site, text, type);
    case 'time':
      return timeText(s) ?? fail(site, text, type);
    case 'timestamp': {
      const m = TIMESTAMP.exec(s);
      if (!m || !dateText(m[1]) || !timeText(m[2] ?? '00:00:00')) return fail(site, text, type);
      // PostgreSQL's timestamp input ignores a zone: the wall-clock time is kept as written
      return `${m[1]}T${timeText(m[2] ?? '00:00:00')}`;
    }
    case 'timestamptz': {
      const m = TIMESTAMP.exec(s);
      if (!m || !dateText(m[1]) || !timeText(m[2] ?? '00:00:00')) return fail(site, text, type);
      // without an offset the time is read in the source's zone, which is UTC
      const zone = m[3] ?? 'Z';
      const utc = timestamptzToUtc(`${m[1]}T${timeText(m[2] ?? '00:00:00')}${zone === 'z' ? 'Z' : zone}`);
      return utc.endsWith('Z') ? utc : fail(site, text, type);
    }
    case 'uuid': {
      const hex = s
        .replace(/^\{|\}$/g, '')
        .replace(/-/g, '')
        .toLowerCase();
      if (!/^[0-9a-f]{32}$/.test(hex)) fail(site, text, type);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    case 'json':
      try {
        JSON.parse(s);
      } catch {
        fail(site, text, type);
      }
      return s;
    default:
      return fail(site, text, type);
  }
}

function fail(site: ValueSite, text: string, type: JType, why?: string): never {
  throw invalidValue(site, text, type, why);
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const BOOL_TEXT: Record<string, boolean> = {
  t: true,
  true: true,
  y: true,
  yes: true,
  on: true,
  1: true,
  f: false,
  false: false,
  n: false,
  no: false,
  off: false,
  0: false,
};

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function dateText(s: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return undefined;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days ? s : undefined;
}

function timeText(s: string): string | undefined {
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/.exec(s);
  if (!m) return undefined;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const sec = Number(m[3] ?? 0);
  // more digits than microseconds would have to be rounded: refused rather than changed
  if (m[4] && m[4].length > 7) return undefined;
  if (h > 24 || mi > 59 || sec > 59 || (h === 24 && (mi > 0 || sec > 0 || /[1-9]/.test(m[4] ?? '')))) return undefined;
  return trimFraction(`${m[1]}:${m[2]}:${m[3] ?? '00'}${m[4] ?? ''}`);
}

/**
 * Decimal text to `type`'s scale exactly: digits past the scale are rounded half away from
 * zero on the digits themselves (numeric's rule), never through a float. Undefined when the
 * text is no number or overflows the precision.
 */
const SIMPLE_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export function exactDecimal(text: string, type: JType): string | undefined {
  // the common spelling ('-12.50', '7') needs no exponent handling and no rounding
  const simple = SIMPLE_DECIMAL.exec(text);
  if (
    simple &&
    type.scale !== undefined &&
    (simple[3]?.length ?? 0) <= type.scale &&
    (simple[2].length === 1 || simple[2][0] !== '0')
  ) {
    if (type.precision !== undefined && simple[2].length > type.precision - type.scale) return undefined;
    const frac = (simple[3] ?? '').padEnd(type.scale, '0');
    const out = simple[2] + (type.scale > 0 ? '.' + frac : '');
    return simple[1] && /[1-9]/.test(out) ? '-' + out : out;
  }
  if (!DECIMAL.test(text) || /[eE][+-]?\d{4,}/.test(text)) return undefined;
  const plain = plainDecimal(text);
  const neg = plain.startsWith('-');
  const body = neg || plain.startsWith('+') ? plain.slice(1) : plain;
  const dot = body.indexOf('.');
  let int = (dot < 0 ? body : body.slice(0, dot)).replace(/^0+/, '');
  let frac = dot < 0 ? '' : body.slice(dot + 1);
  const scale = type.scale;
  if (scale !== undefined) {
    if (frac.length > scale) {
      const roundUp = frac.charCodeAt(scale) >= 53; // '5'
      frac = frac.slice(0, scale);
      if (roundUp) {
        const digits = addOne(int + frac);
        int = digits.slice(0, digits.length - scale);
        frac = digits.slice(digits.length - scale);
      }
    } else frac = frac.padEnd(scale, '0');
  }
  int = int.replace(/^0+/, '');
  if (type.precision !== undefined && int.length > type.precision - (scale ?? 0)) return undefined;
  const out = (int || '0') + (frac ? '.' + frac : '');
  return neg && /[1-9]/.test(out) ? '-' + out : out;
}

function addOne(digits: string): string {
  const a = digits.split('');
  let i = a.length - 1;
  while (i >= 0) {
    if (a[i] === '9') {
      a[i] = '0';
      i--;
    } else {
      a[i] = String.fromCharCode(a[i].charCodeAt(0) + 1);
      return a.join('');
    }
  }
  return '1' + a.join('');
}
