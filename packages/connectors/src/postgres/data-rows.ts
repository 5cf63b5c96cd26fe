import type { Value } from '../contract/types.js';

/** Decodes one text cell where it lies: bytes [start, end) of a DataRow message. */
export type CellDecoder = (buf: Buffer, start: number, end: number) => Value;

interface BufferSlices {
  utf8Slice?(start: number, end: number): string;
}

/** Buffer's own slice method, without toString's argument and encoding checks (a third of the time for short cells). */
export const utf8Cell: (buf: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as BufferSlices).utf8Slice === 'function'
    ? (b, s, e) => (b as BufferSlices).utf8Slice!(s, e)
    : (b, s, e) => b.toString('utf8', s, e);

/** int2 and int4 as PostgreSQL writes them (an optional minus, then digits): no string on the way. */
export const int32Cell: CellDecoder = (b, s, e) => {
  const neg = b[s] === 0x2d;
  let n = 0;
  for (let i = neg ? s + 1 : s; i < e; i++) n = n * 10 + (b[i] - 0x30);
  return neg ? -n : n;
};

export const boolCell: CellDecoder = (b, s) => b[s] === 0x74;

const DATA_ROW = 0x44;
/** a message's type byte and its length (which counts itself, not the type byte) */
const HEADER = 5;

interface Tappable {
  listeners(event: 'data'): ((...args: never[]) => unknown)[];
  on(event: 'data', l: (chunk: Buffer) => void): unknown;
  removeListener(event: 'data', l: (chunk: Buffer) => void): unknown;
}

/**
 * Takes the DataRow messages of one statement off the connection's socket before pg's
 * parser sees them, and hands every other message to that parser unchanged, in order.
 * pg's parser makes a JS string of every cell and an array and a message object of every
 * row, which the connector then decoded again: reading 6M rows of four columns spent half
 * its time there. Here a row's cells are decoded straight from the socket's bytes.
 *
 * It holds the socket from the statement's submission to its ReadyForQuery (or error), when
 * pg's client is waiting on this statement alone: pg sends the next statement only after
 * ReadyForQuery, and its parser holds no part of a message then (between statements the
 * server sends only whole asynchronous notices). What follows a detach in the same read goes
 * to whoever listens next (pg's parser, or the next statement's tap).
 */
export class DataRowTap {
  private attached = true;
  /** a message cut by the end of a read: its bytes so far (the whole message's size once its header is in) */
  private partial: Buffer | undefined;
  private filled = 0;
  private readonly listener = (chunk: Buffer): void => this.take(chunk);

  private constructor(
    private readonly stream: Tappable,
    private readonly parser: (chunk: Buffer) => void,
    private readonly onRow: (buf: Buffer, start: number, end: number) => void,
  ) {}

  /** undefined when the socket is not as pg leaves it (one data listener: its parser). */
  static attach(stream: Tappable, onRow: (buf: Buffer, start: number, end: number) => void): DataRowTap | undefined {
    const ls = stream.listeners('data');
    if (ls.length !== 1) return undefined;
    const tap = new DataRowTap(stream, ls[0] as (chunk: Buffer) => void, onRow);
    stream.removeListener('data', tap.parser);
    stream.on('data', tap.listener);
    return tap;
  }

  /** Gives the socket back to pg's parser, with any part of a message already read. */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.stream.removeListener('data', this.listener);
    this.stream.on('data', this.parser);
    const p = this.partial;
    this.partial = undefined;
    if (p) this.deliver(p.subarray(0, this.filled));
  }

  private take(chunk: Buffer): void {
    let off = 0;
    if (this.partial) {
      off = this.complete(chunk);
      if (this.partial) return;
    }
    if (!this.attached) {
      if (off < chunk.length) this.deliver(chunk.subarray(off));
      return;
    }
    this.scan(chunk, off);
  }

  /** Fills the cut message from `chunk`, handles it once whole; the bytes of `chunk` used. */
  private complete(chunk: Buffer): number {
    let p = this.partial!;
    let used = 0;
    if (this.filled < HEADER) {
      used = Math.min(HEADER - this.filled, chunk.length);
      chunk.copy(p, this.filled, 0, used);
      this.filled += used;
      if (this.filled < HEADER) return used;
      const total = 1 + p.readUInt32BE(1);
      if (total > p.length) {
        const whole = Buffer.allocUnsafe(total);
        p.copy(whole, 0, 0, HEADER);
        p = this.partial = whole;
      }
    }
    const n = Math.min(p.length - this.filled, chunk.length - used);
    chunk.copy(p, this.filled, used, used + n);
    this.filled += n;
    used += n;
    if (this.filled === p.length) {
      this.partial = undefined;
      this.filled = 0;
      this.scan(p, 0);
    }
    return used;
  }

  /** Handles the whole messages of buf from off; keeps a cut one for the next read. */
  private scan(buf: Buffer, off: number): void {
    const len = buf.length;
    // start of a run of other messages, passed to pg's parser in one call
    let run = -1;
    while (off + HEADER <= len) {
      const end = off + 1 + ((buf[off + 1] << 24) | (buf[off + 2] << 16) | (buf[off + 3] << 8) | buf[off + 4]);
      if (end > len) break;
      if (buf[off] === DATA_ROW) {
        if (run >= 0) {
          this.parser(buf.subarray(run, off));
          run = -1;
          if (!this.attached) return this.deliver(buf.subarray(off));
        }
        this.onRow(buf, off + HEADER, end);
      } else if (run < 0) run = off;
      off = end;
    }
    if (run >= 0) {
      this.parser(buf.subarray(run, off));
      if (!this.attached) {
        if (off < len) this.deliver(buf.subarray(off));
        return;
      }
    }
    if (off < len) {
      const rest = len - off;
      const p = Buffer.allocUnsafe(rest >= HEADER ? Math.max(rest, 1 + buf.readUInt32BE(off + 1)) : HEADER);
      buf.copy(p, 0, off, len);
      this.partial = p;
      this.filled = rest;
    }
  }

  /** bytes read past the detach: for whoever listens now */
  private deliver(bytes: Buffer): void {
    if (bytes.length === 0) return;
    for (const l of this.stream.listeners('data')) (l as (chunk: Buffer) => void)(bytes);
  }
}
