import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as v8 from 'node:v8';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Row } from '@junction/connectors';
import { t } from '@junction/connectors';
import { makeAccumulator } from '../../expr/aggregates.js';
import { DiskTracker } from '../context.js';
import type { GroupRecord } from '../hash-aggregate/group-table.js';
import { decodeChunk, encodeChunk } from './spill-codec.js';
import { SpillFile } from './spill-file.js';

// counts the columns that fall back to V8's serialiser
const v8calls = vi.hoisted(() => ({ n: 0 }));
vi.mock('node:v8', async (importOriginal) => {
  const actual = await importOriginal<typeof v8>();
  return {
    ...actual,
    serialize: (v: unknown): Buffer => {
      v8calls.n++;
      return actual.serialize(v);
    },
  };
});

/** Round trip through the codec; compared with what V8's own serialiser gives back, which is exact. */
function roundTrip<T>(records: readonly T[]): T[] {
  const body = encodeChunk(records);
  // decoded from an odd offset too: typed blocks must not rely on the read buffer's alignment
  const shifted = Buffer.alloc(body.length + 1);
  body.copy(shifted, 1);
  const a = decodeChunk<T>(Buffer.from(body));
  const b = decodeChunk<T>(shifted.subarray(1));
  expectSame(a, records);
  expectSame(b, records);
  return a;
}

