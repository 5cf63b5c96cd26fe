import type { Row } from '@junction/connectors';
import type { Accumulator } from '../../expr/aggregates.js';
import { rowBytes, type MemoryTracker } from '../context.js';
import type { KeyFn, RowFn } from '../expr-fn.js';
import type { AggregateDescriptor } from './partial-task.js';

/** An aggregate given as an accumulator plus its inputs, so partial states can be merged. */
export interface MergeableAggregate extends AggregateDescriptor {
  readonly acc: Accumulator;
  /** first and second argument (string_agg's separator): input positions or expressions */
  readonly args: readonly (number | RowFn)[];
  /** FILTER (WHERE …): rows where it is not true are left out */
  readonly filter?: number | RowFn;
}

/**
 * What a hash aggregate writes to disk: an input row of a group that had no room in
 * memory, or a group's partial states (key values + states) evicted from memory or
 * merged in from a worker. Read back in the order written, so every group sees its rows
 * in input order.
 */
export type GroupRecord = readonly [0, Row] | readonly [1, Row, unknown[]];

interface Group {
  readonly keys: Row;
  readonly states: unknown[];
}

/**
 * The groups of a hash aggregate with the accumulators' own states, so groups
 * aggregated elsewhere (worker threads, spill partitions) merge in exactly. Groups keep
 * the order and the key values of their first row, provided partials are merged in input
 * order.
 *
 * With a spill sink, the table never fails on memory: once a new group has no room, the
 * table is frozen and rows (or worker partials) of groups it does not hold go to the
 * sink; groups it holds keep aggregating, so each group is whole in one place. When the
 * states it holds outgrow the budget (DISTINCT values, string_agg), it asks to be evicted
 * (`wantsEvict`): the caller writes every group's partial states out and it starts empty.
 */
export class GroupTable {
  private readonly groups = new Map<unknown, Group>();
  private held = 0;
  /** hash key over a row of group key values (partials), equal to groupKey over input rows */
  private readonly keysKey: KeyFn;
  private sink: GroupRecord[] | undefined;
  private frozen = false;
  /** set when growing states found no room: the caller should evict() */
  wantsEvict = false;
  private readonly sized: boolean;

  constructor(
    private readonly aggs: readonly MergeableAggregate[],
    private readonly groupColumns: readonly (number | RowFn)[],
    private readonly groupKey: KeyFn,
    keysKey: KeyFn,
    private readonly memory: MemoryTracker,
  ) {
    this.keysKey = keysKey;
    this.sized = aggs.some((a) => a.acc.sizeOf !== undefined);
  }

  get size(): number {
    return this.groups.size;
  }

  /** From now on, what does not fit goes to `sink` instead of failing. */
  spillTo(sink: GroupRecord[]): void {
    this.sink = sink;
  }

  addRows(rows: readonly Row[]): void {
    const cols = this.groupColumns;
    const aggs = this.aggs;
    const global = cols.length === 0;
    const sized = this.sized;
    let grown = 0;
    for (const row of rows) {
      const k = global ? 0 : this.groupKey(row);
      let g = this.groups.get(k);
      if (!g) {
        const keys: Row = cols.map((c) => (typeof c === 'number' ? row[c] : c(row)));
        if (!this.admit(this.groupBytes(keys))) {
          this.sink!.push([0, row]);
          continue;
        }
        g = { keys, states: aggs.map((a) => a.acc.init()) };
        this.groups.set(k, g);
      }
      const states = g.states;
      for (let i = 0; i < aggs.length; i++) {
        const a = aggs[i];
        const f = a.filter;
        if (f !== undefined && (typeof f === 'number' ? row[f] : f(row)) !== true) continue;
        const a0 = a.args[0];
        const a1 = a.args[1];
        const sizeOf = sized ? a.acc.sizeOf : undefined;
        const before = sizeOf ? sizeOf(states[i]) : 0;
        states[i] = a.acc.add(
          states[i],
          a0 === undefined ? null : typeof a0 === 'number' ? row[a0] : a0(row),
          a1 === undefined ? undefined : typeof a1 === 'number' ? row[a1] : a1(row),
        );
        if (sizeOf) grown += sizeOf(states[i]) - before;
      }
    }
    this.grow(grown);
  }

