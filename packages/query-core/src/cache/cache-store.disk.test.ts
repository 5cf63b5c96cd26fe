import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '@junction/connectors';
import { Tmpfs, tmpfsUnavailable } from '../../test/support/tmpfs.js';
import { CacheStore, type CacheDeps } from './cache-store.js';

const skip = tmpfsUnavailable();
if (skip) console.warn(`result cache disk-full tests skipped: ${skip}`);

const deps: CacheDeps = { sources: ['pg'], views: [] };
const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => [i, `row ${i} ${'c'.repeat(80)}`]);

async function read(store: CacheStore, key: string): Promise<Row[] | undefined> {
  const hit = store.lookup(key, 60_000);
  if (!hit) return undefined;
  const out: Row[] = [];
  for await (const b of hit.batches()) out.push(...b);
  return out;
}

describe.skipIf(skip !== undefined)('CacheStore spilling to a full disk', () => {
  let disk: Tmpfs;
  beforeAll(() => {
    disk = new Tmpfs(1024 * 1024).mount();
  });
  afterAll(() => disk?.close());

  const cacheFiles = () => readdirSync(join(disk.dir, 'cache')).filter((f) => f.endsWith('.bin'));

  it('a result whose last chunk the disk takes only part of is not stored; after space returns it is', async () => {
    // 1 KiB of memory: the result goes to a file from its first batch
    const store = new CacheStore({ maxMemoryBytes: 1024, maxDiskBytes: 64 * 1024 * 1024, dir: join(disk.dir, 'cache') });
    disk.fill(12 * 1024);
    try {
      // one batch, so the short write is the last one: nothing later fails to give it away
      const r = store.record('q', 'q', 60_000, deps);
      r.add(rows(1000));
      r.commit();
      expect(store.stats()).toMatchObject({ entries: 0, admissions: 0, rejections: 1, diskBytes: 0 });
      expect(await read(store, 'q')).toBeUndefined();
      expect(cacheFiles()).toEqual([]);
    } finally {
      disk.free();
    }
    const r = store.record('q', 'q', 60_000, deps);
    r.add(rows(1000));
    r.add(rows(2));
    r.commit();
    expect(store.list()).toMatchObject([{ rows: 1002, where: 'disk' }]);
    expect(await read(store, 'q')).toEqual([...rows(1000), ...rows(2)]);
    store.clear();
    expect(cacheFiles()).toEqual([]);
  });
});
