/**
 * Whether SQL text uses parameter placeholders ($1 or ?) outside string literals, quoted
 * names and comments: values kept for a saved query's parameters apply only while it does.
 */
export function hasPlaceholders(sql: string): boolean {
  const code = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  return /\$\d+|\?/.test(code);
}
