import { describe, expect, it } from 'vitest';
import { ResourcePool } from './pool.js';

function counterPool(max: number, lifetimeMs = 60_000) {
  let next = 0;
  const destroyed: number[] = [];
  const broken = new Set<number>();
  const pool = new ResourcePool<number>(
    { create: async () => ++next, destroy: (r) => destroyed.push(r), healthy: (r) => !broken.has(r) },
    max,
    60_000,
    lifetimeMs,
  );
  return { pool, destroyed, broken };
}

describe('ResourcePool', () => {
  it('reuses released resources and makes waiters wait for one', async () => {
    const { pool } = counterPool(2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect([a, b]).toEqual([1, 2]);
    let got: number | undefined;
    const waiting = pool.acquire().then((r) => (got = r));
    await new Promise((r) => setImmediate(r));
    expect(got).toBeUndefined();
    pool.release(a);
    await waiting;
    expect(got).toBe(1);
    await pool.close();
  });

  it('destroys discarded and unhealthy resources and replaces them for a waiter', async () => {
    const { pool, destroyed, broken } = counterPool(1);
    const a = await pool.acquire();
    const waiting = pool.acquire();
    pool.release(a, true);
    expect(await waiting).toBe(2);
    expect(destroyed).toEqual([1]);
    broken.add(2);
    pool.release(2);
    expect(destroyed).toEqual([1, 2]);
    expect(await pool.acquire()).toBe(3);
    await pool.close();
  });

  it('retires resources past their maximum lifetime', async () => {
    const { pool, destroyed } = counterPool(2, 1);
    const a = await pool.acquire();
    await new Promise((r) => setTimeout(r, 5));
    pool.release(a);
    expect(destroyed).toEqual([1]);
    await pool.close();
  });
});
