import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { isJunctionError, JunctionError } from '@junction/connectors';
import type { Principal } from '../plugins/auth.js';
import { compareAnswers, Digester, type AnswerCheck, type EngineCheck, type ParamCheck } from './answer.js';
import { RunContext } from './context.js';
import type { BenchQuery, Definition, Phase } from './definition.js';
import { runColdWarm } from './phases/coldwarm.js';
import { runConcurrency } from './phases/concurrency.js';
import { runMix } from './phases/mix.js';
import { runSingle } from './phases/single.js';
import { runStreams } from './phases/streams.js';
import { quoted } from './presets.js';
import { emptyResults, type Progress, type RunResults } from './results.js';
import { startSampler } from './sampler.js';
import { labTrino, refuseTrinoModes, trinoQueries } from './trino.js';

/** interrupted: the server stopped during the run (it keeps the results flushed until then) */
export type RunStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'interrupted';

/** Parameter sets an answer check compares for a query with parameters (one key may select nothing). */
const CHECK_KEYS = 5;
/** customers per unit of scale factor in TPC-H: the count tells the data's real scale */
const CUSTOMERS_PER_SF = 150_000;
/**
 * how often a running run's results are written to its row, so a restart keeps them (each
 * phase's start writes them at once too: what a kill -9 loses is at most this long of the
 * running phase's intervals and samples, never a finished phase)
 */
const RESULTS_FLUSH_MS = 3000;

/** The queries a definition's phases run (a phase without a list runs them all). */
export function queriesInUse(def: Definition): Set<string> {
  const ids = new Set<string>();
  for (const p of def.phases)
    for (const id of p.type === 'concurrency' ? [p.query] : (p.queries ?? def.queries.map((q) => q.id))) ids.add(id);
  return ids;
}

interface Active {
  readonly id: string;
  readonly abort: AbortController;
  readonly ctx: RunContext;
  readonly done: Promise<void>;
}

const PHASE_LABELS: Record<Phase['type'], string> = {
  single: 'Each query alone',
  concurrency: 'Concurrent users',
  mix: 'Weighted mix',
  streams: 'Query streams',
  coldwarm: 'Cold vs warm',
};

/**
 * Runs benchmarks in the server's background: a run is a BenchmarkRun row whose status and
 * progress are written as it goes (so any client can watch it, and a reload changes nothing),
 * and whose results are written every few seconds and when it ends. Runs found 'running' at
 * start were interrupted by a restart of the server: they are marked 'interrupted' and keep the
 * results written last.
 */
export class BenchLab {
  readonly active = new Map<string, Active>();
  /** the write of a run's row under way, if any: one at a time per run */
  readonly #flushing = new Map<string, Promise<void>>();

  constructor(readonly app: FastifyInstance) {}

  /**
   * Marks interrupted the runs still 'queued' or 'running' that no server runs: at start, and,
   * when several servers share the metadata database, after heartbeats (a server that stopped
   * or was killed during a run), sparing the runs of the servers alive.
   */
  async recover(): Promise<void> {
    const cluster = this.app.cluster;
    const rows = await this.app.db.benchmarkRun.findMany({
      where: { status: { in: ['queued', 'running'] } },
      select: { id: true, progress: true, results: true, replica: true },
    });
    if (!rows.length) return;
    const live = cluster.replicas ? new Set((await cluster.replicas.live()).map((r) => r.id)) : new Set<string>();
    for (const row of rows) {
      if (this.active.has(row.id) || (row.replica !== null && live.has(row.replica))) continue;
      const progress = parseObject(row.progress);
      const results = markCutShort(row.results, progress.phaseIndex);
      // only while it still says it runs: its server may have finished it meanwhile
      await this.app.db.benchmarkRun.updateMany({
        where: { id: row.id, status: { in: ['queued', 'running'] } },
        data: {
          status: 'interrupted',
          finishedAt: new Date(),
          progress: JSON.stringify({ ...progress, error: 'The server restarted during the run.' }),
          ...(results !== undefined ? { results } : {}),
        },
      });
    }
  }

