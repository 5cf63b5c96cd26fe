/**
 * The shadow catalog: an embedded PostgreSQL (PGlite) holding, as empty tables and views, the
 * relations a caller may see, so that the pg_catalog and information_schema questions clients
 * ask (psql's \d, pgjdbc's DatabaseMetaData, DBeaver, Metabase) get PostgreSQL's own answers,
 * byte for byte.
 *
 * PGlite takes seconds and hundreds of MB to start and answers with synchronous WebAssembly
 * calls, so it lives in one worker thread for the whole server, started on first use and ended
 * after an idle period to give its memory back. Requests go to it one at a time, each with the
 * caller's catalog; the worker reloads only when the catalog differs from the one it holds.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { WorkerMessage, WorkerRequest, WorkerResult } from './shadow-worker.js';

export interface ShadowColumn {
  readonly name: string;
  /** SQL type text as PostgreSQL reads it: 'integer', 'numeric(15,2)', 'character varying(152)', 'timestamp with time zone', … */
  readonly pgType: string;
  /** ignored for views: a view's columns have no NOT NULL in PostgreSQL */
  readonly nullable: boolean;
}

export interface ShadowRelation {
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view';
  readonly columns: readonly ShadowColumn[];
  /** tables only */
  readonly primaryKey?: readonly string[];
  readonly comment?: string;
}

export interface ShadowCatalog {
  readonly relations: readonly ShadowRelation[];
  readonly searchPath: readonly string[];
}

export type ShadowReply =
  /** one complete ErrorResponse message, bytes as PostgreSQL sent them */
  | { readonly error: Uint8Array }
  | {
      /** null: the statement returns no rows (NoData) */
      readonly rowDescription: Uint8Array | null;
      /** complete DataRow messages */
      readonly rows: readonly Uint8Array[];
      /** the CommandComplete message (EmptyQueryResponse for an empty statement) */
      readonly complete: Uint8Array;
    };

export interface CatalogShadowOptions {
  /** end the worker after this long without requests (default 10 minutes) */
  readonly idleMs?: number;
  /**
   * a request not answered within this long ends the worker, so that one endless statement
   * (PGlite has no statement_timeout: it cannot interrupt its own WebAssembly) does not hold up
   * every other caller (default 30 s)
   */
  readonly timeoutMs?: number;
}

const DEFAULT_IDLE_MS = 10 * 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** PGlite's start: 1.5–4 s measured, far more on a loaded machine. */
const START_TIMEOUT_MS = 120_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Request = DistributiveOmit<WorkerRequest, 'id' | 'key' | 'catalog'>;

interface Task {
  readonly request: Request;
  readonly catalog: ShadowCatalog;
  readonly key: string;
  readonly resolve: (r: WorkerResult) => void;
  readonly reject: (e: Error) => void;
}

