import { Readable } from 'node:stream';
import { JunctionError, isJunctionError, type Row, type Value } from '@junction/connectors';
import { jsonRow, jsonRows } from './values.js';

/** replies up to this size are sent as one buffer (copying them once costs less than a write per chunk) */
const ONE_WRITE_BYTES = 256 * 1024;

/** What a JSON reply is made of, in order: head, the rows, then what `tail` says once they are read. */
export interface JsonReplyParts {
  /** everything before the first row, e.g. `{"queryId":…,"columns":…,"rows":[` */
  readonly head: string;
  readonly rows: AsyncIterable<readonly Row[]>;
  /** everything after the last row, e.g. `],"stats":…}`; called once the rows are all read */
  readonly tail: () => string;
  readonly maxBytes: number;
}

export interface EncodedJsonReply {
  readonly rows: number;
  readonly bytes: number;
  /**
   * The body: one buffer when small (headers and body then leave in one write, where a stream
   * costs a write per chunk and one more for its end: each a system call and a wake-up of the
   * client), otherwise streamed chunk by chunk, each chunk freed once written.
   */
  body(): Buffer | Readable;
}

/**
 * Encodes a whole JSON reply as a list of byte chunks, bounded by `maxBytes`.
 *
 * Why not stream straight to the socket: a JSON reply's status is sent before its body, and
 * a reply that turns out too large must still get a clear 4xx, not a 200 cut off mid-array.
 * So the reply is held until it is complete, but as byte chunks (one per batch) counted as
 * they are made: never as one string (V8 strings end at ~512 MB, which was the
 * `RangeError: Invalid string length` of issue 16), and never more than `maxBytes` of it, so
 * N concurrent JSON replies cost at most N × maxBytes. NDJSON is the way to get more.
 */
export async function encodeJsonReply(parts: JsonReplyParts): Promise<EncodedJsonReply> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let rows = 0;
  const add = (text: string): void => {
    const b = Buffer.from(text, 'utf8');
    bytes += b.length;
    if (bytes > parts.maxBytes) throw tooLarge(parts.maxBytes, rows);
    chunks.push(b);
  };
  add(parts.head);
  try {
    for await (const batch of parts.rows) {
      if (batch.length === 0) continue;
      const text = (rows === 0 ? '' : ',') + jsonRows(batch);
      // a lower bound of its bytes; add() counts them exactly
      if (bytes + text.length > parts.maxBytes)
        throw tooLarge(parts.maxBytes, rows + fitting(batch, parts.maxBytes - bytes));
      rows += batch.length;
      add(text);
    }
  } catch (e) {
    if (isJunctionError(e) && e.code === 'max_rows_exceeded') {
      throw new JunctionError(
        e.code,
        'user',
        `${e.message} Or ask for Accept: application/x-ndjson, which streams any number of rows.`,
        { details: e.details },
      );
    }
    throw e;
  }
  add(parts.tail());
  return {
    rows,
    bytes,
    body: () =>
      bytes <= ONE_WRITE_BYTES
        ? Buffer.concat(chunks.splice(0), bytes)
        : Readable.from(
            (function* () {
              for (let c = chunks.shift(); c; c = chunks.shift()) yield c;
            })(),
            { objectMode: false },
          ),
  };
}

/** How many of a batch's rows fit in `room` bytes (for the error's hint). */
function fitting(batch: readonly (readonly Value[])[], room: number): number {
  let used = 0;
  for (let i = 0; i < batch.length; i++) {
    used += Buffer.byteLength(JSON.stringify(jsonRow(batch[i])), 'utf8') + 1;
    if (used > room) return i;
  }
  return batch.length;
}

function tooLarge(maxBytes: number, rowsSoFar: number): JunctionError {
  return new JunctionError(
    'json_reply_too_large',
    'user',
    `The result is larger than the ${maxBytes} bytes a JSON reply may hold. Ask for Accept: application/x-ndjson to stream it, or pass a lower maxRows (about ${rowsSoFar} rows fit).`,
    { details: { maxJsonBytes: maxBytes, rowsThatFit: rowsSoFar } },
  );
}