  async start(benchmarkId: string, principal: Principal): Promise<string> {
    const bench = await this.app.db.benchmark.findUnique({ where: { id: benchmarkId } });
    if (!bench) throw new JunctionError('benchmark_not_found', 'not_found', `No benchmark "${benchmarkId}".`);
    const def = JSON.parse(bench.definition) as Definition;
    // defined while Trino was there, run now that it is not: said before the run, not per execution
    refuseTrinoModes(def, labTrino(this.app));
    const id = randomUUID();
    await this.app.db.benchmarkRun.create({
      data: {
        id,
        userId: principal.userId,
        name: bench.name,
        benchmarkId,
        config: bench.definition,
        // the server running it: while that one is alive, no other marks it interrupted
        replica: this.app.cluster.self.id,
        // whole from the start: a run the server's stop cuts short before its first flush still
        // reads as a run with no results yet, not as an empty object
        results: JSON.stringify(emptyResults()),
        status: 'queued',
      },
    });
    const abort = new AbortController();
    const ctx = new RunContext(this.app, principal, def, abort.signal);
    const done = this.#run(id, ctx).finally(() => this.active.delete(id));
    this.active.set(id, { id, abort, ctx, done });
    return id;
  }

  /** Cancels a running run; false when it is not running here. */
  cancel(runId: string): boolean {
    const a = this.active.get(runId);
    if (!a) return false;
    a.abort.abort();
    return true;
  }

  /** Live progress of a run in this process, else null. */
  live(runId: string): { progress: Progress; results: RunResults } | null {
    const a = this.active.get(runId);
    if (!a) return null;
    a.ctx.progress.elapsedMs = Date.now() - a.ctx.started;
    return { progress: a.ctx.progress, results: a.ctx.results };
  }

  async close(): Promise<void> {
    for (const a of this.active.values()) a.abort.abort();
    await Promise.all([...this.active.values()].map((a) => a.done.catch(() => undefined)));
  }

  /** The periodic write: skipped while the previous one still runs. */
  #flush(id: string, ctx: RunContext, status: RunStatus, withResults: boolean): Promise<void> {
    if (this.#flushing.has(id)) return Promise.resolve();
    const p = this.#write(id, ctx, status, withResults).finally(() => this.#flushing.delete(id));
    this.#flushing.set(id, p);
    return p;
  }

  /**
   * Writes the results now (after a write under way, which may hold older ones): called when a
   * phase or the answer checks end, so a kill -9 from then on keeps them.
   */
  async #checkpoint(id: string, ctx: RunContext): Promise<void> {
    for (let p = this.#flushing.get(id); p; p = this.#flushing.get(id)) await p;
    await this.#flush(id, ctx, 'running', true);
  }

