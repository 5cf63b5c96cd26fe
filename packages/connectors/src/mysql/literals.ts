import { JunctionError } from '../contract/errors.js';
import type { Value } from '../contract/types.js';
import { toHex } from '../runtime/values.js';

/**
 * A value as a MySQL literal. Strings double their quotes, which means the same with and
 * without NO_BACKSLASH_ESCAPES; a string holding a backslash goes as a utf8mb4 hex
 * literal for the same reason. Numbers stay unquoted so DECIMAL/BIGINT keep exactness.
 */
export function literal(v: Value): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'string':
      return v.includes('\\') ? `_utf8mb4 X'${Buffer.from(v, 'utf8').toString('hex')}'` : `'${v.replace(/'/g, "''")}'`;
    case 'bigint':
      return v.toString();
    case 'number':
      if (!Number.isFinite(v))
        throw new JunctionError('value_not_representable', 'unsupported', `MySQL has no literal for ${String(v)}.`);
      return Object.is(v, -0) ? '0' : String(v);
    case 'boolean':
      return v ? 'TRUE' : 'FALSE';
    default:
      return `X'${toHex(v)}'`;
  }
}

/**
 * Replaces each `?` placeholder with its value's literal, skipping quoted strings, quoted
 * identifiers and comments. Statements go over the text protocol (see connector.ts).
 */
export function inlineParams(sql: string, params: readonly Value[]): string {
  if (params.length === 0) return sql;
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === '\\' && c !== '`') j += 2;
        else if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if ((c === '-' && sql[i + 1] === '-') || c === '#') {
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
        throw new JunctionError(
          'param_count',
          'internal',
          `The statement has more placeholders than the ${params.length} values bound.`,
        );
      out += literal(params[n++]);
      i++;
    } else {
      out += c;
      i++;
    }
  }
  if (n !== params.length)
    throw new JunctionError(
      'param_count',
      'internal',
      `The statement has ${n} placeholders but ${params.length} values were bound.`,
    );
  return out;
}
