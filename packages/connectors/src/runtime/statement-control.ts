import type { JunctionError } from '../contract/errors.js';
import { cancelledError, timeoutError } from './errors.js';

export type StopReason = 'cancelled' | 'timeout';

/**
 * Joins a caller's AbortSignal and a timeout into one "stop this statement" event. The
 * connector installs the engine-specific canceller once it holds a connection; a stop that
 * arrives earlier is remembered and honoured as soon as one is installed.
 */
export class StatementControl {
  reason: StopReason | undefined;
  private canceller: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.stop('cancelled');

  constructor(
    private readonly source: string,
    private readonly signal: AbortSignal | undefined,
    private readonly timeoutMs: number | undefined,
  ) {
    if (signal?.aborted) this.reason = 'cancelled';
    else signal?.addEventListener('abort', this.onAbort, { once: true });
    if (timeoutMs !== undefined && timeoutMs > 0 && !this.reason) {
      this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
      this.timer.unref?.();
    }
  }

  get stopped(): boolean {
    return this.reason !== undefined;
  }

  /** Installs the engine's cancel; runs it at once if the stop already happened. */
  setCanceller(fn: (() => void) | undefined): void {
    this.canceller = fn;
    if (fn && this.reason) fn();
  }

  stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.canceller?.();
  }

  error(): JunctionError {
    return this.reason === 'timeout' ? timeoutError(this.source, this.timeoutMs) : cancelledError(this.source);
  }

  throwIfStopped(): void {
    if (this.reason) throw this.error();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.canceller = undefined;
  }
}

/**
 * Waits for a pooled connection but gives up as soon as the statement is stopped (a queued
 * request under load must still honour its AbortSignal); a connection that arrives after
 * that is handed straight back through `giveBack`.
 */
export async function acquireUnlessStopped<C>(
  control: StatementControl | undefined,
  start: () => Promise<C>,
  giveBack: (c: C) => void,
): Promise<C> {
  if (!control) return start();
  control.throwIfStopped();
  const acquire = start();
  let onStop: (() => void) | undefined;
  const stopped = new Promise<typeof STOPPED>((resolve) => {
    onStop = () => resolve(STOPPED);
  });
  control.setCanceller(onStop);
  try {
    const winner = await Promise.race([acquire, stopped]);
    if (winner === STOPPED) {
      acquire.then(giveBack, () => undefined);
      throw control.error();
    }
    return winner as C;
  } finally {
    control.setCanceller(undefined);
  }
}

const STOPPED = Symbol('stopped');