  async #write(id: string, ctx: RunContext, status: RunStatus, withResults: boolean): Promise<void> {
    try {
      ctx.progress.elapsedMs = Date.now() - ctx.started;
      if (withResults) summarize(ctx);
      await this.app.db.benchmarkRun.update({
        where: { id },
        data: {
          status,
          progress: JSON.stringify(ctx.progress),
          ...(withResults ? { results: JSON.stringify(ctx.results) } : {}),
        },
      });
    } catch (err) {
      this.app.log.warn({ err, runId: id }, 'could not record benchmark progress');
    }
  }

  async #run(id: string, ctx: RunContext): Promise<void> {
    let status: RunStatus = 'running';
    let failure: string | undefined;
    ctx.progress.phase = 'Preparing: connecting to the sources';
    await this.app.db.benchmarkRun.update({ where: { id }, data: { status, startedAt: new Date() } });
    // the first tick writes results too: a run killed in its first seconds keeps its environment
    let lastResults = 0;
    const flusher = setInterval(() => {
      const withResults = Date.now() - lastResults >= RESULTS_FLUSH_MS;
      if (withResults) lastResults = Date.now();
      void this.#flush(id, ctx, 'running', withResults);
    }, 1000);
    const sources = new Set<string>();
    let stopSampler: (() => Promise<void>) | undefined;
    try {
      const engine = await this.app.junction.engine();
      for (const q of ctx.def.queries) {
        if (q.direct) sources.add(q.direct.source);
        try {
          for (const r of engine.references(q.federated)) if (r.kind === 'table') sources.add(r.source);
        } catch {
          // a query Junction cannot parse fails at its first execution, recorded there
        }
      }
      stopSampler = startSampler(ctx, ctx.def.settings.sampleMs ?? 1000, () => [...sources]);
      ctx.results.environment = await this.#environment(ctx, [...sources]);
      await this.#checkScale(ctx);
      await this.#checkAnswers(ctx);
      for (const [i, phase] of ctx.def.phases.entries()) {
        ctx.throwIfCancelled();
        const label = phase.label ?? `${i + 1}. ${PHASE_LABELS[phase.type]}`;
        ctx.progress.phase = label;
        ctx.progress.phaseIndex = i;
        ctx.progress.fraction = i / ctx.def.phases.length;
        // the row says phase i runs only once it holds what the checks and phases before it
        // measured: recover() marks what it has of phase i, and only that, partial
        await this.#checkpoint(id, ctx);
        await this.#phase(ctx, phase, i, label);
      }
      ctx.progress.fraction = 1;
      const wrong = mismatches(ctx.results);
      if (wrong.length) {
        // a wrong answer is a failure whatever the times: the run says so first
        status = 'failed';
        ctx.progress.failure = 'answers';
        failure = `Wrong answer${wrong.length > 1 ? 's' : ''}: ${wrong.join(', ')} — ${
          wrong.some((w) => w.endsWith(TRINO_MISMATCH)) ? 'the' : "Junction's"
        } rows differ from the direct ones.`;
      } else status = 'done';
    } catch (e) {
      if (ctx.signal.aborted) status = 'cancelled';
      else {
        status = 'failed';
        ctx.progress.failure = 'error';
        failure = e instanceof Error ? e.message : String(e);
        this.app.log.warn({ err: e, runId: id }, 'benchmark run failed');
      }
    } finally {
      clearInterval(flusher);
      await stopSampler?.().catch(() => undefined);
      await ctx.close();
    }
    const r = summarize(ctx);
    ctx.progress.elapsedMs = Date.now() - ctx.started;
    ctx.progress.step = null;
    for (let p = this.#flushing.get(id); p; p = this.#flushing.get(id)) await p;
    await this.app.db.benchmarkRun.update({
      where: { id },
      data: {
        status,
        finishedAt: new Date(),
        results: JSON.stringify(r),
        progress: JSON.stringify({ ...ctx.progress, ...(failure ? { error: failure } : {}) }),
      },
    });
  }

  async #phase(ctx: RunContext, phase: Phase, i: number, label: string): Promise<void> {
    switch (phase.type) {
      case 'single':
        return runSingle(ctx, phase, i, label);
      case 'concurrency':
        return runConcurrency(ctx, phase, i, label);
      case 'mix':
        return runMix(ctx, phase, i, label);
      case 'streams':
        return runStreams(ctx, phase, i, label);
      case 'coldwarm':
        return runColdWarm(ctx, phase, i, label);
    }
  }

  /**
   * Every run checks the answers first: each query its phases run that has a direct target runs
   * direct and through Junction with the same parameters; row count and order-independent
   * checksum must match. A query with parameters is checked with several keys drawn as the run
   * draws them, since one key may select nothing (a TPC-H customer key that is a multiple of 3
   * has no orders); a check over 0 rows says it compared nothing.
   */
  async #checkAnswers(ctx: RunContext): Promise<void> {
    ctx.progress.phase = 'Answer checks';
    const used = queriesInUse(ctx.def);
    const onTrino = trinoQueries(ctx.def);
    for (const q of ctx.def.queries) {
      if (!q.direct || !used.has(q.id)) continue;
      ctx.results.answers[q.id] = await this.#checkAnswer(ctx, q, onTrino.has(q.id));
      const a = ctx.results.answers[q.id];
      if (a.rowsCompared === 0 && a.equivalent === true)
        ctx.results.warnings.push(`Answer check of ${q.id}: both sides returned 0 rows, so it compared nothing.`);
    }
  }

  /**
   * `trino`: the query runs on Trino in some phase, so Trino's rows are compared with the same
   * direct rows, key by key; a Trino that fails is said in its own check and leaves Junction's be.
   */
  async #checkAnswer(ctx: RunContext, q: BenchQuery, trino: boolean): Promise<AnswerCheck> {
    const keys = ctx.paramStream(`answers:${q.id}`);
    const d = new Digester();
    const f = new Digester();
    const checks: ParamCheck[] = [];
    let differing: { params: (string | number)[]; check: AnswerCheck } | undefined;
    let params: (string | number)[] = [];
    const t = trino ? new EngineComparison() : undefined;
    const withTrino = (check: AnswerCheck): AnswerCheck => (t ? { ...check, trino: t.result() } : check);
    try {
      for (let i = 0; i < (q.params?.length ? CHECK_KEYS : 1); i++) {
        ctx.throwIfCancelled();
        params = keys.next(q);
        ctx.setStep(`${q.id}: direct vs federated${params.length ? ` (${params.join(', ')})` : ''}`);
        const dk = new Digester();
        const fk = new Digester();
        await ctx.execute(q, 'direct', params, dk);
        await ctx.execute(q, 'federated', params, fk);
        if (t) await t.check(params, dk, (tk) => ctx.execute(q, 'trino', params, tk), ctx.signal);
        const check = compareAnswers(dk, fk);
        checks.push({
          params,
          directRows: check.direct!.rows,
          federatedRows: check.federated!.rows,
          equivalent: check.equivalent === true,
        });
        if (check.equivalent === false) differing ??= { params, check };
        d.merge(dk);
        f.merge(fk);
      }
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      return withTrino({
        direct: null,
        federated: null,
        equivalent: null,
        params,
        checks,
        error: errorText(e),
      });
    }
    // the digests and sample of the key that differed: the rows shown are that key's
    if (differing) return withTrino({ ...differing.check, params: differing.params, checks });
    const rows = d.digest().rows;
    return withTrino({
      ...compareAnswers(d, f),
      params: checks[0]?.params ?? [],
      checks,
      rowsCompared: rows,
      ...(rows === 0 ? { note: 'Both sides returned 0 rows: the check compared nothing.' } : {}),
    });
  }

  /**
   * The data's real scale: a preset's queries and parameter ranges are for settings.sf (0.01 when
   * none is given), and data loaded at another scale gives other rows and keys that select
   * nothing. TPC-H's customer table has 150,000 rows per unit of scale; it is counted through
   * Junction, as the run's user.
   */
  async #checkScale(ctx: RunContext): Promise<void> {
    if (!ctx.def.preset) return;
    const source = ctx.def.settings.sources?.dbB ?? 'dbB';
    const expected = ctx.def.settings.sf;
    const data: Record<string, unknown> = { table: 'customer', source };
    ctx.results.environment.data = data;
    ctx.setStep('counting the data');
    try {
      const rows = Number(await ctx.scalar(`SELECT count(*) FROM ${quoted(source)}.customer`));
      const sf = Number((rows / CUSTOMERS_PER_SF).toPrecision(3));
      Object.assign(data, { rows, sf });
      const assumed = expected ?? 0.01;
      if (Math.abs(sf - assumed) > assumed * 0.05)
        ctx.results.warnings.push(
          `The data is at SF ${sf} (${rows.toLocaleString('en-US')} customers in ${source}), not the SF ${assumed} ${
            expected === undefined ? 'assumed when the settings give none' : 'the settings say'
          }: the queries' constants and parameter ranges are for SF ${assumed}.`,
        );
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      data.error = e instanceof Error ? e.message.slice(0, 300) : String(e);
    }
  }

  async #environment(ctx: RunContext, sources: string[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown>[] = [];
    for (const name of sources) {
      const info: Record<string, unknown> = { name };
      try {
        const row = await ctx.app.junction.findSource(name);
        info.engine = row.engine;
        // Junction's own probes, only on sources the run's user may read: the others' versions
        // and settings are not the user's to see
        const probe = await ctx.probes(name);
        const v = await probe.run('version');
        info.version = String(v?.[0]?.[0] ?? '');
        const settings = await probe.run('settings');
        if (settings) info.settings = Object.fromEntries(settings.map((r) => [String(r[0]), String(r[1])]));
      } catch (e) {
        info.error =
          isJunctionError(e) && e.kind === 'forbidden'
            ? 'not probed: no grant on this source'
            : e instanceof Error
              ? e.message.slice(0, 300)
              : String(e);
      }
      out.push(info);
    }
    return {
      junction: '0.1.0',
      node: process.version,
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryMb: Math.round(os.totalmem() / 1048576),
      sf: ctx.def.settings.sf ?? null,
      preset: ctx.def.preset ?? null,
      maxConcurrent: ctx.budget.max,
      sources: out,
      startedAt: new Date(ctx.started).toISOString(),
    };
  }
}

