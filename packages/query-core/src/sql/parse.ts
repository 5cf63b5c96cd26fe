import { parse as parseCst } from 'sql-parser-cst';
import type { Node, Program, Statement } from 'sql-parser-cst';
import { JunctionError, positionAt } from '@junction/connectors';
import type { ErrorKind, SqlPosition } from '@junction/connectors';
import { blankAllQuantifier, rewriteStandardFunctions } from './compat.js';
import { rewriteOdbc } from './odbc.js';

/** A parsed statement and the means to point at any node in the text the user wrote. */
export interface ParsedSql {
  readonly original: string;
  /** text after ODBC rewriting: what the CST ranges index */
  readonly text: string;
  readonly statement: Statement;
  /** parameter style used, if any */
  readonly paramStyle?: '$' | '?';
  /** `?` parameters by their offset in `text`, numbered left to right */
  readonly questionMarks: ReadonlyMap<number, number>;
  position(node: Node): SqlPosition | undefined;
  positionOf(start: number, end: number): SqlPosition;
  error(kind: ErrorKind, code: string, message: string, node?: Node, details?: Record<string, unknown>): JunctionError;
}

const LOCATION_RE = /--> sql:(\d+):(\d+)/;

export function parseSql(sql: string): ParsedSql {
  const odbc = rewriteOdbc(sql);
  // blanking keeps every offset, so the maps need no step for it
  const compat = rewriteStandardFunctions(blankAllQuantifier(odbc.text));
  const rewritten = { text: compat.text, toOriginal: (o: number) => odbc.toOriginal(compat.toOriginal(o)) };
  const text = rewritten.text;
  const positionOf = (start: number, end: number): SqlPosition => {
    const a = rewritten.toOriginal(start);
    const b = Math.max(a, rewritten.toOriginal(end));
    return positionAt(sql, a, b - a);
  };
  let program: Program;
  try {
    program = parseCst(text, { dialect: 'postgresql', includeRange: true, paramTypes: ['$nr', '?'], filename: 'sql' });
  } catch (e) {
    // a stack overflow is not a syntax error; the Engine reports it as statement_too_complex
    if (e instanceof RangeError) throw e;
    throw syntaxError(e, sql, text, rewritten.toOriginal);
  }
  const statements = program.statements.filter((s) => s.type !== 'empty');
  if (statements.length === 0) {
    throw new JunctionError('syntax_error', 'user', 'the SQL text contains no statement', {
      position: positionAt(sql, 0, 0),
    });
  }
  if (statements.length > 1) {
    const second = statements[1];
    throw new JunctionError('unsupported_multiple_statements', 'unsupported', 'run one statement at a time', {
      position: second.range ? positionOf(second.range[0], second.range[1]) : undefined,
    });
  }
  const params: { start: number; end: number; text: string }[] = [];
  const emptyItems: number[] = [];
  collectParams(statements[0], params, emptyItems);
  if (emptyItems.length > 0) {
    let at = emptyItems.reduce((a, b) => Math.min(a, b));
    while (at < text.length && /\s/.test(text[at]!)) at++;
    const orig = rewritten.toOriginal(at);
    const token = /^[\w$]+/.exec(sql.slice(orig))?.[0] ?? sql.slice(orig, orig + 1);
    throw new JunctionError('syntax_error', 'user', at >= text.length ? 'syntax error at end of input' : `syntax error at or near "${token}"`, {
      position: positionAt(sql, orig, token.length),
    });
  }
  params.sort((a, b) => a.start - b.start);
  const dollar = params.find((p) => p.text.startsWith('$'));
  const question = params.find((p) => p.text === '?');
  if (dollar && question) {
    throw new JunctionError(
      'mixed_parameter_styles',
      'user',
      'use either $1-style or ?-style parameters in one statement, not both',
      {
        position: positionOf(question.start, question.end),
      },
    );
  }
  const questionMarks = new Map<number, number>();
  if (question) params.forEach((p, i) => questionMarks.set(p.start, i));
  const parsed: ParsedSql = {
    original: sql,
    text,
    statement: statements[0],
    paramStyle: dollar ? '$' : question ? '?' : undefined,
    questionMarks,
    position: (node) => (node.range ? positionOf(node.range[0], node.range[1]) : undefined),
    positionOf,
    error: (kind, code, message, node, details) =>
      new JunctionError(code, kind, message, { position: node ? parsed.position(node) : undefined, details }),
  };
  return parsed;
}

/** Iterative, so a deeply nested statement cannot overflow the stack here. */
function collectParams(root: unknown, out: { start: number; end: number; text: string }[], emptyItems: number[]): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const x of node) stack.push(x);
      continue;
    }
    const n = node as { type?: string; text?: string; range?: [number, number]; items?: unknown[] };
    if (n.type === 'list_expr' && n.items && n.items.length > 1) {
      const empty = n.items.find((x) => (x as { type?: string } | null)?.type === 'empty') as { range?: [number, number] } | undefined;
      // the parser accepts a stray comma ("a, FROM"); PostgreSQL rejects it at the next token
      if (empty?.range) emptyItems.push(empty.range[0]);
    }
    if (n.type === 'parameter' && n.range && n.text !== undefined) {
      out.push({ start: n.range[0], end: n.range[1], text: n.text });
      continue;
    }
    for (const key of Object.keys(n)) {
      if (key !== 'range') stack.push((n as Record<string, unknown>)[key]);
    }
  }
}

function syntaxError(e: unknown, original: string, text: string, toOriginal: (o: number) => number): JunctionError {
  const message = e instanceof Error ? e.message : String(e);
  const m = LOCATION_RE.exec(message);
  let offset = text.length;
  if (m) {
    const line = Number(m[1]);
    const column = Number(m[2]);
    let lineStart = 0;
    for (let l = 1; l < line; l++) {
      const nl = text.indexOf('\n', lineStart);
      if (nl < 0) break;
      lineStart = nl + 1;
    }
    offset = lineStart + column - 1;
  }
  const orig0 = toOriginal(offset);
  if (/\bNATURAL\s+(?:(?:LEFT|RIGHT|FULL|INNER|OUTER)\s+)*$/i.test(original.slice(0, orig0))) {
    const at = original.slice(0, orig0).search(/\bNATURAL\s+(?:(?:LEFT|RIGHT|FULL|INNER|OUTER)\s+)*$/i);
    return new JunctionError(
      'feature_not_supported',
      'unsupported',
      'NATURAL JOIN is not supported; write JOIN … USING (columns)',
      {
        position: positionAt(original, at, 7),
        cause: e,
      },
    );
  }
  const first = message.split('\n')[0].replace(/^Syntax Error: /, '');
  const found = /^Unexpected (.*)$/.exec(first);
  const what = found ? (found[1] === 'end of input' ? 'at end of input' : `at or near ${found[1]}`) : first;
  const orig = toOriginal(offset);
  const tokenLength = /^[\w$]+/.exec(original.slice(orig))?.[0].length ?? (orig < original.length ? 1 : 0);
  return new JunctionError('syntax_error', 'user', `syntax error ${what}`, {
    position: positionAt(original, orig, tokenLength),
    cause: e,
  });
}
