import { randomUUID } from 'node:crypto';
import { JunctionError, type Row } from '@junction/connectors';
import type { DescribeResult, ExplainResult, QueryOptions, QueryResult } from '@junction/query-core';
import type { Admission } from '../lib/admission.js';
import type { JunctionLimits, LimitStore } from '../lib/limits.js';
import type { Principal } from '../plugins/auth.js';
import type { AccessPolicies } from './access-policy.js';
import type { EngineLike } from './junction.js';
import type { SourceRegistry } from './source-registry.js';

export interface RunningQuery {
  readonly id: string;
  readonly userId: string;
  readonly sql: string;
  readonly startedAt: Date;
  cancel(reason?: string): void;
}

/**
 * The data path's first step after a route: admission (the server's and the caller's queue),
 * the caller's access policy, then the engine; the registry of running queries, so any of them
 * can be listed and cancelled.
 */
export class QueryService {
  readonly running = new Map<string, RunningQuery>();

  constructor(
    private readonly admission: Admission,
    private readonly limitStore: LimitStore,
    private readonly limits: JunctionLimits,
    private readonly policies: AccessPolicies,
    private readonly engine: () => Promise<EngineLike>,
    private readonly sources: SourceRegistry,
  ) {}

  /**
   * Admission first, then the engine. The query is listed (and cancellable) from the moment it
   * is admitted: its scalar subqueries run on sources inside engine.query already. The returned
   * release must be called exactly once when the rows have been consumed or the query failed.
   */
  async start(
    p: Principal,
    sql: string,
    opts: {
      params?: unknown[];
      timeoutMs?: number;
      maxRows?: number;
      queryId?: string;
      signal: AbortSignal;
      /** another budget than the interactive one (the benchmark lab's) */
      admission?: { acquire(user: string): Promise<() => void> };
      /** 'local', 'trino' or 'auto' (QueryOptions.engine); unset: the statement's hint, else the default */
      engine?: string;
    },
  ): Promise<{ id: string; result: QueryResult; release: () => void }> {
    // the lab's runs have their own budget, so they never take interactive users' slots
    const release = opts.admission
      ? await opts.admission.acquire(p.userId)
      : await this.admission.acquire(this.limitStore.bucketOf(p), opts.signal);
    const id = opts.queryId ?? randomUUID();
    let listed: { signal: AbortSignal; unlist: () => void } | undefined;
    try {
      const stop = (listed = this.#list(id, p, sql, opts.signal));
      const access = await this.policies.of(p);
      const timeoutMs = Math.min(opts.timeoutMs ?? this.limits.defaultTimeoutMs, this.limits.maxTimeoutMs);
      const engine = await this.engine();
      const result = await engine.query(sql, {
        params: (opts.params ?? []) as QueryOptions['params'],
        signal: stop.signal,
        timeoutMs,
        maxRows: opts.maxRows,
        access,
        memoryBudgetBytes: this.limits.memoryBudgetBytes,
        ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
      });
      let done = false;
      return {
        id,
        result: this.#watched(result),
        release: () => {
          if (done) return;
          done = true;
          stop.unlist();
          release();
        },
      };
    } catch (e) {
      listed?.unlist();
      release();
      this.sources.noteQueryFailure(e);
      throw e;
    }
  }

  /**
   * Lists a query as running. Its signal aborts on a cancel (DELETE /queries/:id, a shutdown) or
   * when the caller's own signal does (a disconnect). Throws when the id is taken.
   */
  #list(id: string, p: Principal, sql: string, signal?: AbortSignal): { signal: AbortSignal; unlist: () => void } {
    if (this.running.has(id))
      throw new JunctionError('query_id_in_use', 'conflict', `A query with id "${id}" is already running.`);
    const cancel = new AbortController();
    this.running.set(id, {
      id,
      userId: p.userId,
      sql,
      startedAt: new Date(),
      cancel: (reason) =>
        cancel.abort(
          new JunctionError(
            'query_cancelled',
            'cancelled',
            reason ? `The query was cancelled: ${reason}` : 'The query was cancelled.',
          ),
        ),
    });
    return {
      signal: signal ? AbortSignal.any([signal, cancel.signal]) : cancel.signal,
      unlist: () => this.running.delete(id),
    };
  }

  /** The engine's result, with its rows watched: a failure or full read tells how its sources are doing. */
  #watched(result: QueryResult): QueryResult {
    const rows = result.rows;
    const failed = (e: unknown) => this.sources.noteQueryFailure(e);
    const reached = () => this.sources.noteSourcesReached(result.stats().sourceStatements.map((s) => s.source));
    async function* watch(): AsyncGenerator<readonly Row[]> {
      try {
        yield* rows;
      } catch (e) {
        failed(e);
        throw e;
      }
      reached();
    }
    return {
      id: result.id,
      columns: result.columns,
      rows: { [Symbol.asyncIterator]: () => watch() },
      stats: () => result.stats(),
      cancel: (reason) => result.cancel(reason),
    };
  }

  /** Result columns and parameter types of a statement under the caller's grants; no source is contacted. */
  async describe(p: Principal, sql: string): Promise<DescribeResult> {
    const access = await this.policies.of(p);
    return (await this.engine()).describe(sql, { access });
  }

  /**
   * A plan, or with `analyze` the plan run to its end on the sources: then, like a query, it is
   * listed, cancellable (DELETE /queries/:id, or the caller's signal) and under `label` in
   * running queries.
   */
  async explain(
    p: Principal,
    sql: string,
    opts: {
      params?: unknown[];
      analyze?: boolean;
      signal?: AbortSignal;
      queryId?: string;
      label?: string;
      engine?: string;
    },
  ): Promise<ExplainResult> {
    const release = await this.admission.acquire(this.limitStore.bucketOf(p), opts.signal);
    const id = opts.queryId ?? randomUUID();
    let stop: { signal: AbortSignal; unlist: () => void } | undefined;
    try {
      if (opts.analyze) stop = this.#list(id, p, opts.label ?? sql, opts.signal);
      const access = await this.policies.of(p);
      return await (
        await this.engine()
      ).explain(sql, {
        params: (opts.params ?? []) as QueryOptions['params'],
        analyze: opts.analyze ?? false,
        access,
        ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
        timeoutMs: this.limits.defaultTimeoutMs,
        ...(stop ? { signal: stop.signal } : {}),
      });
    } catch (e) {
      this.sources.noteQueryFailure(e);
      throw e;
    } finally {
      stop?.unlist();
      release();
    }
  }
}
