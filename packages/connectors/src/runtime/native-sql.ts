import { JunctionError } from '../contract/errors.js';

/**
 * Checks on native SQL (a source's own dialect, sent through Connector.execute) that the
 * engines cannot make themselves. They only ever refuse: the engine's own switch (a read-only
 * transaction, query_only, a single-statement protocol) stays the real barrier, and these
 * close the gaps it leaves, e.g. DDL that commits a MariaDB read-only transaction implicitly.
 */

export type NativeDialect = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite';

export function multipleStatementsError(source: string): JunctionError {
  return new JunctionError(
    'multiple_statements',
    'user',
    `Source "${source}" runs one statement at a time, and this text holds more than one. Send each statement on its own.`,
    { details: { source } },
  );
}

export function attachRefusedError(source: string, keyword: string): JunctionError {
  return new JunctionError(
    'attach_refused',
    'forbidden',
    `Source "${source}" does not allow ${keyword}: a statement may only use the source's own database file.`,
    { details: { source, keyword } },
  );
}

export function notReadOnlyError(source: string, why: string): JunctionError {
  return new JunctionError(
    'native_not_read_only',
    'forbidden',
    `Source "${source}" runs this statement read-only, and it ${why}. Only statements that read data are allowed here.`,
    { details: { source } },
  );
}

interface Token {
  readonly kind: 'word' | 'punct' | 'literal';
  /** words upper-cased */
  readonly text: string;
  /** parenthesis depth the token sits at */
  readonly depth: number;
}

interface Lexed {
  readonly tokens: Token[];
  /** MySQL runs the text of `/*! … *\/` and `/*M! … *\/` as code: a comment only to everyone else */
  readonly executableComment: boolean;
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$@#\u0080-\uffff]/;

/**
 * A lexer just precise enough to tell code from comments, strings and quoted identifiers in
 * each dialect. Where it cannot be sure (MySQL backslash escapes depend on sql_mode) callers
 * only rely on what comes before the first literal.
 */
export function lex(sql: string, dialect: NativeDialect): Lexed {
  const tokens: Token[] = [];
  let executableComment = false;
  let depth = 0;
  const n = sql.length;
  let i = 0;
  // PostgreSQL and T-SQL nest block comments; MySQL and SQLite end at the first */
  const nests = dialect === 'postgresql' || dialect === 'sqlserver';
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (isSpace(c)) {
      i++;
      continue;
    }
    // MySQL reads `--` as a comment only when whitespace or a control character follows
    const dashes = c === '-' && next === '-' && (dialect !== 'mysql' || i + 2 >= n || sql.charCodeAt(i + 2) <= 32);
    if (dashes || (c === '#' && dialect === 'mysql')) {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      if (dialect === 'mysql' && (sql[i + 2] === '!' || (sql[i + 2] === 'M' && sql[i + 3] === '!'))) executableComment = true;
      let level = 1;
      i += 2;
      while (i < n && level > 0) {
        if (sql[i] === '*' && sql[i + 1] === '/') {
          level--;
          i += 2;
        } else if (nests && sql[i] === '/' && sql[i + 1] === '*') {
          level++;
          i += 2;
        } else i++;
      }
      continue;
    }
    if (c === "'" || c === '"' || c === '`' || (c === '[' && (dialect === 'sqlserver' || dialect === 'sqlite'))) {
      const close = c === '[' ? ']' : c;
      const backslash = dialect === 'mysql' && c !== '`';
      i++;
      while (i < n) {
        if (backslash && sql[i] === '\\') i += 2;
        else if (sql[i] === close) {
          if (sql[i + 1] === close && c !== '[') i += 2;
          else if (c === '[' && sql[i + 1] === ']') i += 2;
          else break;
        } else i++;
      }
      i++;
      tokens.push({ kind: 'literal', text: c, depth });
      continue;
    }
    if (dialect === 'postgresql' && c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (m) {
        const end = sql.indexOf(m[0], i + m[0].length);
        i = end < 0 ? n : end + m[0].length;
        tokens.push({ kind: 'literal', text: '$', depth });
        continue;
      }
    }
    if (WORD_START.test(c) || (dialect === 'sqlserver' && (c === '@' || c === '#'))) {
      let j = i + 1;
      while (j < n && WORD_PART.test(sql[j])) j++;
      tokens.push({ kind: 'word', text: sql.slice(i, j).toUpperCase(), depth });
      i = j;
      continue;
    }
    if (c === '(') depth++;
    tokens.push({ kind: 'punct', text: c, depth });
    if (c === ')') depth = Math.max(0, depth - 1);
    i++;
  }
  return { tokens, executableComment };
}

