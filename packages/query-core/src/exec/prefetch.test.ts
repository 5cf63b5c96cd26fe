import { describe, expect, it, vi } from 'vitest';
import type { Row } from '@junction/connectors';
import { MemoryTracker, rowBytes } from './context.js';
import { prefetch } from './prefetch.js';

/** 20 batches of one row each, counting how many the consumer's source has handed out. */
function counted(): { source: AsyncIterable<Row[]>; read: () => number } {
  let read = 0;
  async function* gen(): AsyncIterable<Row[]> {
    for (let i = 0; i < 20; i++) {
      read++;
      yield [[i, 'x'.repeat(10)]];
    }
  }
  return { source: gen(), read: () => read };
}
const BATCH = rowBytes([0, 'x'.repeat(10)]);

describe('prefetch', () => {
  it('without read-ahead keeps only the fixed number of batches ahead', async () => {
    const { source, read } = counted();
    const it = prefetch(source, 4)[Symbol.asyncIterator]();
    await vi.waitFor(() => expect(read()).toBe(4));
    await new Promise((r) => setTimeout(r, 20));
    expect(read()).toBe(4);
    expect((await it.next()).value).toEqual([[0, 'xxxxxxxxxx']]);
    await vi.waitFor(() => expect(read()).toBe(5));
    await it.return!();
  });

  it('reads further ahead within its byte limit, holding those bytes in the budget until consumed', async () => {
    const { source, read } = counted();
    const memory = new MemoryTracker(1 << 20);
    const ahead = prefetch(source, 4, { memory, maxBytes: 3 * BATCH });
    const it = ahead[Symbol.asyncIterator]();
    await vi.waitFor(() => expect(read()).toBe(7));
    await new Promise((r) => setTimeout(r, 20));
    expect(read()).toBe(7);
    expect(memory.usedBytes).toBe(3 * BATCH);
    const got: number[] = [];
    for (let i = 0; i < 5; i++) got.push((await it.next()).value![0][0] as number);
    expect(got).toEqual([0, 1, 2, 3, 4]);
    // two reserved batches still buffered, two fixed ones read anew, then one more reserved
    await vi.waitFor(() => expect(read()).toBe(10));
    await new Promise((r) => setTimeout(r, 20));
    expect(read()).toBe(10);
    expect(memory.usedBytes).toBe(3 * BATCH);
    await ahead.close();
    expect(memory.usedBytes).toBe(0);
  });

  it('stops reading ahead when the budget refuses, and gives back what it held when closed', async () => {
    const { source, read } = counted();
    const memory = new MemoryTracker(2 * BATCH);
    const ahead = prefetch(source, 4, { memory, maxBytes: 10 * BATCH });
    const it = ahead[Symbol.asyncIterator]();
    // 4 fixed, 2 reserved, a 7th read but refused (kept unreserved); no 8th
    await vi.waitFor(() => expect(read()).toBe(7));
    await new Promise((r) => setTimeout(r, 20));
    expect(read()).toBe(7);
    expect(memory.usedBytes).toBe(2 * BATCH);
    const rows: number[] = [];
    for await (const b of { [Symbol.asyncIterator]: () => it }) rows.push(b[0][0] as number);
    expect(rows).toEqual([...Array(20).keys()]);
    expect(memory.usedBytes).toBe(0);
  });
});
