import { blockCommentEnd } from '@junction/query-core';
/**
 * What a statement sent to the PostgreSQL port is, before anything runs it: a query for the
 * engine, a catalog query for the shadow catalog, a session statement Junction answers itself,
 * a COPY of a query to the client, an EXPLAIN, or a write it refuses.
 */

export interface Piece {
  readonly text: string;
  /** offset of text in the message's SQL, so an error's position points into what the client sent */
  readonly offset: number;
}

/**
 * The statements of a simple-query message, split at top-level semicolons (not inside quotes,
 * quoted identifiers, dollar quotes or comments). Empty pieces are kept only when the whole
 * message is empty, which PostgreSQL answers with EmptyQueryResponse.
 */
export function splitStatements(sql: string): Piece[] {
  const out: Piece[] = [];
  let start = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const escapes = c === "'" && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !/\w/.test(sql[i - 2] ?? ' ');
      i++;
      while (i < n) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === c) {
          if (sql[i + 1] === c) i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      i = blockCommentEnd(sql, i);
    } else if (c === '$' && !/\w/.test(sql[i - 1] ?? ' ')) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? n : close + tag[0].length;
      } else i++;
    } else if (c === ';') {
      out.push({ text: sql.slice(start, i), offset: start });
      start = ++i;
    } else i++;
  }
  out.push({ text: sql.slice(start), offset: start });
  const nonEmpty = out.filter((p) => !isBlank(p.text));
  return nonEmpty.length > 0 ? nonEmpty : [{ text: '', offset: 0 }];
}

/** Only whitespace and comments (a hint comment `/*+ … *\/` is not blank: it belongs to a query). */
export function isBlank(text: string): boolean {
  return stripLeading(text) === '';
}

/** The text after leading whitespace and comments. */
function stripLeading(text: string): string {
  let t = text;
  for (;;) {
    const before = t;
    t = t.replace(/^\s+/, '');
    if (t.startsWith('--')) t = t.replace(/^--[^\n]*(\n|$)/, '');
    else if (t.startsWith('/*')) t = t.slice(blockCommentEnd(t, 0));
    if (t === before) return t;
  }
}

/** Words in the statement outside strings and comments, lower-cased, with what follows each. */
function words(text: string): { word: string; next: string }[] {
  const out: { word: string; next: string }[] = [];
  const re =
    /'(?:[^']|'')*'|"((?:[^"]|"")*)"|--[^\n]*|\/\*[\s\S]*?\*\/|\$([A-Za-z_]*)\$[\s\S]*?\$\2\$|([A-Za-z_][A-Za-z0-9_$]*)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const word = m[1] !== undefined ? m[1].replaceAll('""', '"') : m[3];
    if (word === undefined) continue;
    const rest = text.slice(re.lastIndex).replace(/^\s+/, '');
    out.push({ word: m[1] !== undefined ? word : word.toLowerCase(), next: rest[0] ?? '' });
  }
  return out;
}

/** System functions a client calls to learn about the server; PostgreSQL answers them. */
const CATALOG_FUNCTIONS = new Set([
  'version',
  'current_schema',
  'current_schemas',
  'current_database',
  'current_setting',
  'set_config',
  'obj_description',
  'col_description',
  'shobj_description',
  'format_type',
  'has_table_privilege',
  'has_schema_privilege',
  'has_database_privilege',
  'has_column_privilege',
  'has_function_privilege',
  'txid_current',
  'inet_server_addr',
  'inet_server_port',
  'inet_client_addr',
  'to_regclass',
  'to_regtype',
]);
/** Words that make a statement a catalog question wherever they appear. */
const CATALOG_WORDS = new Set([
  'pg_catalog',
  'information_schema',
  'current_user',
  'session_user',
  'current_role',
  'current_catalog',
  'regclass',
  'regtype',
  'regproc',
  'regprocedure',
  'regnamespace',
  'regrole',
  'oid',
]);

/**
 * Functions a catalog question never needs and that would let it out of the embedded
 * PostgreSQL's reader role (which signs in as its superuser underneath) or read its files,
 * where other callers' catalogs have been: refused before anything is sent there.
 */
const FORBIDDEN_IN_CATALOG = new Set([
  'set_config',
  'session_authorization',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_ls_waldir',
  'pg_ls_logdir',
  'pg_stat_file',
  'pg_logical_emit_message',
  'lo_import',
  'lo_export',
  'lo_get',
  'lo_from_bytea',
  'dblink',
]);

export type StatementKind =
  | { readonly kind: 'empty' }
  | { readonly kind: 'query' }
  | { readonly kind: 'catalog' }
  | { readonly kind: 'explain'; readonly analyze: boolean; readonly query: string }
  | { readonly kind: 'copy'; readonly query: string; readonly csv: boolean; readonly header: boolean }
  | { readonly kind: 'session'; readonly verb: string }
  | { readonly kind: 'refused'; readonly verb: string }
  | { readonly kind: 'forbidden'; readonly what: string }
  /** SQL-level cursors (psycopg's named cursors, psql's FETCH_COUNT) over portals */
  | { readonly kind: 'declare'; readonly name: string; readonly query: string; readonly hold: boolean }
  | { readonly kind: 'fetch'; readonly name: string; readonly count: number }
  | { readonly kind: 'close'; readonly name: string | null };

