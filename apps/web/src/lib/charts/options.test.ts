import { describe, expect, it } from 'vitest';
import type { LatencyStats, RunResults } from '../bench-api.js';
import {
  coldWarmChart,
  compareChart,
  geomeanChart,
  logAxisMin,
  percentilesOverTime,
  perQueryBars,
  resourcesChart,
  usersChart,
} from './options.js';

const s = (p50Ms: number): LatencyStats => ({
  executions: 2,
  errors: 0,
  rows: 10,
  bytes: 100,
  minMs: p50Ms,
  meanMs: p50Ms,
  p50Ms,
  p90Ms: p50Ms,
  p95Ms: p50Ms,
  p99Ms: p50Ms,
  maxMs: p50Ms,
});

const results: RunResults = {
  queries: [
    {
      query: 'A',
      phase: 'alone',
      phaseIndex: 0,
      type: 'single',
      direct: s(1),
      pushdown: null,
      federated: s(3),
      equivalent: true,
      failed: false,
    },
    {
      query: 'B',
      phase: 'alone',
      phaseIndex: 0,
      type: 'single',
      direct: s(2),
      pushdown: null,
      federated: s(0),
      equivalent: false,
      failed: true,
    },
  ],
  steps: [
    { phase: 'G', phaseIndex: 1, query: 'G', mode: 'federated', users: 2, seconds: 1, throughput: 20, stats: s(5) },
    { phase: 'G', phaseIndex: 1, query: 'G', mode: 'federated', users: 1, seconds: 1, throughput: 12, stats: s(4) },
  ],
};

