import { deserialize, serialize } from 'node:v8';

/**
 * The body of one spill chunk: its records written column by column. A chunk is a column
 * of records; a record that is an array (a row, a decorated sort row, a GroupRecord) is a
 * tuple column with one child column per position, a plain object (an accumulator state)
 * a struct column with one child per key. A column whose values share one primitive type
 * is a typed block (integers in 1, 2 or 4 bytes, Float64 and BigInt64 arrays, ASCII or
 * UTF-8 text with lengths, bytes with lengths, bits) plus a NULL bitmap; one whose values
 * mix types is a union (a type tag per value, then a column per type). Only what has no
 * typed form here (Maps, class instances, sparse arrays) falls back to V8's serialisation,
 * for that column alone. Exact for -0, NaN, bigints of any size, lone surrogates, Buffer
 * versus Uint8Array, undefined versus NULL.
 */

const K_NULL = 0;
const K_UNDEFINED = 1;
const K_BOOL = 2;
const K_I32 = 3;
const K_F64 = 4;
const K_I64 = 5;
const K_BIGTEXT = 6;
const K_STRING = 7;
const K_U8 = 8;
const K_BUFFER = 9;
const K_TUPLE = 10;
const K_STRUCT = 11;
const K_UNION = 12;
const K_V8 = 13;
/** only as a class: numbers are I32 or F64 once the whole column is seen */
const C_NUMBER = 14;

const W_U8 = 1;
const W_I16 = 2;
const W_I32 = 4;

const TEXT_LATIN1 = 0;
const TEXT_UTF8 = 1;
const TEXT_UTF16 = 2;

/** Arrays longer than this are not records but values (string_agg parts): kept whole by V8. */
const MAX_TUPLE = 256;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function classOf(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return C_NUMBER;
    case 'string':
      return K_STRING;
    case 'bigint':
      return K_I64;
    case 'boolean':
      return K_BOOL;
    case 'undefined':
      return K_UNDEFINED;
    case 'object': {
      if (v === null) return K_NULL;
      if (Array.isArray(v)) return K_TUPLE;
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto === Object.prototype) return K_STRUCT;
      if (proto === Uint8Array.prototype) return K_U8;
      if (Buffer.isBuffer(v)) return K_BUFFER;
      return K_V8;
    }
    default:
      return K_V8;
  }
}

/**
 * A growing little-endian buffer with typed views over it, so typed blocks are written in
 * place (8-aligned relative to the chunk) rather than built as arrays and copied. One is
 * kept for every chunk encoded: encoding is synchronous, so nothing else uses it meanwhile.
 */
class Writer {
  buf!: Buffer;
  i16!: Int16Array;
  i32!: Int32Array;
  f64!: Float64Array;
  i64!: BigInt64Array;
  pos = 0;
  constructor(size: number) {
    this.use(Buffer.allocUnsafeSlow(size));
  }
  private use(buf: Buffer): void {
    this.buf = buf;
    const ab = buf.buffer as ArrayBuffer;
    this.i16 = new Int16Array(ab, buf.byteOffset, buf.length >> 1);
    this.i32 = new Int32Array(ab, buf.byteOffset, buf.length >> 2);
    this.f64 = new Float64Array(ab, buf.byteOffset, buf.length >> 3);
    this.i64 = new BigInt64Array(ab, buf.byteOffset, buf.length >> 3);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.use(next);
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }
  /** pads to 8 and makes room for n bytes after */
  block(n: number): void {
    const pad = (8 - (this.pos & 7)) & 7;
    this.ensure(pad + n);
    for (let i = 0; i < pad; i++) this.buf[this.pos++] = 0;
  }
  bytes(src: Uint8Array): void {
    this.ensure(src.byteLength);
    this.buf.set(src, this.pos);
    this.pos += src.byteLength;
  }
  /** the first n of a, in the narrowest of 1, 2 or 4 bytes that holds them all (V8's varints would otherwise be smaller) */
  ints(a: Int32Array, n: number): void {
    let min = 0;
    let max = 0;
    for (let i = 0; i < n; i++) {
      const v = a[i];
      if (v < min) min = v;
      else if (v > max) max = v;
    }
    if (min >= 0 && max < 256) {
      this.u8(W_U8);
      this.block(n);
      const buf = this.buf;
      const at = this.pos;
      for (let i = 0; i < n; i++) buf[at + i] = a[i];
      this.pos += n;
    } else if (min >= -32768 && max < 32768) {
      this.u8(W_I16);
      this.block(2 * n);
      const v = this.i16;
      const at = this.pos >> 1;
      for (let i = 0; i < n; i++) v[at + i] = a[i];
      this.pos += 2 * n;
    } else {
      this.u8(W_I32);
      this.block(4 * n);
      const v = this.i32;
      const at = this.pos >> 2;
      for (let i = 0; i < n; i++) v[at + i] = a[i];
      this.pos += 4 * n;
    }
  }
  text(s: string, encoding: BufferEncoding, byteLength: number): void {
    this.ensure(byteLength);
    this.pos += this.buf.write(s, this.pos, byteLength, encoding);
  }
}

