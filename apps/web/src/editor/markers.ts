import type { SqlPosition } from '../lib/api-error.js';

export interface MarkerRange {
  readonly startLineNumber: number;
  readonly startColumn: number;
  readonly endLineNumber: number;
  readonly endColumn: number;
}

/**
 * The range to underline for an error position: its length when given, else the word (or
 * single character) at the position. Columns are 1-based like Monaco's.
 */
export function markerRange(sql: string, pos: SqlPosition): MarkerRange {
  const lines = sql.split('\n');
  const lineNo = Math.min(Math.max(1, pos.line), lines.length);
  const line = lines[lineNo - 1] ?? '';
  const col = Math.min(Math.max(1, pos.column), line.length + 1);
  let len = pos.length ?? 0;
  if (len <= 0) {
    const m = /^[\w$]+|^\S/.exec(line.slice(col - 1));
    len = m ? m[0].length : 1;
  }
  return {
    startLineNumber: lineNo,
    startColumn: col,
    endLineNumber: lineNo,
    endColumn: Math.min(col + len, line.length + 1 + (col > line.length ? 1 : 0)),
  };
}
