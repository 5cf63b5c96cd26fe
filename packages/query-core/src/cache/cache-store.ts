import { createHash, randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Row } from '@junction/connectors';
import { rowBytes } from '../exec/context.js';

/** What an entry was computed from: purging one of these drops it. Views are `schema.name`. */
export interface CacheDeps {
  readonly sources: readonly string[];
  readonly views: readonly string[];
}

export interface CacheLimits {
  /** bytes of rows held in memory by finished and in-progress entries together */
  readonly maxMemoryBytes: number;
  /** bytes of entries spilled to disk; 0 keeps everything in memory (larger results are not cached) */
  readonly maxDiskBytes: number;
  /** directory of spilled entries (created when first needed) */
  readonly dir: string;
}

export interface CacheCounters {
  readonly hits: number;
  readonly misses: number;
  /** entries dropped to make room (not by TTL or purge) */
  readonly evictions: number;
  /** results that completed and were stored */
  readonly admissions: number;
  /** results that completed but were too large for the budgets */
  readonly rejections: number;
  /** entries dropped by purge or by a change to something they read */
  readonly invalidations: number;
  readonly expirations: number;
  readonly entries: number;
  readonly memoryBytes: number;
  readonly diskBytes: number;
  readonly maxMemoryBytes: number;
  readonly maxDiskBytes: number;
}

export interface CacheEntryInfo {
  /** a short text for people (the statement, or source and SQL of a fragment) */
  readonly label: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly rows: number;
  readonly bytes: number;
  readonly where: 'memory' | 'disk';
  readonly hits: number;
  readonly deps: CacheDeps;
}

export interface CacheHit {
  readonly ageMs: number;
  readonly rows: number;
  /** the stored batches; callers must not modify them (other readers share them) */
  batches(): AsyncIterable<readonly Row[]>;
}

export type PurgeScope = { readonly source: string } | { readonly view: string } | Record<string, never>;

/**
 * Memory an entry holds besides its rows (key, label, bookkeeping), charged to the budget so
 * that a stream of distinct empty results cannot grow the cache without bound either.
 */
export function entryOverheadBytes(label: string): number {
  return 512 + label.length * 2;
}

interface Entry {
  readonly key: string;
  readonly info: Omit<CacheEntryInfo, 'hits' | 'where'>;
  /** bytes charged to the memory budget (rows in memory and the overhead) and to the disk budget */
  readonly memory: number;
  readonly disk: number;
  hits: number;
  /** in memory: the batches; on disk: the file */
  readonly batches?: readonly (readonly Row[])[];
  readonly file?: string;
}

/**
 * A byte-bounded LRU of complete query results, shared by every caller that asks with the same
 * key. Rows are held in memory while they fit the memory budget (counted while a result is still
 * arriving, so many large results at once cannot pass it); a result larger than its share moves to
 * a file within the disk budget, and one larger than that is not stored. Only a result that ended
 * normally is admitted: a recording that fails, is cancelled or stops early stores nothing.
 */
export class CacheStore {
  readonly #entries = new Map<string, Entry>();
  readonly #recordings = new Set<Recording>();
  #memoryBytes = 0;
  #diskBytes = 0;
  /** bytes reserved by recordings still running */
  #pendingMemory = 0;
  #pendingDisk = 0;
  #dirReady = false;
  #lastSweep = 0;
  readonly #counters = { hits: 0, misses: 0, evictions: 0, admissions: 0, rejections: 0, invalidations: 0, expirations: 0 };

  constructor(private limits: CacheLimits) {}

  /** Changes the budgets; entries beyond the new ones are evicted at once. */
  configure(limits: Partial<CacheLimits>): void {
    this.limits = { ...this.limits, ...limits };
    this.#evictMemory(0);
    this.#evictDisk(0);
  }

  get maxMemoryBytes(): number {
    return this.limits.maxMemoryBytes;
  }

  /** bytes held by recordings not yet finished */
  get pendingMemoryBytes(): number {
    return this.#pendingMemory;
  }

  get canSpill(): boolean {
    return this.limits.maxDiskBytes > 0;
  }

