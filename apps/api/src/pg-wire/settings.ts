import { JunctionError, type ColumnMeta } from '@junction/connectors';

/**
 * A session's settings as clients read and write them with SET/SHOW and ParameterStatus.
 * Values Junction's output depends on are held to what it prints (dates ISO, intervals
 * postgres style, text UTF-8); a SET asking for another is refused rather than ignored, so a
 * client never parses a format it did not get. statement_timeout bounds the session's queries.
 */
const REPORTED = [
  'server_version',
  'server_encoding',
  'client_encoding',
  'application_name',
  'DateStyle',
  'IntervalStyle',
  'TimeZone',
  'integer_datetimes',
  'standard_conforming_strings',
  'is_superuser',
  'session_authorization',
  'default_transaction_read_only',
  'in_hot_standby',
] as const;

const DEFAULTS: Record<string, string> = {
  server_encoding: 'UTF8',
  client_encoding: 'UTF8',
  application_name: '',
  datestyle: 'ISO, MDY',
  intervalstyle: 'postgres',
  timezone: 'UTC',
  integer_datetimes: 'on',
  standard_conforming_strings: 'on',
  is_superuser: 'off',
  default_transaction_read_only: 'on',
  transaction_read_only: 'on',
  in_hot_standby: 'off',
  statement_timeout: '0',
  search_path: '"$user", public',
  extra_float_digits: '1',
  transaction_isolation: 'read committed',
  default_transaction_isolation: 'read committed',
  max_identifier_length: '63',
  lc_collate: 'C',
  lc_ctype: 'C',
  bytea_output: 'hex',
};

/** Settings a client may set to anything: Junction's answers do not depend on them. */
const FREE = new Set([
  'application_name',
  'extra_float_digits',
  'search_path',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'transaction_isolation',
  'default_transaction_isolation',
  'default_transaction_read_only',
  'transaction_read_only',
  'timezone',
  'jit',
  'work_mem',
  'client_min_messages',
  'geqo',
  'plan_cache_mode',
  'enable_seqscan',
  'row_security',
]);

function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return REPORTED.find((r) => r.toLowerCase() === lower) ?? lower;
}

export class SessionSettings {
  /** SET in this session */
  readonly #values = new Map<string, string>();
  /** from the start-up message: the session's defaults, what RESET returns to */
  readonly #startup = new Map<string, string>();

  constructor(
    private readonly username: string,
    startup: Record<string, string>,
  ) {
    for (const [name, value] of Object.entries(startup)) {
      const key = name.toLowerCase();
      if (['user', 'database', 'options', 'replication'].includes(key)) continue;
      try {
        this.#assign(key, value);
        const set = this.#values.get(key);
        if (set !== undefined) this.#startup.set(key, set);
      } catch {
        // a start-up parameter Junction cannot honour keeps its default (it is reported as such)
      }
    }
    this.#values.clear();
  }

  get(name: string): string | undefined {
    const key = name.toLowerCase();
    if (key === 'session_authorization') return this.username;
    return this.#values.get(key) ?? this.#startup.get(key) ?? DEFAULTS[key];
  }

  /** statement_timeout in ms (0 or unset: the server's default) */
  get timeoutMs(): number | undefined {
    const ms = parseDuration(this.get('statement_timeout') ?? '0');
    return ms > 0 ? ms : undefined;
  }

  reported(serverVersion: string): [string, string][] {
    return REPORTED.map((name) => [name, name === 'server_version' ? serverVersion : (this.get(name) ?? '')]);
  }

