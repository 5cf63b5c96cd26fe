import { describe, expect, it } from 'vitest';
import { BatchQueue } from './batch-queue.js';

describe('BatchQueue', () => {
  it('batches pushed rows, pauses the producer at the high-water mark and resumes it', async () => {
    const events: string[] = [];
    const q = new BatchQueue<number>(
      2,
      () => events.push('pause'),
      () => events.push('resume'),
    );
    for (let i = 1; i <= 5; i++) q.push(i);
    expect(events).toEqual(['pause']);
    q.end();
    expect(await q.next()).toEqual([1, 2]);
    expect(events).toEqual(['pause', 'resume']);
    expect(await q.next()).toEqual([3, 4]);
    expect(await q.next()).toEqual([5]);
    expect(await q.next()).toBeUndefined();
  });

  it('wakes a waiting reader and rethrows the driver error', async () => {
    const q = new BatchQueue<number>(
      2,
      () => undefined,
      () => undefined,
    );
    const pending = q.next();
    q.push(1);
    q.push(2);
    expect(await pending).toEqual([1, 2]);
    const failing = q.next();
    q.fail(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
  });

  it('drain discards buffered rows, resumes a paused producer and waits for the end', async () => {
    const events: string[] = [];
    const q = new BatchQueue<number>(
      1,
      () => events.push('pause'),
      () => events.push('resume'),
    );
    q.push(1);
    q.push(2);
    let drained = false;
    const d = q.drain().then(() => (drained = true));
    expect(events).toEqual(['pause', 'resume']);
    q.push(3);
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    q.end();
    await d;
    expect(drained).toBe(true);
  });
});
