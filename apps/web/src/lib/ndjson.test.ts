import { describe, expect, it } from 'vitest';
import { NdjsonDecoder, NdjsonError, readNdjson } from './ndjson.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('NdjsonDecoder', () => {
  it('parses lines split across chunk boundaries', () => {
    const d = new NdjsonDecoder();
    expect(d.push('{"columns":[{"na')).toEqual([]);
    expect(d.push('me":"a","type":"int32"}]}\n[1]\n[')).toEqual([{ columns: [{ name: 'a', type: 'int32' }] }, [1]]);
    expect(d.push('2]')).toEqual([]);
    expect(d.push('\n{"stats":{"rows":2}}\n')).toEqual([[2], { stats: { rows: 2 } }]);
    expect(d.end()).toEqual([]);
  });

  it('keeps a multi-byte UTF-8 character split between two chunks intact', () => {
    const d = new NdjsonDecoder();
    const all = bytes('["Zürich €"]\n');
    // 'ü' is two bytes and '€' three: cut inside each of them
    const cutU = all.indexOf(0xc3) + 1;
    const cutEuro = all.indexOf(0xe2) + 2;
    expect(d.push(all.slice(0, cutU))).toEqual([]);
    expect(d.push(all.slice(cutU, cutEuro))).toEqual([]);
    expect(d.push(all.slice(cutEuro))).toEqual([['Zürich €']]);
  });

  it('returns a final line that has no trailing newline and skips blank lines and CRLF', () => {
    const d = new NdjsonDecoder();
    expect(d.push('[1]\r\n\n\n[2]')).toEqual([[1]]);
    expect(d.end()).toEqual([[2]]);
  });

  it('rejects a line that is not JSON with a readable error', () => {
    const d = new NdjsonDecoder();
    expect(() => d.push('<html>oops</html>\n')).toThrow(NdjsonError);
    expect(() => new NdjsonDecoder().push('{"a":\n')).toThrow('The server sent a line that is not JSON: {"a":');
  });
});

describe('readNdjson', () => {
  it('yields values chunk by chunk from a byte stream', async () => {
    const chunks = ['{"columns":[]}\n[1', ',"x"]\n[2,null]\n', '{"stats":{"rows":2}}'];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(bytes(ch));
        c.close();
      },
    });
    const got: unknown[][] = [];
    for await (const values of readNdjson(body)) got.push(values);
    expect(got).toEqual([
      [{ columns: [] }],
      [
        [1, 'x'],
        [2, null],
      ],
      [{ stats: { rows: 2 } }],
    ]);
  });

  it('a consumer that stops early cancels the stream, so the server stops sending', async () => {
    let cancelled: unknown = 'not cancelled';
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(bytes('[1]\n'));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    for await (const values of readNdjson(body)) {
      expect(values).toEqual([[1]]);
      break;
    }
    expect(cancelled).toBeUndefined();
    expect(body.locked).toBe(false);
  });
});
