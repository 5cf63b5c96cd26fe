import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { isJunctionError } from '@junction/connectors';
import type { Principal } from '../plugins/auth.js';
import { Digester, type AnswerCheck } from './answer.js';
import { RunContext } from './context.js';
import { CreateBenchmarkBody, Phase, type Definition } from './definition.js';
import { compareRuns, exportCsv, exportJson, type RunRecord } from './exchange.js';
import { definitionOf, presetById } from './presets.js';
import type { QueryResultEntry } from './results.js';
import { EngineComparison, mismatches } from './runner.js';
import type { LatencyStats } from './stats.js';
import { labTrino, modesOf, refuseTrinoModes, trinoQueries } from './trino.js';

const def = (phases: Phase[]): Definition => ({
  name: 'b',
  queries: [
    { id: 'A', federated: 'SELECT 1' },
    { id: 'B', federated: 'SELECT 2' },
  ],
  phases,
  settings: {},
});

describe('the trino mode in definitions', () => {
  it('is a mode of every phase that takes modes, once each, coldwarm aside', () => {
    expect(Value.Check(Phase, { type: 'single', warmups: 0, repetitions: 1, modes: ['federated', 'trino'] })).toBe(true);
    expect(
      Value.Check(Phase, { type: 'concurrency', query: 'A', users: [1], stepSeconds: 1, modes: ['direct', 'pushdown', 'federated', 'trino'] }),
    ).toBe(true);
    expect(Value.Check(Phase, { type: 'mix', users: 1, durationSeconds: 1, intervalSeconds: 1, mode: 'trino' })).toBe(true);
    expect(Value.Check(Phase, { type: 'streams', users: 1, mode: 'trino' })).toBe(true);
    expect(Value.Check(Phase, { type: 'single', warmups: 0, repetitions: 1, modes: ['trino', 'trino'] })).toBe(false);
    expect(Value.Check(Phase, { type: 'single', warmups: 0, repetitions: 1, modes: ['presto'] })).toBe(false);
    expect(Value.Check(Phase, { type: 'coldwarm', warmPasses: 1, mode: 'trino' })).toBe(false);
    expect(Value.Check(CreateBenchmarkBody, { name: 'x', phases: [{ type: 'streams', users: 2, mode: 'trino' }] })).toBe(true);
  });

  it('knows which queries run on Trino, a phase without a list meaning all of them', () => {
    expect(modesOf({ type: 'single', warmups: 0, repetitions: 1 })).toEqual(['direct', 'federated']);
    expect(modesOf({ type: 'coldwarm', warmPasses: 1 })).toEqual(['federated']);
    expect([...trinoQueries(def([{ type: 'concurrency', query: 'B', users: [1], stepSeconds: 1, modes: ['trino'] }]))]).toEqual(['B']);
    expect([...trinoQueries(def([{ type: 'streams', users: 1, mode: 'trino' }]))]).toEqual(['A', 'B']);
    expect([...trinoQueries(def([{ type: 'single', queries: ['A'], warmups: 0, repetitions: 1 }]))]).toEqual([]);
  });

  it('refuses phases on Trino where none is configured or it cannot run, and lets the others be', () => {
    const onTrino = def([
      { type: 'single', label: 'alone', warmups: 0, repetitions: 1, modes: ['federated', 'trino'] },
      { type: 'mix', users: 1, durationSeconds: 1, intervalSeconds: 1 },
    ]);
    const refusal = (d: Definition, t: Parameters<typeof refuseTrinoModes>[1]) => {
      try {
        refuseTrinoModes(d, t);
        return null;
      } catch (e) {
        if (!isJunctionError(e)) throw e;
        return { code: e.code, kind: e.kind, message: e.message };
      }
    };
    expect(refusal(onTrino, null)).toEqual({
      code: 'trino_not_configured',
      kind: 'user',
      message:
        'No Trino backend is configured on this server, and phase "alone" runs queries through Trino: remove the trino mode, or configure Trino (JUNCTION_TRINO_URL).',
    });
    expect(refusal(onTrino, { available: false, message: 'Trino did not answer within 5 s' })).toEqual({
      code: 'trino_unavailable',
      kind: 'resources',
      message: 'Trino cannot run queries now (Trino did not answer within 5 s), and phase "alone" runs queries through it.',
    });
    expect(refusal(onTrino, { available: true, message: null })).toBeNull();
    expect(refusal(def([{ type: 'mix', users: 1, durationSeconds: 1, intervalSeconds: 1 }]), null)).toBeNull();
  });

  it('reads what GET /engines says of Trino: null when none is configured, else whether it can run queries', () => {
    const app = (trino: unknown) => ({ trino }) as unknown as FastifyInstance;
    const service = (available: boolean, message: string | null) => ({
      info: (policy: { canReadSource(s: string): boolean }) => ({
        available,
        message,
        autoRowsThreshold: 1,
        // the lab asks for no source: its policy reads none
        sources: ['dbA'].filter((s) => policy.canReadSource(s)),
      }),
    });
    expect(labTrino(app(null))).toBeNull();
    expect(labTrino(app(service(true, null)))).toEqual({ available: true, message: null });
    expect(labTrino(app(service(false, 'Trino at 127.0.0.1:8088 cannot be reached')))).toEqual({
      available: false,
      message: 'Trino at 127.0.0.1:8088 cannot be reached',
    });
  });

  it('presets add the trino mode and phases only when Trino can run them', () => {
    const phases = (trino: boolean, id: string) =>
      definitionOf('x', presetById(id), { direct: 'pg' }, {}, 'postgresql', trino).phases.map((p) =>
        p.type === 'single' || p.type === 'concurrency' ? [p.type, p.modes] : [p.type, p.type === 'coldwarm' ? null : p.mode ?? null],
      );
    expect(phases(false, 'jdv')).toEqual([
      ['single', ['direct', 'pushdown', 'federated']],
      ['concurrency', ['direct', 'federated']],
      ['concurrency', ['direct', 'federated']],
    ]);
    expect(phases(true, 'jdv')).toEqual([
      ['single', ['direct', 'pushdown', 'federated', 'trino']],
      ['concurrency', ['direct', 'federated', 'trino']],
      ['concurrency', ['direct', 'federated', 'trino']],
    ]);
    expect(phases(true, 'oltp-mix')).toEqual([
      ['mix', null],
      ['mix', 'trino'],
      ['mix', 'direct'],
    ]);
    expect(phases(true, 'streams')).toEqual([
      ['streams', null],
      ['streams', 'trino'],
      ['streams', 'direct'],
      ['coldwarm', null],
    ]);
  });
});

