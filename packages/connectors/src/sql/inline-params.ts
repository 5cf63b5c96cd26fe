import { JunctionError } from '../contract/errors.js';
import type { Value } from '../contract/types.js';

/** How a dialect's text is scanned for `?` placeholders: what quotes and comments look like. */
export interface PlaceholderLexis {
  /** characters that open a quoted string or identifier, closed by the same one (doubled inside) */
  readonly quotes: string;
  /** a backslash escapes the next character inside quotes other than a backtick (MySQL) */
  readonly backslashEscapes?: boolean;
  /** `#` starts a comment to the end of the line (MySQL) */
  readonly hashComments?: boolean;
}

/**
 * Replaces each `?` placeholder with its value's literal, skipping quoted strings, quoted
 * identifiers and comments: for drivers whose statements go as text (the MySQL text protocol,
 * Trino's HTTP protocol). Throws when placeholders and values do not pair up.
 */
export function inlineParams(sql: string, params: readonly Value[], literal: (v: Value) => string, lexis: PlaceholderLexis): string {
  if (params.length === 0) return sql;
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (lexis.quotes.includes(c)) {
      let j = i + 1;
      while (j < sql.length) {
        if (lexis.backslashEscapes && sql[j] === '\\' && c !== '`') j += 2;
        else if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if ((c === '-' && sql[i + 1] === '-') || (lexis.hashComments && c === '#')) {
      const j = sql.indexOf('\n', i);
      const end = j < 0 ? sql.length : j;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2);
      const end = j < 0 ? sql.length : j + 2;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '?') {
      if (n >= params.length)
        throw new JunctionError('param_count', 'internal', `The statement has more placeholders than the ${params.length} values bound.`);
      out += literal(params[n++]);
      i++;
    } else {
      out += c;
      i++;
    }
  }
  if (n !== params.length)
    throw new JunctionError('param_count', 'internal', `The statement has ${n} placeholders but ${params.length} values were bound.`);
  return out;
}