/** The statement's first keyword (upper case) or '(' after comments and empty statements; '' for none. */
export function leadingKeyword(sql: string, dialect: NativeDialect): string {
  for (const t of lex(sql, dialect).tokens) {
    if (t.kind === 'punct' && t.text === ';') continue;
    return t.kind === 'word' ? t.text : t.text === '(' ? '(' : '';
  }
  return '';
}

/** Statements that only read, by the keyword they start with; the engine's read-only mode blocks writes inside them. */
const READING: Record<Exclude<NativeDialect, 'sqlite'>, ReadonlySet<string>> = {
  // WITH may hold data-modifying CTEs and EXPLAIN ANALYZE runs its statement: the read-only transaction refuses both
  postgresql: new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN', '(']),
  mysql: new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', '(']),
  sqlserver: new Set(['SELECT', 'WITH', '(']),
};

/**
 * T-SQL reserved words that begin or control a statement other than a query. Reserved words
 * cannot be bare identifiers, so outside literals and brackets they mean what they say; T-SQL
 * needs no `;` between statements, which is why the whole text is scanned, not its start.
 */
const TSQL_NOT_A_QUERY = new Set(
  (
    'ALTER BACKUP BEGIN BULK CHECKPOINT CLOSE COMMIT CREATE DBCC DEALLOCATE DECLARE DELETE DENY DROP EXEC EXECUTE ' +
    'FETCH GOTO GRANT IF INSERT INTO KILL MERGE OPEN OPENDATASOURCE OPENQUERY OPENROWSET PRINT RAISERROR READTEXT ' +
    'RECONFIGURE RESTORE RETURN REVERT REVOKE ROLLBACK SAVE SET SETUSER SHUTDOWN TRAN TRANSACTION TRUNCATE UPDATE ' +
    'UPDATETEXT USE WAITFOR WHILE WRITETEXT'
  ).split(' '),
);

/**
 * Refuses native SQL that cannot be a single reading statement, before it reaches the source.
 * Throws JunctionError `native_not_read_only` or `multiple_statements`.
 */
export function assertReadingStatement(source: string, sql: string, dialect: Exclude<NativeDialect, 'sqlite'>): void {
  const { tokens, executableComment } = lex(sql, dialect);
  if (executableComment)
    throw notReadOnlyError(source, 'holds a MySQL executable comment (/*! … */), whose text the server runs as code');
  const first = tokens.find((t) => !(t.kind === 'punct' && t.text === ';'));
  const keyword = first?.kind === 'word' || first?.text === '(' ? first.text : '';
  if (!READING[dialect].has(keyword))
    throw notReadOnlyError(source, keyword ? `starts with ${keyword}, which is not a query` : 'is not a query');
  if (dialect === 'mysql' && /\b(OUTFILE|DUMPFILE)\b/i.test(sql))
    // found even inside literals: whether a backslash escapes a quote depends on the session's sql_mode
    throw notReadOnlyError(source, 'writes a file on the server (INTO OUTFILE / DUMPFILE)');
  if (dialect === 'sqlserver') {
    const bad = tokens.find((t) => t.kind === 'word' && TSQL_NOT_A_QUERY.has(t.text));
    if (bad) throw notReadOnlyError(source, `contains ${bad.text}, which is not part of a query`);
  }
  // the servers refuse a second statement themselves (extended protocol, no multipleStatements);
  // this only says so in plain words before anything is sent
  const semi = tokens.findIndex((t) => t.kind === 'punct' && t.text === ';');
  if (semi >= 0 && tokens.slice(semi + 1).some((t) => !(t.kind === 'punct' && t.text === ';')))
    throw multipleStatementsError(source);
}
