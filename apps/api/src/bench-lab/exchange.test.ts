import { describe, expect, it } from 'vitest';
import { exportCsv, type RunRecord } from './exchange.js';
import type { LatencyStats } from './stats.js';

const stats = {
  executions: 2,
  errors: 0,
  rows: 1,
  bytes: 10,
  minMs: 1,
  meanMs: 1.5,
  p50Ms: 1,
  p90Ms: 2,
  p95Ms: 2,
  p99Ms: 2,
  maxMs: 2,
};
const run: RunRecord = {
  id: 'r1',
  name: 'run',
  benchmarkId: null,
  status: 'done',
  progress: null,
  definition: null,
  results: {
    queries: [
      {
        query: '=cmd|calc',
        phase: '@phase',
        phaseIndex: 0,
        type: 'sql',
        direct: stats as unknown as LatencyStats,
        pushdown: null,
        federated: null,
        equivalent: true,
        failed: false,
      },
    ],
  },
  createdAt: '2024-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
};

describe('benchmark run CSV', () => {
  const head =
    'run,phase,query,mode,users,throughput,executions,errors,rows,bytes,minMs,meanMs,p50Ms,p90Ms,p95Ms,p99Ms,maxMs,equivalent';
  it('defuses names a spreadsheet would run, numbers stay', () => {
    expect(exportCsv(run)).toBe(`${head}\nr1,'@phase,'=cmd|calc,direct,,,2,0,1,10,1,1.5,1,2,2,2,2,true\n`);
  });
  it('writes them as they are with formulaSafe false', () => {
    expect(exportCsv(run, { formulaSafe: false })).toBe(
      `${head}\nr1,@phase,=cmd|calc,direct,,,2,0,1,10,1,1.5,1,2,2,2,2,true\n`,
    );
  });
});
