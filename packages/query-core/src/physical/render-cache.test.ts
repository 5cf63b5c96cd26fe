import { describe, expect, it } from 'vitest';
import type { RemoteQuery } from '@junction/connectors';
import { paramsKey, RenderCache, type RenderedRemote } from './render-cache.js';

const entry = (sql: string): RenderedRemote => ({
  query: { select: [], from: { kind: 'table', name: 't' } } as unknown as RemoteQuery,
  rendered: { sql, params: [], columns: [] },
});

describe('render cache', () => {
  it('keys tell every kind of value apart', () => {
    const keys = [[1], [1n], ['1'], [true], [null], ['1;'], ['a', 'b'], ['ab'], [-0], [0], [NaN]].map((p) => paramsKey(p as never));
    expect(new Set(keys).size).toBe(keys.length);
    expect(paramsKey([new Uint8Array([1])])).toBeUndefined();
  });

  it('renders once per node and parameter set, binary parameters every time', () => {
    const cache = new RenderCache();
    const a = {};
    const b = {};
    let made = 0;
    const make = () => entry(`q${++made}`);
    expect(cache.get(a, [1n], make).rendered.sql).toBe('q1');
    expect(cache.get(a, [1n], make).rendered.sql).toBe('q1');
    expect(cache.get(a, [2n], make).rendered.sql).toBe('q2');
    expect(cache.get(b, [1n], make).rendered.sql).toBe('q3');
    expect(cache.get(a, [new Uint8Array([1])], make).rendered.sql).toBe('q4');
    expect(cache.get(a, [new Uint8Array([1])], make).rendered.sql).toBe('q5');
  });

  it('forgets the oldest parameter set of a node past 32', () => {
    const cache = new RenderCache();
    const node = {};
    let made = 0;
    const make = () => entry(`q${++made}`);
    for (let i = 0; i < 33; i++) cache.get(node, [i], make);
    expect(cache.get(node, [32], make).rendered.sql).toBe('q33');
    expect(cache.get(node, [0], make).rendered.sql).toBe('q34');
  });
});