/** One worker thread and its PGlite; once it fails it is never used again. */
class ShadowWorker {
  readonly #worker: Worker;
  readonly ready: Promise<string>;
  #dead: Error | undefined;
  #current:
    { id: number; resolve: (m: WorkerMessage) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #startFailed: (e: Error) => void = () => undefined;
  #ended: Promise<unknown> | undefined;
  /** the catalog the worker holds, so a request for the same one need not carry it */
  loadedKey: string | undefined;

  constructor() {
    this.#worker = new Worker(new URL('./shadow-boot.mjs', import.meta.url));
    this.ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new Error(`the shadow catalog's PostgreSQL did not start within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      this.#worker.once('message', (m: WorkerMessage) => {
        clearTimeout(timer);
        if (m.type === 'ready') resolve(m.version);
        else
          void this.fail(
            new Error(`the shadow catalog's PostgreSQL did not start: ${m.type === 'failed' ? m.message : m.type}`),
          );
      });
      this.#startFailed = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
    // nobody may be waiting yet; a failed start is reported to whoever awaits ready
    this.ready.catch(() => undefined);
    this.#worker.on('error', (e) => this.fail(new Error(`the shadow catalog's worker failed: ${e.message}`)));
    this.#worker.on('exit', (code) => this.fail(new Error(`the shadow catalog's worker ended (exit code ${code})`)));
    this.#worker.on('messageerror', (e) =>
      this.fail(new Error(`the shadow catalog's worker sent an unreadable message: ${e.message}`)),
    );
    this.#worker.on('message', (m: WorkerMessage) => {
      if ((m.type === 'reply' || m.type === 'error') && this.#current?.id === m.id) {
        const current = this.#current;
        this.#current = undefined;
        clearTimeout(current.timer);
        this.loadedKey = m.loadedKey;
        current.resolve(m);
      }
    });
  }

  get dead(): boolean {
    return this.#dead !== undefined;
  }

  /** Ends the worker; whatever waits on it is rejected with `reason`. Resolves once the thread (and its memory) is gone. */
  fail(reason: Error): Promise<unknown> {
    if (this.#ended) return this.#ended;
    this.#dead = reason;
    this.#startFailed(reason);
    if (this.#current) {
      clearTimeout(this.#current.timer);
      this.#current.reject(reason);
      this.#current = undefined;
    }
    this.#ended = this.#worker.terminate().catch(() => undefined);
    return this.#ended;
  }

  request(request: DistributiveOmit<WorkerRequest, 'id'>, timeoutMs: number): Promise<WorkerMessage> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<WorkerMessage>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new Error(`the shadow catalog did not answer within ${timeoutMs} ms; its worker was ended`)),
        timeoutMs,
      );
      this.#current = { id, resolve, reject, timer };
      this.#worker.ref();
      this.#worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  /** An idle worker must not keep the process alive. */
  idle(): void {
    this.#worker.unref();
  }
}

export class CatalogShadow {
  readonly #idleMs: number;
  readonly #timeoutMs: number;
  #worker: ShadowWorker | undefined;
  #queue: Task[] = [];
  #running = false;
  #idleTimer: NodeJS.Timeout | undefined;
  /** the same catalog object is hashed once (callers keep one per user for a while) */
  readonly #keys = new WeakMap<ShadowCatalog, string>();

