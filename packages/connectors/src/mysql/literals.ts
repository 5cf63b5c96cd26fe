import { JunctionError } from '../contract/errors.js';
import type { Value } from '../contract/types.js';
import { toHex } from '../runtime/values.js';
import { inlineParams as inlineText } from '../sql/inline-params.js';

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

/** Replaces each `?` placeholder with its value's literal. Statements go over the text protocol (see connector.ts). */
export function inlineParams(sql: string, params: readonly Value[]): string {
  return inlineText(sql, params, literal, { quotes: "'\"`", backslashEscapes: true, hashComments: true });
}
