import { TextDecoder } from 'node:util';
import StreamJson from 'stream-json';
import { isJunctionError, JunctionError } from '../contract/errors.js';
import {
  advanceState,
  isRowAt,
  JsonNumber,
  startState,
  stateMayContainRows,
  unwrapsArrays,
  type JsonKey,
  type JsonPathState,
  type JsonStep,
  type JsonValue,
} from './json-path.js';

/**
 * Rows of a JSON document without holding it whole. Newline-delimited JSON (one document per
 * line) is split into lines and each line parsed on its own; anything else (an array or object
 * spread over lines, a huge single line) goes through stream-json's tokenizer, which also
 * takes several concatenated documents. Only the values of rows are ever built, numbers as
 * their written text so decimals stay exact.
 */

/** Lines longer than this are not taken for newline-delimited JSON: the document is tokenized instead. */
const MAX_LINE_PROBE = 1 << 20;

/**
 * What one document may ask of a reader. Without them a single huge string (or line) is
 * buffered whole until the process runs out of memory, and deep nesting costs stack and CPU
 * with every level. Mutable so tests can lower them.
 */
export const jsonLimits = {
  /** characters (bytes, for the tokenizer) of one string, number, key or line */
  maxValueChars: 64 * 1024 * 1024,
  /** nested arrays and objects */
  maxDepth: 1000,
};

function where(documentName: string, table: string | undefined): string {
  return table === undefined ? documentName : `${documentName} (table "${table}")`;
}

function valueTooLarge(documentName: string, table: string | undefined, what: string): JunctionError {
  const mib = jsonLimits.maxValueChars / (1024 * 1024);
  return new JunctionError(
    'document_value_too_large',
    'user',
    `The JSON document ${where(documentName, table)} cannot be read: ${what} is longer than ${mib} MiB, the most one value may hold.`,
    { details: { document: documentName, table, limit: jsonLimits.maxValueChars } },
  );
}

function tooDeep(documentName: string, table: string | undefined): JunctionError {
  return new JunctionError(
    'document_too_deep',
    'user',
    `The JSON document ${where(documentName, table)} cannot be read: it nests arrays and objects more than ${jsonLimits.maxDepth} levels deep.`,
    { details: { document: documentName, table, limit: jsonLimits.maxDepth } },
  );
}

function parseError(documentName: string, why: string, cause?: unknown): JunctionError {
  return new JunctionError('document_parse_error', 'user', `The JSON document ${documentName} cannot be read: ${why}`, {
    cause,
    details: { document: documentName },
  });
}

/** JSON.parse keeping each number's source text (Node ≥ 21 hands the reviver the source). */
function parseExact(text: string): JsonValue {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' ? new JsonNumber(context?.source ?? String(value)) : value,
  ) as JsonValue;
}

/** Whether containers nest `limit` or more levels from `v` down; stops looking once they do. */
function deeperThan(v: JsonValue, limit: number): boolean {
  if (v === null || typeof v !== 'object' || v instanceof JsonNumber) return false;
  if (limit <= 0) return true;
  if (Array.isArray(v)) {
    for (const e of v) if (deeperThan(e, limit - 1)) return true;
  } else for (const k in v) if (deeperThan(v[k], limit - 1)) return true;
  return false;
}

/**
 * The rows inside one parsed document, in document order. Throws DepthExceeded when the
 * document nests deeper than the limit, in rows and skipped parts alike, so that the tokenizer
 * and this refuse the same documents.
 */
export function rowsOfValue(steps: readonly JsonStep[], doc: JsonValue, out: JsonValue[]): void {
  const unwrap = unwrapsArrays(steps);
  const max = jsonLimits.maxDepth;
  const visit = (
    v: JsonValue,
    state: JsonPathState,
    parent: JsonPathState | undefined,
    parentIsArray: boolean,
    depth: number,
  ): void => {
    const container = v !== null && typeof v === 'object' && !(v instanceof JsonNumber);
    if (!container) {
      if (isRowAt(steps, state, parent, parentIsArray)) out.push(v);
      return;
    }
    if (depth >= max) throw new DepthExceeded();
    if (isRowAt(steps, state, parent, parentIsArray) && !(unwrap && Array.isArray(v))) {
      if (deeperThan(v, max - depth)) throw new DepthExceeded();
      out.push(v);
      return;
    }
    if (!stateMayContainRows(state)) {
      if (deeperThan(v, max - depth)) throw new DepthExceeded();
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], advanceState(steps, state, i), state, true, depth + 1);
    } else {
      for (const k of Object.keys(v)) visit(v[k], advanceState(steps, state, k), state, false, depth + 1);
    }
  };
  visit(doc, startState(), undefined, false, 0);
}

