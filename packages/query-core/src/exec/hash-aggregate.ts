import type { Row, Value } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import type { KeyFn, RowFn } from './expr-fn.js';
import { Operator, chunk, type OperatorInfo } from './operator.js';

/** One aggregate's running state for one group. */
export interface AggState {
  add(row: Row): void;
  result(): Value;
}

export interface AggregateSpec {
  create(): AggState;
}

/**
 * GROUP BY with a hash table of groups. Groups are emitted once the input ends (group
 * order is the order groups were first seen). Without GROUP BY, an empty input still
 * yields one row (count 0, sum NULL), as SQL requires.
 */
export class HashAggregateOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    private readonly groupColumns: readonly (number | RowFn)[],
    private readonly groupKey: KeyFn,
    private readonly aggregates: readonly AggregateSpec[],
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
    private readonly estimatedRows?: number,
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return { operator: 'HashAggregate', runsIn: 'junction', detail: this.detail, notPushed: this.notPushed, estimatedRows: this.estimatedRows };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const groups = new Map<unknown, { keys: Row; states: AggState[] }>();
    const cols = this.groupColumns;
    const aggs = this.aggregates;
    const global = cols.length === 0;
    let held = 0;
    try {
      for await (const batch of this.input.execute(ctx)) {
        checkAborted(ctx.signal);
        let added = 0;
        for (const row of batch) {
          const k = global ? 0 : this.groupKey(row);
          let g = groups.get(k);
          if (!g) {
            const keys: Row = cols.map((c) => (typeof c === 'number' ? row[c] : c(row)));
            g = { keys, states: aggs.map((a) => a.create()) };
            groups.set(k, g);
            added += rowBytes(keys) + 96 + aggs.length * 64;
          }
          const states = g.states;
          for (let i = 0; i < states.length; i++) states[i].add(row);
        }
        if (added > 0) {
          ctx.memory.reserve(added, 'HashAggregate');
          held += added;
        }
      }
      if (global && groups.size === 0) groups.set(0, { keys: [], states: aggs.map((a) => a.create()) });
      const out: Row[] = [];
      for (const g of groups.values()) {
        const r: Row = g.keys.slice();
        for (const s of g.states) r.push(s.result());
        out.push(r);
      }
      groups.clear();
      yield* chunk(out, ctx.batchSize);
    } finally {
      ctx.memory.release(held);
    }
  }
}