/** A chunk's body with typed views over it; blocks are read in place, values copied out. */
class Reader {
  pos = 0;
  readonly buf: Buffer;
  readonly i16: Int16Array;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  readonly i64: BigInt64Array;
  constructor(body: Buffer) {
    // spill files keep bodies 8-aligned; a body that is not (a caller's own buffer) is copied once
    const buf = body.byteOffset % 8 === 0 ? body : Buffer.from(new Uint8Array(body));
    this.buf = buf;
    const ab = buf.buffer as ArrayBuffer;
    this.i16 = new Int16Array(ab, buf.byteOffset, buf.length >> 1);
    this.i32 = new Int32Array(ab, buf.byteOffset, buf.length >> 2);
    this.f64 = new Float64Array(ab, buf.byteOffset, buf.length >> 3);
    this.i64 = new BigInt64Array(ab, buf.byteOffset, buf.length >> 3);
  }
  u8(): number {
    return this.buf[this.pos++];
  }
  u32(): number {
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  /** start of the next block of n values of `width` bytes, in units of width */
  block(n: number, width: number): number {
    this.pos += (8 - (this.pos & 7)) & 7;
    const at = this.pos / width;
    this.pos += n * width;
    return at;
  }
  bytes(n: number): Buffer {
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  /** n integers written by Writer.ints, into `out` (grown as needed; returned) */
  ints(n: number, out: Int32Array = scratch(n)): Int32Array {
    const width = this.u8();
    if (width === W_U8) {
      const at = this.block(n, 1);
      const b = this.buf;
      for (let i = 0; i < n; i++) out[i] = b[at + i];
    } else if (width === W_I16) {
      const at = this.block(n, 2);
      const v = this.i16;
      for (let i = 0; i < n; i++) out[i] = v[at + i];
    } else {
      const at = this.block(n, 4);
      const v = this.i32;
      for (let i = 0; i < n; i++) out[i] = v[at + i];
    }
    return out;
  }
}

let scratchInts = new Int32Array(1024);
/** A shared array of at least n ints, for lengths used before the next call (never across a nested column). */
function scratch(n: number): Int32Array {
  if (scratchInts.length < n) scratchInts = new Int32Array(Math.max(n, scratchInts.length * 2));
  return scratchInts;
}

/** Above this, the shared writer is dropped after use rather than kept for the next chunk. */
const KEEP_WRITER = 4 * 1024 * 1024;
let shared: Writer | undefined;

/**
 * The chunk's body in a buffer of its own, after `head` bytes left for the caller's header
 * (a multiple of 8, so the body's blocks stay aligned) and padded to a multiple of 8.
 */
export function encodeChunk(records: readonly unknown[], head = 0): Buffer {
  const w = shared ?? new Writer(64 * 1024);
  shared = undefined;
  w.pos = 0;
  try {
    w.ensure(head);
    w.pos = head;
    w.u32(records.length);
    writeColumn(w, records);
    w.block(0);
    const out = Buffer.allocUnsafeSlow(w.pos);
    w.buf.copy(out, 0, 0, w.pos);
    return out;
  } finally {
    if (w.buf.length <= KEEP_WRITER) shared = w;
  }
}

export function decodeChunk<T>(body: Buffer): T[] {
  const r = new Reader(body);
  const n = r.u32();
  return readColumn(r, n) as T[];
}

function writeColumn(w: Writer, values: readonly unknown[]): void {
  const n = values.length;
  let kind = -1;
  let mixed = false;
  let nulls = 0;
  let allInt = true;
  let allI64 = true;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const c = classOf(v);
    if (c === K_NULL) {
      nulls++;
      continue;
    }
    if (kind === -1) kind = c;
    else if (c !== kind) mixed = true;
    if (c === C_NUMBER) {
      if (allInt && (((v as number) | 0) !== v || Object.is(v, -0))) allInt = false;
    } else if (c === K_I64 && allI64 && ((v as bigint) < I64_MIN || (v as bigint) > I64_MAX)) allI64 = false;
  }
  if (mixed) return writeUnion(w, values);
  if (kind === -1) return w.u8(K_NULL);
  if (kind === K_UNDEFINED) {
    if (nulls > 0) return writeUnion(w, values);
    return w.u8(K_UNDEFINED);
  }
  if (kind === K_V8) return writeV8(w, values);
  const present = nulls === 0 ? values : values.filter((v) => v !== null);
  if (kind === K_TUPLE && !tupleable(present as unknown[][])) return writeV8(w, values);
  if (kind === K_STRUCT && !sameShape(present as Record<string, unknown>[])) return writeV8(w, values);
  const k = kind === C_NUMBER ? (allInt ? K_I32 : K_F64) : kind === K_I64 && !allI64 ? K_BIGTEXT : kind;
  w.u8(k);
  if (nulls === 0) w.u8(0);
  else {
    w.u8(1);
    writeBits(w, n, (i) => values[i] === null);
  }
  writeDense(w, k, present);
}

/** Values of one kind, no NULLs among them. */
function writeDense(w: Writer, kind: number, values: readonly unknown[]): void {
  const n = values.length;
  switch (kind) {
    case K_BOOL:
      return writeBits(w, n, (i) => values[i] === true);
    case K_I32: {
      const a = scratch(n);
      for (let i = 0; i < n; i++) a[i] = values[i] as number;
      return w.ints(a, n);
    }
    case K_F64: {
      w.block(8 * n);
      const v = w.f64;
      const at = w.pos >> 3;
      for (let i = 0; i < n; i++) v[at + i] = values[i] as number;
      w.pos += 8 * n;
      return;
    }
    case K_I64: {
      w.block(8 * n);
      const v = w.i64;
      const at = w.pos >> 3;
      for (let i = 0; i < n; i++) v[at + i] = values[i] as bigint;
      w.pos += 8 * n;
      return;
    }
    case K_BIGTEXT:
      return writeStrings(w, (values as bigint[]).map(String));
    case K_STRING:
      return writeStrings(w, values as string[]);
    case K_U8:
    case K_BUFFER: {
      const lens = scratch(n);
      let total = 0;
      for (let i = 0; i < n; i++) total += lens[i] = (values[i] as Uint8Array).byteLength;
      w.ints(lens, n);
      w.ensure(total);
      for (let i = 0; i < n; i++) w.bytes(values[i] as Uint8Array);
      return;
    }
    case K_TUPLE: {
      const arrays = values as unknown[][];
      const lens = new Int32Array(n);
      let max = 0;
      let same = true;
      for (let i = 0; i < n; i++) {
        const l = (lens[i] = arrays[i].length);
        if (l > max) max = l;
        if (l !== lens[0]) same = false;
      }
      w.u32(max);
      w.u8(same ? 1 : 0);
      if (!same) w.ints(lens, n);
      const col: unknown[] = new Array(n);
      for (let p = 0; p < max; p++) {
        let m = 0;
        for (let i = 0; i < n; i++) if (lens[i] > p) col[m++] = arrays[i][p];
        col.length = m;
        writeColumn(w, col);
      }
      return;
    }
    case K_STRUCT: {
      const objects = values as Record<string, unknown>[];
      const keys = Object.keys(objects[0]);
      w.u32(keys.length);
      writeStrings(w, keys);
      const col: unknown[] = new Array(n);
      for (const key of keys) {
        for (let i = 0; i < n; i++) col[i] = objects[i][key];
        writeColumn(w, col);
      }
      return;
    }
  }
  throw new Error(`spill codec: no dense form for kind ${kind}`);
}

/** Dense arrays of at most MAX_TUPLE elements: holes would come back as undefined. */
function tupleable(arrays: readonly unknown[][]): boolean {
  for (const a of arrays) {
    if (a.length > MAX_TUPLE) return false;
    if (Object.getPrototypeOf(a) !== Array.prototype) return false;
    for (let i = 0; i < a.length; i++) if (a[i] === undefined && !(i in a)) return false;
  }
  return true;
}

/** Plain objects with the same keys in the same order, none of them a getter or array index. */
function sameShape(objects: readonly Record<string, unknown>[]): boolean {
  const keys = Object.keys(objects[0]);
  if (keys.length > MAX_TUPLE) return false;
  for (const k of keys) if (String(Number(k) >>> 0) === k || k === '__proto__') return false;
  for (const o of objects) {
    const ks = Object.keys(o);
    if (ks.length !== keys.length) return false;
    for (let i = 0; i < ks.length; i++) if (ks[i] !== keys[i]) return false;
  }
  for (const k of keys) {
    const d = Object.getOwnPropertyDescriptor(objects[0], k);
    if (!d || !('value' in d)) return false;
  }
  return true;
}

function writeBits(w: Writer, n: number, set: (i: number) => boolean): void {
  const len = (n + 7) >> 3;
  w.ensure(len);
  const buf = w.buf;
  const at = w.pos;
  buf.fill(0, at, at + len);
  for (let i = 0; i < n; i++) if (set(i)) buf[at + (i >> 3)] |= 1 << (i & 7);
  w.pos += len;
}

function writeUnion(w: Writer, values: readonly unknown[]): void {
  const n = values.length;
  const tags = new Uint8Array(n);
  const groups = new Map<number, unknown[]>();
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const c = classOf(v);
    tags[i] = c;
    if (c === K_NULL || c === K_UNDEFINED) continue;
    let g = groups.get(c);
    if (!g) groups.set(c, (g = []));
    g.push(v);
  }
  w.u8(K_UNION);
  w.bytes(tags);
  // each class's values as a column of their own (numbers choose I32 or F64 there)
  for (const c of [...groups.keys()].sort((a, b) => a - b)) writeColumn(w, groups.get(c)!);
}