  /**
   * An entry no older than maxAgeMs and not expired, counted as a hit; otherwise a miss
   * (`count: false` looks without counting, for EXPLAIN).
   */
  lookup(key: string, maxAgeMs: number, options: { now?: number; count?: boolean } = {}): CacheHit | undefined {
    const now = options.now ?? Date.now();
    this.#sweep(now);
    const k = hashKey(key);
    const e = this.#entries.get(k);
    const count = options.count ?? true;
    if (!e || now >= e.info.expiresAt || now - e.info.createdAt > maxAgeMs) {
      if (e && now >= e.info.expiresAt) this.#drop(e, 'expirations');
      if (count) this.#counters.misses++;
      return undefined;
    }
    if (count) {
      this.#counters.hits++;
      e.hits++;
      // most recently used last: eviction takes from the front
      this.#entries.delete(k);
      this.#entries.set(k, e);
    }
    const ageMs = Math.max(0, now - e.info.createdAt);
    if (e.batches) {
      const batches = e.batches;
      return {
        ageMs,
        rows: e.info.rows,
        async *batches() {
          yield* batches;
        },
      };
    }
    // opened now: an eviction that removes the file while this reader runs does not cut it short
    const fd = openSync(e.file!, 'r');
    return { ageMs, rows: e.info.rows, batches: () => readFile(fd) };
  }

  /**
   * Starts recording a result under key. Feed it every batch, then `commit()` when the result
   * ended normally or `abandon()` otherwise.
   */
  record(key: string, label: string, ttlMs: number, deps: CacheDeps): Recording {
    const r = new Recording(this, hashKey(key), label, ttlMs, deps);
    this.#recordings.add(r);
    return r;
  }