describe('benchmark chart options', () => {
  it('per-query bars: one series per mode present, a wrong answer named on its bar, log scale on request', () => {
    const o = perQueryBars(results, 0, true) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(o.xAxis.data).toEqual(['A', 'B ✗ wrong answer']);
    expect(o.yAxis.type).toBe('log');
    expect(o.series.map((x: { name: string }) => x.name)).toEqual(['Direct (native driver)', 'Junction, federated']);
    expect(o.series[1].data).toEqual([3, 0.001]);
    expect((perQueryBars(results, 0, false) as Record<string, any>).yAxis.type).toBe('value'); // eslint-disable-line @typescript-eslint/no-explicit-any
  });

  it('per-query bars: Trino is a column of its own, after Junction, and a wrong answer there is named', () => {
    const withTrino = {
      ...results,
      queries: [
        { ...results.queries![0], trino: s(2), trinoEquivalent: true },
        { ...results.queries![1], equivalent: true, trino: s(7), trinoEquivalent: false },
      ],
    };
    const o = perQueryBars(withTrino, 0, false) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(o.xAxis.data).toEqual(['A', 'B ✗ wrong on Trino']);
    expect(o.series.map((x: { name: string }) => x.name)).toEqual([
      'Direct (native driver)',
      'Junction, federated',
      'Through Trino',
    ]);
    expect(o.series[2].data).toEqual([2, 7]);
  });

  it('users chart: levels in order, throughput bars and p95 lines', () => {
    const o = usersChart(results, 1) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(o.xAxis.data).toEqual(['1', '2']);
    expect(o.series[0].data).toEqual([12, 20]);
    expect(o.series[1].data).toEqual([4, 5]);
  });

  it('compare chart: differences in percent, slower in red', () => {
    const o = compareChart({
      a: { id: 'a', name: 'one', status: 'done', createdAt: '' },
      b: { id: 'b', name: 'two', status: 'done', createdAt: '' },
      queries: [
        {
          phase: 'p',
          query: 'A',
          mode: 'direct',
          a: s(1),
          b: s(2),
          p50DiffPct: 100,
          p95DiffPct: 100,
          equivalentA: true,
          equivalentB: true,
        },
        {
          phase: 'p',
          query: 'B',
          mode: 'direct',
          a: s(2),
          b: s(1),
          p50DiffPct: -50,
          p95DiffPct: -50,
          equivalentA: true,
          equivalentB: true,
        },
      ],
      geomean: { a: null, b: null, diffPct: null },
    }) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(o.series[0].data.map((d: { value: number }) => d.value)).toEqual([100, -50]);
    expect(o.series[0].data[0].itemStyle.color).toBe('#b42318');
  });

  it('resources: I/O wait drawn when the server sampled it, left out for runs stored before it was', () => {
    const sample = {
      t: 1,
      cpuPct: 50,
      rssMb: 100,
      eventLoopMeanMs: 1,
      eventLoopMaxMs: 2,
      machineBusyPct: 60,
      load1: 1,
      sources: {},
    };
    const names = (r: RunResults) =>
      ((resourcesChart(r) as Record<string, any>).series as { name: string; data: unknown[] }[]).map((x) => x.name); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(names({ ...results, samples: [{ ...sample, ioWaitPct: 3.5 }] })).toContain('machine I/O wait %');
    expect(names({ ...results, samples: [sample] })).not.toContain('machine I/O wait %');
  });

  it('log axes start below the smallest value: sub-millisecond bars rise from the axis instead of hanging down', () => {
    expect(logAxisMin([0.3, 0.05, 2])).toBe(0.01);
    expect(logAxisMin([12, 140])).toBe(10);
    expect(logAxisMin([1])).toBe(1);
    expect(logAxisMin([0, null])).toBe(1);
    const fast: RunResults = {
      queries: [
        { ...results.queries![0], direct: s(0.04), federated: s(0.3) },
        { ...results.queries![1], direct: s(2), federated: s(0.6) },
      ],
    };
    const o = perQueryBars(fast, 0, true) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(o.yAxis).toMatchObject({ min: 0.01, startValue: 0.01 });
    for (const x of o.series) for (const v of x.data) expect(v).toBeGreaterThan(o.yAxis.min);
    expect((perQueryBars(fast, 0, false) as Record<string, any>).yAxis.min).toBeUndefined(); // eslint-disable-line @typescript-eslint/no-explicit-any
    const g = geomeanChart({
      streams: [
        {
          phase: 'p',
          phaseIndex: 0,
          mode: 'federated',
          users: 2,
          geomeanMs: 0.4,
          perQueryGeomeanMs: { A: 0.2, B: 0.8 },
          orders: [],
        },
      ],
    }) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(g.yAxis.min).toBe(0.1);
  });

  it('percentiles over time: a line per step (no line across a step boundary), a marker at each step, whole-second start', () => {
    const iv = (step: string, t: number, p50Ms: number) => ({
      phase: 'H',
      phaseIndex: 1,
      step,
      t,
      seconds: 1,
      executions: 10,
      errors: 0,
      throughput: 10,
      p50Ms,
      p90Ms: p50Ms,
      p95Ms: p50Ms,
      p99Ms: p50Ms,
      maxMs: p50Ms,
    });
    const o = percentilesOverTime(
      { intervals: [iv('× 1', 3.37, 1), iv('× 1', 4.37, 1), iv('× 2', 5.4, 2), iv('× 2', 6.4, 2)] },
      1,
    ) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const p50 = o.series[0];
    // a gap between the steps breaks the line
    expect(p50.data).toEqual([
      [3.37, 1],
      [4.37, 1],
      [4.4, null],
      [5.4, 2],
      [6.4, 2],
    ]);
    expect(p50.connectNulls).toBe(false);
    expect(p50.markLine.data.map((m: { xAxis: number; name: string }) => [m.xAxis, m.name])).toEqual([
      [2.37, '× 1'],
      [4.4, '× 2'],
    ]);
    expect(o.xAxis.min).toBe(2);
    expect(o.xAxis.axisLabel.hideOverlap).toBe(true);
  });

  it('cold vs warm: one chart per phase, named, log scale with cached sub-millisecond warm bars', () => {
    const cw = (phase: string, phaseIndex: number, query: string, coldMs: number, warm: number) => ({
      phase,
      phaseIndex,
      query,
      coldMs,
      warmMs: [warm],
      secondUserWarmMs: warm,
    });
    const r: RunResults = {
      coldWarm: [cw('Cold vs warm, no cache', 2, 'A', 40, 20), cw('Cold vs warm, cached', 3, 'A', 45, 0.05)],
    };
    const o = coldWarmChart(r, 3, true) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(o.title.text).toBe('Cold vs warm, cached');
    expect(o.xAxis.data).toEqual(['A']);
    expect(o.series.map((x: { data: number[] }) => x.data[0])).toEqual([45, 0.05, 0.05]);
    expect(o.yAxis).toMatchObject({ type: 'log', min: 0.01 });
    expect((coldWarmChart(r, 2, false) as Record<string, any>).yAxis.type).toBe('value'); // eslint-disable-line @typescript-eslint/no-explicit-any
  });
});
