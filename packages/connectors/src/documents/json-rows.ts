import { TextDecoder } from 'node:util';
import StreamJson from 'stream-json';
import { JunctionError } from '../contract/errors.js';
import {
  JsonNumber,
  matchesJsonPath,
  mayContainRows,
  unwrapsArrays,
  type JsonKey,
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

/** The rows inside one parsed document, in document order. */
export function rowsOfValue(steps: readonly JsonStep[], doc: JsonValue, out: JsonValue[]): void {
  const keys: JsonKey[] = [];
  const unwrap = unwrapsArrays(steps);
  const visit = (v: JsonValue, parentIsArray: boolean): void => {
    if (matchesJsonPath(steps, keys, parentIsArray) && !(unwrap && Array.isArray(v))) {
      out.push(v);
      return;
    }
    if (v === null || typeof v !== 'object' || v instanceof JsonNumber || !mayContainRows(steps, keys)) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        keys.push(i);
        visit(v[i], true);
        keys.pop();
      }
    } else {
      for (const k of Object.keys(v)) {
        keys.push(k);
        visit(v[k], false);
        keys.pop();
      }
    }
  };
  visit(doc, false);
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
}

interface Token {
  readonly name: string;
  readonly value?: string;
}

/** Builds rows from stream-json's packed tokens. */
class TokenRows {
  private readonly frames: Frame[] = [];
  private readonly keys: JsonKey[] = [];
  private readonly unwrap: boolean;
  rows: JsonValue[] = [];

  constructor(private readonly steps: readonly JsonStep[]) {
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
        if (this.frames.length > 0) this.keys.pop();
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
    let key: JsonKey | undefined;
    if (top) key = top.isArray ? top.next++ : top.key;
    if (top?.skip) {
      if (container) this.push(key!, t.name === 'startArray', undefined, false, true);
      return;
    }
    if (top?.value !== undefined) {
      // inside a row: build
      const v: JsonValue = container ? (t.name === 'startArray' ? [] : Object.create(null)) : scalar;
      if (Array.isArray(top.value)) top.value.push(v);
      else top.value[key as string] = v;
      if (container)
        this.push(key!, t.name === 'startArray', v as JsonValue[] | Record<string, JsonValue>, false, false);
      return;
    }
    if (key !== undefined) this.keys.push(key);
    const isRow =
      matchesJsonPath(this.steps, this.keys, top?.isArray ?? false) && !(this.unwrap && t.name === 'startArray');
    if (!container) {
      if (isRow) this.rows.push(scalar);
      if (key !== undefined) this.keys.pop();
      return;
    }
    if (key !== undefined) this.keys.pop();
    const value = isRow ? (t.name === 'startArray' ? [] : Object.create(null)) : undefined;
    const skip = !isRow && key !== undefined && !mayContainRows(this.steps, [...this.keys, key]);
    this.push(key, t.name === 'startArray', value, isRow, skip);
  }

  private push(key: JsonKey | undefined, isArray: boolean, value: Frame['value'], isRow: boolean, skip: boolean): void {
    if (this.frames.length > 0) this.keys.push(key!);
    this.frames.push({ isArray, next: 0, key: '', value, isRow, skip });
  }
}

async function* tokenized(
  first: readonly (Uint8Array | string)[],
  rest: AsyncIterator<Uint8Array | string>,
  steps: readonly JsonStep[],
  documentName: string,
): AsyncGenerator<JsonValue[]> {
  const builder = new TokenRows(steps);
  const parser = StreamJson.parser({ packValues: true, streamValues: false, jsonStreaming: true });
  let failure: unknown;
  let ended = false;
  parser.on('data', (t: Token) => {
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
    await new Promise<void>((resolve) => parser.write(chunk, () => resolve()));
    await settle();
  };
  try {
    for (const chunk of first) await feed(chunk);
    for (;;) {
      if (failure) throw parseError(documentName, (failure as Error).message, failure);
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
    if (failure || !ended)
      throw parseError(documentName, (failure as Error | undefined)?.message ?? 'it ended early', failure);
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
      yield* lines(text, finished, it, decoder, steps, documentName);
      return;
    }
    const rest: AsyncIterator<Uint8Array | string> = finished
      ? { next: async () => ({ done: true, value: undefined }) }
      : { next: async () => it.next() };
    // the tokenizer decodes UTF-8 itself, so it gets the probed bytes, not the probe's text
    yield* tokenized(raw, rest, steps, documentName);
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
          throw parseError(documentName, `line ${lineNo} is not a JSON document (${(err as Error).message})`, err);
        }
        rowsOfValue(steps, doc, out);
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
    const next = await it.next();
    if (next.done) {
      pending += decoder.decode();
      done = true;
    } else pending += typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
  }
}