/**
 * A run's stored results with what the phase in progress at the stop had flushed marked partial
 * (its stats are of the executions up to the last flush); undefined when nothing changes.
 */
export function markCutShort(stored: string, phaseIndex: unknown): string | undefined {
  if (typeof phaseIndex !== 'number') return undefined;
  const results = parseObject(stored);
  let changed = false;
  for (const key of ['queries', 'steps'] as const) {
    const list = results[key];
    if (!Array.isArray(list)) continue;
    for (const e of list as { phaseIndex?: unknown; partial?: boolean }[])
      if (e && e.phaseIndex === phaseIndex && !e.partial) {
        e.partial = true;
        changed = true;
      }
  }
  return changed ? JSON.stringify(results) : undefined;
}

function parseObject(s: string | null): Record<string, unknown> {
  try {
    const v: unknown = s ? JSON.parse(s) : null;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    // a value that does not parse says nothing worth keeping
    return {};
  }
}

const errorText = (e: unknown): string =>
  isJunctionError(e) || e instanceof Error ? e.message.slice(0, 500) : String(e);

/**
 * Trino's answers against the direct ones over the answer check's parameter sets: digests summed
 * as Junction's are, the first set that differs kept with its sample. Its first failure ends it
 * (Trino away, a statement it refuses): the error is the check's, not the whole answer check's.
 */
