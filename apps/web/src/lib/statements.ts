import { codeOnly } from './placeholders.js';

export interface StatementSpan {
  /** the statement's text without the surrounding blank space or the closing semicolon */
  readonly text: string;
  /** offset of text[0] in the whole editor text */
  readonly start: number;
}

/**
 * The statements of the editor text, split at semicolons outside strings, quoted names and
 * comments; blank pieces are dropped.
 */
export function splitStatements(sql: string): StatementSpan[] {
  const code = codeOnly(sql);
  const out: StatementSpan[] = [];
  let from = 0;
  for (let i = 0; i <= code.length; i++) {
    if (i < code.length && code[i] !== ';') continue;
    const piece = sql.slice(from, i);
    const lead = piece.length - piece.trimStart().length;
    const text = piece.trim();
    if (text !== '' && codeOnly(text).trim() !== '') out.push({ text, start: from + lead });
    from = i + 1;
  }
  return out;
}

/**
 * The statement the cursor is in (or right after, as when it sits after the semicolon);
 * with one statement, that one wherever the cursor is.
 */
export function statementAt(sql: string, offset: number): StatementSpan | undefined {
  const all = splitStatements(sql);
  if (all.length <= 1) return all[0];
  let best = all[0];
  for (const s of all) if (s.start <= offset) best = s;
  return best;
}

/** Line and column (1-based) of an offset, as error positions give them. */
export function lineColumnAt(sql: string, offset: number): { line: number; column: number } {
  const before = sql.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - nl };
}
