/**
 * The message bodies of the PostgreSQL protocol (v3) that Junction's session reads and writes.
 * pg-gateway frames the stream and runs start-up and authentication; what arrives here is one
 * whole frontend message at a time, and what leaves is appended to an Output and written in
 * large chunks (PostgreSQL too buffers until Sync, Flush or a full buffer).
 */

/** A frontend message's fields, read in order. */
export class Reader {
  #at: number;
  constructor(private readonly b: Buffer) {
    this.#at = 5; // type byte and length
  }
  get type(): string {
    return String.fromCharCode(this.b[0]!);
  }
  byte(): string {
    return String.fromCharCode(this.b[this.#at++]!);
  }
  int16(): number {
    const v = this.b.readInt16BE(this.#at);
    this.#at += 2;
    return v;
  }
  int32(): number {
    const v = this.b.readInt32BE(this.#at);
    this.#at += 4;
    return v;
  }
  cstring(): string {
    const end = this.b.indexOf(0, this.#at);
    if (end < 0) throw new ProtocolError('a string in the message is not terminated');
    const s = this.b.toString('utf8', this.#at, end);
    this.#at = end + 1;
    return s;
  }
  bytes(n: number): Buffer {
    if (this.#at + n > this.b.length) throw new ProtocolError('a value runs past the end of its message');
    const v = this.b.subarray(this.#at, this.#at + n);
    this.#at += n;
    return v;
  }
}

export class ProtocolError extends Error {}

export interface ParseMessage {
  readonly name: string;
  readonly sql: string;
  readonly paramOids: number[];
}
export function readParse(r: Reader): ParseMessage {
  const name = r.cstring();
  const sql = r.cstring();
  const n = r.int16();
  const paramOids: number[] = [];
  for (let i = 0; i < n; i++) paramOids.push(r.int32() >>> 0);
  return { name, sql, paramOids };
}

export interface BindMessage {
  readonly portal: string;
  readonly statement: string;
  readonly paramFormats: number[];
  readonly params: (Buffer | null)[];
  readonly resultFormats: number[];
}
export function readBind(r: Reader): BindMessage {
  const portal = r.cstring();
  const statement = r.cstring();
  const paramFormats: number[] = [];
  for (let i = 0, n = r.int16(); i < n; i++) paramFormats.push(r.int16());
  const params: (Buffer | null)[] = [];
  for (let i = 0, n = r.int16(); i < n; i++) {
    const len = r.int32();
    params.push(len < 0 ? null : r.bytes(len));
  }
  const resultFormats: number[] = [];
  for (let i = 0, n = r.int16(); i < n; i++) resultFormats.push(r.int16());
  return { portal, statement, paramFormats, params, resultFormats };
}

/** PostgreSQL's rule for format-code lists: none = all text, one = all alike, else one each. */
export function formatAt(formats: readonly number[], i: number): number {
  return formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : (formats[i] ?? 0);
}

/** Backend messages appended into one growing buffer. */
export class Output {
  #b = Buffer.allocUnsafe(16 * 1024);
  #len = 0;
  #start = -1;

  get length(): number {
    return this.#len;
  }

  ensure(n: number): void {
    if (this.#len + n <= this.#b.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#b.length * 2, this.#len + n + 1024));
    this.#b.copy(next, 0, 0, this.#len);
    this.#b = next;
  }

  begin(type: string): this {
    this.ensure(5);
    this.#b[this.#len] = type.charCodeAt(0);
    this.#start = this.#len;
    this.#len += 5;
    return this;
  }
  end(): this {
    this.#b.writeInt32BE(this.#len - this.#start - 1, this.#start + 1);
    this.#start = -1;
    return this;
  }
  int16(v: number): this {
    this.ensure(2);
    this.#b.writeInt16BE(v, this.#len);
    this.#len += 2;
    return this;
  }
  int32(v: number): this {
    this.ensure(4);
    this.#b.writeInt32BE(v | 0, this.#len);
    this.#len += 4;
    return this;
  }
  byte(c: string): this {
    this.ensure(1);
    this.#b[this.#len++] = c.charCodeAt(0);
    return this;
  }
  cstring(s: string): this {
    const n = Buffer.byteLength(s);
    this.ensure(n + 1);
    this.#b.write(s, this.#len, 'utf8');
    this.#len += n;
    this.#b[this.#len++] = 0;
    return this;
  }
  /** A length-prefixed value: -1 for NULL. */
  text(s: string | null): this {
    if (s === null) return this.int32(-1);
    const n = Buffer.byteLength(s);
    this.ensure(n + 4);
    this.#b.writeInt32BE(n, this.#len);
    this.#b.write(s, this.#len + 4, 'utf8');
    this.#len += n + 4;
    return this;
  }
  bytesValue(v: Uint8Array | null): this {
    if (v === null) return this.int32(-1);
    this.ensure(v.length + 4);
    this.#b.writeInt32BE(v.length, this.#len);
    this.#b.set(v, this.#len + 4);
    this.#len += v.length + 4;
    return this;
  }
  /** Whole messages (already framed, e.g. from the shadow catalog). */
  raw(v: Uint8Array): this {
    this.ensure(v.length);
    this.#b.set(v, this.#len);
    this.#len += v.length;
    return this;
  }

  /** What was written, handed over; the Output starts empty again. */
  take(): Buffer {
    const out = Buffer.from(this.#b.subarray(0, this.#len));
    this.#len = 0;
    if (this.#b.length > 1024 * 1024) this.#b = Buffer.allocUnsafe(16 * 1024);
    return out;
  }

  // -- whole messages --
  parseComplete(): this {
    return this.begin('1').end();
  }
  bindComplete(): this {
    return this.begin('2').end();
  }
  closeComplete(): this {
    return this.begin('3').end();
  }
  noData(): this {
    return this.begin('n').end();
  }
  portalSuspended(): this {
    return this.begin('s').end();
  }
  emptyQuery(): this {
    return this.begin('I').end();
  }
  commandComplete(tag: string): this {
    return this.begin('C').cstring(tag).end();
  }
  readyForQuery(status: 'I' | 'T' | 'E'): this {
    return this.begin('Z').byte(status).end();
  }
  parameterStatus(name: string, value: string): this {
    return this.begin('S').cstring(name).cstring(value).end();
  }
  backendKeyData(pid: number, secret: number): this {
    return this.begin('K').int32(pid).int32(secret).end();
  }
  parameterDescription(oids: readonly number[]): this {
    this.begin('t').int16(oids.length);
    for (const o of oids) this.int32(o);
    return this.end();
  }
  rowDescription(
    columns: readonly { name: string; oid: number; size: number; modifier: number; format: number }[],
  ): this {
    this.begin('T').int16(columns.length);
    for (const c of columns)
      this.cstring(c.name).int32(0).int16(0).int32(c.oid).int16(c.size).int32(c.modifier).int16(c.format);
    return this.end();
  }
  error(e: WireError): this {
    this.begin('E');
    this.byte('S').cstring(e.severity ?? 'ERROR');
    this.byte('V').cstring(e.severity ?? 'ERROR');
    this.byte('C').cstring(e.sqlstate);
    this.byte('M').cstring(e.message);
    if (e.detail) this.byte('D').cstring(e.detail);
    if (e.hint) this.byte('H').cstring(e.hint);
    if (e.position) this.byte('P').cstring(String(e.position));
    return this.byte('\0').end();
  }
  notice(message: string): this {
    return this.begin('N')
      .byte('S')
      .cstring('NOTICE')
      .byte('V')
      .cstring('NOTICE')
      .byte('C')
      .cstring('00000')
      .byte('M')
      .cstring(message)
      .byte('\0')
      .end();
  }
}

export interface WireError {
  readonly sqlstate: string;
  readonly message: string;
  readonly severity?: 'ERROR' | 'FATAL';
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the statement */
  readonly position?: number;
}
