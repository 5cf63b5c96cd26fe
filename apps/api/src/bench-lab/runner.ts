import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { isJunctionError, JunctionError } from '@junction/connectors';
import type { Principal } from '../plugins/auth.js';
import { compareAnswers, Digester } from './answer.js';
import { RunContext } from './context.js';
import type { Definition, Phase } from './definition.js';
import { runColdWarm } from './phases/coldwarm.js';
import { runConcurrency } from './phases/concurrency.js';
import { runMix } from './phases/mix.js';
import { runSingle } from './phases/single.js';
import { runStreams } from './phases/streams.js';
import type { Progress, RunResults } from './results.js';
import { startSampler } from './sampler.js';

export type RunStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

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
 * progress are written as it goes (so any client can watch it, and a reload changes nothing)
 * and whose results are written when it ends. Runs found 'running' at start were interrupted
 * by a restart of the server and are marked failed.
 */
export class BenchLab {
  readonly active = new Map<string, Active>();
  #flushing = new Set<string>();

  constructor(readonly app: FastifyInstance) {}

  async recover(): Promise<void> {
    await this.app.db.benchmarkRun.updateMany({
      where: { status: { in: ['queued', 'running'] } },
      data: {
        status: 'failed',
        finishedAt: new Date(),
        progress: JSON.stringify({ error: 'The server restarted during the run.' }),
      },
    });
  }

  async start(benchmarkId: string, principal: Principal): Promise<string> {
    const bench = await this.app.db.benchmark.findUnique({ where: { id: benchmarkId } });
    if (!bench) throw new JunctionError('benchmark_not_found', 'not_found', `No benchmark "${benchmarkId}".`);
    const def = JSON.parse(bench.definition) as Definition;
    const id = randomUUID();
    await this.app.db.benchmarkRun.create({
      data: {
        id,
        userId: principal.userId,
        name: bench.name,
        benchmarkId,
        config: bench.definition,
        results: '{}',
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

  async #flush(id: string, ctx: RunContext, status: RunStatus): Promise<void> {
    if (this.#flushing.has(id)) return;
    this.#flushing.add(id);
    try {
      ctx.progress.elapsedMs = Date.now() - ctx.started;
      await this.app.db.benchmarkRun.update({
        where: { id },
        data: { status, progress: JSON.stringify(ctx.progress) },
      });
    } catch (err) {
      this.app.log.warn({ err, runId: id }, 'could not record benchmark progress');
    } finally {
      this.#flushing.delete(id);
    }
  }

  async #run(id: string, ctx: RunContext): Promise<void> {
    let status: RunStatus = 'running';
    let failure: string | undefined;
    ctx.progress.phase = 'Preparing: connecting to the sources';
    await this.app.db.benchmarkRun.update({ where: { id }, data: { status, startedAt: new Date() } });
    const flusher = setInterval(() => void this.#flush(id, ctx, 'running'), 1000);
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
      await this.#checkAnswers(ctx);
      for (const [i, phase] of ctx.def.phases.entries()) {
        ctx.throwIfCancelled();
        const label = phase.label ?? `${i + 1}. ${PHASE_LABELS[phase.type]}`;
        ctx.progress.phase = label;
        ctx.progress.phaseIndex = i;
        ctx.progress.fraction = i / ctx.def.phases.length;
        await this.#phase(ctx, phase, i, label);
      }
      ctx.progress.fraction = 1;
      status = 'done';
    } catch (e) {
      if (ctx.signal.aborted) status = 'cancelled';
      else {
        status = 'failed';
        failure = e instanceof Error ? e.message : String(e);
        this.app.log.warn({ err: e, runId: id }, 'benchmark run failed');
      }
    } finally {
      clearInterval(flusher);
      await stopSampler?.().catch(() => undefined);
      await ctx.close();
    }
    const r = ctx.results;
    r.summary.executions = ctx.progress.executions;
    r.summary.errors = ctx.progress.errors;
    r.summary.mismatches = Object.entries(r.answers)
      .filter(([, a]) => a.equivalent === false)
      .map(([q]) => q);
    r.summary.geomeanMs = r.streams.length ? r.streams[0].geomeanMs : null;
    r.summary.seconds = (Date.now() - ctx.started) / 1000;
    ctx.progress.elapsedMs = Date.now() - ctx.started;
    ctx.progress.step = null;
    while (this.#flushing.has(id)) await new Promise((res) => setTimeout(res, 10));
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
   * Every run checks the answers first: each query with a direct target runs once direct and once
   * through Junction with the same parameters; row count and order-independent checksum must match.
   */
  async #checkAnswers(ctx: RunContext): Promise<void> {
    ctx.progress.phase = 'Answer checks';
    for (const q of ctx.def.queries) {
      if (!q.direct) continue;
      ctx.throwIfCancelled();
      ctx.setStep(`${q.id}: direct vs federated`);
      const params = ctx.params.next(q);
      const d = new Digester();
      const f = new Digester();
      try {
        await ctx.execute(q, 'direct', params, d);
        await ctx.execute(q, 'federated', params, f);
        ctx.results.answers[q.id] = { ...compareAnswers(d, f), params };
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        ctx.results.answers[q.id] = {
          direct: null,
          federated: null,
          equivalent: null,
          params,
          error: isJunctionError(e) || e instanceof Error ? e.message.slice(0, 500) : String(e),
        };
      }
    }
  }

  async #environment(ctx: RunContext, sources: string[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown>[] = [];
    for (const name of sources) {
      const info: Record<string, unknown> = { name };
      try {
        const row = await ctx.app.junction.findSource(name);
        info.engine = row.engine;
        const c = await ctx.connector(name);
        const v = await c.execute('SELECT version()');
        info.version = String(v.rows[0]?.[0] ?? '');
        const settings =
          row.engine === 'postgresql'
            ? `SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers','work_mem','max_connections','effective_cache_size')`
            : row.engine === 'mysql'
              ? `SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('INNODB_BUFFER_POOL_SIZE','MAX_CONNECTIONS','THREAD_HANDLING')`
              : null;
        if (settings)
          info.settings = Object.fromEntries((await c.execute(settings)).rows.map((r) => [String(r[0]), String(r[1])]));
      } catch (e) {
        info.error = e instanceof Error ? e.message.slice(0, 300) : String(e);
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
