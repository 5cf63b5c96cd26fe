import { createHash } from 'node:crypto';
import { JunctionError } from '@junction/connectors';
import type { Statement } from 'sql-parser-cst';
import { parseSql } from '../sql/parse.js';
import { leadingHints } from '../sql/hints.js';

/** How long a result may be kept, and how old a stored one a caller accepts. */
export interface CachePolicy {
  readonly ttlSeconds: number;
  /** default: the TTL */
  readonly maxStalenessSeconds?: number;
}

/**
 * The leading hint `/*+ cache(ttl=SECONDS[, max_staleness=SECONDS]) *\/` of a statement (or of
 * a view's SQL, which opts the view in), or undefined. It may share the leading hint comments with
 * other hints (`/*+ engine(trino) cache(ttl=60) *\/`). A malformed hint is an error rather than
 * a silently uncached query.
 */
export function cacheHint(sql: string): CachePolicy | undefined {
  const hint = leadingHints(sql).find((h) => h.name === 'cache');
  if (!hint) return undefined;
  const values = new Map<string, number>();
  for (const part of hint.args.split(',')) {
    const kv = /^\s*([a-z_]+)\s*=\s*(\d+)\s*$/i.exec(part);
    const name = kv?.[1].toLowerCase();
    if (!kv || (name !== 'ttl' && name !== 'max_staleness')) {
      throw new JunctionError(
        'invalid_cache_hint',
        'user',
        `The cache hint "/*+ ${hint.text} */" is not understood: write /*+ cache(ttl=SECONDS) */ or /*+ cache(ttl=SECONDS, max_staleness=SECONDS) */ before the statement.`,
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

/*
 * Repeated statements skip the parse: the same text always parses the same way, whatever the
 * catalog or the caller, so the memo is keyed by the exact text and shared by all engines.
 */
const MEMO_ENTRIES = 1024;
const MEMO_CHARS = 8 * 1024 * 1024;
const memo = new Map<string, string>();
let memoChars = 0;

function remember(sql: string, key: string): void {
  if (sql.length > MEMO_CHARS / 8) return;
  memo.set(sql, key);
  memoChars += sql.length;
  for (const oldest of memo.keys()) {
    if (memo.size <= MEMO_ENTRIES && memoChars <= MEMO_CHARS) break;
    memo.delete(oldest);
    memoChars -= oldest.length;
  }
}

/**
 * The statement as a cache key: a digest of the statement Junction's parser reads from the text,
 * so two texts share a result only when they parse alike. It comes from the parse rather than a
 * lexer of its own so that it cannot disagree with the parser about where a comment, literal or
 * quoted name ends (nested block comments, E'…' escapes, dollar quotes): text that reads as a
 * comment to one and as SQL to the other is how one statement was served another's rows.
 *
 * Comments (the cache hint among them) and white space are not in the parse; keyword case is
 * dropped because the binder reads keywords by name only. Identifiers and literals stay as written:
 * case and quoting can change which column a name means, and a literal's spelling its type.
 */
export function statementKey(sql: string): string {
  const known = memo.get(sql);
  if (known !== undefined) {
    memo.delete(sql);
    memo.set(sql, known);
    return known;
  }
  const key = createHash('sha256').update(canonicalStatement(parseSql(sql).statement)).digest('base64');
  remember(sql, key);
  return key;
}

/** Node fields that only place a node in the text (or hold its comments and white space). */
const LAYOUT = new Set(['range', 'leading', 'trailing']);

/**
 * A CST as text that differs whenever the trees differ, except in layout and keyword case.
 * Iterative: a deeply nested statement that the parser and binder accepted must not overflow here.
 */
export function canonicalStatement(root: Statement): string {
  const out: string[] = [];
  // Raw marks punctuation pushed on the work stack, so it is not taken for a string value
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Raw) out.push(v.text);
    else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (typeof v === 'number') out.push(Object.is(v, -0) ? '-0' : String(v));
    else if (typeof v === 'bigint') out.push(`${v}n`);
    else if (v === null || v === undefined || typeof v === 'boolean') out.push(String(v));
    else if (Array.isArray(v)) {
      stack.push(CLOSE_ARRAY);
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i]);
        if (i > 0) stack.push(COMMA);
      }
      stack.push(OPEN_ARRAY);
    } else if (typeof v === 'object') {
      const node = v as Record<string, unknown>;
      const keyword = node.type === 'keyword';
      const fields = Object.keys(node).filter((k) => !LAYOUT.has(k) && !(keyword && k === 'text'));
      stack.push(CLOSE_OBJECT);
      for (let i = fields.length - 1; i >= 0; i--) {
        stack.push(node[fields[i]!], new Raw(`${JSON.stringify(fields[i])}:`));
        if (i > 0) stack.push(COMMA);
      }
      stack.push(OPEN_OBJECT);
    } else {
      throw new Error(`unexpected ${typeof v} in a parsed statement`);
    }
  }
  return out.join('');
}

class Raw {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Raw('[');
const CLOSE_ARRAY = new Raw(']');
const OPEN_OBJECT = new Raw('{');
const CLOSE_OBJECT = new Raw('}');
const COMMA = new Raw(',');
