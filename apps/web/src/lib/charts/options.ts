import type { EChartsCoreOption } from 'echarts/core';
import { MODES, type Comparison, type Mode, type RunResults } from '../bench-api.js';

/**
 * ECharts options for the lab's charts, built from stored results. Pure functions: the
 * component only renders them, and the tests check what each chart shows.
 */
export type ChartOption = EChartsCoreOption;

export const MODE_LABEL: Record<Mode, string> = {
  direct: 'Direct (native driver)',
  pushdown: 'Junction, one source',
  federated: 'Junction, federated',
  trino: 'Through Trino',
};
const MODE_COLOR: Record<Mode, string> = {
  direct: '#69707d',
  pushdown: '#7a3fb8',
  federated: '#2456d6',
  trino: '#c2410c',
};

const base = (title: string, subtitle?: string): ChartOption => ({
  title: { text: title, subtext: subtitle, left: 8, top: 4, textStyle: { fontSize: 14 } },
  tooltip: { trigger: 'axis' },
  legend: { bottom: 0, type: 'scroll' },
  grid: { left: 64, right: 64, top: 64, bottom: 76, containLabel: false },
  animation: false,
});

/**
 * The bottom of a log axis: the power of ten at or below the smallest positive value. ECharts'
 * default of 1 makes bars under 1 ms hang downwards from it, so the fastest looks slowest.
 */
export function logAxisMin(values: readonly (number | null | undefined)[]): number {
  const positive = values.filter((v): v is number => typeof v === 'number' && v > 0);
  if (!positive.length) return 1;
  return 10 ** Math.floor(Math.log10(Math.min(...positive)));
}

/**
 * A value axis in ms, on a log scale starting below the data when asked. Bars grow from the
 * axis' start value, which on a log axis is 1 unless given: it is the axis' bottom too.
 */
function msAxis(log: boolean, values: readonly (number | null | undefined)[]) {
  const min = logAxisMin(values);
  return log
    ? { type: 'log', name: 'ms (log scale)', minorTick: { show: true }, min, startValue: min }
    : { type: 'value', name: 'ms' };
}

/** Per-query p50 bars of one phase, one bar per mode; a wrong answer is labelled on its query. */
export function perQueryBars(r: RunResults, phaseIndex: number, log: boolean): ChartOption {
  const entries = (r.queries ?? []).filter((e) => e.phaseIndex === phaseIndex);
  const modes = MODES.filter((m) => entries.some((e) => e[m]));
  const cats = entries.map((e) =>
    e.equivalent === false
      ? `${e.query} ✗ wrong answer`
      : e.trinoEquivalent === false
        ? `${e.query} ✗ wrong on Trino`
        : e.query,
  );
  const series = modes.map((m) => ({
    name: MODE_LABEL[m],
    type: 'bar',
    itemStyle: { color: MODE_COLOR[m] },
    // the recorder's floor is 1 µs: a 0 is a value below it, not a missing bar
    data: entries.map((e) => (e[m] ? Math.max(e[m]!.p50Ms, log ? 0.001 : 0) : null)),
  }));
  return {
    ...base(
      `${entries[0]?.phase ?? 'Queries'}: median time per query`,
      'p50 in ms; whiskers are not drawn, see p95 in the table',
    ),
    xAxis: { type: 'category', data: cats, name: 'query', nameLocation: 'middle', nameGap: 28 },
    yAxis: msAxis(
      log,
      series.flatMap((x) => x.data),
    ),
    series,
  };
}

/** Throughput (bars) and p95 latency (lines) against concurrent users, for each query and mode. */
export function usersChart(r: RunResults, phaseIndex: number): ChartOption {
  const steps = (r.steps ?? []).filter((s) => s.phaseIndex === phaseIndex && s.query !== '*');
  const users = [...new Set(steps.map((s) => s.users))].sort((a, b) => a - b);
  const modes = MODES.filter((m) => steps.some((s) => s.mode === m));
  const at = (m: Mode, u: number) => steps.find((s) => s.mode === m && s.users === u);
  return {
    ...base(`${steps[0]?.phase ?? 'Users'}: throughput and latency by users`),
    xAxis: { type: 'category', data: users.map(String), name: 'concurrent users', nameLocation: 'middle', nameGap: 28 },
    yAxis: [
      { type: 'value', name: 'executions / s' },
      { type: 'value', name: 'p95 ms', splitLine: { show: false } },
    ],
    series: modes.flatMap((m) => [
      {
        name: `${MODE_LABEL[m]} throughput`,
        type: 'bar',
        itemStyle: { color: MODE_COLOR[m] },
        data: users.map((u) => at(m, u)?.throughput ?? null),
      },
      {
        name: `${MODE_LABEL[m]} p95`,
        type: 'line',
        yAxisIndex: 1,
        lineStyle: { color: MODE_COLOR[m], type: 'dashed' },
        itemStyle: { color: MODE_COLOR[m] },
        data: users.map((u) => at(m, u)?.stats.p95Ms ?? null),
      },
    ]),
  };
}