const SESSION_VERBS = new Set([
  'set',
  'reset',
  'show',
  'begin',
  'start',
  'commit',
  'end',
  'rollback',
  'abort',
  'savepoint',
  'release',
  'discard',
  'deallocate',
  'listen',
  'unlisten',
]);
const QUERY_VERBS = new Set(['select', 'with', 'values', 'table', '(']);

export function classify(text: string): StatementKind {
  const body = stripLeading(text);
  if (body === '' || body === ';') return { kind: 'empty' };
  const verb = (/^[A-Za-z]+|^\(/.exec(body)?.[0] ?? body.slice(0, 10)).toLowerCase();
  if (SESSION_VERBS.has(verb)) {
    // SHOW of a catalog-ish name and SET inside a function call are still session statements
    return { kind: 'session', verb };
  }
  if (verb === 'declare' || verb === 'fetch' || verb === 'close' || verb === 'move') return cursorStatement(verb, body);
  if (verb === 'explain') {
    const m = /^explain\s*(\(([^)]*)\)|analy[sz]e\b|verbose\b|\s)*/i.exec(body)!;
    const analyze = /\banaly[sz]e\b/i.test(m[0]);
    return { kind: 'explain', analyze, query: body.slice(m[0].length) };
  }
  if (verb === 'copy') {
    const m = /^copy\s*\(([\s\S]*)\)\s*to\s+stdout\b([\s\S]*)$/i.exec(body.replace(/;\s*$/, ''));
    if (!m) return { kind: 'refused', verb: 'COPY' };
    const opts = m[2]!.toLowerCase();
    return {
      kind: 'copy',
      query: m[1]!,
      csv: /\bcsv\b/.test(opts),
      header: /\bheader\b(?!\s*(false|off|0)\b)/.test(opts),
    };
  }
  if (!QUERY_VERBS.has(verb)) return { kind: 'refused', verb: verb.toUpperCase() };
  const all = words(body);
  const catalog = all.some(
    (w) => CATALOG_WORDS.has(w.word) || w.word.startsWith('pg_') || (w.next === '(' && CATALOG_FUNCTIONS.has(w.word)),
  );
  if (!catalog) return { kind: 'query' };
  const forbidden = all.find((w) => FORBIDDEN_IN_CATALOG.has(w.word));
  return forbidden ? { kind: 'forbidden', what: forbidden.word } : { kind: 'catalog' };
}

/** An identifier as PostgreSQL folds it: quoted kept as written, unquoted lower-cased. */
function identifier(raw: string): string {
  return raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw.toLowerCase();
}

const IDENT = '("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)';

function cursorStatement(verb: string, body: string): StatementKind {
  const text = body.replace(/;\s*$/, '');
  if (verb === 'declare') {
    const m = new RegExp(
      `^declare\\s+${IDENT}\\s+(?:binary\\s+|insensitive\\s+|asensitive\\s+|no\\s+scroll\\s+)*cursor\\s+(?:(with|without)\\s+hold\\s+)?for\\s+([\\s\\S]+)$`,
      'i',
    ).exec(text);
    if (!m || /\bscroll\s+cursor/i.test(text.replace(/no\s+scroll/i, ''))) return { kind: 'refused', verb: 'DECLARE' };
    return { kind: 'declare', name: identifier(m[1]!), query: m[3]!, hold: m[2]?.toLowerCase() === 'with' };
  }
  if (verb === 'close') {
    const m = new RegExp(`^close\\s+(?:all\\b|${IDENT})`, 'i').exec(text);
    if (!m) return { kind: 'refused', verb: 'CLOSE' };
    return { kind: 'close', name: m[1] ? identifier(m[1]) : null };
  }
  if (verb === 'fetch') {
    // forward only: NEXT, n, FORWARD [n | ALL], ALL
    const m = new RegExp(
      `^fetch\\s+(?:(next|all|forward\\s+all|forward\\s+\\d+|forward|\\d+)\\s+)?(?:(?:from|in)\\s+)?${IDENT}$`,
      'i',
    ).exec(text);
    if (!m) return { kind: 'refused', verb: 'FETCH (only forward)' };
    const how = (m[1] ?? 'next').toLowerCase().replace(/\s+/g, ' ');
    const count = how === 'next' || how === 'forward' ? 1 : /all$/.test(how) ? 0 : Number(how.replace('forward ', ''));
    return { kind: 'fetch', name: identifier(m[2]!), count };
  }
  return { kind: 'refused', verb: 'MOVE' };
}