const stats = (p50: number): LatencyStats =>
  ({ executions: 2, errors: 0, rows: 3, bytes: 30, minMs: p50, meanMs: p50, p50Ms: p50, p90Ms: p50, p95Ms: p50, p99Ms: p50, maxMs: p50 }) as LatencyStats;

describe('results of the trino mode', () => {
  const ctx = (answers: Record<string, AnswerCheck>) => {
    const c = new RunContext({} as FastifyInstance, {} as Principal, def([]), new AbortController().signal);
    Object.assign(c.results.answers, answers);
    return c;
  };
  const digest = { rows: 1, checksum: '00' };

  it('an entry has a trino column, and says whether Trino answered right only when it was checked', () => {
    const c = ctx({
      A: { direct: digest, federated: digest, equivalent: true, trino: { digest, equivalent: false } },
      B: { direct: digest, federated: digest, equivalent: true },
    });
    const a = c.entry('A', 'p', 0, 'single');
    const b = c.entry('B', 'p', 0, 'single');
    const none = c.entry('C', 'p', 0, 'single');
    expect(a).toEqual({
      query: 'A',
      phase: 'p',
      phaseIndex: 0,
      type: 'single',
      direct: null,
      pushdown: null,
      federated: null,
      trino: null,
      equivalent: true,
      trinoEquivalent: false,
      failed: true,
    });
    expect([b.trinoEquivalent, b.failed, 'trinoEquivalent' in b]).toEqual([undefined, false, false]);
    expect([none.equivalent, none.failed]).toEqual([null, false]);
    expect(c.can({ id: 'A', federated: 'SELECT 1' }, 'trino')).toBe(true);
    expect(c.can({ id: 'A', federated: 'SELECT 1' }, 'direct')).toBe(false);
  });

  it("names a wrong answer on Trino apart from Junction's", () => {
    expect(
      mismatches({
        answers: {
          A: { direct: digest, federated: digest, equivalent: false, trino: { digest, equivalent: true } },
          B: { direct: digest, federated: digest, equivalent: true, trino: { digest, equivalent: false } },
          C: { direct: digest, federated: digest, equivalent: true, trino: { digest: null, equivalent: null, error: 'down' } },
        },
      }),
    ).toEqual(['A', 'B on Trino']);
  });
});

