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

interface Group {
  readonly keys: Row;
  readonly states: unknown[];
}

/**
 * The groups of a hash aggregate with the accumulators' own states, so groups
 * aggregated elsewhere (worker threads) merge in exactly. Groups keep the order and the
 * key values of their first row, provided partials are merged in input order.
 */
export class GroupTable {
  private readonly groups = new Map<unknown, Group>();
  private held = 0;
  /** hash key over a row of group key values (partials), equal to groupKey over input rows */
  private readonly keysKey: KeyFn;

  constructor(
    private readonly aggs: readonly MergeableAggregate[],
    private readonly groupColumns: readonly (number | RowFn)[],
    private readonly groupKey: KeyFn,
    keysKey: KeyFn,
    private readonly memory: MemoryTracker,
  ) {
    this.keysKey = keysKey;
  }

  get size(): number {
    return this.groups.size;
  }

  addRows(rows: readonly Row[]): void {
    const cols = this.groupColumns;
    const aggs = this.aggs;
    const global = cols.length === 0;
    let added = 0;
    for (const row of rows) {
      const k = global ? 0 : this.groupKey(row);
      let g = this.groups.get(k);
      if (!g) {
        const keys: Row = cols.map((c) => (typeof c === 'number' ? row[c] : c(row)));
        g = { keys, states: aggs.map((a) => a.acc.init()) };
        this.groups.set(k, g);
        added += this.groupBytes(keys);
      }
      const states = g.states;
      for (let i = 0; i < aggs.length; i++) {
        const a = aggs[i];
        const f = a.filter;
        if (f !== undefined && (typeof f === 'number' ? row[f] : f(row)) !== true) continue;
        const a0 = a.args[0];
        const a1 = a.args[1];
        states[i] = a.acc.add(
          states[i],
          a0 === undefined ? null : typeof a0 === 'number' ? row[a0] : a0(row),
          a1 === undefined ? undefined : typeof a1 === 'number' ? row[a1] : a1(row),
        );
      }
    }
    this.reserve(added);
  }

  /** Merges a chunk's groups (key values + states, first-seen order) into the table. */
  merge(keys: readonly Row[], states: readonly unknown[][]): void {
    const aggs = this.aggs;
    const global = this.groupColumns.length === 0;
    let added = 0;
    for (let g = 0; g < keys.length; g++) {
      const k = global ? 0 : this.keysKey(keys[g]);
      const mine = this.groups.get(k);
      if (!mine) {
        this.groups.set(k, { keys: keys[g], states: states[g] });
        added += this.groupBytes(keys[g]);
        continue;
      }
      const theirs = states[g];
      for (let i = 0; i < aggs.length; i++) mine.states[i] = aggs[i].acc.merge(mine.states[i], theirs[i]);
    }
    this.reserve(added);
  }

  /** Output rows (key values, then results); without GROUP BY always one row. */
  finish(): Row[] {
    if (this.groupColumns.length === 0 && this.groups.size === 0) this.groups.set(0, { keys: [], states: this.aggs.map((a) => a.acc.init()) });
    const out: Row[] = [];
    for (const g of this.groups.values()) {
      const r: Row = g.keys.slice();
      for (let i = 0; i < this.aggs.length; i++) r.push(this.aggs[i].acc.finish(g.states[i]));
      out.push(r);
    }
    this.groups.clear();
    return out;
  }

  release(): void {
    this.memory.release(this.held);
    this.held = 0;
  }

  private groupBytes(keys: Row): number {
    return rowBytes(keys) + 96 + this.aggs.length * 64;
  }

  private reserve(bytes: number): void {
    if (bytes === 0) return;
    this.memory.reserve(bytes, 'HashAggregate');
    this.held += bytes;
  }
}
