import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

/** The tasks worker.ts exports: one per operator that has a worker path. */
export type WorkerTask = 'probe' | 'aggregate';

/**
 * The worker threads large hash joins and hash aggregates run in: one pool per Engine,
 * sized to the cores, closed by Engine.close(). Workers load TypeScript through tsx,
 * registered by boot.mjs.
 */
export class WorkerPool {
  private readonly pool: Piscina;
  private readonly maxThreads: number;
  constructor(size: number = availableParallelism()) {
    this.maxThreads = Math.max(1, size);
    this.pool = new Piscina({
      filename: new URL('./boot.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: Math.max(1, size),
      idleTimeout: 30_000,
    });
    // a task aborted while running (a cancelled query) may still answer; Piscina reports that
    // answer as an 'error' event, which must not crash the server: the result is dropped
    this.pool.on('error', () => undefined);
  }

  private started = false;
  private starting: Promise<unknown> | undefined;

  /**
   * true when every thread is up. Otherwise starts them in the background and answers
   * false: a thread takes about a second to start (tsx compiles the task modules), longer
   * than aggregating a few hundred thousand rows in-thread, so a caller that need not wait
   * should not. Threads idle for 30 s end, and the next call starts them again.
   */
  ready(): boolean {
    if (this.started && this.pool.threads.length >= this.maxThreads) return true;
    this.started = false;
    this.starting ??= Promise.all(Array.from({ length: this.maxThreads }, () => this.pool.run(null, { name: 'ping' }))).then(
      () => {
        this.started = true;
        this.starting = undefined;
      },
      () => {
        this.starting = undefined;
      },
    );
    return false;
  }

  run<T>(name: WorkerTask, task: unknown, transferList: ArrayBuffer[], signal?: AbortSignal): Promise<T> {
    return this.pool.run(task, { name, transferList: transferList as never, signal }) as Promise<T>;
  }

  get size(): number {
    return this.maxThreads;
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
