import {
  JunctionError,
  type Batch,
  type Connector,
  type RemoteQuery,
  type RenderedQuery,
  type SourceHealth,
  type StreamOptions,
} from '@junction/connectors';

/** a stall is this many usual release intervals without a release */
const STALL_INTERVALS = 4;
/** ...but never shorter than this (timer granularity, scheduling noise) */
const MIN_STALL_MS = 200;

interface Waiter {
  key: object;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * A source's share of the server: how many queries may have statements running on it at once.
 *
 * Why: global admission counts queries, not sources. When one source hangs (SIGSTOP, a dead
 * network path) every query that touches it sits until its timeout, and enough of them take
 * every global slot, so users of healthy sources get 429/503. Capping each source at a share
 * of the slots bounds what one source can hold; the rest of the server stays usable.
 *
 * Counted per query (keyed by the query's AbortSignal, which the engine hands to every
 * statement of one query), so a query that reads the same source twice (a dependent join,
 * a prefetching join) takes one share, and cannot deadlock against itself.
 *
 * A query over its share waits for one to come free, up to `waitMs`, but not at all while the
 * source is degraded, and not once the source has stalled while other queries queue for a global
 * slot: a query waiting here already holds a global admission slot, so waiting on a source that
 * makes no progress would bring the starvation back by another door. Stalled means no share came
 * free for several times the interval at which shares usually come free on this source (learned
 * from the holds that ended, so a busy healthy source with long queries is given the patience it
 * needs, and a source that answered in milliseconds and then froze is noticed in a fraction of a
 * second). Refused waiters get 503 source_busy with Retry-After.
 */
export class SourceShare {
  /** per query holding a share: how many of its statements hold it, and since when */
  readonly #holders = new Map<object, { n: number; since: number }>();
  readonly #queue: Waiter[] = [];
  #health: SourceHealth = { status: 'ok' };
  /** when a share was last taken or given back */
  #lastChange = performance.now();
  /** moving average of how long a query holds its share, in ms */
  #avgHoldMs = 0;

  constructor(
    readonly source: string,
    readonly limit: number,
    readonly waitMs: number,
    /** true while other queries wait for a global slot */
    readonly pressure: () => boolean = () => false,
  ) {}

  /**
   * True when the source gives no share back for much longer than it usually does. Why the
   * average hold divided by the limit: with `limit` queries holding shares for `avg` ms each, one
   * comes free about every avg/limit ms.
   */
  get stalled(): boolean {
    if (this.#holders.size < this.limit) return false;
    const usual = this.#avgHoldMs / this.limit;
    return performance.now() - this.#lastChange > Math.max(MIN_STALL_MS, STALL_INTERVALS * usual);
  }

  get active(): number {
    return this.#holders.size;
  }

  /** queries waiting for a share */
  get waiting(): number {
    return this.#queue.length;
  }

  get health(): SourceHealth {
    return this.#health;
  }

  set health(h: SourceHealth) {
    this.#health = h;
    if (h.status === 'degraded') {
      // nobody waits on a source that does not answer
      for (const w of this.#queue.splice(0)) w.reject(this.#busy());
    }
  }

  /** Takes the query's share (or joins the one it holds); resolves with its release. */
  async enter(key: object, signal?: AbortSignal): Promise<() => void> {
    const held = this.#holders.get(key);
    if (held !== undefined) held.n++;
    else if (this.#holders.size < this.limit) this.#take(key);
    else await this.#wait(key, signal);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#leave(key);
    };
  }

  #take(key: object): void {
    this.#lastChange = performance.now();
    this.#holders.set(key, { n: 1, since: this.#lastChange });
  }

  #leave(key: object): void {
    const held = this.#holders.get(key);
    if (!held) return;
    if (--held.n > 0) return;
    this.#holders.delete(key);
    const ms = performance.now() - held.since;
    this.#avgHoldMs = this.#avgHoldMs === 0 ? ms : 0.9 * this.#avgHoldMs + 0.1 * ms;
    this.#lastChange = performance.now();
    const next = this.#queue.shift();
    if (next) {
      this.#take(next.key);
      next.resolve();
    }
  }

  #wait(key: object, signal?: AbortSignal): Promise<void> {
    if (this.#health.status === 'degraded' || this.waitMs <= 0 || this.#hopeless()) return Promise.reject(this.#busy());
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        clearInterval(watch);
        signal?.removeEventListener('abort', onAbort);
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
      };
      const waiter: Waiter = {
        key,
        resolve: () => {
          done();
          resolve();
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      const onAbort = (): void => waiter.reject(signal?.reason ?? this.#busy());
      const timer = setTimeout(() => waiter.reject(this.#busy()), this.waitMs);
      // every waiter is given up on at once: the first one's slot would relieve the pressure and
      // leave the others waiting on a source that still gives nothing back
      const watch = setInterval(() => {
        if (this.#hopeless()) for (const w of this.#queue.splice(0)) w.reject(this.#busy());
      }, 20);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** waiting costs others a global slot and the source is not giving shares back */
  #hopeless(): boolean {
    return this.stalled && this.pressure();
  }

  #busy(): JunctionError {
    const h = this.#health;
    const why = h.status === 'degraded' ? ` and is not answering (${h.reason})` : '';
    return new JunctionError(
      'source_busy',
      'resources',
      `Source "${this.source}" is already running its share of ${this.limit} queries${why}; retry shortly.`,
      { details: { source: this.source, limit: this.limit, retryAfterSeconds: 1 } },
    );
  }
}

/** The connector as the engine sees it: every statement passes its source's share first. */
export class SharedConnector implements Connector {
  constructor(
    readonly inner: Connector,
    readonly share: SourceShare,
  ) {}
  get name(): string {
    return this.inner.name;
  }
  get engine(): Connector['engine'] {
    return this.inner.engine;
  }
  capabilities(): ReturnType<Connector['capabilities']> {
    return this.inner.capabilities();
  }
  render(query: RemoteQuery): RenderedQuery {
    return this.inner.render(query);
  }
  test(): ReturnType<Connector['test']> {
    return this.inner.test();
  }
  probe(): ReturnType<Connector['probe']> {
    return this.inner.probe();
  }
  introspect(): ReturnType<Connector['introspect']> {
    return this.inner.introspect();
  }
  execute(...args: Parameters<Connector['execute']>): ReturnType<Connector['execute']> {
    return this.inner.execute(...args);
  }
  bulkLoad(...args: Parameters<Connector['bulkLoad']>): ReturnType<Connector['bulkLoad']> {
    return this.inner.bulkLoad(...args);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const leave = await this.share.enter(options.signal ?? {}, options.signal);
    try {
      yield* this.inner.stream(query, options);
    } finally {
      leave();
    }
  }
}
