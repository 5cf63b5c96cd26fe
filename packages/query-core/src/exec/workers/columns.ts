import type { Value } from '@junction/connectors';

/**
 * One column of values laid out for a move to a worker thread: typed arrays whose buffers
 * are transferred, not cloned row by row. The layout follows the JS values, not the
 * declared type, so decoding gives back exactly the values encoded (NaN, -0, int64 as
 * bigint, strings code unit for code unit). Values that fit no typed layout (binary,
 * mixed kinds, lone surrogates) travel as a cloned array.
 */
export type Column =
  | { readonly kind: 'f64'; readonly data: Float64Array; readonly nulls?: Uint8Array }
  | { readonly kind: 'i64'; readonly data: BigInt64Array; readonly nulls?: Uint8Array }
  | { readonly kind: 'bool'; readonly data: Uint8Array; readonly nulls?: Uint8Array }
  /** UTF-8 of all strings joined; offsets in UTF-16 code units of the joined text (n + 1 of them) */
  | { readonly kind: 'str'; readonly bytes: Uint8Array; readonly offsets: Int32Array; readonly nulls?: Uint8Array }
  | { readonly kind: 'values'; readonly values: readonly Value[] };

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;
const encoder = new TextEncoder();

export function encodeColumn(values: readonly Value[]): Column {
  const n = values.length;
  let kind: 'null' | 'number' | 'bigint' | 'boolean' | 'string' | 'mixed' = 'null';
  let anyNull = false;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null) {
      anyNull = true;
      continue;
    }
    const t = typeof v;
    if (t === 'number' || t === 'bigint' || t === 'boolean' || t === 'string') {
      if (kind === 'null') kind = t;
      else if (kind !== t) kind = 'mixed';
      if (t === 'bigint' && ((v as bigint) < MIN_I64 || (v as bigint) > MAX_I64)) kind = 'mixed';
    } else kind = 'mixed';
    if (kind === 'mixed') break;
  }
  let nulls: Uint8Array | undefined;
  if (anyNull) {
    nulls = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (values[i] === null) nulls[i] = 1;
  }
  switch (kind) {
    case 'null':
    case 'number': {
      const data = new Float64Array(n);
      for (let i = 0; i < n; i++) if (values[i] !== null) data[i] = values[i] as number;
      return { kind: 'f64', data, nulls };
    }
    case 'bigint': {
      const data = new BigInt64Array(n);
      for (let i = 0; i < n; i++) if (values[i] !== null) data[i] = values[i] as bigint;
      return { kind: 'i64', data, nulls };
    }
    case 'boolean': {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (values[i] === true) data[i] = 1;
      return { kind: 'bool', data, nulls };
    }
    case 'string': {
      const offsets = new Int32Array(n + 1);
      const parts = new Array<string>(n);
      let at = 0;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        const s = v === null ? '' : (v as string);
        parts[i] = s;
        at += s.length;
        offsets[i + 1] = at;
      }
      const text = parts.join('');
      // UTF-8 cannot carry a lone surrogate: such text would come back changed
      if (!(text as unknown as { isWellFormed(): boolean }).isWellFormed()) return { kind: 'values', values };
      return { kind: 'str', bytes: encoder.encode(text), offsets, nulls };
    }
    case 'mixed':
      return { kind: 'values', values };
  }
}

/** The buffers to hand to postMessage's transfer list. */
export function columnBuffers(c: Column): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  switch (c.kind) {
    case 'values':
      return out;
    case 'str':
      out.push(c.bytes.buffer as ArrayBuffer, c.offsets.buffer as ArrayBuffer);
      break;
    default:
      out.push(c.data.buffer as ArrayBuffer);
  }
  if (c.nulls) out.push(c.nulls.buffer as ArrayBuffer);
  return out;
}

/** Bytes a column holds while in flight, for the memory budget. */
export function columnBytes(c: Column): number {
  if (c.kind === 'values') return c.values.length * 24;
  return columnBuffers(c).reduce((n, b) => n + b.byteLength, 0);
}

export function decodeColumn(c: Column): Value[] {
  if (c.kind === 'values') return c.values as Value[];
  const nulls = c.nulls;
  const n = c.kind === 'str' ? c.offsets.length - 1 : c.data.length;
  const out = new Array<Value>(n);
  switch (c.kind) {
    case 'f64':
    case 'i64': {
      const data = c.data;
      for (let i = 0; i < n; i++) out[i] = data[i];
      break;
    }
    case 'bool': {
      const data = c.data;
      for (let i = 0; i < n; i++) out[i] = data[i] === 1;
      break;
    }
    case 'str': {
      const text = Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.byteLength).toString('utf8');
      const offsets = c.offsets;
      for (let i = 0; i < n; i++) out[i] = text.slice(offsets[i], offsets[i + 1]);
      break;
    }
  }
  if (nulls) for (let i = 0; i < n; i++) if (nulls[i] === 1) out[i] = null;
  return out;
}
