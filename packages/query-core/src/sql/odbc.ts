import { JunctionError, positionAt } from '@junction/connectors';
import { blockCommentEnd } from './block-comment.js';

/**
 * ODBC/JDBC escape sequences, which BI tools send and no SQL parser accepts, rewritten
 * to standard SQL before parsing:
 *   {d '…'} → DATE '…' · {ts '…'} → TIMESTAMP '…' · {t '…'} → TIME '…' ·
 *   {fn f(…)} → f(…) · {oj …} → … · {escape '…'} → ESCAPE '…'
 * String literals, quoted identifiers, dollar quotes and comments are copied untouched.
 * The offset map lets syntax errors point into the text the user wrote.
 */
export interface Rewritten {
  readonly text: string;
  /** offset in `text` → offset in the original */
  toOriginal(offset: number): number;
}

interface Segment {
  readonly out: number;
  readonly orig: number;
  /** replaced tokens map every offset inside them to the token's start */
  readonly fixed: boolean;
}

const KEYWORDS: Record<string, string> = { d: 'DATE', ts: 'TIMESTAMP', t: 'TIME', fn: '', oj: '', escape: 'ESCAPE' };

export function rewriteOdbc(sql: string): Rewritten {
  if (!sql.includes('{')) return { text: sql, toOriginal: (o) => o };
  let out = '';
  const segments: Segment[] = [{ out: 0, orig: 0, fixed: false }];
  const open: number[] = [];
  let i = 0;
  const copyTo = (end: number) => {
    out += sql.slice(i, end);
    i = end;
  };
  const replace = (from: number, to: number, text: string) => {
    segments.push({ out: out.length, orig: from, fixed: true });
    out += text;
    segments.push({ out: out.length, orig: to, fixed: false });
    i = to;
  };
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'") copyTo(skipQuoted(sql, i, "'", /[eE]/.test(sql[i - 1] ?? '') && !/\w/.test(sql[i - 2] ?? '')));
    else if (c === '"') copyTo(skipQuoted(sql, i, '"', false));
    else if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      copyTo(nl < 0 ? sql.length : nl);
    } else if (c === '/' && next === '*') {
      copyTo(blockCommentEnd(sql, i));
    } else if (c === '$' && /[A-Za-z_$]/.test(next ?? '')) {
      const m = /^\$([A-Za-z_]\w*)?\$/.exec(sql.slice(i));
      if (m) {
        const end = sql.indexOf(m[0], i + m[0].length);
        copyTo(end < 0 ? sql.length : end + m[0].length);
      } else copyTo(i + 1);
    } else if (c === '{') {
      const m = /^\{\s*(ts|t|d|fn|oj|escape)\b\s*/i.exec(sql.slice(i));
      if (!m) {
        throw new JunctionError(
          'syntax_error',
          'user',
          'syntax error at "{": unknown escape sequence; use {d …}, {ts …}, {t …} or {fn …}',
          {
            position: positionAt(sql, i, 1),
          },
        );
      }
      const kw = KEYWORDS[m[1].toLowerCase()];
      open.push(i);
      replace(i, i + m[0].length, kw ? kw + ' ' : '');
    } else if (c === '}' && open.length > 0) {
      open.pop();
      replace(i, i + 1, '');
    } else copyTo(i + 1);
  }
  if (open.length > 0) {
    throw new JunctionError('syntax_error', 'user', 'syntax error: escape sequence "{" is never closed', {
      position: positionAt(sql, open[open.length - 1], 1),
    });
  }
  const text = out;
  return {
    text,
    toOriginal(offset: number): number {
      let lo = 0;
      let hi = segments.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (segments[mid].out <= offset) lo = mid;
        else hi = mid - 1;
      }
      // several segments may start at one output offset (an empty replacement); take the last
      const s = segments[lo];
      return s.fixed ? s.orig : s.orig + (offset - s.out);
    },
  };
}

/** End offset (exclusive) of a quoted token starting at `start`; doubled quotes escape. */
function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let j = start + 1;
  while (j < sql.length) {
    const ch = sql[j];
    if (backslashEscapes && ch === '\\') j += 2;
    else if (ch === quote) {
      if (sql[j + 1] === quote) j += 2;
      else return j + 1;
    } else j++;
  }
  return sql.length;
}
