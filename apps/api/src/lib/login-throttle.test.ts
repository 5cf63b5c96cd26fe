import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle.js';

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
