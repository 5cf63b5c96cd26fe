import {
  JunctionError,
  type Batch,
  type Connector,
  type RemoteQuery,
  type RenderedQuery,
  type SourceHealth,
  type StreamOptions,
} from '@junction/connectors';

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
 * A query over its share waits only while that costs nobody: briefly, not at all while the
 * source is degraded, and no longer once another query is queued for a global slot. A query
 * waiting here already holds a global admission slot, so waiting on regardless would bring the
 * starvation back by another door. It fails with 503 source_busy and Retry-After instead.
 */
export class SourceShare {
  readonly #holders = new Map<object, number>();
  readonly #queue: Waiter[] = [];
  #health: SourceHealth = { status: 'ok' };

  constructor(
    readonly source: string,
    readonly limit: number,
    readonly waitMs: number,
    /** true while other queries wait for a global slot */
    readonly pressure: () => boolean = () => false,
  ) {}

  get active(): number {
    return this.#holders.size;
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
    if (held !== undefined) this.#holders.set(key, held + 1);
    else if (this.#holders.size < this.limit) this.#holders.set(key, 1);
    else await this.#wait(key, signal);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#leave(key);
    };
  }

  #leave(key: object): void {
    const n = (this.#holders.get(key) ?? 1) - 1;
    if (n > 0) {
      this.#holders.set(key, n);
      return;
    }
    this.#holders.delete(key);
    const next = this.#queue.shift();
    if (next) {
      this.#holders.set(next.key, 1);
      next.resolve();
    }
  }

  #wait(key: object, signal?: AbortSignal): Promise<void> {
    if (this.#health.status === 'degraded' || this.waitMs <= 0 || this.pressure()) return Promise.reject(this.#busy());
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
      const watch = setInterval(() => {
        if (this.pressure()) waiter.reject(this.#busy());
      }, 20);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
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