  /** Drops every entry, or those that read a source or a view; recordings under way that read it store nothing. */
  purge(scope: PurgeScope = {}): number {
    const matches = (deps: CacheDeps): boolean =>
      'source' in scope ? deps.sources.includes(scope.source) : 'view' in scope ? deps.views.includes(scope.view) : true;
    let n = 0;
    for (const e of [...this.#entries.values()]) {
      if (!matches(e.info.deps)) continue;
      this.#drop(e, 'invalidations');
      n++;
    }
    for (const r of this.#recordings) if (matches(r.deps)) r.stale = true;
    return n;
  }

  stats(): CacheCounters {
    return {
      ...this.#counters,
      entries: this.#entries.size,
      memoryBytes: this.#memoryBytes,
      diskBytes: this.#diskBytes,
      maxMemoryBytes: this.limits.maxMemoryBytes,
      maxDiskBytes: this.limits.maxDiskBytes,
    };
  }

  /** Entries, most recently used last. */
  list(now = Date.now()): CacheEntryInfo[] {
    this.#sweep(now, true);
    return [...this.#entries.values()].map((e) => ({ ...e.info, hits: e.hits, where: e.batches ? 'memory' : 'disk' }));
  }

  /** Drops everything and removes spilled files (on close). */
  clear(): void {
    for (const e of [...this.#entries.values()]) this.#drop(e);
    for (const r of this.#recordings) r.stale = true;
  }

  // --- used by Recording -------------------------------------------------------------------

  /** @internal Reserves memory for a recording, evicting finished entries when needed. */
  reserveMemory(bytes: number): boolean {
    if (!this.#evictMemory(bytes)) return false;
    this.#pendingMemory += bytes;
    return true;
  }

  /** @internal */
  releaseMemory(bytes: number): void {
    this.#pendingMemory = Math.max(0, this.#pendingMemory - bytes);
  }

  /** @internal */
  reserveDisk(bytes: number): boolean {
    if (bytes > this.limits.maxDiskBytes || !this.#evictDisk(bytes)) return false;
    this.#pendingDisk += bytes;
    return true;
  }

  /** @internal */
  releaseDisk(bytes: number): void {
    this.#pendingDisk = Math.max(0, this.#pendingDisk - bytes);
  }

  /** @internal */
  spillPath(): string {
    if (!this.#dirReady) {
      mkdirSync(this.limits.dir, { recursive: true, mode: 0o700 });
      this.#dirReady = true;
    }
    return join(this.limits.dir, `junction-cache-${randomUUID()}.bin`);
  }

  /** @internal A finished recording becomes an entry; its reservation turns into the entry's bytes. */
  admit(r: Recording, entry: Omit<Entry, 'hits'>, now: number): void {
    this.#recordings.delete(r);
    const old = this.#entries.get(entry.key);
    if (old) this.#drop(old);
    this.releaseMemory(entry.memory);
    this.#memoryBytes += entry.memory;
    this.releaseDisk(entry.disk);
    this.#diskBytes += entry.disk;
    this.#entries.set(entry.key, { ...entry, hits: 0 });
    this.#counters.admissions++;
    this.#sweep(now);
  }

  /** @internal */
  finished(r: Recording, rejected: boolean): void {
    this.#recordings.delete(r);
    if (rejected) this.#counters.rejections++;
  }

  // --- private -------------------------------------------------------------------------------

  /** Makes room for `bytes` more in memory by evicting least recently used entries; false when it cannot. */
  #evictMemory(bytes: number): boolean {
    const max = this.limits.maxMemoryBytes;
    if (bytes > max) return false;
    for (const e of this.#entries.values()) {
      if (this.#memoryBytes + this.#pendingMemory + bytes <= max) break;
      this.#drop(e, 'evictions');
    }
    return this.#memoryBytes + this.#pendingMemory + bytes <= max;
  }

  #evictDisk(bytes: number): boolean {
    const max = this.limits.maxDiskBytes;
    for (const e of this.#entries.values()) {
      if (this.#diskBytes + this.#pendingDisk + bytes <= max) break;
      if (e.file) this.#drop(e, 'evictions');
    }
    return this.#diskBytes + this.#pendingDisk + bytes <= max;
  }

  #drop(e: Entry, counter?: 'evictions' | 'invalidations' | 'expirations'): void {
    if (this.#entries.get(e.key) !== e) return;
    this.#entries.delete(e.key);
    if (counter) this.#counters[counter]++;
    this.#memoryBytes -= e.memory;
    this.#diskBytes -= e.disk;
    if (e.file) rmSync(e.file, { force: true });
  }

  /** Expired entries give their bytes back, at most once a second (or on demand). */
  #sweep(now: number, force = false): void {
    if (!force && now - this.#lastSweep < 1000) return;
    this.#lastSweep = now;
    for (const e of [...this.#entries.values()]) if (now >= e.info.expiresAt) this.#drop(e, 'expirations');
  }
}

/**
 * One result on its way into the cache. Batches are kept in memory while the store grants the
 * bytes; past the memory share they move to a spill file; past the disk budget the recording
 * gives up and holds nothing more.
 */
export class Recording {
  /** set when something it read changed while it ran: it must not be admitted */
  stale = false;
  #batches: (readonly Row[])[] | undefined = [];
  #rows = 0;
  #memory = 0;
  #fd: number | undefined;
  #file: string | undefined;
  #disk = 0;
  #done = false;
  #overBudget = false;
  readonly #createdAt = Date.now();

  constructor(
    private readonly store: CacheStore,
    private readonly key: string,
    private readonly label: string,
    private readonly ttlMs: number,
    readonly deps: CacheDeps,
  ) {}

  /** `rows` passed on unchanged and recorded as they pass; stored only when the last row was read. */
  through<T extends readonly Row[]>(rows: AsyncIterable<T>): AsyncIterable<T> {
    return { [Symbol.asyncIterator]: () => this.#pass(rows) };
  }

  async *#pass<T extends readonly Row[]>(rows: AsyncIterable<T>): AsyncGenerator<T> {
    let complete = false;
    try {
      for await (const batch of rows) {
        this.add(batch);
        yield batch;
      }
      complete = true;
    } finally {
      if (complete) this.commit();
      else this.abandon();
    }
  }

  /** Keeps one batch (the caller still owns it and passes it on unchanged). */
  add(batch: readonly Row[]): void {
    if (this.#done || this.#overBudget || batch.length === 0) return;
    this.#rows += batch.length;
    let bytes = 0;
    for (const row of batch) bytes += rowBytes(row);
    // an entry may take at most a quarter of the memory budget, so one result cannot flush the rest
    const share = this.store.maxMemoryBytes / 4;
    if (this.#batches && this.#memory + bytes <= share && this.store.reserveMemory(bytes)) {
      this.#memory += bytes;
      this.#batches.push(batch);
      return;
    }
    try {
      if (this.#batches) this.#toDisk();
      this.#write(batch);
    } catch {
      this.#giveUp();
    }
  }

  /** The result ended normally: store it (unless it was too large or something it read changed). */
  commit(): void {
    if (this.#done) return;
    if (this.stale || this.#overBudget) {
      const rejected = this.#overBudget && !this.stale;
      this.#release();
      this.store.finished(this, rejected);
      return;
    }
    const overhead = entryOverheadBytes(this.label);
    if (!this.store.reserveMemory(overhead)) {
      this.#release();
      this.store.finished(this, true);
      return;
    }
    this.#done = true;
    const now = Date.now();
    // the rows are as old as the moment the query started reading them
    const createdAt = this.#createdAt;
    const info = { label: this.label, createdAt, expiresAt: createdAt + this.ttlMs, rows: this.#rows, deps: this.deps };
    if (this.#batches) {
      const memory = this.#memory + overhead;
      this.store.admit(this, { key: this.key, info: { ...info, bytes: memory }, memory, disk: 0, batches: this.#batches }, now);
    } else {
      closeSync(this.#fd!);
      const disk = this.#disk;
      this.store.admit(this, { key: this.key, info: { ...info, bytes: disk }, memory: overhead, disk, file: this.#file }, now);
    }
  }

  /** The result failed, was cancelled or was not read to the end: nothing is stored. */
  abandon(): void {
    if (this.#done) return;
    this.#release();
    this.store.finished(this, false);
  }

  #toDisk(): void {
    if (!this.store.canSpill) throw new Error('no disk budget');
    const held = this.#batches!;
    this.#batches = undefined;
    this.#file = this.store.spillPath();
    this.#fd = openSync(this.#file, 'w', 0o600);
    for (const b of held) this.#write(b);
    this.store.releaseMemory(this.#memory);
    this.#memory = 0;
  }

  #write(batch: readonly Row[]): void {
    const body = serialize(batch);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    if (!this.store.reserveDisk(4 + body.length)) throw new Error('over the disk budget');
    this.#disk += 4 + body.length;
    writeAll(this.#fd!, head);
    writeAll(this.#fd!, body);
  }

  #giveUp(): void {
    this.#overBudget = true;
    this.#releaseHeld();
  }

  #releaseHeld(): void {
    this.store.releaseMemory(this.#memory);
    this.#memory = 0;
    this.#batches = undefined;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    if (this.#file) rmSync(this.#file, { force: true });
    this.#file = undefined;
    this.store.releaseDisk(this.#disk);
    this.#disk = 0;
  }

  #release(): void {
    this.#done = true;
    this.#releaseHeld();
  }
}

/**
 * A write that fills the disk part-way returns short instead of throwing; taken as whole, the
 * entry would be admitted with a truncated chunk and replayed as garbage. Writing the rest
 * either completes or throws ENOSPC, and the recording then gives up (nothing is stored).
 */
function writeAll(fd: number, buf: Buffer): void {
  let done = 0;
  while (done < buf.length) {
    const n = writeSync(fd, buf, done, buf.length - done);
    if (n <= 0) throw Object.assign(new Error('ENOSPC: no progress writing a cache file'), { code: 'ENOSPC' });
    done += n;
  }
}

async function* readFile(fd: number): AsyncIterable<readonly Row[]> {
  try {
    const head = Buffer.alloc(4);
    let pos = 0;
    for (;;) {
      if (readSync(fd, head, 0, 4, pos) < 4) return;
      const len = head.readUInt32LE(0);
      const body = Buffer.alloc(len);
      readSync(fd, body, 0, len, pos + 4);
      pos += 4 + len;
      yield deserialize(body) as Row[];
    }
  } finally {
    closeSync(fd);
  }
}

/** Keys are whole statements (up to a megabyte): the map holds their digest. */
function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('base64');
}
