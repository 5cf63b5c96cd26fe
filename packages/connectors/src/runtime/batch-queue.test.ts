import { describe, expect, it } from 'vitest';
import { textRowBytes } from '../contract/row-bytes.js';
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

  it('ends a batch at its byte limit or its row count, whichever comes first', async () => {
    const events: string[] = [];
    // rows of one 1000-byte text cell: 48 + 8 + 16 + 2 * 1000 = 2072 bytes each as decoded strings
    const row = [Buffer.alloc(1000, 'x')];
    expect(textRowBytes(row)).toBe(2072);
    const q = new BatchQueue<Buffer[]>(
      4,
      () => events.push('pause'),
      () => events.push('resume'),
      2,
      { maxBytes: 3 * 2072, sizeOf: textRowBytes },
    );
    for (let i = 0; i < 7; i++) q.push(row);
    // two full batches of three rows (the third reaches the limit) wait: the producer pauses
    expect(events).toEqual(['pause']);
    q.end();
    const sizes: number[] = [];
    for (let b = await q.next(); b; b = await q.next()) sizes.push(b.length);
    expect(sizes).toEqual([3, 3, 1]);

    // a limit wider than the rows: the row count ends batches; a row past the limit is a batch alone
    const byRows = new BatchQueue<Buffer[]>(4, () => undefined, () => undefined, 2, { maxBytes: 100 * 2072, sizeOf: textRowBytes });
    const wide = new BatchQueue<Buffer[]>(4, () => undefined, () => undefined, 2, { maxBytes: 1000, sizeOf: textRowBytes });
    for (let i = 0; i < 9; i++) byRows.push(row);
    for (let i = 0; i < 3; i++) wide.push(row);
    byRows.end();
    wide.end();
    const rowSizes: number[] = [];
    for (let b = await byRows.next(); b; b = await byRows.next()) rowSizes.push(b.length);
    const wideSizes: number[] = [];
    for (let b = await wide.next(); b; b = await wide.next()) wideSizes.push(b.length);
    expect(rowSizes).toEqual([4, 4, 1]);
    expect(wideSizes).toEqual([1, 1, 1]);
  });
});