/** Whole seconds below the first value: an axis starting at 3.37 s puts its first label on top of the 4 s one. */
const axisStart = (ts: readonly number[]): number | undefined => (ts.length ? Math.floor(Math.min(...ts)) : undefined);

/**
 * Percentiles and throughput per interval over the run's time. Each step (a level of users, a
 * mode) is its own stretch: lines break between steps, and a marker names each step where it
 * starts.
 */
export function percentilesOverTime(r: RunResults, phaseIndex?: number): ChartOption {
  const iv = (r.intervals ?? []).filter((i) => phaseIndex === undefined || i.phaseIndex === phaseIndex);
  // intervals stored before `seconds` was returned count as one second long
  const startOf = (i: (typeof iv)[number]) => Math.round((i.t - (i.seconds ?? 1)) * 100) / 100;
  const starts = iv
    .map((i, n) => ({ i, n }))
    .filter(({ i, n }) => n === 0 || iv[n - 1].step !== i.step)
    .map(({ i }) => ({ name: i.step, xAxis: startOf(i) }));
  const points = (pick: (i: (typeof iv)[number]) => number): [number, number | null][] =>
    iv.flatMap((i, n): [number, number | null][] =>
      n > 0 && iv[n - 1].step !== i.step
        ? [
            [startOf(i), null],
            [i.t, pick(i)],
          ]
        : [[i.t, pick(i)]],
    );
  const line = (name: string, pick: (i: (typeof iv)[number]) => number, axis = 0) => ({
    name,
    type: 'line',
    showSymbol: false,
    connectNulls: false,
    yAxisIndex: axis,
    data: points(pick),
  });
  const p50 = {
    ...line('p50', (i) => i.p50Ms),
    markLine: {
      symbol: 'none',
      silent: true,
      lineStyle: { color: '#8a8f98', type: 'dotted' },
      label: { formatter: '{b}', position: 'insideEndTop', fontSize: 10 },
      data: starts,
    },
  };
  return {
    ...base('Percentiles over time', `per interval; steps: ${starts.map((x) => x.name).join(' → ') || 'none'}`),
    xAxis: {
      type: 'value',
      name: 's since the run started',
      nameLocation: 'middle',
      nameGap: 28,
      min: axisStart(starts.map((x) => x.xAxis)),
      axisLabel: { hideOverlap: true },
    },
    yAxis: [
      { type: 'value', name: 'ms' },
      { type: 'value', name: 'executions / s', splitLine: { show: false } },
    ],
    series: [
      p50,
      line('p95', (i) => i.p95Ms),
      line('p99', (i) => i.p99Ms),
      line('max', (i) => i.maxMs),
      {
        ...line('throughput', (i) => i.throughput, 1),
        data: iv.map((i) => [i.t, i.throughput]),
        type: 'bar',
        barMaxWidth: 6,
        itemStyle: { opacity: 0.35 },
      },
    ],
  };
}

/**
 * Cold pass, warm passes (mean) and the second user's warm pass, per query, of one cold/warm
 * phase (a run may have several: each its own chart, named). Log scale by default: a warm pass
 * served from the result cache is a thousand times faster than the cold one and would not show.
 */
export function coldWarmChart(r: RunResults, phaseIndex: number, log = true): ChartOption {
  const cw = (r.coldWarm ?? []).filter((c) => (c.phaseIndex ?? phaseIndex) === phaseIndex);
  const mean = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 1000) / 1000 : null;
  };
  const series = [
    { name: 'cold', type: 'bar', itemStyle: { color: '#2f6fbf' }, data: cw.map((c) => c.coldMs) },
    { name: 'warm (mean)', type: 'bar', itemStyle: { color: '#d9822b' }, data: cw.map((c) => mean(c.warmMs)) },
    {
      name: 'second user, warm',
      type: 'bar',
      itemStyle: { color: '#3b9c5a' },
      data: cw.map((c) => c.secondUserWarmMs),
    },
  ];
  return {
    ...base(cw[0]?.phase ?? 'Cold vs warm', 'the cold pass follows clearing Junction’s caches and connection pools'),
    xAxis: { type: 'category', data: cw.map((c) => c.query), name: 'query', nameLocation: 'middle', nameGap: 28 },
    yAxis: msAxis(
      log,
      series.flatMap((x) => x.data),
    ),
    series,
  };
}

