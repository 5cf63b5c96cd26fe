import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { textRowBytes } from '../contract/row-bytes.js';
import { utf8Cell } from './data-rows.js';
import { PortalReader, type FieldLike } from './portal.js';

/** every column read as text */
const text = (fields: readonly FieldLike[]) => fields.map(() => ({ text: (s: string) => s, cell: utf8Cell }));

/** Feeds rows as pg's parsed DataRow messages (no connection: nothing is submitted), then reads every batch. */
async function batchSizes(reader: PortalReader, rows: (string | null)[][]): Promise<number[]> {
  reader.handleRowDescription({ fields: rows[0].map((_, i) => ({ name: `c${i}`, dataTypeID: 25, dataTypeModifier: -1 })) });
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
    expect(await batchSizes(new PortalReader('q', [], 1024, text, undefined, 3 * 2080), rows)).toEqual([3, 3, 3, 1]);
    expect(await batchSizes(new PortalReader('q', [], 1024, text, undefined, 3 * 2080 - 1), rows)).toEqual([3, 3, 3, 1]);
    expect(await batchSizes(new PortalReader('q', [], 1024, text, undefined, 2 * 2080 + 1), rows)).toEqual([3, 3, 3, 1]);
    expect(await batchSizes(new PortalReader('q', [], 1024, text, undefined, 2 * 2080), rows)).toEqual([2, 2, 2, 2, 2]);
    // a row heavier than the limit is a batch of its own
    expect(await batchSizes(new PortalReader('q', [], 1024, text, undefined, 100), rows)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('end at the row count when it comes first, or without a byte limit', async () => {
    expect(await batchSizes(new PortalReader('q', [], 4, text, undefined, 100 * 2080), rows)).toEqual([4, 4, 2]);
    expect(await batchSizes(new PortalReader('q', [], 4, text), rows)).toEqual([4, 4, 2]);
  });
});

describe('PortalReader reading rows off the socket', () => {
  it('fails the statement and closes the connection when a cell cannot be decoded, without throwing in the socket listener', () => {
    const stream = Object.assign(new EventEmitter(), {
      cork: () => undefined,
      uncork: () => undefined,
      pause: () => undefined,
      resume: () => undefined,
      destroyed: undefined as Error | undefined,
      destroy(err: Error) {
        this.destroyed = err;
      },
    });
    const bad = new Error('not a number');
    const reader = new PortalReader('q', [], 1024, (fields) =>
      fields.map(() => ({
        text: (s: string) => s,
        cell: () => {
          throw bad;
        },
      })),
    );
    // pg's parser, which the tap passes every message but DataRows to: here it only describes the row
    stream.on('data', () => reader.handleRowDescription({ fields: [{ name: 'n', dataTypeID: 23, dataTypeModifier: -1 }] }));
    const wire = { stream, parse: () => undefined, bind: () => undefined, describe: () => undefined, execute: () => undefined, close: () => undefined, sync: () => undefined };
    reader.submit(wire as never);
    const description = Buffer.from([0x54, 0, 0, 0, 4]);
    const row = Buffer.from([0x44, 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, 0x78]);
    expect(() => stream.emit('data', Buffer.concat([description, row]))).not.toThrow();
    expect(stream.destroyed).toBe(bad);
  });
});