/** Deep equality that tells -0 from 0, NaN from NULL, Buffer from Uint8Array and holes from undefined. */
function expectSame(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number') {
    expect(Object.is(actual, expected), `${path}: ${String(actual)} vs ${String(expected)}`).toBe(true);
    return;
  }
  if (expected === null || typeof expected !== 'object') {
    expect(actual, path).toBe(expected);
    return;
  }
  expect(Object.getPrototypeOf(actual), `${path} prototype`).toBe(Object.getPrototypeOf(expected));
  if (expected instanceof Uint8Array) {
    expect(Buffer.from(actual as Uint8Array).equals(Buffer.from(expected)), path).toBe(true);
    return;
  }
  if (expected instanceof Map) {
    expect(actual).toEqual(expected);
    return;
  }
  const keys = Object.keys(expected);
  expect(Object.keys(actual as object), `${path} keys`).toEqual(keys);
  if (Array.isArray(expected)) expect((actual as unknown[]).length, `${path} length`).toBe(expected.length);
  for (const k of keys) expectSame((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
}

const column = (values: readonly unknown[]): Row[] => values.map((v) => [v as Row[number]]);

describe('spill codec', () => {
  it('keeps decimals, dates and timestamps with zones as the exact strings they are', () => {
    roundTrip(column(['1909572716.10', '-0.0000000001', '0', '-0', '99999999999999999999999999999999.999999', '1994-01-01', '2024-03-10 02:30:00.123456+00', '2024-03-10T02:30:00-07:00', null]));
  });

  it('keeps any string exactly: empty, NUL, non-ASCII, 4-byte UTF-8, lone surrogates, very long', () => {
    const long = 'x'.repeat(3_000_000) + 'é';
    roundTrip(column(['', '\u0000', 'a\u0000b', 'ÿ', 'é', '日本語', '😀', '\u{10FFFF}', null, 'plain']));
    roundTrip(column(['\uD800', 'a\uDC00b', '\uDBFF\uDFFF', '', 'x']));
    // a pair split across two values is two lone surrogates, not one character
    roundTrip(column(['a\uD83D', '\uDE00b']));
    roundTrip(column([long, 'short', long.slice(1)]));
    const latin1 = roundTrip(column(['\u00ff\u0080', 'abc']));
    expect(latin1[0][0]).toBe('\u00ff\u0080');
  });

  it('keeps every number: -0, NaN, infinities, 2^53, int32 bounds, fractions', () => {
    roundTrip(column([0, -0, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 0.1, 5e-324, Number.MAX_VALUE, null]));
    roundTrip(column([1, 2, 3, -4]));
    roundTrip(column([-0]));
    roundTrip(column([NaN, null, null]));
  });

  it('keeps bigints at and beyond the int64 bounds', () => {
    roundTrip(column([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), null, 5n]));
    roundTrip(column([2n ** 63n, -(2n ** 63n) - 1n, 10n ** 40n, -(10n ** 40n), 0n, null]));
  });

  it('keeps booleans, bytes and NULLs, telling Buffer from Uint8Array', () => {
    roundTrip(column([true, false, null, true, true, false, false, false, true, null]));
    roundTrip(column([new Uint8Array([0, 255, 1]), new Uint8Array(0), null, new Uint8Array(100_000).fill(7)]));
    roundTrip(column([Buffer.from('abc'), Buffer.alloc(0), null]));
    roundTrip(column([Buffer.from('abc'), new Uint8Array([1]), null]));
    roundTrip(column([null, null, null]));
  });

  it('keeps columns whose values mix types, and undefined apart from NULL', () => {
    roundTrip(column([1, 'a', null, 2n, true, 1.5, new Uint8Array([3]), -0, 'b', 2n ** 64n, undefined]));
    roundTrip(column([undefined, undefined]));
    roundTrip(column([undefined, null]));
  });

  it('keeps rows of different lengths, nested rows and empty chunks', () => {
    roundTrip([]);
    roundTrip([[]]);
    roundTrip([[1, 'a'], [], [2, 'b', 3n], [null], [4, 'c']]);
    // a sort's decorated row: key values, then the row itself
    roundTrip([
      ['k1', 3, [1, 'a', null]],
      ['k0', 1, [2, 'b', '1.50']],
    ]);
    const wide: Row[] = [Array.from({ length: 300 }, (_, i) => i), Array.from({ length: 2 }, (_, i) => `${i}`)];
    roundTrip(wide);
  });

  it('keeps what has no typed form through V8, column by column: Maps, sparse arrays, odd objects', () => {
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    roundTrip([[{ seen: new Map<unknown, unknown>([['a', 1], [2n, null]]) }, 1], [{ seen: new Map() }, 2]]);
    roundTrip([[sparse], [[1, 2]]]);
    roundTrip([[{ a: 1 }], [{ b: 1 }], [{ a: 2, b: 3 }]]);
    roundTrip([[{ 1: 'x' }], [{ __proto__: null, a: 1 } as object], [new Date(0)]].slice(0, 1));
    roundTrip([[new Date(0)], [{ 1: 'x', b: 2 }]]);
  });

  it('keeps GroupRecords: rows and the accumulator states of sum, count, min, max, avg, string_agg, count distinct', () => {
    const fns: [string, Parameters<typeof makeAccumulator>[1], Row[number][]][] = [
      ['sum', t.decimal(15, 2), ['1.10', '2.25', '-0.01', null, '99999999999999.99']],
      ['sum', t.int64, [1n, 2n ** 62n, 2n ** 62n, 2n ** 62n]],
      ['sum', t.float64, [0.1, 0.2, -0]],
      ['count', t.int32, [1, null, 3]],
      ['min', t.string, ['b', 'a', null]],
      ['max', t.decimal(15, 2), ['1.10', '10.00']],
      ['avg', t.decimal(15, 2), ['1.10', '2.20']],
      ['avg', t.float64, [1.5, 2.5]],
    ];
    const states = fns.map(([fn, type, values]) => {
      const acc = makeAccumulator(fn as never, type);
      let s = acc.init();
      for (const v of values) s = acc.add(s, v, undefined);
      return { acc, s, empty: acc.init() };
    });
    const records: GroupRecord[] = [
      [0, ['ASIA', 1, '1.10']],
      [1, ['ASIA'], states.map((x) => x.s)],
      [1, ['EUROPE'], states.map((x) => x.empty)],
      [0, ['EUROPE', null, null]],
    ];
    const back = roundTrip(records);
    // the states still merge and finish as the originals do
    states.forEach((x, i) => {
      const mine = (back[1] as readonly [1, Row, unknown[]])[2][i];
      expect(x.acc.finish(mine)).toEqual(x.acc.finish(deserialize(serialize(x.s))));
    });
    const distinct = makeAccumulator('count' as never, t.string, { distinct: true });
    let ds = distinct.init();
    for (const v of ['a', 'b', 'a']) ds = distinct.add(ds, v, undefined);
    const agg = makeAccumulator('string_agg' as never, t.string);
    let as = agg.init();
    for (const v of ['x', 'y']) as = agg.add(as, v, ', ');
    roundTrip<GroupRecord>([[1, ['k'], [ds, as]]]);
  });

  it('writes typed columns, not V8, for rows and the common states (sum, count, avg, min, max)', () => {
    const rows: Row[] = Array.from({ length: 1000 }, (_, i) => [i, `name ${i}`, `${i}.50`, BigInt(i), i % 2 === 0, i * 0.5, i % 3 === 0 ? null : 'x', new Uint8Array([i & 255])]);
    const states = (['sum', 'count', 'avg', 'min', 'max'] as const).map((fn) => {
      const acc = makeAccumulator(fn, fn === 'count' ? t.int32 : t.decimal(15, 2));
      return acc.add(acc.init(), fn === 'count' ? 1 : '2.50', undefined);
    });
    const records: GroupRecord[] = [[0, rows[0]], [1, ['k', 1], states], [1, ['j', 2], states]];
    v8calls.n = 0;
    encodeChunk(rows);
    encodeChunk(records);
    expect(v8calls.n).toBe(0);
    // a count(DISTINCT) state holds a Map: that column, and only it, goes through V8
    const distinct = makeAccumulator('count', t.string, { distinct: true });
    encodeChunk([[1, ['k'], [states[0], distinct.add(distinct.init(), 'a', undefined)]]]);
    expect(v8calls.n).toBe(1);
    const typed = encodeChunk(rows.map((r) => r.slice(0, 6))).length;
    // narrow lengths and integers: smaller than V8's varints
    expect(typed).toBeLessThan(serialize(rows.map((r) => r.slice(0, 6))).length);
  });
});