  #assign(key: string, raw: string): void {
    const value = raw.replace(/^'(.*)'$/s, '$1').replace(/^"(.*)"$/s, '$1');
    switch (key) {
      case 'client_encoding':
        if (!/^(utf-?8|unicode)$/i.test(value)) throw invalid(`client_encoding ${value}: Junction speaks UTF8 only`);
        this.#values.set(key, 'UTF8');
        return;
      case 'datestyle':
        if (!/^\s*iso\b/i.test(value) && !/^\s*(mdy|dmy|ymd)\s*,\s*iso\s*$/i.test(value))
          throw invalid(`DateStyle ${value}: Junction answers dates in ISO style only`);
        this.#values.set(key, /dmy/i.test(value) ? 'ISO, DMY' : /ymd/i.test(value) ? 'ISO, YMD' : 'ISO, MDY');
        return;
      case 'intervalstyle':
        if (value.toLowerCase() !== 'postgres')
          throw invalid(`IntervalStyle ${value}: Junction answers intervals in postgres style only`);
        return;
      case 'standard_conforming_strings':
        if (!/^(on|true|1)$/i.test(value)) throw invalid('standard_conforming_strings cannot be turned off');
        return;
      case 'statement_timeout':
        parseDuration(value);
        this.#values.set(key, value);
        return;
      default:
        if (!FREE.has(key) && !(key in DEFAULTS) && !key.includes('.'))
          throw new JunctionError('undefined_object', 'user', `unrecognized configuration parameter "${key}"`);
        this.#values.set(key, value);
    }
  }

  /** SET name = value | TO value | SET TIME ZONE x | SET SESSION/LOCAL …; returns the reported ones changed. */
  set(sql: string): [string, string][] {
    const body = sql.trim().replace(/;$/, '');
    if (/^set\s+(session\s+characteristics|transaction)\b/i.test(body)) return [];
    let m = /^set\s+(?:session\s+|local\s+)?time\s+zone\s+(.+)$/i.exec(body);
    if (m) return this.#change('timezone', /^local|default$/i.test(m[1]!.trim()) ? 'UTC' : m[1]!.trim());
    m = /^set\s+(?:session\s+|local\s+)?names\s+(.+)$/i.exec(body);
    if (m) return this.#change('client_encoding', m[1]!.trim());
    m = /^set\s+(?:session\s+|local\s+)?("?[\w.]+"?)\s*(?:=|\bto\b)\s*([\s\S]+)$/i.exec(body);
    if (!m) throw new JunctionError('syntax_error', 'user', `syntax error in SET: ${body}`);
    const name = m[1]!.replace(/"/g, '').toLowerCase();
    const value = m[2]!.trim();
    if (/^default$/i.test(value)) return this.#resetOne(name);
    return this.#change(name, value);
  }

  reset(sql: string): [string, string][] {
    const m = /^reset\s+("?[\w.]+"?)/i.exec(sql.trim());
    const name = m?.[1]?.replace(/"/g, '').toLowerCase() ?? 'all';
    if (name === 'all') return this.resetAll();
    return this.#resetOne(name);
  }

  resetAll(): [string, string][] {
    const changed = [...this.#values.keys()];
    this.#values.clear();
    return changed
      .map(canonicalName)
      .filter(isReported)
      .map((n) => [n, this.get(n) ?? '']);
  }

  #resetOne(name: string): [string, string][] {
    this.#values.delete(name);
    const c = canonicalName(name);
    return isReported(c) ? [[c, this.get(c) ?? '']] : [];
  }

  #change(name: string, value: string): [string, string][] {
    this.#assign(name, value);
    const c = canonicalName(name);
    return isReported(c) ? [[c, this.get(c) ?? '']] : [];
  }

  showColumns(sql: string): ColumnMeta[] {
    return this.show(sql).columns;
  }

  show(sql: string): { columns: ColumnMeta[]; rows: string[][] } {
    const m = /^show\s+("?[\w.]+"?|time\s+zone|transaction\s+isolation\s+level|all)/i.exec(sql.trim());
    const raw = (m?.[1] ?? '').replace(/"/g, '').toLowerCase().replace(/\s+/g, ' ');
    const text = (name: string): ColumnMeta => ({ name, type: { kind: 'string' }, nullable: false });
    if (raw === 'all') {
      const names = [...new Set([...Object.keys(DEFAULTS), ...this.#values.keys()])].sort();
      return {
        columns: [text('name'), text('setting'), text('description')],
        rows: names.map((n) => [n, this.get(n) ?? '', '']),
      };
    }
    const name =
      raw === 'time zone' ? 'timezone' : raw === 'transaction isolation level' ? 'transaction_isolation' : raw;
    const value = this.get(name);
    if (value === undefined)
      throw new JunctionError('undefined_object', 'user', `unrecognized configuration parameter "${name}"`);
    return {
      columns: [text(name === 'timezone' ? 'TimeZone' : name === 'datestyle' ? 'DateStyle' : name)],
      rows: [[value]],
    };
  }
}

function isReported(name: string): boolean {
  return (REPORTED as readonly string[]).includes(name);
}

function invalid(message: string): JunctionError {
  return new JunctionError('invalid_parameter_value', 'user', `invalid value for parameter ${message}`);
}

/** PostgreSQL's time units for statement_timeout: a bare number is ms. */
export function parseDuration(value: string): number {
  const m = /^\s*'?\s*(\d+(?:\.\d+)?)\s*(ms|s|min|h|d)?\s*'?\s*$/i.exec(value);
  if (!m) throw invalid(`statement_timeout: "${value}"`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'ms').toLowerCase();
  return Math.round(
    n * ({ ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 } as Record<string, number>)[unit]!,
  );
}
