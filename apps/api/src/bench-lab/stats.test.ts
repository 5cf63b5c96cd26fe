import { describe, expect, it } from 'vitest';
import { compareAnswers, Digester } from './answer.js';
import { applyOverrides, mapSources, nativeSql, pushdownSql } from './presets.js';
import { streamOrder, weighted } from './params.js';
import { geometricMean, Recorder } from './stats.js';

describe("the lab's statistics", () => {
  it('percentiles of known inputs (microsecond values the histogram holds exactly)', () => {
    const r = new Recorder();
    for (let us = 1; us <= 1000; us++) r.record(us / 1000, 2, 10);
    r.error();
    expect(r.stats()).toEqual({
      executions: 1000,
      errors: 1,
      rows: 2000,
      bytes: 10_000,
      minMs: 0.001,
      meanMs: 0.5,
      p50Ms: 0.5,
      p90Ms: 0.9,
      p95Ms: 0.95,
      p99Ms: 0.99,
      maxMs: 1,
    });
    // percentiles never exceed the largest value (HDR reports a bucket's highest equivalent value)
    const big = new Recorder();
    for (const x of [15.87, 20, 23.19]) big.record(x);
    expect(big.stats().p99Ms).toBe(big.stats().maxMs);
    big.destroy();
    const other = new Recorder();
    other.record(2);
    r.add(other);
    expect(r.stats().executions).toBe(1001);
    expect(r.stats().maxMs).toBe(2);
    r.destroy();
    other.destroy();
  });

  it('an empty recorder reports zeros, and the geometric mean is the stream score', () => {
    expect(new Recorder().stats()).toMatchObject({ executions: 0, p50Ms: 0, maxMs: 0 });
    expect(geometricMean([1, 100])).toBe(10);
    expect(geometricMean([2, 8, 0])).toBe(4);
    expect(geometricMean([])).toBe(0);
  });

  it('answers compare in any order; a difference shows the rows only one side has', () => {
    const a = new Digester();
    const b = new Digester();
    for (const r of [
      [1, 'x'],
      [2, 'y'],
      [2, 'y'],
    ])
      a.add(r);
    for (const r of [
      [2, 'y'],
      [1, 'x'],
      [2, 'y'],
    ])
      b.add(r);
    expect(compareAnswers(a, b).equivalent).toBe(true);
    b.add([3, null]);
    const c = compareAnswers(a, b);
    expect(c.equivalent).toBe(false);
    expect(c.direct!.rows).toBe(3);
    expect(c.federated!.rows).toBe(4);
    expect(c.sample).toEqual({ onlyDirect: [], onlyFederated: ['3 | ∅'] });
  });

  it('maps layout sources, rewrites ODBC escapes and qualifies tables for the pushdown form', () => {
    expect(mapSources('SELECT * FROM dbA.orders, dbB.customer', { dbA: 'pg_orders', dbB: 'my-crm' })).toBe(
      'SELECT * FROM pg_orders.orders, "my-crm".customer',
    );
    expect(nativeSql("WHERE o_orderdate < {ts '1998-01-01 00:00:00'} AND d = {d '1995-03-01'}")).toBe(
      "WHERE o_orderdate < TIMESTAMP '1998-01-01 00:00:00' AND d = DATE '1995-03-01'",
    );
    expect(pushdownSql('SELECT * FROM orders JOIN customer ON 1=1, nation', 'tpch')).toBe(
      'SELECT * FROM tpch.orders JOIN tpch.customer ON 1=1, tpch.nation',
    );
  });

  it('overrides shorten a preset, and streams and weights are reproducible', () => {
    const phases = applyOverrides(
      [
        { type: 'concurrency', query: 'G', users: [1, 2, 5, 10, 20], stepSeconds: 10 },
        { type: 'single', warmups: 1, repetitions: 5, queries: ['A', 'B'] },
      ],
      { maxUsers: 5, stepSeconds: 1, repetitions: 1, queries: ['A', 'G'] },
    );
    expect(phases).toEqual([
      { type: 'concurrency', query: 'G', users: [1, 2, 5], stepSeconds: 1 },
      { type: 'single', warmups: 1, repetitions: 1, queries: ['A'] },
    ]);
    const ids = ['A', 'B', 'C', 'D'];
    expect(streamOrder(ids, 0, 7)).toEqual(ids);
    expect(streamOrder(ids, 1, 7)).toEqual(streamOrder(ids, 1, 7));
    expect([...streamOrder(ids, 1, 7)].sort()).toEqual(ids);
    let n = 0;
    const counts = { a: 0, b: 0 };
    const random = () => ((n = (n + 0.37) % 1), n);
    for (let i = 0; i < 1000; i++)
      counts[
        weighted(
          [
            { id: 'a', weight: 3 },
            { id: 'b', weight: 1 },
          ],
          random,
        ).id as 'a' | 'b'
      ]++;
    expect(counts.a).toBeGreaterThan(700);
    expect(counts.b).toBeGreaterThan(200);
  });
});
