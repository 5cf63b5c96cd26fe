import fs from 'node:fs';
import type { JType, Row, Value } from '../contract/types.js';
import { equalityKeys, type EqualitySide } from './filter.js';
import type { DocExpr } from './query-text.js';

/**
 * The typed rows of file-backed document tables, kept in memory after a read that went through
 * every matched file, so that later queries filter them instead of parsing the documents again;
 * equality and IN filters go through a hash index built on a column the first time one needs it.
 *
 * A cached table is only ever answered for exactly the files it was read from: each query stats
 * them (size, mtime, inode) and a difference (a file added to a glob, rewritten, touched) drops
 * the rows and the table is read again. URL documents are never cached: telling whether one
 * changed would cost a request, about what reading it costs.
 *
 * Memory is bounded by a budget per source (all its tables together) on estimated bytes: a read
 * stops keeping rows as soon as they pass the budget, or as soon as the part read so far shows
 * the whole would, and drops what it kept; that table then streams as if there were no cache.
 */

/** 256 MiB across a source's tables. */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * Bytes read before the rows kept so far are taken as a sample of the whole: a smaller start
 * (a document's header, its first few rows) says too little about the rest.
 */
const PROJECTION_MIN_BYTES = 1024 * 1024;

export interface FileStamp {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/** The files' stamps, in the order given; undefined when one cannot be stat'ed (gone meanwhile). */
export async function stampFiles(paths: readonly string[]): Promise<FileStamp[] | undefined> {
  try {
    return await Promise.all(
      paths.map(async (p) => {
        const st = await fs.promises.stat(p);
        return { path: p, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
      }),
    );
  } catch {
    return undefined;
  }
}

/** What a cached table is valid for: the exact list of files and each one's stamp. */
export function stampKey(stamps: readonly FileStamp[]): string {
  return JSON.stringify(stamps.map((s) => [s.path, s.size, s.mtimeMs, s.ino]));
}

/**
 * An estimate of what a row holds on V8's heap: the array and its element store, then each
 * value (a string's headers and one byte a character, a boxed number, a bigint). On TPoX's five
 * tables at SF 0.1: 53 MB estimated, 54 MB of heap measured. Text beyond Latin-1 takes two bytes
 * a character in V8, which this does not look for: such a table may take up to twice its estimate.
 */
export function rowBytes(row: Row): number {
  let n = 32 + 8 * row.length;
  for (const v of row) n += valueBytes(v);
  return n;
}

function valueBytes(v: Value): number {
  if (v === null || typeof v === 'boolean') return 0;
  // a long string is kept as a slice of its own copy (see detached): two headers
  if (typeof v === 'string') return (v.length < SLICE_MIN ? 16 : 40) + v.length;
  if (typeof v === 'number') return 16;
  if (typeof v === 'bigint') return 24;
  return 32;
}

/** V8 copies shorter substrings; longer ones may be views into the whole chunk they were read from. */
const SLICE_MIN = 13;

/**
 * The string in memory of its own. Text a parser cut from a 64 KB chunk keeps the whole chunk
 * alive, which would make a cached table hold most of its document; flattening a fresh
 * concatenation copies the characters, and a slice of that copy refers to it alone.
 */
function detached(s: string): string {
  return (' ' + s).slice(1);
}

/** Row positions by key, positions ascending (rows are indexed in order). */
type HashIndex = Map<string, number[]>;

export class CachedTable {
  /** per column and key kind; null: the index did not fit the budget, equality scans instead */
  readonly indexes = new Map<string, HashIndex | null>();
  constructor(
    readonly key: string,
    readonly rows: readonly Row[],
    public bytes: number,
  ) {}
}

export interface RowCacheStats {
  /** the budget, bytes (0: caching is off) */
  readonly budget: number;
  /** estimated bytes held: cached rows and indexes, and rows kept by reads under way */
  readonly bytes: number;
  /** tables whose rows are cached now */
  readonly tables: number;
  /** documents opened and parsed by stream() */
  readonly parses: number;
  /** queries answered from cached rows */
  readonly hits: number;
  /** reads whose rows were kept */
  readonly loads: number;
  /** reads that stopped keeping rows because they would not fit the budget */
  readonly refused: number;
  /** hash indexes built */
  readonly indexes: number;
}

/** Keeps a table's rows while one read goes through its files; see RowCache.beginLoad. */
export class TableLoad {
  private readonly rows: Row[] = [];
  private bytes = 0;
  private finished = false;

  constructor(
    private readonly cache: RowCache,
    readonly table: string,
    readonly key: string,
    private readonly totalBytes: number,
  ) {}

  /** false once the load was given up: the caller stops handing rows over */
  get active(): boolean {
    return !this.finished;
  }

  add(row: Value[]): void {
    if (this.finished) return;
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (typeof v === 'string' && v.length >= SLICE_MIN) row[i] = detached(v);
    }
    const b = rowBytes(row);
    this.rows.push(row);
    this.bytes += b;
    if (!this.cache.charge(b)) this.refuse();
  }

  /** After each parsed piece: gives up early when the part read so far shows the whole will not fit. */
  progress(bytesRead: number): void {
    if (this.finished || bytesRead < PROJECTION_MIN_BYTES || bytesRead >= this.totalBytes) return;
    const projected = (this.bytes * this.totalBytes) / bytesRead;
    if (projected - this.bytes > this.cache.free()) this.refuse();
  }

  /**
   * Drops what was kept: the read stopped early (LIMIT, a cancel, an error), or hit a value a
   * later query would have to fail on. Nothing is remembered: the next full read tries again.
   */
  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.cache.release(this.bytes);
    this.cache.endLoad(this);
    this.rows.length = 0;
  }

  /**
   * The read went through every file: the rows are kept, under the stamps taken before the
   * read, if the files still carry them (a file rewritten while it was read gives nothing).
   */
  commit(after: string): CachedTable | undefined {
    if (this.finished) return undefined;
    if (after !== this.key) {
      this.abandon();
      return undefined;
    }
    this.finished = true;
    this.cache.endLoad(this);
    return this.cache.store(this.table, new CachedTable(this.key, this.rows, this.bytes));
  }

  private refuse(): void {
    this.abandon();
    this.cache.refuse(this.table, this.key);
  }
}

export class RowCache {
  private readonly entries = new Map<string, CachedTable>();
  /** tables some read is keeping rows of now: a second read of a cold table streams without keeping them */
  private readonly loading = new Set<string>();
  /**
   * The stamps a table was found too big at: its next reads do not keep rows again until its
   * files change (even if other tables leave room meanwhile), rather than fill and drop each time.
   */
  private readonly tooBig = new Map<string, string>();
  private used = 0;
  private counts = { parses: 0, hits: 0, loads: 0, refused: 0, indexes: 0 };

  constructor(readonly budget: number) {}

  get enabled(): boolean {
    return this.budget > 0;
  }

  /** The table's rows if they were cached from files with exactly these stamps; stale rows are dropped. */
  get(table: string, key: string): CachedTable | undefined {
    const hit = this.entries.get(table);
    if (!hit) return undefined;
    if (hit.key === key) {
      this.counts.hits++;
      return hit;
    }
    this.drop(table);
    return undefined;
  }

  /** The cached row count of a table, if cached for these stamps (for the planner). */
  rowCount(table: string, key: string): number | undefined {
    const hit = this.entries.get(table);
    return hit?.key === key ? hit.rows.length : undefined;
  }

  has(table: string): boolean {
    return this.entries.has(table);
  }

  /**
   * Starts keeping the rows of a read of `table` over files stamped `key` (their sizes adding
   * up to totalBytes); undefined when caching is off, another read is keeping them, or the
   * table did not fit at these stamps before.
   */
  beginLoad(table: string, key: string, totalBytes: number): TableLoad | undefined {
    if (!this.enabled || this.loading.has(table) || this.tooBig.get(table) === key) return undefined;
    this.drop(table);
    this.loading.add(table);
    return new TableLoad(this, table, key, totalBytes);
  }

  /** Counts one document parsed by a read. */
  parsed(): void {
    this.counts.parses++;
  }

  /**
   * The positions of the rows whose column (index `column`) has key `key`, through a hash index
   * built on first use; undefined when the index does not fit the budget (the caller scans).
   */
  lookup(entry: CachedTable, column: number, side: EqualitySide, keys: readonly string[]): number[] | undefined {
    const id = `${column}/${side.kind}`;
    let index = entry.indexes.get(id);
    if (index === undefined) {
      index = this.buildIndex(entry, column, side);
      entry.indexes.set(id, index);
    }
    if (index === null) return undefined;
    if (keys.length === 1) return index.get(keys[0]) ?? [];
    const out: number[] = [];
    for (const k of new Set(keys)) {
      const hit = index.get(k);
      if (hit) for (const p of hit) out.push(p);
    }
    return out;
  }

  stats(): RowCacheStats {
    return { budget: this.budget, bytes: this.used, tables: this.entries.size, ...this.counts };
  }

  clear(): void {
    for (const t of [...this.entries.keys()]) this.drop(t);
  }

  // ---- for TableLoad

  charge(bytes: number): boolean {
    this.used += bytes;
    return this.used <= this.budget;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }

  free(): number {
    return this.budget - this.used;
  }

  endLoad(load: TableLoad): void {
    this.loading.delete(load.table);
  }

  refuse(table: string, key: string): void {
    this.counts.refused++;
    this.tooBig.set(table, key);
  }

  store(table: string, entry: CachedTable): CachedTable {
    this.drop(table);
    this.entries.set(table, entry);
    this.tooBig.delete(table);
    this.counts.loads++;
    return entry;
  }

  private drop(table: string): void {
    const e = this.entries.get(table);
    if (!e) return;
    this.entries.delete(table);
    this.used -= e.bytes;
  }

  private buildIndex(entry: CachedTable, column: number, side: EqualitySide): HashIndex | null {
    const index: HashIndex = new Map();
    // each key's string and list, and the map's own entry
    let bytes = 0;
    const rows = entry.rows;
    for (let i = 0; i < rows.length; i++) {
      const v = rows[i][column];
      // NULL equals nothing: it is never looked up
      if (v === null) continue;
      const k = side.key(v);
      const list = index.get(k);
      if (list) {
        list.push(i);
        bytes += 8;
      } else {
        index.set(k, [i]);
        bytes += 16 + k.length + 40 + 32;
      }
    }
    if (!this.charge(bytes)) {
      this.release(bytes);
      return null;
    }
    entry.bytes += bytes;
    this.counts.indexes++;
    return index;
  }
}

/** How a query reads a table's columns: its index in the cached row and its type. */
export type ColumnOf = (name: string) => { readonly index: number; readonly type: JType };

/**
 * The positions (ascending, each once) of the only rows `where` can be true on, found through
 * hash indexes: an equality or IN of a column with parameters, an AND holding one, an OR made
 * of them. Undefined when the filter has no such part: every row is a candidate. The filter is
 * still evaluated on each candidate, so a candidate list only needs to hold every match.
 */
export function candidateRows(
  cache: RowCache,
  entry: CachedTable,
  where: DocExpr,
  column: ColumnOf,
  params: readonly Value[],
): number[] | undefined {
  const found = candidates(cache, entry, where, column, params);
  if (found === undefined) return undefined;
  const sorted = Int32Array.from(found).sort();
  const out: number[] = [];
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) out.push(sorted[i]);
  return out;
}