function writeV8(w: Writer, values: readonly unknown[]): void {
  const blob = serialize(values);
  w.u8(K_V8);
  w.u32(blob.length);
  w.bytes(blob);
}

/**
 * Strings as their byte lengths plus one text: Latin-1 when all are ASCII (one copy each
 * way), UTF-8 when every string is well formed, else UTF-16 so lone surrogates come back
 * as they were. Read back one string at a time: a slice of one big string would keep the
 * whole chunk's text alive as long as any of its values is held.
 */
function writeStrings(w: Writer, strings: readonly string[]): void {
  const n = strings.length;
  const lens = scratch(n);
  let units = 0;
  for (let i = 0; i < n; i++) units += lens[i] = strings[i].length;
  const joined = strings.join('');
  // the lengths go before the text, and take at most 4 bytes each: the text is encoded past that room, moved back after
  const start = w.pos;
  const room = 1 + 1 + 8 + 4 * n;
  w.ensure(room + 3 * units);
  const { written } = encoder.encodeInto(joined, w.buf.subarray(start + room));
  let enc: number;
  if (written === units) enc = TEXT_LATIN1;
  else if (strings.every(isWellFormed)) {
    enc = TEXT_UTF8;
    for (let i = 0; i < n; i++) lens[i] = Buffer.byteLength(strings[i], 'utf8');
  } else enc = TEXT_UTF16;
  w.u8(enc);
  if (enc === TEXT_UTF16) for (let i = 0; i < n; i++) lens[i] *= 2;
  w.ints(lens, n);
  if (enc === TEXT_UTF16) return w.text(joined, 'utf16le', units * 2);
  w.buf.copyWithin(w.pos, start + room, start + room + written);
  w.pos += written;
}