  constructor(options: CatalogShadowOptions = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Simple-query protocol: the bytes PostgreSQL would send for a Query message of `sql` (may hold several statements), without the final ReadyForQuery. */
  async simpleQuery(catalog: ShadowCatalog, sql: string): Promise<Uint8Array> {
    const r = await this.#run(catalog, { op: 'simple', sql });
    if (!('bytes' in r)) throw new Error('the shadow catalog answered a query with something else');
    return r.bytes;
  }

  /** Parse + Describe(statement): the parameter type OIDs and the RowDescription message (null = NoData), or the error. */
  async describe(
    catalog: ShadowCatalog,
    sql: string,
    paramTypeOids: readonly number[],
  ): Promise<
    { readonly error: Uint8Array } | { readonly paramOids: number[]; readonly rowDescription: Uint8Array | null }
  > {
    const r = await this.#run(catalog, { op: 'describe', sql, paramTypeOids: [...paramTypeOids] });
    if ('error' in r) return { error: r.error };
    if (!('paramOids' in r)) throw new Error('the shadow catalog answered a describe with something else');
    return { paramOids: r.paramOids, rowDescription: r.rowDescription };
  }

  /**
   * Parse + Bind + Describe(portal) + Execute(0) + Sync run as one unit. params are the
   * client's raw parameter bytes (null = SQL NULL) in the client's paramFormats (0 text,
   * 1 binary; PostgreSQL's rules: empty = all text, one = applies to all); resultFormats likewise.
   * Notices are left out, and so are rows sent before an error: the error is the answer.
   */
  async execute(
    catalog: ShadowCatalog,
    sql: string,
    paramTypeOids: readonly number[],
    paramFormats: readonly number[],
    params: readonly (Uint8Array | null)[],
    resultFormats: readonly number[],
  ): Promise<ShadowReply> {
    const r = await this.#run(catalog, {
      op: 'execute',
      sql,
      paramTypeOids: [...paramTypeOids],
      paramFormats: [...paramFormats],
      // copies: a client's value is often a view of a large socket buffer, which would be cloned whole
      params: params.map((p) => (p === null ? null : new Uint8Array(p))),
      resultFormats: [...resultFormats],
    });
    if ('error' in r) return { error: r.error };
    if (!('rows' in r)) throw new Error('the shadow catalog answered an execute with something else');
    return { rowDescription: r.rowDescription, rows: r.rows, complete: r.complete };
  }

  /** The server_version string of the embedded PostgreSQL (e.g. "18.6"), for ParameterStatus. Starts the worker if needed. */
  async serverVersion(): Promise<string> {
    const worker = this.#ensureWorker();
    try {
      return await worker.ready;
    } finally {
      this.#settle();
    }
  }

  /** Ends the worker now (pending calls are rejected); the next call starts a new one. */
  async close(): Promise<void> {
    const reason = new Error('the shadow catalog was closed');
    this.#failQueue(reason);
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.fail(reason);
  }

  #key(catalog: ShadowCatalog): string {
    let key = this.#keys.get(catalog);
    if (key === undefined) {
      key = createHash('sha256')
        .update(JSON.stringify({ relations: catalog.relations, searchPath: catalog.searchPath }))
        .digest('base64url');
      this.#keys.set(catalog, key);
    }
    return key;
  }

  #run(catalog: ShadowCatalog, request: Request): Promise<WorkerResult> {
    const key = this.#key(catalog);
    return new Promise<WorkerResult>((resolve, reject) => {
      this.#queue.push({ request, catalog, key, resolve, reject });
      void this.#drain();
    });
  }

  #ensureWorker(): ShadowWorker {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (!this.#worker || this.#worker.dead) this.#worker = new ShadowWorker();
    return this.#worker;
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const worker = this.#ensureWorker();
        try {
          await worker.ready;
        } catch (e) {
          // a PostgreSQL that cannot start fails everyone waiting; after close() the calls made
          // since go to a new worker
          if (this.#worker === worker) this.#failQueue(e as Error);
          continue;
        }
        const task = this.#queue.shift();
        if (!task) break;
        try {
          const reply = await worker.request(
            {
              ...task.request,
              key: task.key,
              ...(worker.loadedKey === task.key ? {} : { catalog: task.catalog }),
            } as DistributiveOmit<WorkerRequest, 'id'>,
            this.#timeoutMs,
          );
          if (reply.type === 'reply') {
            task.resolve(reply.result);
            // the answer stands; the calls behind it go to a new worker
            if (reply.poisoned)
              void worker.fail(new Error('a statement changed the shadow catalog for good; its worker was ended'));
          } else if (reply.type === 'error') {
            const error = new Error(reply.message);
            task.reject(error);
            if (reply.fatal) {
              void worker.fail(new Error(`the shadow catalog's PostgreSQL failed: ${reply.message}`));
              this.#failQueue(error);
            }
          }
        } catch (e) {
          task.reject(e as Error);
          if (this.#worker === worker) this.#failQueue(e as Error);
        }
      }
    } finally {
      this.#running = false;
      this.#settle();
    }
  }

  #failQueue(e: Error): void {
    for (const t of this.#queue.splice(0)) t.reject(e);
  }

  /** With nothing left to do, the worker stops holding the process and ends after the idle period. */
  #settle(): void {
    if (this.#running || this.#queue.length > 0 || !this.#worker) return;
    const worker = this.#worker;
    worker.idle();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#worker !== worker || this.#running || this.#queue.length > 0) return;
      this.#worker = undefined;
      void worker.fail(new Error('the shadow catalog was idle'));
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}
