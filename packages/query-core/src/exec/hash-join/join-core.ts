import type { JoinType, Row, Value } from '@junction/connectors';
import { rowBytes, type MemoryTracker } from '../context.js';
import type { KeyFn, RowFn } from '../expr-fn.js';

export type HashJoinType = Exclude<JoinType, 'cross'>;

export interface JoinSpec {
  readonly type: HashJoinType;
  readonly buildSide: 'left' | 'right';
  /** key of a left row / right row; null when a key column is NULL (never matches) */
  readonly leftKey: KeyFn;
  readonly rightKey: KeyFn;
  /** rest of the ON condition, over left columns followed by right columns */
  readonly residual?: RowFn;
  readonly leftWidth: number;
  readonly rightWidth: number;
}

/**
 * The in-memory part of a hash join: a hash table over the build side, then probe
 * batches, then (for outer/semi/anti joins preserving the build side) the build rows
 * that never matched. Output rows are always left columns then right columns, whichever
 * side was built. Keys follow PostgreSQL: a NULL key matches nothing, so such rows only
 * appear as unmatched rows of a preserved side (or of an anti join).
 */
export class JoinCore {
  private readonly table = new Map<unknown, Row[]>();
  /** build rows whose key is NULL: they can only come out unmatched */
  private readonly nullKeyRows: Row[] = [];
  private matched: Set<Row> | undefined;
  private bytes = 0;
  private buildCount = 0;
  readonly probePreserved: boolean;
  readonly buildPreserved: boolean;
  private readonly buildKey: KeyFn;
  private readonly probeKey: KeyFn;
  private readonly nullLeft: Row;
  private readonly nullRight: Row;

  constructor(
    readonly spec: JoinSpec,
    private readonly memory: MemoryTracker,
  ) {
    const left = spec.buildSide === 'right';
    const t = spec.type;
    // left/semi/anti output is defined by the left side; with the left built, its rows' fate is decided at the end
    const leftPreserved = t === 'left' || t === 'full';
    const rightPreserved = t === 'right' || t === 'full';
    this.probePreserved = left ? leftPreserved : rightPreserved;
    this.buildPreserved = left ? rightPreserved : leftPreserved;
    if (this.buildPreserved || (!left && (t === 'semi' || t === 'anti'))) this.matched = new Set();
    this.buildKey = left ? spec.rightKey : spec.leftKey;
    this.probeKey = left ? spec.leftKey : spec.rightKey;
    this.nullLeft = new Array<Value>(spec.leftWidth).fill(null);
    this.nullRight = new Array<Value>(spec.rightWidth).fill(null);
  }

  get buildRows(): number {
    return this.buildCount;
  }

  get distinctKeys(): number {
    return this.table.size;
  }

  keys(): IterableIterator<unknown> {
    return this.table.keys();
  }

  /** `reserve` false: the caller already holds the memory for these rows */
  addBuild(batch: readonly Row[], reserve = true): void {
    if (reserve) {
      let b = 0;
      for (const row of batch) b += rowBytes(row);
      this.memory.reserve(b, 'HashJoin build side');
      this.bytes += b;
    }
    this.buildCount += batch.length;
    const key = this.buildKey;
    for (const row of batch) {
      const k = key(row);
      if (k === null) {
        if (this.matched) this.nullKeyRows.push(row);
        continue;
      }
      const list = this.table.get(k);
      if (list) list.push(row);
      else this.table.set(k, [row]);
    }
  }

