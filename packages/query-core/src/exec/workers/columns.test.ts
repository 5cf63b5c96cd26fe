import { describe, expect, it } from 'vitest';
import type { Value } from '@junction/connectors';
import { columnBuffers, decodeColumn, encodeColumn } from './columns.js';

describe('worker columns', () => {
  for (const [name, values, kind] of [
    ['floats with NaN, -0 and NULL', [1.5, NaN, -0, 0, null, -Infinity], 'f64'],
    ['int64 at both ends', [-(2n ** 63n), 0n, null, 2n ** 63n - 1n], 'i64'],
    ['booleans', [true, null, false], 'bool'],
    ['strings, empty and non-ASCII', ['a', '', null, 'ü€😀', 'b  '], 'str'],
    ['only NULLs', [null, null], 'f64'],
    ['bigints past int64', [2n ** 64n, 1n], 'values'],
    ['a lone surrogate', ['ok', '\ud800'], 'values'],
    ['mixed kinds', [1, '1', null], 'values'],
    ['binary', [new Uint8Array([1, 2]), null], 'values'],
  ] as [string, Value[], string][]) {
    it(`${name} come back exactly`, () => {
      const c = encodeColumn(values);
      expect(c.kind).toBe(kind);
      const back = decodeColumn(structuredClone(c, { transfer: columnBuffers(c) }));
      expect(back).toEqual(values);
      back.forEach((v, i) => expect(Object.is(v, values[i]) || typeof v === 'object').toBe(true));
    });
  }
});
