import { describe, expect, it } from 'vitest';
import type { RemoteQuery, Value } from '@junction/connectors';
import { paramsKey, RenderCache, type RenderedRemote } from './render-cache.js';

const entry = (sql: string): RenderedRemote => ({
  query: { select: [], from: { kind: 'table', name: 't' } } as unknown as RemoteQuery,
  rendered: { sql, params: [], columns: [] },
});

/** A conversion that reads the parameters at `reads`, as toRemoteQuery reads each `$n` of its node. */
function maker(reads: readonly number[]) {
  let made = 0;
  return (params: readonly Value[]): RenderedRemote => {
    const values = reads.map((i) => params[i]);
    return entry(`q${++made} ${JSON.stringify(values, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`);
  };
}

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
    const make = maker([0]);
    expect(cache.get(a, [1n], make).rendered.sql).toBe('q1 ["1n"]');
    expect(cache.get(a, [1n], make).rendered.sql).toBe('q1 ["1n"]');
    expect(cache.get(a, [2n], make).rendered.sql).toBe('q2 ["2n"]');
    expect(cache.get(b, [1n], make).rendered.sql).toBe('q3 ["1n"]');
    expect(cache.get(a, [new Uint8Array([1])], make).rendered.sql).toBe('q4 [{"0":1}]');
    expect(cache.get(a, [new Uint8Array([1])], make).rendered.sql).toBe('q5 [{"0":1}]');
  });

  it('keys a node by the parameters its conversion reads, not the statement\'s others', () => {
    const cache = new RenderCache();
    const none = {};
    const second = {};
    const makeNone = maker([]);
    const makeSecond = maker([1]);
    // a node that reads no parameter: one rendering for every $1, binary ones included
    expect(cache.get(none, [1, 'x'], makeNone).rendered.sql).toBe('q1 []');
    expect(cache.get(none, [2, 'y'], makeNone).rendered.sql).toBe('q1 []');
    expect(cache.get(none, [new Uint8Array([1]), 'y'], makeNone).rendered.sql).toBe('q1 []');
    // a node that reads $2 only: a new $1 is a hit, a new $2 a miss
    expect(cache.get(second, [1, 'x'], makeSecond).rendered.sql).toBe('q1 ["x"]');
    expect(cache.get(second, [2, 'x'], makeSecond).rendered.sql).toBe('q1 ["x"]');
    expect(cache.get(second, [2, 'y'], makeSecond).rendered.sql).toBe('q2 ["y"]');
    expect(cache.get(second, [1, null], makeSecond).rendered.sql).toBe('q3 [null]');
  });

  it('keys by every parameter a conversion ever read, should one read more than the first', () => {
    const cache = new RenderCache();
    const node = {};
    let reads: number[] = [0];
    let made = 0;
    const make = (params: readonly Value[]) => entry(`q${++made} ${reads.map((i) => String(params[i])).join(',')}`);
    expect(cache.get(node, [1, 10], make).rendered.sql).toBe('q1 1');
    reads = [0, 1];
    expect(cache.get(node, [2, 10], make).rendered.sql).toBe('q2 2,10');
    // from now on $2 is part of the key
    expect(cache.get(node, [2, 20], make).rendered.sql).toBe('q3 2,20');
    expect(cache.get(node, [2, 10], make).rendered.sql).toBe('q2 2,10');
  });

  it('does not cache a conversion given too few parameters (it fails, naming the missing one)', () => {
    const cache = new RenderCache();
    const node = {};
    const make = maker([1]);
    cache.get(node, [1, 2], make);
    expect(cache.get(node, [1], make).rendered.sql).toBe('q2 [null]');
  });

  it('forgets the oldest parameter set of a node past 32', () => {
    const cache = new RenderCache();
    const node = {};
    let made = 0;
    const make = (params: readonly Value[]) => entry(`q${++made} ${String(params[0])}`);
    for (let i = 0; i < 33; i++) cache.get(node, [i], make);
    expect(cache.get(node, [32], make).rendered.sql).toBe('q33 32');
    expect(cache.get(node, [0], make).rendered.sql).toBe('q34 0');
  });
});
