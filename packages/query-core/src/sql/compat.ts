import { blockCommentEnd } from './block-comment.js';

/**
 * SQL-standard function syntax the parser does not accept, rewritten to plain calls before
 * parsing (string literals, quoted names and comments are skipped):
 *   substring(s FROM a FOR n) → substring(s, a, n) · substring(s FROM a) → substring(s, a) ·
 *   substring(s FOR n) → substring(s, 1, n) ·
 *   trim([BOTH|LEADING|TRAILING] [chars] FROM s) → btrim/ltrim/rtrim(s[, chars])
 * TPC-H Q22 and BI tools write these. Offsets map back so errors point at the original text.
 */
export interface Rewrite {
  readonly text: string;
  toOriginal(offset: number): number;
}

interface Piece {
  readonly text: string;
  /** original offset of the piece's first character; -1 for inserted text */
  readonly orig: number;
}

const TARGET = /\b(substring|trim)\s*\(/giy;

export function rewriteStandardFunctions(sql: string): Rewrite {
  if (!/\b(substring|trim)\s*\(/i.test(sql)) return { text: sql, toOriginal: (o) => o };
  const pieces = rewriteRange(sql, 0, sql.length);
  let text = '';
  const outStarts: number[] = [];
  const origStarts: number[] = [];
  let lastOrig = 0;
  for (const p of pieces) {
    outStarts.push(text.length);
    origStarts.push(p.orig >= 0 ? p.orig : lastOrig);
    if (p.orig >= 0) lastOrig = p.orig + p.text.length;
    text += p.text;
  }
  return {
    text,
    toOriginal(offset: number): number {
      let lo = 0;
      let hi = outStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (outStarts[mid] <= offset) lo = mid;
        else hi = mid - 1;
      }
      const inserted = pieces[lo]?.orig === -1;
      return inserted ? origStarts[lo] : origStarts[lo] + (offset - outStarts[lo]);
    },
  };
}

/**
 * `count(ALL x)`, `sum(ALL x)`: ALL is an aggregate's default quantifier (the opposite of
 * DISTINCT), which the parser does not accept. It is blanked out — replaced by as many spaces,
 * so every offset still points where the user wrote it. Only right after the opening
 * parenthesis of a call (a name before it): `x = ALL (…)` and `UNION ALL` are left alone.
 */
export function blankAllQuantifier(sql: string): string {
  if (!/\(\s*all\s/i.test(sql)) return sql;
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const skip = skipNonCode(sql, i, sql.length);
    if (skip > i) {
      out += sql.slice(i, skip);
      i = skip;
      continue;
    }
    if (sql[i] === '(' && /[\w"]\s*$/.test(out)) {
      const m = /^\(\s*(all)\s/i.exec(sql.slice(i, i + 256));
      if (m) {
        const at = m[0].length - 1 - m[1].length;
        out += sql.slice(i, i + at) + '   ';
        i += at + 3;
        continue;
      }
    }
    out += sql[i];
    i++;
  }
  return out;
}

/** Pieces for sql[start, end), rewriting every target call found at any depth. */
function rewriteRange(sql: string, start: number, end: number): Piece[] {
  const out: Piece[] = [];
  let copyFrom = start;
  let i = start;
  while (i < end) {
    const skip = skipNonCode(sql, i, end);
    if (skip > i) {
      i = skip;
      continue;
    }
    if (/[A-Za-z_]/.test(sql[i]) && (i === 0 || !/[\w.$"]/.test(sql[i - 1]))) {
      TARGET.lastIndex = i;
      const m = TARGET.exec(sql);
      if (m && m.index === i) {
        const open = i + m[0].length - 1;
        const close = matchingParen(sql, open, end);
        if (close > 0) {
          const call = rewriteCall(sql, m[1].toLowerCase(), i, open, close);
          if (call) {
            if (copyFrom < i) out.push({ text: sql.slice(copyFrom, i), orig: copyFrom });
            out.push(...call);
            i = close + 1;
            copyFrom = i;
            continue;
          }
        }
      }
      while (i < end && /[\w$]/.test(sql[i])) i++;
      continue;
    }
    i++;
  }
  if (copyFrom < end) out.push({ text: sql.slice(copyFrom, end), orig: copyFrom });
  return out;
}

/** Top-level words and their positions inside (open, close). */
function topLevelKeywords(sql: string, open: number, close: number): { word: string; at: number }[] {
  const found: { word: string; at: number }[] = [];
  let depth = 0;
  let i = open + 1;
  while (i < close) {
    const skip = skipNonCode(sql, i, close);
    if (skip > i) {
      i = skip;
      continue;
    }
    const c = sql[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /[A-Za-z_]/.test(c) && !/[\w.$]/.test(sql[i - 1] ?? '')) {
      let j = i;
      while (j < close && /[\w$]/.test(sql[j])) j++;
      const word = sql.slice(i, j).toUpperCase();
      if (['FROM', 'FOR', 'BOTH', 'LEADING', 'TRAILING'].includes(word)) found.push({ word, at: i });
      i = j;
      continue;
    }
    i++;
  }
  return found;
}

function rewriteCall(sql: string, fn: string, nameStart: number, open: number, close: number): Piece[] | undefined {
  const kws = topLevelKeywords(sql, open, close);
  if (kws.length === 0) return undefined;
  const arg = (from: number, to: number): Piece[] => {
    let a = from;
    let b = to;
    while (a < b && /\s/.test(sql[a])) a++;
    while (b > a && /\s/.test(sql[b - 1])) b--;
    return rewriteRange(sql, a, b);
  };
  const lit = (text: string): Piece => ({ text, orig: -1 });
  if (fn === 'substring') {
    const from = kws.find((k) => k.word === 'FROM');
    const forKw = kws.find((k) => k.word === 'FOR');
    if (!from && !forKw) return undefined;
    const firstEnd = (from ?? forKw)!.at;
    const parts: Piece[] = [{ text: sql.slice(nameStart, open + 1), orig: nameStart }, ...arg(open + 1, firstEnd)];
    if (from) {
      parts.push(lit(', '), ...arg(from.at + 4, forKw && forKw.at > from.at ? forKw.at : close));
    } else parts.push(lit(', 1'));
    if (forKw) parts.push(lit(', '), ...arg(forKw.at + 3, from && from.at > forKw.at ? from.at : close));
    parts.push({ text: ')', orig: close });
    return parts;
  }
  // trim
  const from = kws.find((k) => k.word === 'FROM');
  if (!from) return undefined;
  const side = kws.find((k) => (k.word === 'BOTH' || k.word === 'LEADING' || k.word === 'TRAILING') && k.at < from.at);
  const name = side?.word === 'LEADING' ? 'ltrim' : side?.word === 'TRAILING' ? 'rtrim' : 'btrim';
  const charsStart = side ? side.at + side.word.length : open + 1;
  const chars = sql.slice(charsStart, from.at).trim();
  const parts: Piece[] = [lit(`${name}(`), ...arg(from.at + 4, close)];
  if (chars) parts.push(lit(', '), ...arg(charsStart, from.at));
  parts.push({ text: ')', orig: close });
  return parts;
}

/** Offset after a string literal, quoted identifier or comment starting at i (or i when none). */
function skipNonCode(sql: string, i: number, end: number): number {
  const c = sql[i];
  if (c === "'" || c === '"') {
    let j = i + 1;
    while (j < end) {
      if (sql[j] === c) {
        if (sql[j + 1] === c) j += 2;
        else return j + 1;
      } else j++;
    }
    return end;
  }
  if (c === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i);
    return nl < 0 || nl > end ? end : nl;
  }
  if (c === '/' && sql[i + 1] === '*') {
    return Math.min(blockCommentEnd(sql, i), end);
  }
  return i;
}

function matchingParen(sql: string, open: number, end: number): number {
  let depth = 0;
  let i = open;
  while (i < end) {
    const skip = skipNonCode(sql, i, end);
    if (skip > i) {
      i = skip;
      continue;
    }
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')') {
      depth--;
      if (depth === 0) return i;
    }
    i++;
  }
  return -1;
}
