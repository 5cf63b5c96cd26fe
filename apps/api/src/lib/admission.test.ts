import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

describe('Admission', () => {
  it('runs up to maxConcurrent, queues up to maxQueued in order, rejects the rest at once', async () => {
    const a = new Admission({ maxConcurrent: 1, maxQueued: 1, queueTimeoutMs: 10_000, perUser: 10 });
    const r1 = await a.acquire('u');
    const order: string[] = [];
    const queued = a.acquire('v').then((release) => {
      order.push('second');
      return release;
    });
    await expect(a.acquire('w')).rejects.toMatchObject({
      code: 'server_busy',
      kind: 'resources',
      details: { retryAfterSeconds: 10 },
    });
    expect([a.running, a.queued]).toEqual([1, 1]);
    order.push('release first');
    r1();
    const r2 = await queued;
    expect(order).toEqual(['release first', 'second']);
    expect([a.running, a.queued]).toEqual([1, 0]);
    r2();
    r2(); // releasing twice is harmless
    expect(a.running).toBe(0);
  });

  it('gives up on a queued query after queueTimeoutMs', async () => {
    const a = new Admission({ maxConcurrent: 1, maxQueued: 5, queueTimeoutMs: 20, perUser: 10 });
    const r1 = await a.acquire('u');
    await expect(a.acquire('v')).rejects.toMatchObject({ code: 'server_busy' });
    expect(a.queued).toBe(0);
    r1();
    expect(a.running).toBe(0);
  });

  it('limits queries per user, counting queued ones, and frees the slot on release', async () => {
    const a = new Admission({ maxConcurrent: 10, maxQueued: 10, queueTimeoutMs: 1000, perUser: 2 });
    const r1 = await a.acquire('u');
    const r2 = await a.acquire('u');
    await expect(a.acquire('u')).rejects.toMatchObject({ code: 'user_concurrency_limit', details: { limit: 2 } });
    const other = await a.acquire('v');
    r1();
    const r3 = await a.acquire('u');
    for (const r of [r2, r3, other]) r();
    expect(a.running).toBe(0);
  });
});
