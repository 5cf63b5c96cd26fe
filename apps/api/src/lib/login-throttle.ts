/**
 * Login backoff per (client address, user name): after `free` failures each further failure
 * doubles the wait, up to `maxDelayMs`. A success clears the key. In memory: an attacker
 * who restarts the server also restarts its own wait, which is acceptable for one instance.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, { count: number; last: number }>();
  constructor(
    readonly free = 5,
    readonly baseDelayMs = 1000,
    readonly maxDelayMs = 15 * 60_000,
    readonly now: () => number = Date.now,
  ) {}

  /** milliseconds until this key may try again; 0 when it may try now */
  waitMs(key: string): number {
    const f = this.#failures.get(key);
    if (!f || f.count < this.free) return 0;
    const delay = Math.min(this.baseDelayMs * 2 ** (f.count - this.free), this.maxDelayMs);
    return Math.max(0, f.last + delay - this.now());
  }

  fail(key: string): void {
    const f = this.#failures.get(key);
    this.#failures.set(key, { count: (f?.count ?? 0) + 1, last: this.now() });
    if (this.#failures.size > 100_000) this.#failures.delete(this.#failures.keys().next().value as string);
  }

  succeed(key: string): void {
    this.#failures.delete(key);
  }
}