/**
 * Below this length V8 copies a substring; from it on, it makes a slice that keeps the whole
 * text alive (SlicedString::kMinLength). Longer strings are decoded one by one instead.
 */
const SLICE_MIN = 13;

function readStrings(r: Reader, n: number): string[] {
  const enc = r.u8();
  const lens = r.ints(n);
  const buf = r.buf as SlicingBuffer;
  let at = r.pos;
  const out: string[] = new Array(n);
  if (enc === TEXT_LATIN1) {
    // ASCII: one byte per UTF-16 unit; short strings are cut from one decoded text (no call into C++ per value)
    let total = 0;
    for (let i = 0; i < n; i++) total += lens[i];
    const text = buf.latin1Slice(at, at + total);
    let c = 0;
    for (let i = 0; i < n; i++) {
      const len = lens[i];
      out[i] = len < SLICE_MIN ? text.substring(c, c + len) : buf.latin1Slice(at + c, at + c + len);
      c += len;
    }
    at += total;
  } else if (enc === TEXT_UTF8) {
    for (let i = 0; i < n; i++) out[i] = buf.utf8Slice(at, (at += lens[i]));
  } else {
    for (let i = 0; i < n; i++) out[i] = buf.ucs2Slice(at, (at += lens[i]));
  }
  r.pos = at;
  return out;
}