  /**
   * Joins a probe batch against the table. With `seen` (a block join: the build side comes
   * in several blocks, so a probe row's fate is known only after the last one) probe rows
   * never come out here: matches set `seen[offset + i]`, and only matched pairs of
   * inner/outer joins are returned.
   */
  probe(batch: readonly Row[], seen?: Uint8Array, offset = 0): Row[] {
    const out: Row[] = [];
    const { type, residual, buildSide } = this.spec;
    const buildIsRight = buildSide === 'right';
    const key = this.probeKey;
    const matched = this.matched;
    const semiLike = type === 'semi' || type === 'anti';
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i];
      const k = key(p);
      const list = k === null ? undefined : this.table.get(k);
      let any = false;
      if (list) {
        for (const b of list) {
          let combined: Row | undefined;
          if (residual) {
            combined = buildIsRight ? combine(p, b) : combine(b, p);
            if (residual(combined) !== true) continue;
          }
          any = true;
          if (semiLike) {
            if (buildIsRight) break; // the probe row (left) is decided
            matched!.add(b);
            continue;
          }
          if (matched) matched.add(b);
          out.push(combined ?? (buildIsRight ? combine(p, b) : combine(b, p)));
        }
      }
      if (seen) {
        if (any) seen[offset + i] = 1;
        continue;
      }
      if (semiLike) {
        if (buildIsRight && (type === 'semi') === any) out.push(p);
        continue;
      }
      if (!any && this.probePreserved) out.push(this.padProbe(p));
    }
    return out;
  }

  /** Whether a block join must remember which probe rows matched: their output depends on it. */
  get probeFateMatters(): boolean {
    const t = this.spec.type;
    return this.probePreserved || (this.spec.buildSide === 'right' && (t === 'semi' || t === 'anti'));
  }

  /** A probe row's output once it is known whether it matched anything (undefined: no row). */
  probeOutcome(p: Row, wasMatched: boolean): Row | undefined {
    const t = this.spec.type;
    if (this.spec.buildSide === 'right' && (t === 'semi' || t === 'anti')) return (t === 'semi') === wasMatched ? p : undefined;
    if (!wasMatched && this.probePreserved) return this.padProbe(p);
    return undefined;
  }

  /** A build row's output when no probe row can match it (its partition has no probe rows). */
  buildOutcomeUnmatched(b: Row): Row | undefined {
    const t = this.spec.type;
    if (this.spec.buildSide === 'left' && (t === 'semi' || t === 'anti')) return t === 'anti' ? b : undefined;
    if (this.buildPreserved) return this.spec.buildSide === 'right' ? combine(this.nullLeft, b) : combine(b, this.nullRight);
    return undefined;
  }

  private padProbe(p: Row): Row {
    return this.spec.buildSide === 'right' ? combine(p, this.nullRight) : combine(this.nullLeft, p);
  }

  /** Rows decided only once every probe row is seen. */
  *finish(batchSize: number): Iterable<Row[]> {
    const matched = this.matched;
    if (!matched) return;
    const { type, buildSide } = this.spec;
    const buildIsRight = buildSide === 'right';
    let out: Row[] = [];
    const emit = (b: Row, wasMatched: boolean): void => {
      if (type === 'semi') {
        if (wasMatched) out.push(b);
      } else if (type === 'anti') {
        if (!wasMatched) out.push(b);
      } else if (!wasMatched) {
        out.push(buildIsRight ? combine(this.nullLeft, b) : combine(b, this.nullRight));
      }
    };
    for (const list of this.table.values()) {
      for (const b of list) {
        emit(b, matched.has(b));
        if (out.length >= batchSize) {
          yield out;
          out = [];
        }
      }
    }
    for (const b of this.nullKeyRows) {
      emit(b, false);
      if (out.length >= batchSize) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  }

  release(): void {
    this.memory.release(this.bytes);
    this.bytes = 0;
    this.table.clear();
    this.nullKeyRows.length = 0;
    this.matched = undefined;
  }
}

/** left columns then right columns; a plain copy loop, several times faster than Array.prototype.concat on every output row */
export function combine(left: Row, right: Row): Row {
  const n = left.length;
  const m = right.length;
  const out = new Array<Value>(n + m);
  for (let i = 0; i < n; i++) out[i] = left[i];
  for (let j = 0; j < m; j++) out[n + j] = right[j];
  return out;
}
