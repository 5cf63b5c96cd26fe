import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCKOUT, LoginThrottle, parseLockout, SignInGuard } from './login-throttle.js';

describe('LoginThrottle', () => {
  it('lets the first failures through, then doubles the wait per failure up to the cap', () => {
    let now = 1_000_000;
    const t = new LoginThrottle(3, 1000, 8000, () => now);
    for (let i = 0; i < 2; i++) t.fail('k');
    expect(t.waitMs('k')).toBe(0);
    t.fail('k'); // 3rd failure: 1 s
    expect(t.waitMs('k')).toBe(1000);
    now += 400;
    expect(t.waitMs('k')).toBe(600);
    t.fail('k'); // 4th: 2 s from now
    expect(t.waitMs('k')).toBe(2000);
    for (let i = 0; i < 5; i++) t.fail('k');
    expect(t.waitMs('k')).toBe(8000);
    expect(t.waitMs('other')).toBe(0);
    t.succeed('k');
    expect(t.waitMs('k')).toBe(0);
  });
});

describe('SignInGuard', () => {
  it('locks a name after the failures within the window from any address, doubling each further lock-out', () => {
    let now = 1_000_000;
    const g = new SignInGuard({ failures: 3, windowMs: 60_000, lockMs: 10_000 }, () => now);
    g.failed('a1', 'Bob');
    now += 61_000; // out of the window: forgotten
    g.failed('a2', 'bob');
    expect(g.failed('a3', 'BOB')).toBeNull();
    expect(g.failed('a4', 'bob')).toEqual({ lockedUntil: now + 10_000 });
    expect(g.check('a5', 'bob')).toEqual({ status: 'locked', until: now + 10_000 });
    expect(g.check('a5', 'alice')).toEqual({ status: 'ok' });
    now += 10_000;
    expect(g.check('a5', 'bob')).toEqual({ status: 'ok' });
    for (let i = 0; i < 2; i++) g.failed(`b${i}`, 'bob');
    expect(g.failed('b9', 'bob')).toEqual({ lockedUntil: now + 20_000 });
    expect(g.unlock('bob')).toBe(true);
    expect(g.check('b9', 'bob')).toEqual({ status: 'ok' });
    // after an unlock (or a success) the next lock-out starts over at the policy's length
    for (let i = 0; i < 2; i++) g.failed(`c${i}`, 'bob');
    expect(g.failed('c9', 'bob')).toEqual({ lockedUntil: now + 10_000 });
  });

  it('without a lock-out policy only the per-address backoff applies', () => {
    const g = new SignInGuard(null);
    for (let i = 0; i < 50; i++) expect(g.failed(`a${i}`, 'bob')).toBeNull();
    expect(g.check('new', 'bob')).toEqual({ status: 'ok' });
  });
});

describe('parseLockout (JUNCTION_SIGNIN_LOCKOUT)', () => {
  it('reads FAILURES/WINDOW[/LOCK], 0 for none, unset for the default, and refuses anything else', () => {
    expect(parseLockout(undefined)).toBe(DEFAULT_LOCKOUT);
    expect(DEFAULT_LOCKOUT).toEqual({ failures: 10, windowMs: 900_000, lockMs: 900_000 });
    expect(parseLockout('0')).toBeNull();
    expect(parseLockout('5/10m')).toEqual({ failures: 5, windowMs: 600_000, lockMs: 600_000 });
    expect(parseLockout('5/30s/1h')).toEqual({ failures: 5, windowMs: 30_000, lockMs: 3_600_000 });
    expect(parseLockout('20/15')).toEqual({ failures: 20, windowMs: 900_000, lockMs: 900_000 });
    for (const bad of ['10', 'x/15m', '0/15m', '10/0m', '10/15d'])
      expect(() => parseLockout(bad), bad).toThrow(/JUNCTION_SIGNIN_LOCKOUT must be/);
  });
});