  /** Merges a chunk's groups (key values + states, first-seen order) into the table. */
  merge(keys: readonly Row[], states: readonly unknown[][]): void {
    const aggs = this.aggs;
    const global = this.groupColumns.length === 0;
    let grown = 0;
    for (let g = 0; g < keys.length; g++) {
      const k = global ? 0 : this.keysKey(keys[g]);
      const mine = this.groups.get(k);
      if (!mine) {
        if (!this.admit(this.groupBytes(keys[g]) + this.statesBytes(states[g]))) {
          this.sink!.push([1, keys[g], states[g]]);
          continue;
        }
        this.groups.set(k, { keys: keys[g], states: states[g] });
        continue;
      }
      const theirs = states[g];
      for (let i = 0; i < aggs.length; i++) {
        const sizeOf = aggs[i].acc.sizeOf;
        const before = sizeOf ? sizeOf(mine.states[i]) : 0;
        mine.states[i] = aggs[i].acc.merge(mine.states[i], theirs[i]);
        if (sizeOf) grown += sizeOf(mine.states[i]) - before;
      }
    }
    this.grow(grown);
  }

  /**
   * Output rows (key values, then results). Without GROUP BY an empty table still gives
   * its one row, unless `emptyGlobal` is false (the group's rows went to disk).
   */
  finish(emptyGlobal = true): Row[] {
    if (emptyGlobal && this.groupColumns.length === 0 && this.groups.size === 0) this.groups.set(0, { keys: [], states: this.aggs.map((a) => a.acc.init()) });
    const out: Row[] = [];
    for (const g of this.groups.values()) {
      const r: Row = g.keys.slice();
      for (let i = 0; i < this.aggs.length; i++) r.push(this.aggs[i].acc.finish(g.states[i]));
      out.push(r);
    }
    this.groups.clear();
    return out;
  }

  /** Every group as partial states, in first-seen order; the table is empty and unfrozen afterwards. */
  evict(): GroupRecord[] {
    const out: GroupRecord[] = [];
    for (const g of this.groups.values()) out.push([1, g.keys, g.states]);
    this.groups.clear();
    this.release();
    this.frozen = false;
    this.wantsEvict = false;
    return out;
  }

  /** The hash key of a record's group, as groupKey gives it for input rows. */
  recordKey(r: GroupRecord): unknown {
    if (this.groupColumns.length === 0) return 0;
    return r[0] === 0 ? this.groupKey(r[1]) : this.keysKey(r[1]);
  }

  recordBytes(r: GroupRecord): number {
    return r[0] === 0 ? rowBytes(r[1]) : this.groupBytes(r[1]) + this.statesBytes(r[2]);
  }

  release(): void {
    this.memory.release(this.held);
    this.held = 0;
  }

  private groupBytes(keys: Row): number {
    return rowBytes(keys) + 96 + this.aggs.length * 64;
  }

  private statesBytes(states: readonly unknown[]): number {
    if (!this.sized) return 0;
    let n = 0;
    for (let i = 0; i < this.aggs.length; i++) n += this.aggs[i].acc.sizeOf?.(states[i]) ?? 0;
    return n;
  }

  /** Whether a new group of `bytes` may live in memory; without a sink, no room is an error. */
  private admit(bytes: number): boolean {
    if (!this.frozen && this.memory.tryReserve(bytes)) {
      this.held += bytes;
      return true;
    }
    if (!this.sink) this.memory.reserve(bytes, 'HashAggregate');
    this.frozen = true;
    return false;
  }

  private grow(bytes: number): void {
    if (bytes <= 0) return;
    if (!this.sink) {
      this.memory.reserve(bytes, 'HashAggregate');
      this.held += bytes;
      return;
    }
    if (this.memory.tryReserve(bytes)) this.held += bytes;
    // the states already grew: they leave memory with the next evict()
    else this.wantsEvict = true;
  }
}