function candidates(
  cache: RowCache,
  entry: CachedTable,
  e: DocExpr,
  column: ColumnOf,
  params: readonly Value[],
): number[] | undefined {
  switch (e.k) {
    case 'cmp': {
      if (e.op !== '=') return undefined;
      if (e.l.k === 'col' && e.r.k === 'param') return probe(e.l.name, [e.r], false);
      if (e.l.k === 'param' && e.r.k === 'col') return probe(e.r.name, [e.l], true);
      return undefined;
    }
    case 'in':
      if (e.negated || e.arg.k !== 'col' || !e.list.every((x) => x.k === 'param')) return undefined;
      return probe(e.arg.name, e.list as Extract<DocExpr, { k: 'param' }>[], false);
    case 'and':
      for (const a of e.args) {
        const c = candidates(cache, entry, a, column, params);
        if (c !== undefined) return c;
      }
      return undefined;
    case 'or': {
      const out: number[] = [];
      for (const a of e.args) {
        const c = candidates(cache, entry, a, column, params);
        if (c === undefined) return undefined;
        for (const p of c) out.push(p);
      }
      return out;
    }
    default:
      return undefined;
  }

  /**
   * Rows whose column equals one of the parameters. The keys follow the comparator compileExpr
   * picks for the same operands (an untyped parameter takes the column's type); all of them
   * must read the column the same way for one index to serve.
   */
  function probe(
    name: string,
    list: readonly Extract<DocExpr, { k: 'param' }>[],
    paramFirst: boolean,
  ): number[] | undefined {
    const c = column(name);
    let side: EqualitySide | undefined;
    const keys: string[] = [];
    for (const p of list) {
      const pt = p.type ?? c.type;
      const k = paramFirst ? equalityKeys(pt, c.type) : equalityKeys(c.type, pt);
      const [colSide, paramSide] = paramFirst ? [k.right, k.left] : [k.left, k.right];
      if (side && side.kind !== colSide.kind) return undefined;
      side = colSide;
      const v = params[p.index];
      // NULL equals nothing
      if (v === null || v === undefined) continue;
      keys.push(paramSide.key(v));
    }
    if (!side) return undefined;
    if (keys.length === 0) return [];
    return cache.lookup(entry, c.index, side, keys);
  }
}
