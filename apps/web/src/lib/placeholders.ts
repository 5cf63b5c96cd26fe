/** The text with string literals, quoted names and comments blanked out (same length). */
function codeOnly(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|--[^\n]*|\/\*[\s\S]*?\*\//g, (m) => ' '.repeat(m.length));
}

/**
 * Whether SQL text uses parameter placeholders ($1 or ?) outside string literals, quoted
 * names and comments: values kept for a saved query's parameters apply only while it does.
 */
export function hasPlaceholders(sql: string): boolean {
  return placeholderCount(sql) > 0;
}

/**
 * How many values the statement takes: the highest `$n` (PostgreSQL numbering; `$2` alone
 * still needs `$1`), or the number of `?` marks.
 */
export function placeholderCount(sql: string): number {
  const code = codeOnly(sql);
  let max = 0;
  for (const m of code.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(m[1]));
  if (max > 0) return max;
  return (code.match(/\?/g) ?? []).length;
}

/** The placeholder's label in the parameters form: `$3`, or `?3` for the third question mark. */
export function placeholderLabel(sql: string, index: number): string {
  return /\$\d/.test(codeOnly(sql)) ? `$${index + 1}` : `?${index + 1}`;
}

/**
 * The first placeholder whose value is still an empty field, or -1. An empty field is a value
 * not given yet, not the empty string: sent as '' it fails in the source with an error about
 * casting "" (NULL has its own checkbox; an empty string can be written as '' in the SQL).
 */
export function missingParam(values: readonly (string | null)[]): number {
  return values.findIndex((v) => v === '');
}

export { codeOnly };