describe('exchange of runs with the trino mode', () => {
  const entry = (q: string, over: Partial<QueryResultEntry>): QueryResultEntry => ({
    query: q,
    phase: 'alone',
    phaseIndex: 0,
    type: 'single',
    direct: null,
    pushdown: null,
    federated: null,
    equivalent: true,
    failed: false,
    ...over,
  });
  const run = (id: string, trinoMs: number): RunRecord => ({
    id,
    name: 'run',
    benchmarkId: null,
    status: 'done',
    progress: null,
    definition: null,
    results: {
      queries: [
        entry('A', { direct: stats(1), federated: stats(4), trino: stats(trinoMs), trinoEquivalent: false, failed: true }),
        // stored before the lab had the mode: no trino field at all
        entry('B', { federated: stats(2) }),
      ],
      steps: [
        {
          phase: 'users',
          phaseIndex: 1,
          query: 'A',
          mode: 'trino',
          users: 2,
          seconds: 1,
          throughput: 5,
          stats: stats(trinoMs),
        },
      ],
      summary: { executions: 9, errors: 0, mismatches: ['A on Trino'], geomeanMs: null, seconds: 1 },
    },
    createdAt: '2026-11-27T00:00:00.000Z',
    startedAt: null,
    finishedAt: null,
  });

  it('CSV: a line per mode with its own answer check, trino included, and its concurrency steps', () => {
    expect(exportCsv(run('r1', 8)).split('\n').slice(1)).toEqual([
      'r1,alone,A,direct,,,2,0,3,30,1,1,1,1,1,1,1,true',
      'r1,alone,A,federated,,,2,0,3,30,4,4,4,4,4,4,4,true',
      'r1,alone,A,trino,,,2,0,3,30,8,8,8,8,8,8,8,false',
      'r1,alone,B,federated,,,2,0,3,30,2,2,2,2,2,2,2,true',
      'r1,users,A,trino,2,5,2,0,3,30,8,8,8,8,8,8,8,',
      '',
    ]);
  });

  it('JSON: what is exported reads back the same, and compares side by side per mode', () => {
    const back = (JSON.parse(JSON.stringify(exportJson(run('r1', 8)))) as { run: RunRecord }).run;
    expect(back).toEqual(run('r1', 8));
    const cmp = compareRuns(back, run('r2', 6));
    expect(cmp.queries.map((q) => [q.query, q.mode, q.p50DiffPct, q.equivalentA, q.equivalentB])).toEqual([
      ['A', 'direct', 0, true, true],
      ['A', 'federated', 0, true, true],
      ['A', 'trino', -25, false, false],
      ['B', 'federated', 0, true, true],
    ]);
  });
});

describe("the answer check of Trino's rows against the direct ones", () => {
  const rows = (...r: (string | number)[][]) => {
    const d = new Digester();
    for (const x of r) d.add(x);
    return d;
  };
  const into = (...r: (string | number)[][]) => async (d: Digester) => {
    for (const x of r) d.add(x);
  };
  const signal = new AbortController().signal;

  it('the same rows under every key: equivalent, over all of them', async () => {
    const c = new EngineComparison();
    await c.check([1], rows(['a', 1]), into(['a', 1]), signal);
    await c.check([2], rows(['b', 2], ['c', 3]), into(['c', 3], ['b', 2]), signal);
    const r = c.result();
    expect([r.equivalent, r.digest?.rows, r.params, r.checks]).toEqual([
      true,
      3,
      [1],
      [
        { params: [1], rows: 1, equivalent: true },
        { params: [2], rows: 2, equivalent: true },
      ],
    ]);
  });

  it('rows that differ: a failure, with the first key that differed and its rows', async () => {
    const c = new EngineComparison();
    await c.check([1], rows(['a', 1]), into(['a', 1]), signal);
    await c.check([2], rows(['b', 2.5]), into(['b', 2]), signal);
    await c.check([3], rows(['c', 1]), into(), signal);
    const r = c.result();
    expect([r.equivalent, r.params, r.sample, r.checks?.map((x) => x.equivalent)]).toEqual([
      false,
      [2],
      { onlyDirect: ['b | 2.5'], onlyEngine: ['b | 2'] },
      [true, false, false],
    ]);
  });

  it("Trino failing ends its check with the reason, and runs it no more; Junction's check is not touched", async () => {
    const c = new EngineComparison();
    let runs = 0;
    const failing = async () => {
      runs++;
      throw new Error('Trino at 127.0.0.1:8088 cannot be reached');
    };
    await c.check([1], rows(['a']), failing, signal);
    await c.check([2], rows(['b']), failing, signal);
    expect([runs, c.result()]).toEqual([
      1,
      { digest: null, equivalent: null, error: 'Trino at 127.0.0.1:8088 cannot be reached', checks: [] },
    ]);
  });
});
