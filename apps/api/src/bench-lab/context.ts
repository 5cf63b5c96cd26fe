import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { isJunctionError, JunctionError, type Value } from '@junction/connectors';
import { seededRandom } from '@junction/tpch';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Principal } from '../plugins/auth.js';
import type { NativeSession, ProbeSession } from '../services/source-gate.js';
import type { Digester } from './answer.js';
import { Budget, cancelled } from './budget.js';
import type { BenchQuery, Definition, Mode } from './definition.js';
import { ParamSource } from './params.js';
import { emptyResults, type Progress, type QueryResultEntry, type RunResults } from './results.js';
import type { Recorder } from './stats.js';

export interface Execution {
  readonly ms: number;
  readonly rows: number;
  readonly bytes: number;
}

function valueBytes(v: Value): number {
  if (v === null || v === undefined) return 1;
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.byteLength;
  if (typeof v === 'number' || typeof v === 'bigint') return 8;
  if (typeof v === 'boolean') return 1;
  return String(v).length;
}

function rowBytes(row: readonly Value[]): number {
  let n = 0;
  for (const v of row) n += valueBytes(v);
  return n;
}

/**
 * One run's state and its drivers. Federated executions go through the query service of
 * POST /api/v1/query (JunctionService.startQuery) with the lab's own admission budget; direct
 * ones as native SQL through the source gate (admin or a native grant; read-only), on a
 * connection pool opened for this run alone.
 */
export class RunContext {
  readonly results: RunResults = emptyResults();
  readonly progress: Progress;
  readonly params: ParamSource;
  readonly random: () => number;
  readonly started = Date.now();
  readonly budget: Budget;
  readonly #native = new Map<string, Promise<NativeSession>>();
  readonly #probes = new Map<string, Promise<ProbeSession>>();
  /** every execution of the run, to count them in progress */
  readonly timeoutMs: number;

  constructor(
    readonly app: FastifyInstance,
    readonly principal: Principal,
    readonly def: Definition,
    readonly signal: AbortSignal,
    readonly seed = 20261123,
  ) {
    this.random = seededRandom(seed);
    this.params = new ParamSource(seededRandom(seed + 1));
    this.budget = new Budget(def.settings.maxConcurrent ?? 24);
    this.timeoutMs = def.settings.timeoutMs ?? 120_000;
    this.progress = {
      phase: null,
      phaseIndex: 0,
      phases: def.phases.length,
      step: null,
      elapsedMs: 0,
      executions: 0,
      errors: 0,
      fraction: 0,
    };
  }

  /**
   * A parameter stream of its own for `key` (a phase's query, say), the same sequence every time
   * it is asked for: each mode of a phase draws the same keys, so their rows and times compare.
   */
  paramStream(key: string): ParamSource {
    let h = 2166136261;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
    return new ParamSource(seededRandom((this.seed ^ h) >>> 0));
  }

  /** One value through Junction's query service (the user's grants, the run's budget): a count, say. */
  async scalar(sql: string): Promise<Value> {
    this.throwIfCancelled();
    const run = await this.app.junction.startQuery(this.principal, sql, {
      params: [],
      timeoutMs: this.timeoutMs,
      signal: this.signal,
      admission: this.budget,
    });
    let first: Value = null;
    try {
      for await (const batch of run.result.rows) if (batch.length && first === null) first = batch[0][0];
    } finally {
      run.release();
    }
    return first;
  }

  query(id: string): BenchQuery {
    const q = this.def.queries.find((x) => x.id === id);
    if (!q) throw new JunctionError('benchmark_query_unknown', 'user', `The benchmark has no query "${id}".`);
    return q;
  }

  queriesOf(ids: readonly string[] | undefined): BenchQuery[] {
    return ids ? ids.map((id) => this.query(id)) : [...this.def.queries];
  }

  /** Modes a query can run in, among those asked (trino runs the federated SQL, which every query has). */
  can(q: BenchQuery, mode: Mode): boolean {
    return mode === 'federated' || mode === 'trino' || (mode === 'direct' ? !!q.direct : !!q.pushdown);
  }

  throwIfCancelled(): void {
    if (this.signal.aborted) throw cancelled();
  }