/** Junction's CPU, RSS and event-loop delay, the machine's CPU and I/O wait, and the sources' active statements. */
export function resourcesChart(r: RunResults): ChartOption {
  const s = r.samples ?? [];
  const sources = [...new Set(s.flatMap((x) => Object.keys(x.sources)))];
  const pts = (pick: (x: (typeof s)[number]) => number | null) => s.map((x) => [x.t, pick(x)]);
  const line = (name: string, pick: (x: (typeof s)[number]) => number | null, axis: number) => ({
    name,
    type: 'line',
    showSymbol: false,
    yAxisIndex: axis,
    data: pts(pick),
  });
  return {
    ...base('Resources over time', 'CPU in % of one core (Junction) and of all cores (machine)'),
    xAxis: {
      type: 'value',
      name: 's since the run started',
      nameLocation: 'middle',
      nameGap: 28,
      min: axisStart(s.map((x) => x.t)),
      axisLabel: { hideOverlap: true },
    },
    yAxis: [
      { type: 'value', name: '% / MB' },
      { type: 'value', name: 'ms / statements', splitLine: { show: false } },
    ],
    series: [
      line('Junction CPU %', (x) => x.cpuPct, 0),
      line('machine CPU busy %', (x) => x.machineBusyPct, 0),
      ...(s.some((x) => typeof x.ioWaitPct === 'number')
        ? [line('machine I/O wait %', (x) => x.ioWaitPct ?? null, 0)]
        : []),
      line('Junction RSS MB', (x) => x.rssMb, 0),
      line('event-loop delay max ms', (x) => x.eventLoopMaxMs, 1),
      ...sources.map((n) => line(`${n} active`, (x) => x.sources[n]?.active ?? null, 1)),
    ],
  };
}

/** The stream score: geometric mean per stream phase, and per query. */
export function geomeanChart(r: RunResults): ChartOption {
  const st = r.streams ?? [];
  const queries = [...new Set(st.flatMap((x) => Object.keys(x.perQueryGeomeanMs)))];
  const series = st.map((x) => ({
    name: `${x.phase} (${x.users} users)`,
    type: 'bar',
    itemStyle: { color: MODE_COLOR[x.mode] },
    data: [...queries.map((q) => x.perQueryGeomeanMs[q] || null), x.geomeanMs || null],
  }));
  return {
    ...base('Query streams: geometric mean', st.map((x) => `${x.phase}: ${x.geomeanMs} ms`).join(' · ')),
    xAxis: { type: 'category', data: [...queries, 'score'], name: 'query', nameLocation: 'middle', nameGap: 28 },
    yAxis: msAxis(
      true,
      series.flatMap((x) => x.data),
    ),
    series,
  };
}

/** Two runs: the difference of p50 in percent per query and mode (negative: b is faster). */
export function compareChart(c: Comparison): ChartOption {
  const rows = c.queries.filter((q) => q.p50DiffPct !== null);
  const short: Record<Mode, string> = {
    direct: 'direct',
    pushdown: 'Junction 1 source',
    federated: 'Junction federated',
    trino: 'through Trino',
  };
  return {
    ...base(`B (${c.b.name}) against A (${c.a.name})`, 'difference of p50 in %; below 0: B is faster'),
    legend: { show: false },
    grid: { left: 200, right: 40, top: 64, bottom: 40 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: {
      type: 'value',
      name: 'p50 of B vs A',
      nameLocation: 'middle',
      nameGap: 26,
      axisLabel: { formatter: '{value} %' },
    },
    yAxis: {
      type: 'category',
      data: rows.map((q) => `phase ${(q.phaseIndex ?? 0) + 1} · ${q.query} · ${short[q.mode]}`),
      inverse: true,
    },
    series: [
      {
        name: 'p50 difference',
        type: 'bar',
        data: rows.map((q) => ({
          value: q.p50DiffPct,
          itemStyle: { color: (q.p50DiffPct ?? 0) > 0 ? '#b42318' : '#137333' },
        })),
      },
    ],
  };
}
