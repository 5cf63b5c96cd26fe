import { describe, expect, it } from 'vitest';
import { Admission, type Bucket } from './admission.js';

const limits = (o: Partial<ConstructorParameters<typeof Admission>[0]> = {}) => ({
  maxConcurrent: 10,
  maxQueued: 10,
  queueTimeoutMs: 10_000,
  perUser: 10,
  perUserQueued: 0,
  perUserQueueTimeoutMs: 10_000,
  ...o,
});
const bucket = (key: string, maxConcurrent: number, maxQueued: number, queueTimeoutMs: number): Bucket => ({
  key,
  scope: 'token',
  limit: { maxConcurrent, maxQueued, queueTimeoutMs },
});

describe('Admission', () => {
  it('runs up to maxConcurrent, queues up to maxQueued in order, rejects the rest at once', async () => {
    const a = new Admission(limits({ maxConcurrent: 1, maxQueued: 1 }));
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
    const a = new Admission(limits({ maxConcurrent: 1, maxQueued: 5, queueTimeoutMs: 20 }));
    const r1 = await a.acquire('u');
    await expect(a.acquire('v')).rejects.toMatchObject({ code: 'server_busy' });
    expect(a.queued).toBe(0);
    r1();
    expect(a.running).toBe(0);
  });

  it('limits queries per user and frees the slot on release', async () => {
    const a = new Admission(limits({ perUser: 2 }));
    const r1 = await a.acquire('u');
    const r2 = await a.acquire('u');
    await expect(a.acquire('u')).rejects.toMatchObject({
      code: 'user_concurrency_limit',
      details: { limit: 2, scope: 'default', retryAfterSeconds: 1 },
    });
    const other = await a.acquire('v');
    r1();
    const r3 = await a.acquire('u');
    for (const r of [r2, r3, other]) r();
    expect(a.running).toBe(0);
  });

  it("over a principal's limit a query waits in its queue and runs when a slot frees, in order", async () => {
    const a = new Admission(limits());
    const b = bucket('token:t', 1, 2, 60_000);
    const r1 = await a.acquire(b);
    const order: number[] = [];
    const w2 = a.acquire(b).then((r) => (order.push(2), r));
    const w3 = a.acquire(b).then((r) => (order.push(3), r));
    // the queue holds 2: a third waiter is refused at once
    await expect(a.acquire(b)).rejects.toMatchObject({
      code: 'user_concurrency_limit',
      details: { scope: 'token', limit: 1, maxQueued: 2 },
    });
    expect(a.running).toBe(1); // waiters of a principal hold no server slot
    r1();
    const r2 = await w2;
    expect(order).toEqual([2]);
    r2();
    (await w3)();
    expect(order).toEqual([2, 3]);
    expect(a.running).toBe(0);
  });

  it("refuses with 429 once a waiter's queueTimeoutMs is over", async () => {
    const a = new Admission(limits());
    const b = bucket('user:u', 1, 5, 30);
    const r1 = await a.acquire(b);
    await expect(a.acquire(b)).rejects.toMatchObject({
      code: 'user_concurrency_limit',
      details: { queueTimeoutMs: 30 },
    });
    r1();
    // the timed-out waiter left no slot behind
    const again = await a.acquire(b);
    again();
    expect(a.running).toBe(0);
  });

  it('a waiter whose client went away leaves the queue at once', async () => {
    const a = new Admission(limits());
    const b = bucket('user:u', 1, 5, 60_000);
    const r1 = await a.acquire(b);
    const abort = new AbortController();
    const waiting = a.acquire(b, abort.signal);
    abort.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    r1();
    (await a.acquire(b))();
    expect(a.running).toBe(0);
  });

  it('a raised limit lets waiters in at once, for principals and for the server', async () => {
    const a = new Admission(limits({ maxConcurrent: 1, maxQueued: 5 }));
    const r1 = await a.acquire(bucket('token:t', 1, 5, 60_000));
    const w = a.acquire(bucket('token:t', 1, 5, 60_000));
    // the owner's new setting arrives with its next request: the older waiter goes first,
    // passes its own limit and now waits for the server's single slot
    const later = a.acquire(bucket('token:t', 2, 5, 60_000));
    await Promise.resolve();
    expect([a.running, a.queued]).toEqual([1, 1]);
    a.setServer({ maxConcurrent: 3, maxQueued: 5, queueTimeoutMs: 10_000 });
    const r2 = await w;
    expect(a.running).toBe(2);
    r1();
    const r3 = await later;
    expect(a.running).toBe(2);
    r2();
    r3();
    expect(a.running).toBe(0);
  });
});