export class EngineComparison {
  readonly #all = new Digester();
  readonly #checks: { params: (string | number)[]; rows: number; equivalent: boolean }[] = [];
  #differing: { params: (string | number)[]; check: AnswerCheck } | undefined;
  #error: string | undefined;

  async check(
    params: (string | number)[],
    direct: Digester,
    run: (into: Digester) => Promise<unknown>,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.#error !== undefined) return;
    const mine = new Digester();
    try {
      await run(mine);
    } catch (e) {
      if (signal.aborted) throw e;
      this.#error = errorText(e);
      return;
    }
    const c = compareAnswers(direct, mine);
    this.#checks.push({ params, rows: c.federated!.rows, equivalent: c.equivalent === true });
    if (c.equivalent === false) this.#differing ??= { params, check: c };
    this.#all.merge(mine);
  }

  result(): EngineCheck {
    const checks = { checks: this.#checks };
    if (this.#error !== undefined)
      return { digest: null, equivalent: null, error: this.#error, ...checks };
    if (this.#differing) {
      const s = this.#differing.check.sample;
      return {
        digest: this.#differing.check.federated,
        equivalent: false,
        params: this.#differing.params,
        ...(s ? { sample: { onlyDirect: s.onlyDirect, onlyEngine: s.onlyFederated } } : {}),
        ...checks,
      };
    }
    if (!this.#checks.length) return { digest: null, equivalent: null, ...checks };
    return { digest: this.#all.digest(), equivalent: true, params: this.#checks[0].params, ...checks };
  }
}

/** What a check that differs is called in the summary and the failure when it is Trino's. */
const TRINO_MISMATCH = ' on Trino';

/** The queries whose answers differ from the direct ones: `A` through Junction, `A on Trino` there. */
export function mismatches(r: Pick<RunResults, 'answers'>): string[] {
  const out: string[] = [];
  for (const [q, a] of Object.entries(r.answers)) {
    if (a.equivalent === false) out.push(q);
    if (a.trino?.equivalent === false) out.push(q + TRINO_MISMATCH);
  }
  return out;
}

/** The summary of what the run has so far (written with every flush of its results, and at its end). */
function summarize(ctx: RunContext): RunResults {
  const r = ctx.results;
  r.summary.executions = ctx.progress.executions;
  r.summary.errors = ctx.progress.errors;
  r.summary.mismatches = mismatches(r);
  r.summary.geomeanMs = r.streams.length ? r.streams[0].geomeanMs : null;
  r.summary.seconds = (Date.now() - ctx.started) / 1000;
  return r;
}
