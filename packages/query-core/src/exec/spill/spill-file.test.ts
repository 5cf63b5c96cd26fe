import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '@junction/connectors';
import { DiskTracker } from '../context.js';
import { Tmpfs, tmpfsUnavailable } from '../../../test/support/tmpfs.js';
import { SpillFile } from './spill-file.js';

const skip = tmpfsUnavailable();
if (skip) console.warn(`spill file disk-full tests skipped: ${skip}`);

const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => [i, `row ${i} ${'p'.repeat(80)}`]);

describe.skipIf(skip !== undefined)('SpillFile on a full disk', () => {
  let disk: Tmpfs;
  beforeAll(() => {
    disk = new Tmpfs(1024 * 1024).mount();
  });
  afterAll(() => disk?.close());

  it('a chunk the disk takes only part of is disk_full, not a truncated chunk read back later', async () => {
    // the kernel writes what fits and reports a short count rather than ENOSPC: a spill that
    // counted the chunk as whole read zeros back as its tail
    const tracker = new DiskTracker(1 << 30);
    for (const writeBlock of [0, undefined]) {
      disk.fill(12 * 1024);
      const f = await SpillFile.create(disk.dir, tracker, 'HashJoin', { writeBlock });
      try {
        // written through, the write fails; kept for a block write (the default), the flush does
        const err = await f.write(rows(1000)).then(
          () => (writeBlock === 0 ? undefined : f.flush().then(() => undefined, (e: unknown) => e)),
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: 'disk_full', kind: 'resources', details: { disk: 'spill', path: f.path } });
      } finally {
        await f.remove();
        disk.free();
      }
      expect(readdirSync(disk.dir)).toEqual([]);
      // what the failed write reserved was given back
      expect(tracker.usedBytes).toBe(0);
    }
  });

  it('creating a spill file on a disk with no room left is disk_full', async () => {
    disk.fill(0);
    try {
      // tmpfs takes the inode without a page: the first write is what fails
      const f = await SpillFile.create(disk.dir);
      await f.write(rows(10));
      // a read flushes what is kept back first
      const read = async (): Promise<void> => {
        for await (const _ of f.read()) void _;
      };
      await expect(read()).rejects.toMatchObject({ code: 'disk_full', details: { disk: 'spill' } });
      await f.remove();
    } finally {
      disk.free();
    }
  });

  it('writes and reads back exactly once space returns', async () => {
    const f = await SpillFile.create(disk.dir);
    await f.write(rows(1000));
    await f.write(rows(3));
    const back: Row[] = [];
    for await (const chunk of f.read()) back.push(...chunk);
    expect(back).toEqual([...rows(1000), ...rows(3)]);
    await f.remove();
  });
});
