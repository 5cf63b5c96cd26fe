/**
 * The shadow catalog: an embedded PostgreSQL (PGlite) holding, as empty tables and views, the
 * relations a caller may see, so that the pg_catalog and information_schema questions clients
 * ask (psql's \d, pgjdbc's DatabaseMetaData, DBeaver, Metabase) get PostgreSQL's own answers,
 * byte for byte.
 *
 * PGlite takes seconds and hundreds of MB to start and answers with synchronous WebAssembly
 * calls, so it lives in one child process for the whole server (shadow-boot.mjs, then
 * shadow-worker.ts), started on first use and ended after an idle period to give its memory
 * back. A process, not a worker thread: the C allocator kept about half of a worker's 500 MB in
 * the server after the thread ended, whereas a process's memory goes back to the system whole.
 * Requests go to it one at a time, each with the caller's catalog; the process reloads only when
 * the catalog differs from the one it holds.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
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
  /** end the process after this long without requests (default 10 minutes) */
  readonly idleMs?: number;
  /**
   * a request not answered within this long ends the process, so that one endless statement
   * (PGlite has no statement_timeout: it cannot interrupt its own WebAssembly) does not hold up
   * every other caller (default 30 s)
   */
  readonly timeoutMs?: number;
}

const DEFAULT_IDLE_MS = 10 * 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** PGlite's start: 1.5–4 s measured, far more on a loaded machine. */
const START_TIMEOUT_MS = 120_000;
/** How much of the process's output (stdout and stderr) is kept to tell why it failed. */
const OUTPUT_TAIL_BYTES = 4096;
/**
 * The only variables the process is given: where temporary files go (tsx's cache; SystemRoot,
 * without which Node on Windows fails), glibc's arena limit (`npm start` sets one) and tsx's
 * own. Nothing else of the server's (its secrets, NODE_OPTIONS) reaches it; PGlite reads none.
 */
const CHILD_ENV = ['TMPDIR', 'TMP', 'TEMP', 'SystemRoot', 'MALLOC_ARENA_MAX', 'TSX_TSCONFIG_PATH', 'TSX_DISABLE_CACHE'];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Request = DistributiveOmit<WorkerRequest, 'id' | 'key' | 'catalog'>;

interface Task {
  readonly request: Request;
  readonly catalog: ShadowCatalog;
  readonly key: string;
  readonly resolve: (r: WorkerResult) => void;
  readonly reject: (e: Error) => void;
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of CHILD_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** One child process and its PGlite; once it fails it is never used again. */
class ShadowProcess {
  readonly #child: ChildProcess;
  readonly ready: Promise<string>;
  #dead: Error | undefined;
  #current:
    { id: number; resolve: (m: WorkerMessage) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #startFailed: (e: Error) => void = () => undefined;
  /** resolves once the process has exited and its output is all read */
  readonly #closed: Promise<void>;
  #ended: Promise<unknown> | undefined;
  #output: Buffer[] = [];
  #outputBytes = 0;
  /** the catalog the process holds, so a request for the same one need not carry it */
  loadedKey: string | undefined;

  constructor() {
    this.#child = fork(fileURLToPath(new URL('./shadow-boot.mjs', import.meta.url)), [], {
      // shadow-boot.mjs registers tsx itself; the server's flags (an --inspect port) are not for it
      execArgv: [],
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Uint8Arrays cross as Uint8Arrays (JSON would make objects of them)
      serialization: 'advanced',
      windowsHide: true,
    });
    this.ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          void this.fail(
            new Error(`the shadow catalog's PostgreSQL did not start within ${START_TIMEOUT_MS} ms`),
            true,
          ),
        START_TIMEOUT_MS,
      );
      this.#child.once('message', (m: WorkerMessage) => {
        clearTimeout(timer);
        if (m.type === 'ready') resolve(m.version);
        else
          void this.fail(
            new Error(`the shadow catalog's PostgreSQL did not start: ${m.type === 'failed' ? m.message : m.type}`),
            true,
          );
      });
      this.#startFailed = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
    // nobody may be waiting yet; a failed start is reported to whoever awaits ready
    this.ready.catch(() => undefined);
    // the output is read all along (a full pipe would stop the process) but only its tail kept;
    // the pipes never hold the server's event loop, the process and its channel do (hold())
    for (const stream of [this.#child.stdout, this.#child.stderr] as (Socket | null)[]) {
      stream?.on('data', (chunk: Buffer) => this.#keep(chunk));
      stream?.unref();
    }
    this.#closed = new Promise<void>((resolve) => {
      let grace: NodeJS.Timeout | undefined;
      const closed = () => {
        clearTimeout(grace);
        // ended by nobody here: it crashed (out of memory, killed from outside)
        if (!this.#dead) {
          const { exitCode, signalCode } = this.#child;
          const tail = this.#tail().slice(-1000);
          void this.fail(
            new Error(
              `the shadow catalog's process ended (${signalCode ? `signal ${signalCode}` : `exit code ${exitCode}`})${tail ? `: ${tail}` : ''}`,
            ),
            true,
          );
        }
        resolve();
      };
      this.#child.once('close', closed);
      // 'close' waits for the output pipes too, which a process the child started (tsx's esbuild)
      // may hold a moment longer; the exit is what counts
      this.#child.once('exit', () => {
        grace = setTimeout(closed, 1000);
      });
    });
    this.#child.on(
      'error',
      (e) => void this.fail(new Error(`the shadow catalog's process failed: ${e.message}`), true),
    );
    this.#child.on('message', (m: WorkerMessage) => {
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

  /**
   * Ends the process; whatever waits on it is rejected with `reason`. Resolves once the process
   * (and its memory) is gone. A `failure` (not a close, an idle end or a poisoned catalog) also
   * writes what the process last printed to the server's stderr.
   */
  fail(reason: Error, failure = false): Promise<unknown> {
    if (this.#ended) return this.#ended;
    this.#dead = reason;
    this.#startFailed(reason);
    if (this.#current) {
      clearTimeout(this.#current.timer);
      this.#current.reject(reason);
      this.#current = undefined;
    }
    const child = this.#child;
    // until it has exited (and is reaped), the process holds the server's event loop
    this.#hold(true);
    for (const stream of [child.stdout, child.stderr] as (Socket | null)[]) stream?.ref();
    // SIGKILL: the process holds nothing to save, and one stuck in WebAssembly would not see a gentler signal
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const gone = child.pid === undefined ? Promise.resolve() : this.#closed;
    this.#ended = gone.then(() => {
      const tail = this.#tail();
      if (failure && tail)
        process.stderr.write(
          reason.message.endsWith(tail)
            ? `${reason.message}\n`
            : `${reason.message}\nthe shadow catalog's process wrote:\n${tail}\n`,
        );
      this.#output = [];
    });
    return this.#ended;
  }

  request(request: DistributiveOmit<WorkerRequest, 'id'>, timeoutMs: number): Promise<WorkerMessage> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<WorkerMessage>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          void this.fail(
            new Error(`the shadow catalog did not answer within ${timeoutMs} ms; its process was ended`),
            true,
          ),
        timeoutMs,
      );
      this.#current = { id, resolve, reject, timer };
      this.#hold(true);
      this.#child.send({ ...request, id } as WorkerRequest, (e) => {
        if (e) void this.fail(new Error(`the shadow catalog's process could not be reached: ${e.message}`), true);
      });
    });
  }

  /** An idle process must not keep the server alive. */
  idle(): void {
    this.#hold(false);
  }

  #hold(on: boolean): void {
    if (on) {
      this.#child.ref();
      this.#child.channel?.ref();
    } else {
      this.#child.unref();
      this.#child.channel?.unref();
    }
  }

  #keep(chunk: Buffer): void {
    this.#output.push(chunk);
    this.#outputBytes += chunk.length;
    while (this.#output.length > 1 && this.#outputBytes - this.#output[0]!.length >= OUTPUT_TAIL_BYTES)
      this.#outputBytes -= this.#output.shift()!.length;
  }

  #tail(): string {
    const all = Buffer.concat(this.#output);
    return all
      .subarray(Math.max(0, all.length - OUTPUT_TAIL_BYTES))
      .toString('utf8')
      .trim();
  }
}

