import { JunctionError } from '@junction/connectors';

/** How long a result may be kept, and how old a stored one a caller accepts. */
export interface CachePolicy {
  readonly ttlSeconds: number;
  /** default: the TTL */
  readonly maxStalenessSeconds?: number;
}

const HINT = /^\s*\/\*\+\s*cache\s*\(([^)]*)\)\s*\*\//i;

/**
 * The leading hint `/*+ cache(ttl=SECONDS[, max_staleness=SECONDS]) *\/` of a statement (or of
 * a view's SQL, which opts the view in), or undefined. A malformed hint is an error rather than
 * a silently uncached query.
 */
export function cacheHint(sql: string): CachePolicy | undefined {
  const m = HINT.exec(sql);
  if (!m) return undefined;
  const values = new Map<string, number>();
  for (const part of m[1].split(',')) {
    const kv = /^\s*([a-z_]+)\s*=\s*(\d+)\s*$/i.exec(part);
    const name = kv?.[1].toLowerCase();
    if (!kv || (name !== 'ttl' && name !== 'max_staleness')) {
      throw new JunctionError(
        'invalid_cache_hint',
        'user',
        `The cache hint "${m[0].trim()}" is not understood: write /*+ cache(ttl=SECONDS) */ or /*+ cache(ttl=SECONDS, max_staleness=SECONDS) */ before the statement.`,
      );
    }
    values.set(name, Number(kv[2]));
  }
  const ttl = values.get('ttl');
  if (ttl === undefined || ttl <= 0) {
    throw new JunctionError('invalid_cache_hint', 'user', 'A cache hint needs ttl=SECONDS greater than 0, e.g. /*+ cache(ttl=60) */.');
  }
  const staleness = values.get('max_staleness');
  return staleness === undefined ? { ttlSeconds: ttl } : { ttlSeconds: ttl, maxStalenessSeconds: staleness };
}

/**
 * The statement as a cache key: comments (the hint among them) removed and runs of white space
 * made one space, outside string literals and quoted names, so a reformatted statement finds the
 * result of the same one. Letter case is kept: it can matter to quoted and unquoted names alike.
 */
export function normalizeStatement(sql: string): string {
  let out = '';
  let space = false;
  let i = 0;
  const n = sql.length;
  const emit = (s: string): void => {
    if (space && out.length > 0) out += ' ';
    space = false;
    out += s;
  };
  while (i < n) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
      space = true;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      space = true;
    } else if (/\s/.test(c)) {
      space = true;
      i++;
    } else if (c === "'" || c === '"' || c === '`') {
      // quoted: copied as is up to the closing quote (a doubled quote stays inside)
      let j = i + 1;
      for (; j < n; j++) {
        if (sql[j] === c) {
          if (sql[j + 1] === c) j++;
          else break;
        }
      }
      emit(sql.slice(i, j + 1));
      i = j + 1;
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        const stop = end < 0 ? n : end + tag[0].length;
        emit(sql.slice(i, stop));
        i = stop;
      } else {
        emit(c);
        i++;
      }
    } else {
      emit(c);
      i++;
    }
  }
  return out;
}