/** Node's own decoders, without toString's checks of encoding and range on every string. */
interface SlicingBuffer extends Buffer {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
  ucs2Slice(start: number, end: number): string;
}

const encoder = new TextEncoder();

const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

type Maker = (cols: readonly unknown[][], i: number) => unknown;
const tupleMakers: Maker[] = [];
const structMakers = new Map<string, Maker>();

/** Row i of a column set as one array literal: packed, exactly sized, no per-element stores. */
function tupleMaker(arity: number): Maker {
  let m = tupleMakers[arity];
  if (!m) {
    const items = Array.from({ length: arity }, (_, p) => `c[${p}][i]`).join(',');
    m = tupleMakers[arity] = new Function('c', 'i', `return [${items}];`) as Maker;
  }
  return m;
}

/** The same for accumulator states: one object literal, so they all share one hidden class. */
function structMaker(keys: readonly string[]): Maker {
  const id = JSON.stringify(keys);
  let m = structMakers.get(id);
  if (!m) {
    const items = keys.map((k, p) => `${JSON.stringify(k)}:c[${p}][i]`).join(',');
    m = new Function('c', 'i', `return {${items}};`) as Maker;
    structMakers.set(id, m);
  }
  return m;
}

function build(n: number, cols: readonly unknown[][], make: Maker): unknown[] {
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = make(cols, i);
  return out;
}

