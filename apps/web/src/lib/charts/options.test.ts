import { describe, expect, it } from 'vitest';
import type { LatencyStats, RunResults } from '../bench-api.js';
import { compareChart, perQueryBars, resourcesChart, usersChart } from './options.js';

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
    const sample = { t: 1, cpuPct: 50, rssMb: 100, eventLoopMeanMs: 1, eventLoopMaxMs: 2, machineBusyPct: 60, load1: 1, sources: {} };
    const names = (r: RunResults) =>
      ((resourcesChart(r) as Record<string, any>).series as { name: string; data: unknown[] }[]).map((x) => x.name); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(names({ ...results, samples: [{ ...sample, ioWaitPct: 3.5 }] })).toContain('machine I/O wait %');
    expect(names({ ...results, samples: [sample] })).not.toContain('machine I/O wait %');
  });
});
