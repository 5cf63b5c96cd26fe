/** Tokens of the SQL the canvas can show; positions index the original text. */
export interface Token {
  readonly kind: 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'param';
  readonly text: string;
  /** upper-cased text of a word, for keywords */
  readonly upper: string;
  readonly start: number;
  readonly end: number;
}

export class SqlTokenError extends Error {}

const PUNCT = ['<>', '!=', '<=', '>=', '||', '::', '(', ')', ',', '.', '=', '<', '>', '+', '-', '*', '/', '%', ';'];

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const push = (kind: Token['kind'], start: number, end: number, text = sql.slice(start, end)) =>
    out.push({ kind, text, upper: kind === 'word' ? text.toUpperCase() : text, start, end });
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new SqlTokenError('a /* comment is not closed');
      i = end + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        const k = sql.indexOf(c, j);
        if (k < 0)
          throw new SqlTokenError(c === "'" ? 'a string literal is not closed' : 'a quoted name is not closed');
        if (sql[k + 1] === c) {
          j = k + 2;
          continue;
        }
        j = k + 1;
        break;
      }
      if (c === "'") push('string', i, j);
      else push('quoted', i, j, sql.slice(i + 1, j - 1).replace(/""/g, '"'));
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
      push('word', i, i + m[0].length);
      i += m[0].length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(i))!;
      push('number', i, i + m[0].length);
      i += m[0].length;
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      const m = /^\$\d+/.exec(sql.slice(i))!;
      push('param', i, i + m[0].length);
      i += m[0].length;
    } else if (c === '?') {
      push('param', i, i + 1);
      i++;
    } else {
      const p = PUNCT.find((x) => sql.startsWith(x, i));
      if (!p) throw new SqlTokenError(`unexpected character "${c}"`);
      push('punct', i, i + p.length);
      i += p.length;
    }
  }
  return out;
}

/** A name part: a plain word or a quoted name. */
export function isName(t: Token | undefined): t is Token & { readonly kind: 'word' | 'quoted' } {
  return t !== undefined && (t.kind === 'word' || t.kind === 'quoted');
}