  /** The run's native session on a source (closed at its end); refused without the privilege. */
  native(source: string): Promise<NativeSession> {
    return this.#once(this.#native, source, () =>
      this.app.junction.gate.native(this.principal, source, async () => {
        const config = this.app.junction.configOf(await this.app.junction.findSource(source));
        return { ...config, options: { ...config.options, pool: { max: this.budget.max + 2 } } };
      }),
    );
  }

  /** Junction's fixed probes on a source the run's user may read (version, settings, activity). */
  probes(source: string): Promise<ProbeSession> {
    return this.#once(this.#probes, source, () =>
      this.app.junction.gate.probe(this.principal, source, async () =>
        this.app.junction.configOf(await this.app.junction.findSource(source)),
      ),
    );
  }

  #once<T>(map: Map<string, Promise<T>>, source: string, open: () => Promise<T>): Promise<T> {
    let c = map.get(source);
    if (!c) {
      c = open();
      c.catch(() => map.delete(source));
      map.set(source, c);
    }
    return c;
  }

  async close(): Promise<void> {
    this.#agent?.destroy();
    for (const c of [...this.#native.values(), ...this.#probes.values()])
      await (await c.catch(() => null))?.close().catch(() => undefined);
    this.#native.clear();
    this.#probes.clear();
    const t = await this.#token?.catch(() => null);
    if (t) await this.app.db.apiToken.deleteMany({ where: { id: t.id } }).catch(() => undefined);
  }

  #token: Promise<{ id: string; secret: string }> | undefined;

  /** A token of the run's user with the query scope, for the HTTP driver; deleted when the run ends. */
  #httpToken(): Promise<{ id: string; secret: string }> {
    this.#token ??= (async () => {
      const id = randomUUID();
      const secret = `jct_${randomToken(32)}`;
      await this.app.db.apiToken.create({
        data: {
          id,
          userId: this.principal.userId,
          name: `benchmark run (${this.def.name})`.slice(0, 100),
          tokenHash: sha256(secret),
          prefix: secret.slice(0, 10),
          scopes: JSON.stringify(['query']),
        },
      });
      return { id, secret };
    })();
    return this.#token;
  }

  #agent: http.Agent | undefined;

  /**
   * Federated through POST /api/v1/query itself (NDJSON), as a client of the API would: over a
   * keep-alive socket to the server's own address, rows parsed as they arrive. A server that is
   * not listening (an embedding program's, or a test's) is driven through Fastify's inject, and
   * the run's environment says so.
   */
  async #http(sql: string, params: readonly Value[], digest: Digester | undefined, engine: 'local' | 'trino'): Promise<Execution> {
    const { secret } = await this.#httpToken();
    this.throwIfCancelled();
    const headers = {
      authorization: `Bearer ${secret}`,
      accept: 'application/x-ndjson',
      'content-type': 'application/json',
    };
    const payload = JSON.stringify({ sql, params, timeoutMs: this.timeoutMs, engine });
    const address = this.app.server.listening ? (this.app.server.address() as AddressInfo | null) : null;
    const t0 = performance.now();
    let status: number;
    let body = '';
    let bytes = 0;
    let rows = 0;
    const onLine = (line: string): void => {
      if (!line) return;
      if (line.startsWith('[')) {
        rows++;
        digest?.add(JSON.parse(line) as Value[]);
      } else if (line.startsWith('{"error"')) {
        const e = (JSON.parse(line) as { error: { code: string; message: string } }).error;
        throw new JunctionError(e.code, 'external', e.message);
      }
    };
    this.results.environment.http ??= address
      ? `socket ${address.address}:${address.port}`
      : 'inject (server not listening)';
    if (address) {
      this.#agent ??= new http.Agent({ keepAlive: true, maxSockets: this.budget.max });
      ({ status, body, bytes } = await this.#post(address, headers, payload, onLine));
    } else {
      const res = await this.app.inject({ method: 'POST', url: '/api/v1/query', headers, payload });
      status = res.statusCode;
      body = res.body;
      bytes = res.rawPayload.length;
      if (status === 200) for (const line of body.split('\n')) onLine(line);
    }
    const ms = performance.now() - t0;
    if (status !== 200) {
      const err = (() => {
        try {
          return JSON.parse(body) as { code?: string; message?: string };
        } catch {
          return {};
        }
      })();
      throw new JunctionError(err.code ?? 'http_error', 'external', err.message ?? `HTTP ${status}`);
    }
    return { ms, rows, bytes };
  }

  /** One POST over the run's agent; a 200's lines go to onLine as they arrive, any other status's body is returned. */
  #post(
    address: AddressInfo,
    headers: Record<string, string>,
    payload: string,
    onLine: (line: string) => void,
  ): Promise<{ status: number; body: string; bytes: number }> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        req.destroy(cancelled());
      };
      const req = http.request(
        {
          host: address.address,
          port: address.port,
          path: '/api/v1/query',
          method: 'POST',
          agent: this.#agent,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          let bytes = 0;
          let rest = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            bytes += Buffer.byteLength(chunk);
            rest += chunk;
            if (status !== 200) return;
            let nl: number;
            try {
              while ((nl = rest.indexOf('\n')) >= 0) {
                const line = rest.slice(0, nl);
                rest = rest.slice(nl + 1);
                onLine(line);
              }
            } catch (e) {
              res.destroy();
              reject(e);
            }
          });
          res.on('end', () => {
            this.signal.removeEventListener('abort', onAbort);
            try {
              if (status === 200) onLine(rest);
              resolve({ status, body: status === 200 ? '' : rest, bytes });
            } catch (e) {
              reject(e);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', (e) => {
        this.signal.removeEventListener('abort', onAbort);
        reject(this.signal.aborted ? cancelled() : e);
      });
      this.signal.addEventListener('abort', onAbort, { once: true });
      req.end(payload);
    });
  }

  /** One execution; throws what the source or Junction threw. */
  async execute(q: BenchQuery, mode: Mode, params: readonly Value[], digest?: Digester): Promise<Execution> {
    this.throwIfCancelled();
    if (mode === 'direct') return this.#direct(q, params, digest);
    const sql = mode === 'pushdown' ? q.pushdown! : q.federated;
    // trino: the same statement with engine trino; federated and pushdown measure Junction itself,
    // so they say local (a server whose default is auto would otherwise send some to Trino and
    // the columns would compare Trino with Trino). The option wins over a hint in the SQL.
    const engine = mode === 'trino' ? ('trino' as const) : ('local' as const);
    if (this.def.settings.via === 'http') return this.#http(sql, params, digest, engine);
    const abort = new AbortController();
    const onAbort = () => abort.abort(cancelled());
    this.signal.addEventListener('abort', onAbort, { once: true });
    const t0 = performance.now();
    try {
      const run = await this.app.junction.startQuery(this.principal, sql, {
        params: [...params],
        timeoutMs: this.timeoutMs,
        signal: abort.signal,
        admission: this.budget,
        engine,
      });
      let rows = 0;
      let bytes = 0;
      try {
        for await (const batch of run.result.rows) {
          rows += batch.length;
          for (const r of batch) {
            bytes += rowBytes(r);
            digest?.add(r);
          }
        }
      } finally {
        run.release();
      }
      return { ms: performance.now() - t0, rows, bytes };
    } finally {
      this.signal.removeEventListener('abort', onAbort);
    }
  }

  async #direct(q: BenchQuery, params: readonly Value[], digest?: Digester): Promise<Execution> {
    const target = q.direct!;
    const session = await this.native(target.source);
    const release = await this.budget.acquire();
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => undefined as void;
    try {
      this.throwIfCancelled();
      const t0 = performance.now();
      const stop = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new JunctionError('benchmark_timeout', 'timeout', `Direct ${q.id} ran over ${this.timeoutMs} ms.`)),
          this.timeoutMs,
        );
        onAbort = () => reject(cancelled());
        this.signal.addEventListener('abort', onAbort, { once: true });
      });
      // the signal reaches the source too: a cancelled run leaves no statement running there
      const out = await Promise.race([
        session.execute(target.sql, params, { signal: this.signal, timeoutMs: this.timeoutMs }),
        stop,
      ]);
      const ms = performance.now() - t0;
      let bytes = 0;
      for (const r of out.rows) {
        bytes += rowBytes(r);
        digest?.add(r);
      }
      return { ms, rows: out.rows.length, bytes };
    } finally {
      clearTimeout(timer);
      this.signal.removeEventListener('abort', onAbort);
      release();
    }
  }

  /** Runs and records one execution in `rec`; an error is recorded and counted, never thrown (except cancel). */
  async measure(
    q: BenchQuery,
    mode: Mode,
    /** where the execution is recorded, read when it ends (an interval may have turned meanwhile) */
    into: readonly Recorder[] | (() => readonly Recorder[]),
    where: string,
    /** where the parameters come from (the run's shared stream by default) */
    from: ParamSource = this.params,
  ): Promise<Execution | null> {
    const recs = () => (typeof into === 'function' ? into() : into);
    const params = from.next(q);
    try {
      const e = await this.execute(q, mode, params);
      for (const r of recs()) r.record(e.ms, e.rows, e.bytes);
      this.progress.executions++;
      return e;
    } catch (err) {
      if (this.signal.aborted) throw cancelled();
      for (const r of recs()) r.error();
      this.progress.errors++;
      this.noteError(where, q.id, mode, err);
      return null;
    }
  }

  noteError(phase: string, query: string, mode: Mode, err: unknown): void {
    if (this.results.errors.length >= 200) return;
    this.results.errors.push({
      phase,
      query,
      mode,
      code: isJunctionError(err) ? err.code : 'error',
      message: err instanceof Error ? err.message.slice(0, 500) : String(err).slice(0, 500),
      t: (Date.now() - this.started) / 1000,
    });
  }

  /** A results.queries entry for a query in a phase, with its answer check. */
  entry(q: string, phase: string, phaseIndex: number, type: string): QueryResultEntry {
    const check = this.results.answers[q];
    const equivalent = check ? check.equivalent : null;
    const e: QueryResultEntry = {
      query: q,
      phase,
      phaseIndex,
      type,
      direct: null,
      pushdown: null,
      federated: null,
      trino: null,
      equivalent,
      ...(check?.trino ? { trinoEquivalent: check.trino.equivalent } : {}),
      failed: equivalent === false || check?.trino?.equivalent === false,
    };
    this.results.queries.push(e);
    return e;
  }

  setStep(step: string | null): void {
    this.progress.step = step;
  }
}

export type PhaseRunner<P> = (ctx: RunContext, phase: P, index: number, label: string) => Promise<void>;
