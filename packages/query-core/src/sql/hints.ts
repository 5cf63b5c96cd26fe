import { JunctionError, positionAt, type SqlPosition } from '@junction/connectors';
import { blockCommentEnd } from './block-comment.js';

/** One `name(arguments)` of a statement's leading `/*+ … *\/` comments. */
export interface Hint {
  /** lower case */
  readonly name: string;
  /** the text between the parentheses, as written */
  readonly args: string;
  /** where the hint starts in the statement, and where its arguments start */
  readonly offset: number;
  readonly argsOffset: number;
  /** `name(arguments)` as written, for messages */
  readonly text: string;
}

const HINT = /([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)/g;

/**
 * The hints of the comments that open a statement: every `/*+ … *\/` before its first token
 * (after white space and ordinary comments), each holding one or more `name(arguments)`, so
 * `/*+ cache(ttl=60) engine(trino) *\/` and two comments in a row read alike. A hint further in
 * is a comment like any other, as in Oracle and Trino's hint grammar.
 */
export function leadingHints(sql: string): Hint[] {
  const out: Hint[] = [];
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i])) i++;
    if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
      continue;
    }
    if (!sql.startsWith('/*', i)) return out;
    const end = blockCommentEnd(sql, i);
    if (sql[i + 2] === '+') {
      const bodyStart = i + 3;
      const body = sql.slice(bodyStart, Math.max(bodyStart, end - 2));
      for (const m of body.matchAll(HINT)) {
        const offset = bodyStart + (m.index ?? 0);
        out.push({
          name: m[1].toLowerCase(),
          args: m[2],
          offset,
          argsOffset: offset + m[0].indexOf('(') + 1,
          text: m[0],
        });
      }
    }
    i = end;
  }
}

/** The engine a statement's `/*+ engine(NAME) *\/` hint asks for (lower case), and where NAME stands. */
export interface EngineHint {
  readonly name: string;
  readonly position: SqlPosition;
}

/**
 * Reads `engine(NAME)` from the leading hints; which names exist is the engine's to decide. Two
 * engine hints that disagree, or one whose argument is not a single name, are errors rather than
 * a query quietly run somewhere the writer did not mean.
 */
export function engineHint(sql: string): EngineHint | undefined {
  let found: EngineHint | undefined;
  for (const h of leadingHints(sql)) {
    if (h.name !== 'engine') continue;
    const m = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(h.args);
    if (!m) {
      throw new JunctionError(
        'invalid_engine_hint',
        'user',
        `The hint "${h.text}" is not understood: write /*+ engine(NAME) */ before the statement, NAME being local, auto or a configured engine such as trino.`,
        {
          position: positionAt(sql, h.offset, h.text.length),
        },
      );
    }
    const hint = { name: m[2].toLowerCase(), position: positionAt(sql, h.argsOffset + m[1].length, m[2].length) };
    if (found && found.name !== hint.name) {
      throw new JunctionError(
        'invalid_engine_hint',
        'user',
        `The statement asks for two engines, ${found.name} and ${hint.name}: keep one engine hint.`,
        {
          position: hint.position,
        },
      );
    }
    found ??= hint;
  }
  return found;
}
