import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Row } from '@junction/connectors';
import { CacheStore, entryOverheadBytes, type CacheDeps } from './cache-store.js';
import { rowBytes } from '../exec/context.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'junction-cache-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const deps: CacheDeps = { sources: ['pg'], views: [] };
/** n rows of one string of `width` characters */
const batch = (n: number, width: number, tag = 'x'): Row[] => Array.from({ length: n }, (_, i) => [i, tag.repeat(width)]);
const bytesOf = (rows: Row[]): number => rows.reduce((s, r) => s + rowBytes(r), 0);

async function read(store: CacheStore, key: string, maxAgeMs = 60_000): Promise<Row[] | undefined> {
  const hit = store.lookup(key, maxAgeMs);
  if (!hit) return undefined;
  const out: Row[] = [];
  for await (const b of hit.batches()) out.push(...b);
  return out;
}

function put(store: CacheStore, key: string, batches: Row[][], ttlMs = 60_000, d: CacheDeps = deps): void {
  const r = store.record(key, key, ttlMs, d);
  for (const b of batches) r.add(b);
  r.commit();
}

describe('CacheStore', () => {
  it('stores a complete result and answers later lookups with the same rows', async () => {
    const store = new CacheStore({ maxMemoryBytes: 1 << 20, maxDiskBytes: 0, dir });
    expect(await read(store, 'q')).toBeUndefined();
    put(store, 'q', [batch(2, 3), batch(1, 3)]);
    expect(await read(store, 'q')).toEqual([[0, 'xxx'], [1, 'xxx'], [0, 'xxx']]);
    expect(store.stats()).toMatchObject({ hits: 1, misses: 1, admissions: 1, entries: 1, memoryBytes: bytesOf([...batch(2, 3), ...batch(1, 3)]) + entryOverheadBytes('q') });
  });

  it('admits nothing from a result that was abandoned (failed, cancelled, not read to the end)', async () => {
    const store = new CacheStore({ maxMemoryBytes: 1 << 20, maxDiskBytes: 1 << 20, dir });
    const r = store.record('q', 'q', 60_000, deps);
    r.add(batch(10, 10));
    r.abandon();
    r.commit(); // a late commit after the abandon changes nothing
    expect(await read(store, 'q')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 0, memoryBytes: 0, admissions: 0 });
    expect(store.reserveMemory(1 << 20)).toBe(true); // the abandoned reservation was given back
  });

  it('evicts the least recently used entries to stay within the memory budget', async () => {
    const one = bytesOf(batch(10, 100)) + entryOverheadBytes('a');
    const store = new CacheStore({ maxMemoryBytes: one * 4 + 10, maxDiskBytes: 0, dir });
    for (const k of ['a', 'b', 'c', 'd']) put(store, k, [batch(10, 100, k)]);
    expect(await read(store, 'a')).toHaveLength(10); // a is now the most recent
    put(store, 'e', [batch(10, 100, 'e')]);
    expect(store.lookup('b', 60_000)).toBeUndefined();
    expect(await read(store, 'a')).toHaveLength(10);
    expect(store.stats()).toMatchObject({ entries: 4, evictions: 1, memoryBytes: one * 4 });
  });

  it('keeps the memory bound under a stream of distinct large results, several arriving at once', async () => {
    const max = 200_000;
    const store = new CacheStore({ maxMemoryBytes: max, maxDiskBytes: 0, dir });
    for (let round = 0; round < 30; round++) {
      // three results recorded side by side, each around a fifth of the budget
      const recs = [0, 1, 2].map((i) => store.record(`r${round}-${i}`, 'x', 60_000, deps));
      for (let b = 0; b < 4; b++) {
        for (const r of recs) {
          r.add(batch(20, 200, String(round)));
          // finished entries plus what recordings hold: the store reserves before it keeps a batch
          expect(store.stats().memoryBytes + store.pendingMemoryBytes).toBeLessThanOrEqual(max);
        }
      }
      for (const r of recs) r.commit();
      expect(store.stats().memoryBytes).toBeLessThanOrEqual(max);
    }
    const s = store.stats();
    expect(s.admissions + s.rejections).toBe(90);
    expect(s.evictions).toBeGreaterThan(0);
    expect(s.memoryBytes).toBeLessThanOrEqual(max);
    // every byte reserved while recording was either admitted or given back
    expect(store.reserveMemory(max - s.memoryBytes)).toBe(true);
    expect(store.reserveMemory(1)).toBe(true); // evicts one finished entry to make room
  });

  it('spills a result larger than a quarter of the memory budget to disk and reads it back exactly', async () => {
    const store = new CacheStore({ maxMemoryBytes: 10_000, maxDiskBytes: 1 << 20, dir });
    const rows: Row[][] = [
      [[1n << 62n, null, new Uint8Array([1, 2, 3]), 'é'.repeat(400), true, 1.5]],
      batch(30, 100),
    ];
    put(store, 'big', rows);
    expect(store.list()).toMatchObject([{ where: 'disk', rows: 31 }]);
    expect(store.stats().memoryBytes).toBe(entryOverheadBytes('big')); // only its bookkeeping
    expect(store.stats().diskBytes).toBeGreaterThan(0);
    expect(await read(store, 'big')).toEqual(rows.flat());
    store.purge();
    expect(readdirSync(dir)).toEqual([]);
    expect(store.stats()).toMatchObject({ diskBytes: 0, memoryBytes: 0, entries: 0, invalidations: 1 });
  });

  it('does not cache a result larger than the disk budget, and leaves no file behind', async () => {
    const store = new CacheStore({ maxMemoryBytes: 10_000, maxDiskBytes: 20_000, dir });
    put(store, 'huge', [batch(100, 100), batch(100, 100), batch(100, 100)]);
    expect(await read(store, 'huge')).toBeUndefined();
    expect(store.stats()).toMatchObject({ rejections: 1, admissions: 0, diskBytes: 0, memoryBytes: 0 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('without a disk budget, a result larger than its memory share is not cached', async () => {
    const store = new CacheStore({ maxMemoryBytes: 10_000, maxDiskBytes: 0, dir });
    put(store, 'big', [batch(30, 100)]);
    expect(await read(store, 'big')).toBeUndefined();
    expect(store.stats()).toMatchObject({ rejections: 1, memoryBytes: 0 });
  });

  it('charges each entry\'s bookkeeping, so distinct empty results cannot grow it without bound', () => {
    const store = new CacheStore({ maxMemoryBytes: entryOverheadBytes('q0') * 10, maxDiskBytes: 0, dir });
    for (let i = 0; i < 1000; i++) put(store, `q${i % 10}-${i}`, []);
    expect(store.stats().entries).toBeLessThanOrEqual(10);
    expect(store.stats().memoryBytes).toBeLessThanOrEqual(entryOverheadBytes('q0') * 10);
    expect(store.stats().evictions).toBeGreaterThan(900);
  });

  it('honours the TTL and the reader\'s maximum staleness', () => {
    const store = new CacheStore({ maxMemoryBytes: 1 << 20, maxDiskBytes: 0, dir });
    put(store, 'q', [batch(1, 1)], 10_000);
    const created = store.list()[0].createdAt;
    expect(store.lookup('q', 60_000, { now: created + 9_000 })?.ageMs).toBe(9_000);
    expect(store.lookup('q', 5_000, { now: created + 6_000 })).toBeUndefined(); // older than this reader accepts
    expect(store.lookup('q', 60_000, { now: created + 6_000 })?.ageMs).toBe(6_000); // ...but kept for others
    expect(store.lookup('q', 60_000, { now: created + 10_000 })).toBeUndefined(); // expired
    expect(store.stats()).toMatchObject({ entries: 0, expirations: 1, memoryBytes: 0 });
  });

  it('purges per source and per view, and a recording under way that read the purged thing stores nothing', async () => {
    const store = new CacheStore({ maxMemoryBytes: 1 << 20, maxDiskBytes: 0, dir });
    put(store, 'pg', [batch(1, 1)], 60_000, { sources: ['pg'], views: [] });
    put(store, 'my', [batch(1, 1)], 60_000, { sources: ['my'], views: [] });
    put(store, 'view', [batch(1, 1)], 60_000, { sources: ['my'], views: ['sales.rich'] });
    const running = store.record('late', 'late', 60_000, { sources: ['pg'], views: [] });
    running.add(batch(1, 1));
    expect(store.purge({ view: 'sales.rich' })).toBe(1);
    expect(store.purge({ source: 'pg' })).toBe(1);
    running.commit();
    expect(store.list().map((e) => e.label)).toEqual(['my']);
    expect(store.purge()).toBe(1);
    expect(store.stats()).toMatchObject({ entries: 0, memoryBytes: 0, invalidations: 3 });
  });
});