/** Thrown by `rowsOfValue`: it knows no document name. */
export class DepthExceeded extends Error {
  constructor() {
    super('too deep');
  }
}

interface Frame {
  readonly isArray: boolean;
  next: number;
  key: string;
  /** the value being built when this container is (inside) a row */
  readonly value: JsonValue[] | Record<string, JsonValue> | undefined;
  readonly isRow: boolean;
  /** no row can lie below: its tokens are only counted */
  readonly skip: boolean;
  /** where the container stands in the row path; unused inside rows and skipped parts */
  readonly state: JsonPathState;
}

interface Token {
  readonly name: string;
  readonly value?: string;
}

const NO_STATE: JsonPathState = [];

/** Builds rows from stream-json's packed tokens. */
class TokenRows {
  private readonly frames: Frame[] = [];
  private readonly unwrap: boolean;
  rows: JsonValue[] = [];

  constructor(
    private readonly steps: readonly JsonStep[],
    private readonly documentName: string,
    private readonly table: string | undefined,
  ) {
    this.unwrap = unwrapsArrays(steps);
  }

  token(t: Token): void {
    const top = this.frames[this.frames.length - 1];
    switch (t.name) {
      case 'keyValue':
        top.key = t.value!;
        return;
      case 'endObject':
      case 'endArray': {
        const f = this.frames.pop()!;
        if (f.isRow) this.rows.push(f.value!);
        return;
      }
    }
    let scalar: JsonValue;
    switch (t.name) {
      case 'startObject':
      case 'startArray':
        scalar = null;
        break;
      case 'stringValue':
        scalar = t.value!;
        break;
      case 'numberValue':
        scalar = new JsonNumber(t.value!);
        break;
      case 'nullValue':
        scalar = null;
        break;
      case 'trueValue':
        scalar = true;
        break;
      case 'falseValue':
        scalar = false;
        break;
      default:
        // streamed pieces (startString, stringChunk…) are not asked for
        return;
    }
    const container = t.name === 'startObject' || t.name === 'startArray';
    const isArray = t.name === 'startArray';
    let key: JsonKey | undefined;
    if (top) key = top.isArray ? top.next++ : top.key;
    if (top?.skip) {
      if (container) this.push(isArray, undefined, false, true, NO_STATE);
      return;
    }
    if (top?.value !== undefined) {
      // inside a row: build
      const v: JsonValue = container ? (isArray ? [] : Object.create(null)) : scalar;
      if (Array.isArray(top.value)) top.value.push(v);
      else top.value[key as string] = v;
      if (container) this.push(isArray, v as JsonValue[] | Record<string, JsonValue>, false, false, NO_STATE);
      return;
    }
    const state = top ? advanceState(this.steps, top.state, key!) : startState();
    const isRow =
      isRowAt(this.steps, state, top?.state, top?.isArray ?? false) && !(this.unwrap && isArray && container);
    if (!container) {
      if (isRow) this.rows.push(scalar);
      return;
    }
    const value = isRow ? (isArray ? [] : Object.create(null)) : undefined;
    const skip = !isRow && top !== undefined && !stateMayContainRows(state);
    this.push(isArray, value, isRow, skip, state);
  }

  private push(isArray: boolean, value: Frame['value'], isRow: boolean, skip: boolean, state: JsonPathState): void {
    if (this.frames.length >= jsonLimits.maxDepth) throw tooDeep(this.documentName, this.table);
    this.frames.push({ isArray, next: 0, key: '', value, isRow, skip, state });
  }
}

async function* tokenized(
  first: readonly (Uint8Array | string)[],
  rest: AsyncIterator<Uint8Array | string>,
  steps: readonly JsonStep[],
  documentName: string,
  table: string | undefined,
): AsyncGenerator<JsonValue[]> {
  const builder = new TokenRows(steps, documentName, table);
  const parser = StreamJson.parser({ packValues: true, streamValues: false, jsonStreaming: true });
  let failure: unknown;
  let ended = false;
  // Packed, a string, number or key reaches us only when it ends, and the parser holds it
  // whole until then: input fed since the last token bounds what it holds.
  let sinceToken = 0;
  parser.on('data', (t: Token) => {
    sinceToken = 0;
    if (failure) return;
    try {
      builder.token(t);
    } catch (err) {
      failure = err;
    }
  });
  parser.on('error', (err) => (failure ??= err));
  const ending = new Promise<void>((resolve) => {
    parser.on('end', () => {
      ended = true;
      resolve();
    });
    parser.on('error', () => resolve());
  });
  // tokens of a write reach 'data' synchronously or on the next tick: an immediate comes after both
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const feed = async (chunk: Uint8Array | string): Promise<void> => {
    sinceToken += chunk.length;
    await new Promise<void>((resolve) => parser.write(chunk, () => resolve()));
    await settle();
    if (sinceToken > jsonLimits.maxValueChars) failure ??= valueTooLarge(documentName, table, 'a single value');
  };
  const fail = (why: string): JunctionError =>
    isJunctionError(failure)
      ? failure
      : parseError(documentName, (failure as Error | undefined)?.message ?? why, failure);
  try {
    for (const chunk of first) {
      await feed(chunk);
      if (failure) throw fail('');
    }
    for (;;) {
      if (failure) throw fail('');
      if (builder.rows.length > 0) {
        const rows = builder.rows;
        builder.rows = [];
        yield rows;
      }
      const next = await rest.next();
      if (next.done) break;
      await feed(next.value);
    }
    parser.end();
    await ending;
    if (failure || !ended) throw fail('it ended early');
    if (builder.rows.length > 0) yield builder.rows;
  } finally {
    parser.destroy();
  }
}

