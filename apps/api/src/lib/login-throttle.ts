/**
 * Login backoff per key (an address and user name, or a user name): after `free` failures each further failure
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

/** Lock-out of one account: `failures` failed sign-ins within `windowMs` lock it for `lockMs`. */
export interface LockoutPolicy {
  readonly failures: number;
  readonly windowMs: number;
  readonly lockMs: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { failures: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/**
 * JUNCTION_SIGNIN_LOCKOUT: `FAILURES/WINDOW[/LOCK]` with durations in s, m (default) or h, e.g.
 * `10/15m` (lock for as long as the window) or `5/10m/1h`; `0` turns the lock-out off. Unset: 10/15m.
 * A value that does not parse is an error at start, not a silently unprotected server.
 */
export function parseLockout(value: string | undefined): LockoutPolicy | null {
  if (value === undefined || value.trim() === '') return DEFAULT_LOCKOUT;
  if (value.trim() === '0') return null;
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*([smh]?)\s*(?:\/\s*(\d{1,6})\s*([smh]?)\s*)?$/.exec(value);
  const failures = m ? Number(m[1]) : 0;
  const windowMs = m ? Number(m[2]) * UNIT_MS[m[3] || 'm'] : 0;
  const lockMs = m ? (m[4] !== undefined ? Number(m[4]) * UNIT_MS[m[5] || 'm'] : windowMs) : 0;
  if (!m || failures < 1 || windowMs <= 0 || lockMs <= 0)
    throw new Error(
      `JUNCTION_SIGNIN_LOCKOUT must be FAILURES/WINDOW[/LOCK] such as 10/15m or 5/10m/1h (or 0 for none), not "${value}"`,
    );
  return { failures, windowMs, lockMs };
}

export type SignInCheck =
  | { readonly status: 'ok' }
  | { readonly status: 'locked'; readonly until: number }
  | { readonly status: 'wait'; readonly ms: number };

const MAX_ACCOUNTS = 100_000;
/** the longest a repeated lock-out grows to (unless the policy's own lock is longer) */
const MAX_LOCK_MS = 24 * 60 * 60_000;

interface AccountState {
  /** times of failures within the window */
  failures: number[];
  /** 0 when not locked */
  lockedUntil: number;
  /** lock-outs since the last success: each doubles the next lock */
  strikes: number;
}

/**
 * Everything that slows down password guessing, in memory for this instance:
 * - per (address, user name) backoff, so one address cannot hammer one account;
 * - per user name, from any address: after `failures` failures within the window the name is
 *   locked for `lockMs`, doubled for each further lock-out until a success or an admin unlocks
 *   it. A lock refuses even the right password: otherwise a guess during it would still learn
 *   whether it was right, and many addresses could keep guessing.
 * Names are tracked whether or not such a user exists, so a lock-out does not reveal which exist.
 */
export class SignInGuard {
  readonly #perAddress: LoginThrottle;
  readonly #accounts = new Map<string, AccountState>();

  constructor(
    readonly lockout: LockoutPolicy | null = DEFAULT_LOCKOUT,
    readonly now: () => number = Date.now,
  ) {
    this.#perAddress = new LoginThrottle(5, 1000, 15 * 60_000, now);
  }

  check(address: string, username: string): SignInCheck {
    const name = username.toLowerCase();
    const until = this.lockedUntil(name);
    if (until !== null) return { status: 'locked', until };
    const ms = this.#perAddress.waitMs(`${address}|${name}`);
    return ms > 0 ? { status: 'wait', ms } : { status: 'ok' };
  }

  /** Records a failure; returns until when the account is locked, if this failure locked it. */
  failed(address: string, username: string): { lockedUntil: number } | null {
    const name = username.toLowerCase();
    this.#perAddress.fail(`${address}|${name}`);
    if (!this.lockout) return null;
    const now = this.now();
    const state = this.#accounts.get(name) ?? { failures: [], lockedUntil: 0, strikes: 0 };
    state.failures = state.failures.filter((t) => now - t < this.lockout!.windowMs);
    state.failures.push(now);
    // re-inserted last: the names touched longest ago are the ones evicted
    this.#accounts.delete(name);
    this.#accounts.set(name, state);
    this.#trim();
    if (state.failures.length < this.lockout.failures) return null;
    const lockMs = Math.min(this.lockout.lockMs * 2 ** state.strikes, Math.max(this.lockout.lockMs, MAX_LOCK_MS));
    state.failures = [];
    state.strikes++;
    state.lockedUntil = now + lockMs;
    return { lockedUntil: state.lockedUntil };
  }

  succeeded(address: string, username: string): void {
    const name = username.toLowerCase();
    this.#perAddress.succeed(`${address}|${name}`);
    this.#accounts.delete(name);
  }

  /** when the account's lock-out ends (epoch ms), or null when it is not locked */
  lockedUntil(username: string): number | null {
    const until = this.#accounts.get(username.toLowerCase())?.lockedUntil ?? 0;
    return until > this.now() ? until : null;
  }

  /** An admin's unlock: the lock and every count against the name are gone; true when it was locked. */
  unlock(username: string): boolean {
    const was = this.lockedUntil(username) !== null;
    this.#accounts.delete(username.toLowerCase());
    return was;
  }

  #trim(): void {
    if (this.#accounts.size <= MAX_ACCOUNTS) return;
    // unlocked names first, so a flood of made-up names cannot push a real lock out
    const now = this.now();
    for (const [name, state] of this.#accounts) {
      if (this.#accounts.size <= MAX_ACCOUNTS) return;
      if (state.lockedUntil <= now) this.#accounts.delete(name);
    }
    while (this.#accounts.size > MAX_ACCOUNTS) this.#accounts.delete(this.#accounts.keys().next().value as string);
  }
}
