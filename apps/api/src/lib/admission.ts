import { JunctionError } from '@junction/connectors';

export interface AdmissionLimits {
  /** queries running at once over all users */
  readonly maxConcurrent: number;
  /** queries waiting for a slot; beyond that the server answers 503 at once */
  readonly maxQueued: number;
  /** how long a query waits in the queue before 503 */
  readonly queueTimeoutMs: number;
  /** queries one user may run or queue at once */
  readonly perUser: number;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Global admission control: a bounded number of running queries, a bounded FIFO queue, then a
 * 'resources' error carrying Retry-After. Keeps one user's burst from starving everyone else.
 */
export class Admission {
  #running = 0;
  readonly #queue: Waiter[] = [];
  readonly #perUser = new Map<string, number>();
  constructor(readonly limits: AdmissionLimits) {}

  get running(): number {
    return this.#running;
  }
  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves with a release function once the query may run. */
  async acquire(user: string): Promise<() => void> {
    const mine = this.#perUser.get(user) ?? 0;
    if (mine >= this.limits.perUser) {
      throw new JunctionError(
        'user_concurrency_limit',
        'resources',
        `You already have ${mine} queries running; wait for one to finish or cancel one.`,
        {
          details: { limit: this.limits.perUser, retryAfterSeconds: 1 },
        },
      );
    }
    this.#perUser.set(user, mine + 1);
    try {
      if (this.#running >= this.limits.maxConcurrent) await this.#wait();
      else this.#running++;
    } catch (e) {
      this.#leave(user);
      throw e;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#leave(user);
      const next = this.#queue.shift();
      if (next) {
        clearTimeout(next.timer);
        next.resolve(); // the slot passes straight to the next waiter
      } else this.#running--;
    };
  }

  #leave(user: string): void {
    const n = (this.#perUser.get(user) ?? 1) - 1;
    if (n <= 0) this.#perUser.delete(user);
    else this.#perUser.set(user, n);
  }

  #wait(): Promise<void> {
    if (this.#queue.length >= this.limits.maxQueued) return Promise.reject(busy(this.limits));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(busy(this.limits));
        }, this.limits.queueTimeoutMs),
      };
      this.#queue.push(waiter);
    });
  }
}

function busy(limits: AdmissionLimits): JunctionError {
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