/**
 * The row values of one JSON document (rows of several when it holds newline-delimited or
 * concatenated documents), a batch per chunk read. Breaking out of the loop returns the source
 * iterator, which destroys its stream.
 */
export async function* jsonRows(
  input: AsyncIterable<Uint8Array | string>,
  steps: readonly JsonStep[],
  documentName: string,
  table?: string,
): AsyncGenerator<JsonValue[]> {
  const it = input[Symbol.asyncIterator]();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  const raw: (Uint8Array | string)[] = [];
  let finished = false;
  try {
    // enough of the start to tell newline-delimited JSON: its first line is a whole document
    let lineEnd = -1;
    for (;;) {
      const start = text.search(/\S/);
      lineEnd = start < 0 ? -1 : text.indexOf('\n', start);
      if (lineEnd >= 0 || text.length > MAX_LINE_PROBE) break;
      const next = await it.next();
      if (next.done) {
        text += decoder.decode();
        finished = true;
        break;
      }
      raw.push(next.value);
      text += typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
    }
    const firstLine = lineEnd >= 0 ? text.slice(0, lineEnd) : finished ? text : '';
    if (firstLine.trim() !== '' && isWholeDocument(firstLine)) {
      yield* lines(text, finished, it, decoder, steps, documentName, table);
      return;
    }
    const rest: AsyncIterator<Uint8Array | string> = finished
      ? { next: async () => ({ done: true, value: undefined }) }
      : { next: async () => it.next() };
    // the tokenizer decodes UTF-8 itself, so it gets the probed bytes, not the probe's text
    yield* tokenized(raw, rest, steps, documentName, table);
  } finally {
    await it.return?.();
  }
}

function isWholeDocument(line: string): boolean {
  const s = line.trim();
  if (!(s.startsWith('{') || s.startsWith('['))) return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

async function* lines(
  start: string,
  finished: boolean,
  it: AsyncIterator<Uint8Array | string>,
  decoder: TextDecoder,
  steps: readonly JsonStep[],
  documentName: string,
  table: string | undefined,
): AsyncGenerator<JsonValue[]> {
  let pending = start;
  let lineNo = 0;
  // how much of `pending` is known to hold no newline: a long line is not searched again per chunk
  let searched = 0;
  const parseLines = (text: string, final: boolean): JsonValue[] => {
    const out: JsonValue[] = [];
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', Math.max(from, searched));
      searched = 0;
      if (nl < 0 && !final) break;
      const line = nl < 0 ? text.slice(from) : text.slice(from, nl);
      lineNo++;
      if (line.trim() !== '') {
        let doc: JsonValue;
        try {
          doc = parseExact(line);
        } catch (err) {
          // the reviver recurses per level: only nesting far past the limit overflows the stack
          if (err instanceof RangeError) throw tooDeep(documentName, table);
          throw parseError(documentName, `line ${lineNo} is not a JSON document (${(err as Error).message})`, err);
        }
        try {
          rowsOfValue(steps, doc, out);
        } catch (err) {
          if (err instanceof DepthExceeded) throw tooDeep(documentName, table);
          throw err;
        }
      }
      if (nl < 0) {
        from = text.length;
        break;
      }
      from = nl + 1;
    }
    pending = text.slice(from);
    searched = pending.length;
    return out;
  };
  let done = finished;
  for (;;) {
    const rows = parseLines(pending, done);
    if (rows.length > 0) yield rows;
    if (done) return;
    // what is left is one unfinished line, held until its newline comes
    if (pending.length > jsonLimits.maxValueChars) throw valueTooLarge(documentName, table, `line ${lineNo + 1}`);
    const next = await it.next();
    if (next.done) {
      pending += decoder.decode();
      done = true;
    } else pending += typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
  }
}
