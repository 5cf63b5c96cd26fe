import { JunctionError } from '@junction/connectors';

/** How many may run at once, how many more may wait, and for how long. */
export interface QueueLimit {
  readonly maxConcurrent: number;
  readonly maxQueued: number;
  readonly queueTimeoutMs: number;
}

export interface AdmissionLimits {
  /** queries running at once over all users */
  readonly maxConcurrent: number;
  /** queries waiting for a slot; beyond that the server answers 503 at once */
  readonly maxQueued: number;
  /** how long a query waits in the queue before 503 */
  readonly queueTimeoutMs: number;
  /** queries one user (or token, or role member, lib/limits.ts) may run at once by default */
  readonly perUser: number;
  /** queries of one user that may wait for one of those slots; beyond that 429 at once */
  readonly perUserQueued: number;
  /** how long such a query waits before 429 */
  readonly perUserQueueTimeoutMs: number;
}

/** One principal's count: whose it is, which setting applies (for the error), and the setting. */
export interface Bucket {
  readonly key: string;
  readonly scope: 'token' | 'user' | 'role' | 'default';
  readonly limit: QueueLimit;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Slots and a FIFO of waiters: the shape of both the server's queue and each principal's. */
class Line {
  running = 0;
  readonly waiters: Waiter[] = [];
  constructor(public limit: QueueLimit) {}

  get idle(): boolean {
    return this.running === 0 && this.waiters.length === 0;
  }

  /** Resolves when a slot is this caller's; rejects with `refuse()` when the line is full or the wait is over. */
  enter(refuse: () => JunctionError, signal?: AbortSignal): Promise<void> | undefined {
    if (this.waiters.length === 0 && this.running < this.limit.maxConcurrent) {
      this.running++;
      return undefined; // no promise: the common case costs no microtask
    }
    if (this.waiters.length >= this.limit.maxQueued) return Promise.reject(refuse());
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#drop(waiter);
          reject(refuse());
        }, this.limit.queueTimeoutMs),
      };
      if (signal) {
        // a client that gave up while waiting leaves the line at once
        waiter.signal = signal;
        waiter.onAbort = () => {
          this.#drop(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  #drop(w: Waiter): void {
    clearTimeout(w.timer);
    if (w.onAbort) w.signal!.removeEventListener('abort', w.onAbort);
    const i = this.waiters.indexOf(w);
    if (i >= 0) this.waiters.splice(i, 1);
  }

  leave(): void {
    this.running--;
    this.pump();
  }

  /** Hands free slots to waiters, oldest first (after a release, or a raised limit). */
  pump(): void {
    while (this.waiters.length > 0 && this.running < this.limit.maxConcurrent) {
      const next = this.waiters.shift()!;
      this.#drop(next);
      this.running++;
      next.resolve();
    }
  }
}

/**
 * Admission control in two stages. First the caller's own limit (its token's, its user's, its
 * role's or the default, resolved by lib/limits.ts): over it, the query waits in that
 * principal's bounded queue for up to its queueTimeoutMs, then gets 429
 * user_concurrency_limit with Retry-After. Then the server-wide limit: a bounded FIFO queue,
 * then 503 server_busy with Retry-After. The first stage keeps one caller's burst from filling
 * the server's queue; the second keeps the server from running more than it can.
 */
export class Admission {
  readonly #server: Line;
  readonly #principals = new Map<string, Line>();

  constructor(readonly limits: AdmissionLimits) {
    this.#server = new Line(limits);
  }

  get running(): number {
    return this.#server.running;
  }
  get queued(): number {
    return this.#server.waiters.length;
  }
  /** Queries waiting on one principal's limit (key as in Bucket). */
  waitingFor(key: string): number {
    return this.#principals.get(key)?.waiters.length ?? 0;
  }
  /** The server-wide limit now in force. */
  get server(): QueueLimit {
    return this.#server.limit;
  }

  /** A changed server-wide limit applies at once: a raised one lets waiters in. */
  setServer(limit: QueueLimit): void {
    this.#server.limit = limit;
    this.#server.pump();
  }

  /** The default bucket of a user, for callers that have no resolved limits (and tests). */
  defaultBucket(userId: string): Bucket {
    return {
      key: `user:${userId}`,
      scope: 'default',
      limit: {
        maxConcurrent: this.limits.perUser,
        maxQueued: this.limits.perUserQueued,
        queueTimeoutMs: this.limits.perUserQueueTimeoutMs,
      },
    };
  }

  /** Resolves with a release function once the query may run. */
  async acquire(who: string | Bucket, signal?: AbortSignal): Promise<() => void> {
    const bucket = typeof who === 'string' ? this.defaultBucket(who) : who;
    let line = this.#principals.get(bucket.key);
    if (line) {
      line.limit = bucket.limit; // the latest setting wins for everyone on this line
      line.pump();
    } else {
      line = new Line(bucket.limit);
      this.#principals.set(bucket.key, line);
    }
    const own = line;
    const leaveOwn = () => {
      own.leave();
      if (own.idle && this.#principals.get(bucket.key) === own) this.#principals.delete(bucket.key);
    };
    try {
      await own.enter(() => tooMany(bucket, own), signal);
    } catch (e) {
      if (own.idle && this.#principals.get(bucket.key) === own) this.#principals.delete(bucket.key);
      throw e;
    }
    try {
      await this.#server.enter(() => busy(this.#server.limit), signal);
    } catch (e) {
      leaveOwn();
      throw e;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#server.leave();
      leaveOwn();
    };
  }
}

function tooMany(bucket: Bucket, line: Line): JunctionError {
  const limit = bucket.limit;
  return new JunctionError(
    'user_concurrency_limit',
    'resources',
    `${bucket.scope === 'token' ? 'This token' : 'You'} may run ${limit.maxConcurrent} queries at once and ` +
      `${line.waiters.length} more are already waiting (at most ${limit.maxQueued}, each for up to ${limit.queueTimeoutMs} ms); ` +
      'retry when one has finished, or ask an admin for a higher limit.',
    {
      details: {
        scope: bucket.scope,
        limit: limit.maxConcurrent,
        maxQueued: limit.maxQueued,
        queueTimeoutMs: limit.queueTimeoutMs,
        retryAfterSeconds: 1,
      },
    },
  );
}

function busy(limits: QueueLimit): JunctionError {
  return new JunctionError(
    'server_busy',
    'resources',
    'The server is running as many queries as it allows; retry shortly.',
    {
      details: {
        maxConcurrent: limits.maxConcurrent,
        maxQueued: limits.maxQueued,
        retryAfterSeconds: Math.max(1, Math.ceil(limits.queueTimeoutMs / 1000)),
      },
    },
  );
}