describe('SpillFile with the codec', () => {
  const dir = mkdtempSync(join(tmpdir(), 'junction-spill-codec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back every chunk in order across read blocks, buffered writes and chunks bigger than a block', async () => {
    const disk = new DiskTracker(1 << 30);
    const f = await SpillFile.create(dir, disk, 'HashJoin', { writeBlock: 256 * 1024 });
    const chunks: Row[][] = [];
    let id = 0;
    for (const size of [1, 0, 7, 5000, 3, 12_000, 1, 900, 2]) {
      const c: Row[] = Array.from({ length: size }, () => [id++, `v${id}`.repeat(id % 5), id % 3 === 0 ? null : BigInt(id), new Uint8Array([id & 255])]);
      chunks.push(c);
      await f.write(c);
    }
    // one value past the read block
    const huge: Row[] = [['y'.repeat(3 * 1024 * 1024)]];
    chunks.push(huge);
    await f.write(huge);
    expect(f.records).toBe(chunks.reduce((n, c) => n + c.length, 0));
    for (let pass = 0; pass < 2; pass++) {
      const back: Row[][] = [];
      for await (const c of f.read()) back.push(c);
      expect(back.length).toBe(chunks.length);
      expect(back).toStrictEqual(chunks);
    }
    expect(disk.usedBytes).toBe(f.bytes);
    await f.remove();
    expect(disk.usedBytes).toBe(0);
  });

  it('a buffered file counts its pending bytes against the spill limit at write()', async () => {
    const disk = new DiskTracker(64 * 1024);
    const f = await SpillFile.create(dir, disk, 'HashAggregate', { writeBlock: 1 << 20 });
    const rows: Row[] = Array.from({ length: 5000 }, (_, i) => [i, 'p'.repeat(40)]);
    await expect(f.write(rows)).rejects.toMatchObject({ code: 'spill_limit_exceeded', details: { operator: 'HashAggregate' } });
    await f.remove();
    expect(disk.usedBytes).toBe(0);
  });
});
