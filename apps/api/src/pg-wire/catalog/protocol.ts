/**
 * The few frontend messages the shadow catalog sends into PGlite, and the cutting of
 * PGlite's reply back into whole backend messages. Both sides speak protocol v3 as bytes so
 * that what reaches the client is exactly what PostgreSQL produced.
 */

const utf8 = new TextEncoder();

class Writer {
  #b = new Uint8Array(256);
  #dv = new DataView(this.#b.buffer);
  #len = 0;

  #room(n: number): void {
    if (this.#len + n <= this.#b.length) return;
    const next = new Uint8Array(Math.max(this.#b.length * 2, this.#len + n));
    next.set(this.#b.subarray(0, this.#len));
    this.#b = next;
    this.#dv = new DataView(next.buffer);
  }
  byte(v: number): this {
    this.#room(1);
    this.#b[this.#len++] = v;
    return this;
  }
  int16(v: number): this {
    this.#room(2);
    this.#dv.setInt16(this.#len, v);
    this.#len += 2;
    return this;
  }
  int32(v: number): this {
    this.#room(4);
    this.#dv.setInt32(this.#len, v);
    this.#len += 4;
    return this;
  }
  bytes(v: Uint8Array): this {
    this.#room(v.length);
    this.#b.set(v, this.#len);
    this.#len += v.length;
    return this;
  }
  cstring(s: string): this {
    return this.bytes(utf8.encode(s)).byte(0);
  }
  /** The message: its type byte, then the length (which counts itself but not the type). */
  message(type: string): Uint8Array {
    const out = new Uint8Array(this.#len + 5);
    const dv = new DataView(out.buffer);
    out[0] = type.charCodeAt(0);
    dv.setInt32(1, this.#len + 4);
    out.set(this.#b.subarray(0, this.#len), 5);
    return out;
  }
}

export function queryMessage(sql: string): Uint8Array {
  return new Writer().cstring(sql).message('Q');
}

export function parseMessage(sql: string, paramTypeOids: readonly number[]): Uint8Array {
  const w = new Writer().cstring('').cstring(sql).int16(paramTypeOids.length);
  // OIDs are unsigned; int32 carries the same 4 bytes
  for (const oid of paramTypeOids) w.int32(oid | 0);
  return w.message('P');
}

/**
 * Bind of the unnamed statement to the unnamed portal. The format lists go through as the
 * client sent them, so PostgreSQL applies (and checks) its own rules: none = all text, one =
 * for every value.
 */
export function bindMessage(
  paramFormats: readonly number[],
  params: readonly (Uint8Array | null)[],
  resultFormats: readonly number[],
): Uint8Array {
  const w = new Writer().cstring('').cstring('').int16(paramFormats.length);
  for (const f of paramFormats) w.int16(f);
  w.int16(params.length);
  for (const p of params) {
    if (p === null) w.int32(-1);
    else w.int32(p.length).bytes(p);
  }
  w.int16(resultFormats.length);
  for (const f of resultFormats) w.int16(f);
  return w.message('B');
}

export function describeMessage(what: 'S' | 'P'): Uint8Array {
  return new Writer().byte(what.charCodeAt(0)).cstring('').message('D');
}

export function executeMessage(): Uint8Array {
  return new Writer().cstring('').int32(0).message('E');
}

export function syncMessage(): Uint8Array {
  return new Writer().message('S');
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One backend message: its type letter and the whole message (type byte and length included). */
export interface BackendMessage {
  readonly type: string;
  readonly bytes: Uint8Array;
}

/** Cuts a reply into its messages; a truncated tail means the reply is not one PostgreSQL finished. */
export function splitMessages(reply: Uint8Array): BackendMessage[] {
  const dv = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
  const out: BackendMessage[] = [];
  let at = 0;
  while (at < reply.length) {
    if (at + 5 > reply.length) throw new Error('the embedded PostgreSQL sent a truncated message');
    const len = dv.getInt32(at + 1);
    const end = at + 1 + len;
    if (len < 4 || end > reply.length) throw new Error('the embedded PostgreSQL sent a truncated message');
    out.push({ type: String.fromCharCode(reply[at]!), bytes: reply.subarray(at, end) });
    at = end;
  }
  return out;
}

/**
 * Groups messages by the ReadyForQuery that ends each exchange: one group per Query message,
 * one per Sync. The ReadyForQuery itself is left out; its status byte is returned beside.
 */
export function exchanges(messages: readonly BackendMessage[]): { messages: BackendMessage[]; status: string }[] {
  const out: { messages: BackendMessage[]; status: string }[] = [];
  let current: BackendMessage[] = [];
  for (const m of messages) {
    if (m.type === 'Z') {
      out.push({ messages: current, status: String.fromCharCode(m.bytes[5]!) });
      current = [];
    } else current.push(m);
  }
  if (current.length > 0) out.push({ messages: current, status: '' });
  return out;
}

/** The fields of an ErrorResponse or NoticeResponse, keyed by their one-letter codes. */
export function noticeFields(m: Uint8Array): Map<string, string> {
  const fields = new Map<string, string>();
  const text = new TextDecoder();
  let at = 5;
  while (at < m.length && m[at] !== 0) {
    const code = String.fromCharCode(m[at]!);
    const end = m.indexOf(0, at + 1);
    if (end < 0) break;
    fields.set(code, text.decode(m.subarray(at + 1, end)));
    at = end + 1;
  }
  return fields;
}

/** The cell values of a DataRow in text format (null for SQL NULL). */
export function dataRowTexts(m: Uint8Array): (string | null)[] {
  const dv = new DataView(m.buffer, m.byteOffset, m.byteLength);
  const n = dv.getInt16(5);
  const out: (string | null)[] = [];
  const text = new TextDecoder();
  let at = 7;
  for (let i = 0; i < n; i++) {
    const len = dv.getInt32(at);
    at += 4;
    if (len < 0) out.push(null);
    else {
      out.push(text.decode(m.subarray(at, at + len)));
      at += len;
    }
  }
  return out;
}
