import { JunctionError } from '@junction/connectors';

/**
 * The lab's own admission budget: executions of benchmark runs wait here, never in the
 * interactive queue, so a run cannot take the slots users' queries need.
 */
export class Budget {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number) {}

  async acquire(_user?: string): Promise<() => void> {
    if (this.#running >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    };
  }

  get running(): number {
    return this.#running;
  }
}

/** Resolves after `ms`, or rejects with a cancelled error as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function cancelled(): JunctionError {
  return new JunctionError('benchmark_cancelled', 'cancelled', 'The benchmark run was cancelled.');
}