export class CatalogShadow {
  readonly #idleMs: number;
  readonly #timeoutMs: number;
  #process: ShadowProcess | undefined;
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
      // no copies needed: a client's value is often a view of a large socket buffer, and the
      // channel's serializer sends a view's own bytes only
      params: [...params],
      resultFormats: [...resultFormats],
    });
    if ('error' in r) return { error: r.error };
    if (!('rows' in r)) throw new Error('the shadow catalog answered an execute with something else');
    return { rowDescription: r.rowDescription, rows: r.rows, complete: r.complete };
  }

  /** The server_version string of the embedded PostgreSQL (e.g. "18.6"), for ParameterStatus. Starts the process if needed. */
  async serverVersion(): Promise<string> {
    const shadow = this.#ensureProcess();
    try {
      return await shadow.ready;
    } finally {
      this.#settle();
    }
  }

  /** Ends the process now (pending calls are rejected) and waits until it is gone; the next call starts a new one. */
  async close(): Promise<void> {
    const reason = new Error('the shadow catalog was closed');
    this.#failQueue(reason);
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const shadow = this.#process;
    this.#process = undefined;
    await shadow?.fail(reason);
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

  #ensureProcess(): ShadowProcess {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (!this.#process || this.#process.dead) this.#process = new ShadowProcess();
    return this.#process;
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const shadow = this.#ensureProcess();
        try {
          await shadow.ready;
        } catch (e) {
          // a PostgreSQL that cannot start fails everyone waiting; after close() the calls made
          // since go to a new process
          if (this.#process === shadow) this.#failQueue(e as Error);
          continue;
        }
        const task = this.#queue.shift();
        if (!task) break;
        try {
          const reply = await shadow.request(
            {
              ...task.request,
              key: task.key,
              ...(shadow.loadedKey === task.key ? {} : { catalog: task.catalog }),
            } as DistributiveOmit<WorkerRequest, 'id'>,
            this.#timeoutMs,
          );
          if (reply.type === 'reply') {
            task.resolve(reply.result);
            // the answer stands; the calls behind it go to a new process
            if (reply.poisoned)
              void shadow.fail(new Error('a statement changed the shadow catalog for good; its process was ended'));
          } else if (reply.type === 'error') {
            const error = new Error(reply.message);
            task.reject(error);
            if (reply.fatal) {
              void shadow.fail(new Error(`the shadow catalog's PostgreSQL failed: ${reply.message}`), true);
              this.#failQueue(error);
            }
          }
        } catch (e) {
          task.reject(e as Error);
          if (this.#process === shadow) this.#failQueue(e as Error);
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

  /** With nothing left to do, the process stops holding the server's event loop and ends after the idle period. */
  #settle(): void {
    if (this.#running || this.#queue.length > 0 || !this.#process) return;
    const shadow = this.#process;
    shadow.idle();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#process !== shadow || this.#running || this.#queue.length > 0) return;
      this.#process = undefined;
      void shadow.fail(new Error('the shadow catalog was idle'));
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}
