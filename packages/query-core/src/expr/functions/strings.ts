import { JunctionError } from '@junction/connectors';
import { trimTrailingBlanks } from '../compare.js';

/**
 * String functions with PostgreSQL's meaning. Positions and lengths count characters
 * (code points), not UTF-16 units, as PostgreSQL counts them in a UTF-8 database.
 */

function chars(s: string): string[] {
  return Array.from(s);
}

function hasSurrogates(s: string): boolean {
  return /[\uD800-\uDFFF]/.test(s);
}

export function length(s: string, fixed = false): number {
  const v = fixed ? trimTrailingBlanks(s) : s;
  return hasSurrogates(v) ? chars(v).length : v.length;
}

/** substring(s, start[, count]): 1-based; a start before 1 eats into the count, as in PostgreSQL. */
export function substring(s: string, start: number, count?: number): string {
  if (count !== undefined && count < 0) {
    throw new JunctionError('substring_error', 'user', 'negative substring length not allowed');
  }
  const cs = hasSurrogates(s) ? chars(s) : null;
  const len = cs ? cs.length : s.length;
  let from = start - 1;
  let to = count === undefined ? len : start - 1 + count;
  if (from < 0) from = 0;
  if (to > len) to = len;
  if (to <= from) return '';
  return cs ? cs.slice(from, to).join('') : s.slice(from, to);
}

export function position(needle: string, haystack: string): number {
  const i = haystack.indexOf(needle);
  if (i < 0) return 0;
  return hasSurrogates(haystack) ? chars(haystack.slice(0, i)).length + 1 : i + 1;
}

function trimSet(chars: string): (c: string) => boolean {
  const set = new Set(Array.from(chars));
  return (c) => set.has(c);
}

export function trim(s: string, characters = ' ', side: 'both' | 'leading' | 'trailing' = 'both'): string {
  const cs = Array.from(s);
  const inSet = trimSet(characters);
  let a = 0;
  let b = cs.length;
  if (side !== 'trailing') while (a < b && inSet(cs[a])) a++;
  if (side !== 'leading') while (b > a && inSet(cs[b - 1])) b--;
  return cs.slice(a, b).join('');
}

export function replace(s: string, from: string, to: string): string {
  if (from === '') return s;
  return s.split(from).join(to);
}

export function left(s: string, n: number): string {
  const cs = chars(s);
  return (n >= 0 ? cs.slice(0, n) : cs.slice(0, Math.max(0, cs.length + n))).join('');
}

export function right(s: string, n: number): string {
  const cs = chars(s);
  return (n >= 0 ? cs.slice(Math.max(0, cs.length - n)) : cs.slice(Math.min(cs.length, -n))).join('');
}

export function lpad(s: string, n: number, fill = ' '): string {
  return pad(s, n, fill, true);
}

export function rpad(s: string, n: number, fill = ' '): string {
  return pad(s, n, fill, false);
}

/** PostgreSQL's lpad/rpad: cut to n characters, or filled to n with `fill` repeated (nothing to fill with: unchanged). */
function pad(s: string, n: number, fill: string, left: boolean): string {
  const cs = chars(s);
  if (n <= 0) return '';
  if (cs.length >= n) return cs.slice(0, n).join('');
  const f = chars(fill);
  if (f.length === 0) return s;
  const padding: string[] = [];
  for (let i = 0; i < n - cs.length; i++) padding.push(f[i % f.length]);
  return left ? padding.join('') + s : s + padding.join('');
}

/**
 * LIKE pattern → RegExp. `\` escapes the next character (PostgreSQL's default ESCAPE);
 * a pattern ending in a lone backslash is an error, as in PostgreSQL.
 */
export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      if (i >= pattern.length) {
        throw new JunctionError('invalid_escape_sequence', 'user', 'LIKE pattern must not end with escape character');
      }
      re += escapeRe(pattern[i]);
    } else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += escapeRe(c);
  }
  return new RegExp(re + '$', caseInsensitive ? 'iu' : 'u');
}

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? '\\' + c : c;
}

/** A LIKE matcher that caches the compiled pattern (patterns are usually constant). */
export function likeMatcher(caseInsensitive: boolean): (value: string, pattern: string) => boolean {
  let lastPattern: string | undefined;
  let lastRe: RegExp | undefined;
  return (value, pattern) => {
    if (pattern !== lastPattern) {
      lastRe = likeToRegExp(pattern, caseInsensitive);
      lastPattern = pattern;
    }
    return lastRe!.test(value);
  };
}
