/**
 * Offset just past the block comment that opens at `start` (`/*`), or `sql.length` when it never
 * closes. Block comments nest, as the parser reads them (PostgreSQL's rule): a text rewriter that
 * ended the comment at the first `*\/` would rewrite what the parser still takes for comment, or
 * leave alone what it takes for code.
 */
export function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length - 1) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}
