import { describe, expect, it } from 'vitest';
import { resultKey } from './result-cache.js';

/*
 * Property test of the result cache's statement key against the parser. Statements come from a
 * small grammar whose token stream is known, so "the parsed form differs" has an oracle that does
 * not depend on the code under test: the tokens with keywords upper-cased. Each statement is
 * rendered several times with random white space, keyword case and comments of every shape at
 * token boundaries; the key must be equal exactly when the oracle is.
 */

const key = (sql: string): string => {
  try {
    return resultKey(sql, [], undefined, []);
  } catch (e) {
    // the generator must stay inside the grammar: say which text it got wrong
    throw new Error(`${(e as Error).message} in:\n${sql}`, { cause: e });
  }
};

/** mulberry32: a seeded generator, so a failure replays with the same statements */
function rngOf(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

/** kw: a keyword, its case free; everything else is kept verbatim */
interface Token {
  readonly t: string;
  readonly kw?: true;
}
const kw = (t: string): Token => ({ t, kw: true });
const tok = (t: string): Token => ({ t });

const COLUMNS = ['c_id', 'c_name', 'c_nation', '"Two  Words"', '"a--b"', '"x*/y"', '"/*q"', '"it\'s"', '"q""q"', 'C_Name'];
const TABLES = ['pg.customer', 'customer', '"my schema"."t/*1"', 'pg."or--ders"'];
const NUMBERS = ['0', '1', '4', '42', '1.5', '1.50', '2e3'];
const STRINGS = ['', 'a', 'a  b', "it's", '*/', '/*', '--', '-- x */', '/* /* */', 'é ü', '$', "'; DROP"];
const FUNCS = ['upper', 'lower', 'abs', 'length'];

function stringLiteral(rng: Rng, value: string): string {
  const form = int(rng, 0, 3);
  // a $ next to the delimiter would end the quote early (or late)
  if (form === 1 && !value.includes('$')) return `$$${value}$$`;
  if (form === 2 && !value.includes('$')) return `$q$${value}$q$`;
  if (form === 3) return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `'${value.replace(/'/g, "''")}'`;
}

interface Gen {
  readonly rng: Rng;
  readonly style: '$' | '?';
  params: number;
}

function expr(g: Gen, depth: number): Token[] {
  const r = g.rng();
  if (depth > 0 && r < 0.2) {
    return [tok('('), ...expr(g, depth - 1), tok(pick(g.rng, ['+', '-', '*', '||'])), ...expr(g, depth - 1), tok(')')];
  }
  if (depth > 0 && r < 0.3) return [tok(pick(g.rng, FUNCS)), tok('('), ...expr(g, depth - 1), tok(')')];
  if (r < 0.55) return [tok(pick(g.rng, COLUMNS))];
  if (r < 0.75) return [tok(pick(g.rng, NUMBERS))];
  if (r < 0.9) return [tok(stringLiteral(g.rng, pick(g.rng, STRINGS)))];
  g.params++;
  return [tok(g.style === '$' ? `$${int(g.rng, 1, 3)}` : '?')];
}

function predicate(g: Gen): Token[] {
  switch (int(g.rng, 0, 4)) {
    case 0:
      return [...expr(g, 2), tok(pick(g.rng, ['=', '<>', '<', '>='])), ...expr(g, 2)];
    case 1:
      return [...expr(g, 1), kw('IS'), ...(g.rng() < 0.5 ? [kw('NOT')] : []), kw('NULL')];
    case 2: {
      const list: Token[] = [];
      for (let i = int(g.rng, 1, 3); i > 0; i--) list.push(...expr(g, 0), tok(','));
      list.pop();
      return [...expr(g, 1), kw('IN'), tok('('), ...list, tok(')')];
    }
    case 3:
      return [...expr(g, 1), kw('BETWEEN'), ...expr(g, 0), kw('AND'), ...expr(g, 0)];
    default:
      return [...expr(g, 1), kw('LIKE'), tok(stringLiteral(g.rng, pick(g.rng, STRINGS)))];
  }
}

/** A statement as tokens, and where its WHERE clause ends (for splicing in one more conjunct). */
function statement(rng: Rng): { tokens: Token[]; whereEnd?: number } {
  const g: Gen = { rng, style: rng() < 0.5 ? '$' : '?', params: 0 };
  const tokens: Token[] = [kw('SELECT')];
  if (rng() < 0.2) tokens.push(kw('DISTINCT'));
  const columns = int(rng, 1, 3);
  for (let i = 0; i < columns; i++) {
    if (i > 0) tokens.push(tok(','));
    tokens.push(...expr(g, 2));
    if (rng() < 0.3) tokens.push(kw('AS'), tok(pick(rng, ['x1', '"Col  One"', '"e--nd"'])));
  }
  tokens.push(kw('FROM'), tok(pick(rng, TABLES)));
  let whereEnd: number | undefined;
  const conjuncts = int(rng, 0, 3);
  if (conjuncts > 0) {
    tokens.push(kw('WHERE'));
    const join = rng() < 0.2 ? 'OR' : 'AND';
    for (let i = 0; i < conjuncts; i++) {
      if (i > 0) tokens.push(kw(join));
      tokens.push(...predicate(g));
    }
    whereEnd = tokens.length;
  }
  if (rng() < 0.4) {
    tokens.push(kw('ORDER'), kw('BY'), tok(String(int(rng, 1, columns))));
    if (rng() < 0.5) tokens.push(kw(pick(rng, ['ASC', 'DESC'])));
  }
  if (rng() < 0.3) tokens.push(kw('LIMIT'), tok(pick(rng, NUMBERS.slice(0, 4))));
  return { tokens, whereEnd };
}

/** The parsed form, independently of the key: the tokens with keywords in one case. */
const oracle = (tokens: readonly Token[]): string => tokens.map((x) => (x.kw ? x.t.toUpperCase() : x.t)).join(' ');

/** The tokens as the plainest text; by construction it spells out the parsed form. */
const plain = (tokens: readonly Token[]): string => oracle(tokens);

/** Text that sits inside a block comment: no `/*` or `*\/` of its own, anything else. */
const BLOCK_TEXT = ['x', "it's", '"q', '--', '--*', '*', '/', '$$', '$q$ a', "'", 'AND c_id = 4', 'WHERE 1 = 0', '\n', 'é'];
/** Text that sits inside a line comment: anything but a newline. */
const LINE_TEXT = [...BLOCK_TEXT.filter((t) => t !== '\n'), '/*', '*/', '/* /* */', "' AND 1 = 1 */"];

function blockComment(rng: Rng, depth: number): string {
  let s = `/* ${pick(rng, BLOCK_TEXT)} `;
  if (depth > 0 && rng() < 0.7) s += `${blockComment(rng, depth - 1)} ${pick(rng, BLOCK_TEXT)} `;
  return `${s}*/`;
}

function comment(rng: Rng, smuggled: () => string): string {
  switch (int(rng, 0, 4)) {
    case 0:
      return `--${pick(rng, LINE_TEXT)}\n`;
    case 1:
      return blockComment(rng, 0);
    case 2:
      return blockComment(rng, 3);
    case 3:
      // one comment when block comments nest; code followed by a line comment when they do not
      return `/* /* */ ${smuggled()} --*/`;
    default:
      // tight against the delimiters: a / or * there would make another one
      return `/*${pick(rng, BLOCK_TEXT.filter((t) => !/^[/*]|[/*]$/.test(t)))}*/`;
  }
}

const SPACE = [' ', '  ', '\n', '\t', ' \r\n  '];
const TIGHT = new Set(['(', ')', ',']);

function letterCase(rng: Rng, word: string): string {
  const r = rng();
  if (r < 0.3) return word.toLowerCase();
  if (r < 0.6) return word;
  return [...word].map((c) => (rng() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');
}

/** The tokens as text with random white space, comments between tokens and keyword case. */
function render(rng: Rng, tokens: readonly Token[], smuggled: () => string): string {
  let out = rng() < 0.3 ? '/*+ cache(ttl=60) */ ' : '';
  tokens.forEach((x, i) => {
    if (i > 0) {
      // no space is needed after punctuation; elsewhere a comment or operator must not touch the token before it
      const prev = tokens[i - 1]!.t;
      out += TIGHT.has(prev) && rng() < 0.4 ? '' : pick(rng, SPACE);
      for (let c = rng() < 0.5 ? 0 : int(rng, 1, 2); c > 0; c--) out += comment(rng, smuggled) + (rng() < 0.3 ? '' : pick(rng, SPACE));
    }
    out += x.kw ? letterCase(rng, x.t) : x.t;
  });
  if (rng() < 0.3) out += ` ${comment(rng, smuggled)}`;
  return out;
}

/** A predicate that can sit inside a block comment without opening or closing one. */
function commentSafePredicate(rng: Rng, style: '$' | '?'): Token[] {
  for (;;) {
    const p = predicate({ rng, style, params: 0 });
    if (!/\/\*|\*\//.test(plain(p))) return p;
  }
}

/** Some statement text, to be smuggled into a comment. */
function smuggler(rng: Rng): () => string {
  return () => plain(commentSafePredicate(rng, '$'));
}

describe('result key: the poisoning statement', () => {
  const poison = 'SELECT c_name FROM pg.customer WHERE c_nation = 1 /* /* */ AND c_id = 4 --*/';
  const withConjunct = 'SELECT c_name FROM pg.customer WHERE c_nation = 1 AND c_id = 4';
  const shortened = 'SELECT c_name FROM pg.customer WHERE c_nation = 1';

  it('is keyed as what the parser runs: the nested comment hides "AND c_id = 4"', () => {
    expect(key(poison)).not.toBe(key(withConjunct));
    expect(key(poison)).toBe(key(shortened));
    expect(key(`/*+ cache(ttl=60) */ ${poison}`)).toBe(key(`/*+ cache(ttl=60) */ ${shortened}`));
  });

  it('keeps comment markers inside escape strings, dollar quotes and quoted names', () => {
    // the old lexer ended the E'' literal at \' and took the rest of the line for a comment
    expect(key("SELECT E'it\\'s -- x' AS a, c_id FROM pg.customer")).not.toBe(key("SELECT E'it\\'s -- x' AS a FROM pg.customer"));
    expect(key('SELECT $q$ */ -- $$ $q$ FROM t')).not.toBe(key('SELECT $q$ */ --  $$ $q$ FROM t'));
    expect(key('SELECT "a /* b" FROM t WHERE c = 1 -- */')).not.toBe(key('SELECT "a /* b" FROM t'));
  });
});

describe('result key: property over a small grammar (seeded)', () => {
  const SEED = 0x5eed_1ca7;
  const CASES = 250;
  const RENDERINGS = 3;

  it(`equals for the same parse under any comments, white space and keyword case, and differs otherwise (${CASES} statements)`, () => {
    const rng = rngOf(SEED);
    const smuggled = smuggler(rng);
    const byKey = new Map<string, { form: string; sql: string }>();
    const byForm = new Map<string, { key: string; sql: string }>();
    const collisions: string[] = [];
    const splits: string[] = [];
    const check = (tokens: readonly Token[], sql: string): void => {
      const form = oracle(tokens);
      const k = key(sql);
      const sameKey = byKey.get(k);
      if (!sameKey) byKey.set(k, { form, sql });
      else if (sameKey.form !== form) collisions.push(`${sameKey.sql}\n  ~ ${sql}`);
      const sameForm = byForm.get(form);
      if (!sameForm) byForm.set(form, { key: k, sql });
      else if (sameForm.key !== k) splits.push(`${sameForm.sql}\n  ~ ${sql}`);
    };
    for (let i = 0; i < CASES; i++) {
      const { tokens, whereEnd } = statement(rng);
      check(tokens, plain(tokens));
      for (let r = 0; r < RENDERINGS; r++) check(tokens, render(rng, tokens, smuggled));
      if (whereEnd !== undefined) {
        // the same statement with one more conjunct, and that conjunct hidden in a nested comment
        const extra = [kw('AND'), ...commentSafePredicate(rng, tokens.some((x) => x.t === '?') ? '?' : '$')];
        const before = tokens.slice(0, whereEnd);
        const after = tokens.slice(whereEnd);
        check([...before, ...extra, ...after], plain([...before, ...extra, ...after]));
        check(tokens, `${plain(before)} /* /* */ ${plain(extra)} --*/\n${plain(after)}`);
      }
      // a near miss: one token changed in a way that changes the parse
      const from = int(rng, 0, tokens.length - 1);
      const at = tokens.findIndex((x, j) => j >= from && !x.kw && /^(\d|'|"|c_)/.test(x.t));
      if (at >= 0) {
        const t = tokens[at]!.t;
        const changed = /^\d/.test(t) ? `${t}0` : t.startsWith('c_') ? `"${t}"` : `${t[0]} ${t.slice(1)}`;
        const twin = tokens.map((x, j) => (j === at ? tok(changed) : x));
        check(twin, render(rng, twin, smuggled));
      }
    }
    const report = (xs: string[]): string[] => [`${xs.length} pairs (seed ${SEED})`, ...xs.slice(0, 3)];
    expect(report(collisions), 'one key for two parses').toEqual(report([]));
    expect(report(splits), 'two keys for one parse').toEqual(report([]));
    expect(byForm.size).toBeGreaterThan(CASES * 0.9);
  });

  it('a conjunct smuggled into a nested comment never takes the key of the statement that has it', () => {
    const rng = rngOf(SEED + 1);
    let checked = 0;
    for (let i = 0; i < 100; i++) {
      const { tokens, whereEnd } = statement(rng);
      if (whereEnd === undefined) continue;
      const extra = [kw('AND'), ...commentSafePredicate(rng, tokens.some((x) => x.t === '?') ? '?' : '$')];
      const before = tokens.slice(0, whereEnd);
      const after = tokens.slice(whereEnd);
      const smuggledSql = `${plain(before)} /* /* */ ${plain(extra)} --*/\n${plain(after)}`;
      const withExtra = plain([...before, ...extra, ...after]);
      expect(key(smuggledSql), smuggledSql).not.toBe(key(withExtra));
      expect(key(smuggledSql), smuggledSql).toBe(key(plain(tokens)));
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });
});