function readColumn(r: Reader, n: number): unknown[] {
  const kind = r.u8();
  switch (kind) {
    case K_NULL:
      return new Array<unknown>(n).fill(null);
    case K_UNDEFINED:
      return new Array<unknown>(n).fill(undefined);
    case K_UNION:
      return readUnion(r, n);
    case K_V8: {
      const len = r.u32();
      // a copy: V8 gives typed arrays as views of the buffer it reads, which the next read reuses
      return deserialize(Buffer.from(r.bytes(len))) as unknown[];
    }
  }
  const hasNulls = r.u8() === 1;
  if (!hasNulls) return readDense(r, kind, n);
  const bits = r.bytes((n + 7) >> 3);
  let m = 0;
  for (let i = 0; i < n; i++) if (!(bits[i >> 3] & (1 << (i & 7)))) m++;
  const dense = readDense(r, kind, m);
  const out: unknown[] = new Array(n);
  let j = 0;
  for (let i = 0; i < n; i++) out[i] = bits[i >> 3] & (1 << (i & 7)) ? null : dense[j++];
  return out;
}

function readDense(r: Reader, kind: number, n: number): unknown[] {
  switch (kind) {
    case K_BOOL: {
      const bits = r.bytes((n + 7) >> 3);
      const out: boolean[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = (bits[i >> 3] & (1 << (i & 7))) !== 0;
      return out;
    }
    case K_I32:
      return toArray(r.ints(n), 0, n);
    case K_F64:
      return toArray(r.f64, r.block(n, 8), n);
    case K_I64:
      return toArray(r.i64, r.block(n, 8), n);
    case K_BIGTEXT:
      return readStrings(r, n).map(BigInt);
    case K_STRING:
      return readStrings(r, n);
    case K_U8:
    case K_BUFFER: {
      const lens = r.ints(n);
      const out: Uint8Array[] = new Array(n);
      for (let i = 0; i < n; i++) {
        // a copy: a view would keep the whole read block alive
        const b = r.bytes(lens[i]);
        out[i] = kind === K_BUFFER ? Buffer.from(b) : new Uint8Array(b);
      }
      return out;
    }
    case K_TUPLE: {
      const max = r.u32();
      const same = r.u8() === 1;
      const lens = same ? undefined : r.ints(n, new Int32Array(n));
      if (same) {
        const cols: unknown[][] = [];
        for (let p = 0; p < max; p++) cols.push(readColumn(r, n));
        return build(n, cols, tupleMaker(max));
      }
      const out: unknown[][] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = new Array(lens![i]);
      for (let p = 0; p < max; p++) {
        let m = 0;
        for (let i = 0; i < n; i++) if (lens![i] > p) m++;
        const col = readColumn(r, m);
        let j = 0;
        for (let i = 0; i < n; i++) if (lens![i] > p) out[i][p] = col[j++];
      }
      return out;
    }
    case K_STRUCT: {
      const keys = readStrings(r, r.u32());
      const cols = keys.map(() => readColumn(r, n));
      return build(n, cols, structMaker(keys));
    }
  }
  throw new Error(`spill codec: unknown column kind ${kind}`);
}

function toArray(a: Int32Array | Float64Array | BigInt64Array, at: number, n: number): unknown[] {
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = a[at + i];
  return out;
}

function readUnion(r: Reader, n: number): unknown[] {
  const tags = r.bytes(n);
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const t = tags[i];
    if (t !== K_NULL && t !== K_UNDEFINED) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const cols = new Map<number, unknown[]>();
  for (const c of [...counts.keys()].sort((a, b) => a - b)) cols.set(c, readColumn(r, counts.get(c)!));
  const at = new Map<number, number>();
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = tags[i];
    if (t === K_NULL) out[i] = null;
    else if (t === K_UNDEFINED) out[i] = undefined;
    else {
      const j = at.get(t) ?? 0;
      out[i] = cols.get(t)![j];
      at.set(t, j + 1);
    }
  }
  return out;
}
