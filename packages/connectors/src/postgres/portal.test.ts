import { describe, expect, it } from 'vitest';
import { textRowBytes } from '../contract/row-bytes.js';
import { PortalReader } from './portal.js';

/** Feeds rows as the server's DataRow messages (no connection: nothing is submitted), then reads every batch. */
async function batchSizes(reader: PortalReader, rows: (string | null)[][]): Promise<number[]> {
  for (const fields of rows) reader.handleDataRow({ fields });
  reader.handleCommandComplete();
  const sizes: number[] = [];
  for (;;) {
    const b = await reader.read();
    if (b.rows.length > 0) sizes.push(b.rows.length);
    if (!b.more) return sizes;
  }
}

describe('PortalReader batches', () => {
  // one 1000-character text cell and a NULL: 48 + 2 * 8 + 16 + 2 * 1000 = 2080 bytes a row
  const row = ['x'.repeat(1000), null];
  const rows = Array.from({ length: 10 }, () => row);

  it('end at the byte limit when wide rows reach it before the row count', async () => {
    expect(textRowBytes(row)).toBe(2080);
    // the row that reaches the limit ends its batch
    expect(await batchSizes(new PortalReader('q', [], 1024, undefined, 3 * 2080), rows)).toEqual([3, 3, 3, 1]);
    expect(await batchSizes(new PortalReader('q', [], 1024, undefined, 3 * 2080 - 1), rows)).toEqual([3, 3, 3, 1]);
    expect(await batchSizes(new PortalReader('q', [], 1024, undefined, 2 * 2080 + 1), rows)).toEqual([3, 3, 3, 1]);
    expect(await batchSizes(new PortalReader('q', [], 1024, undefined, 2 * 2080), rows)).toEqual([2, 2, 2, 2, 2]);
    // a row heavier than the limit is a batch of its own
    expect(await batchSizes(new PortalReader('q', [], 1024, undefined, 100), rows)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('end at the row count when it comes first, or without a byte limit', async () => {
    expect(await batchSizes(new PortalReader('q', [], 4, undefined, 100 * 2080), rows)).toEqual([4, 4, 2]);
    expect(await batchSizes(new PortalReader('q', [], 4), rows)).toEqual([4, 4, 2]);
  });
});
