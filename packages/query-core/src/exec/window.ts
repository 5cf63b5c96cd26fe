import type { Row, Value } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import type { KeyFn, RowFn } from './expr-fn.js';
import type { AggregateSpec } from './hash-aggregate/index.js';
import { Operator, chunk, type OperatorInfo } from './operator.js';
import { makeDecorator, type SortKeySpec } from './sort-keys.js';
import { SpillFile } from './spill/spill-file.js';
import { emptySpill, type SpillMetrics } from './spill/spill-metrics.js';

export interface WindowSpec {
  readonly fn: string;
  readonly partition: readonly (number | RowFn)[];
  readonly partitionKey?: KeyFn;
  readonly order: readonly SortKeySpec[];
  readonly args: readonly (number | RowFn)[];
  /** set for aggregates used as window functions */
  readonly aggregate?: AggregateSpec;
}

/**
 * Window functions over partitions, with the default frame (RANGE UNBOUNDED PRECEDING to
 * the current row's last peer with ORDER BY, the whole partition without). Blocking: the
 * input is held whole. Rows come out partition by partition in each partition's order.
 */
export class WindowOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    private readonly specs: readonly WindowSpec[],
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [input];
  }
  /** what the last run wrote to disk (only aggregates over the whole input spill) */
  readonly spill: SpillMetrics = emptySpill();

  info(): OperatorInfo {
    const spilled = this.spill.bytes > 0 ? ' (rows past the memory budget waited on disk)' : '';
    return { operator: 'Window', runsIn: 'junction', detail: this.detail + spilled, notPushed: this.notPushed, spill: this.spill };
  }

  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    Object.assign(this.spill, emptySpill());
    if (this.specs.every((s) => s.aggregate && s.partition.length === 0 && s.order.length === 0)) {
      yield* this.overWholeInput(ctx);
      return;
    }
    const rows: Row[] = [];
    let held = 0;
    try {
      for await (const batch of this.input.execute(ctx)) {
        checkAborted(ctx.signal);
        let b = 0;
        for (const r of batch) {
          rows.push(r);
          b += rowBytes(r) + 8 * this.specs.length;
        }
        ctx.memory.reserve(b, 'Window');
        held += b;
      }
      const results: Value[][] = [];
      let outputOrder: number[] | undefined;
      for (const spec of this.specs) {
        const { values, order } = computeWindow(rows, spec);
        results.push(values);
        outputOrder ??= order;
      }
      const out: Row[] = (outputOrder ?? []).map((i) => {
        const r = rows[i].slice();
        for (const v of results) r.push(v[i]);
        return r;
      });
      yield* chunk(out, ctx.batchSize);
    } finally {
      ctx.memory.release(held);
    }
  }

  /**
   * Aggregates OVER (): one value per function for every row, known once the input ends. The
   * rows wait for it in memory while the budget lasts and on disk past it, in input order,
   * so a total over many groups (global-aggregate-as-window) never fails on memory.
   */
  private async *overWholeInput(outer: ExecContext): AsyncIterable<Row[]> {
    const memory = outer.memory.consumer();
    const states = this.specs.map((s) => s.aggregate!.create());
    let rows: Row[] = [];
    let held = 0;
    let file: SpillFile | undefined;
    try {
      for await (const batch of this.input.execute(outer)) {
        checkAborted(outer.signal);
        for (const r of batch) for (const st of states) st.add(r);
        if (!file) {
          let b = 0;
          for (const r of batch) b += rowBytes(r);
          if (memory.tryReserve(b)) {
            held += b;
            for (const r of batch) rows.push(r);
            continue;
          }
          file = await SpillFile.create(outer.spillDir, outer.disk, 'Window');
        }
        await file.write(batch);
      }
      const values = states.map((st) => st.result());
      const complete = (r: Row): Row => {
        const out = r.slice();
        for (const v of values) out.push(v);
        return out;
      };
      const inMemory = rows;
      rows = [];
      for (const c of chunk(inMemory, outer.batchSize)) yield c.map(complete);
      memory.release(held);
      held = 0;
      if (!file) return;
      Object.assign(this.spill, { partitions: 1, bytes: file.bytes, depth: 1 });
      for await (const c of file.read()) {
        checkAborted(outer.signal);
        yield c.map(complete);
      }
    } finally {
      memory.close();
      await file?.remove();
    }
  }
}

function computeWindow(rows: readonly Row[], spec: WindowSpec): { values: Value[]; order: number[] } {
  const values: Value[] = new Array(rows.length).fill(null);
  const partitions = new Map<unknown, number[]>();
  for (let i = 0; i < rows.length; i++) {
    const k = spec.partitionKey ? spec.partitionKey(rows[i]) : 0;
    const p = partitions.get(k);
    if (p) p.push(i);
    else partitions.set(k, [i]);
  }
  const { decorate, compare } = makeDecorator(spec.order);
  const dec = spec.order.length ? rows.map(decorate) : undefined;
  const arg = (i: number, a: number): Value => {
    const c = spec.args[a];
    return c === undefined ? null : typeof c === 'number' ? rows[i][c] : c(rows[i]);
  };
  const order: number[] = [];
  for (const part of partitions.values()) {
    if (dec) part.sort((a, b) => compare(dec[a], dec[b]));
    for (const i of part) order.push(i);
    const n = part.length;
    // peer groups: runs of rows equal on the ORDER BY keys (one group without ORDER BY)
    const peerEnd = new Array<number>(n);
    for (let s = 0; s < n; ) {
      let e = s + 1;
      while (e < n && dec && compare(dec[part[s]], dec[part[e]]) === 0) e++;
      if (!dec) e = n;
      for (let j = s; j < e; j++) peerEnd[j] = e;
      s = e;
    }
    switch (spec.fn) {
      case 'row_number':
        part.forEach((i, j) => (values[i] = BigInt(j + 1)));
        break;
      case 'rank': {
        let rank = 1;
        for (let j = 0; j < n; j++) {
          if (j > 0 && peerEnd[j - 1] === j) rank = j + 1;
          values[part[j]] = BigInt(rank);
        }
        break;
      }
      case 'dense_rank': {
        let rank = 1;
        for (let j = 0; j < n; j++) {
          if (j > 0 && peerEnd[j - 1] === j) rank++;
          values[part[j]] = BigInt(rank);
        }
        break;
      }
      case 'ntile': {
        const buckets = Number(arg(part[0], 0));
        const size = Math.floor(n / buckets);
        const extra = n % buckets;
        let j = 0;
        for (let b = 1; b <= buckets && j < n; b++) {
          const count = size + (b <= extra ? 1 : 0);
          for (let c = 0; c < count && j < n; c++, j++) values[part[j]] = b;
        }
        break;
      }
      case 'lag':
      case 'lead':
        for (let j = 0; j < n; j++) {
          const off = spec.args.length > 1 ? Number(arg(part[j], 1)) : 1;
          const t = spec.fn === 'lag' ? j - off : j + off;
          values[part[j]] = t >= 0 && t < n ? arg(part[t], 0) : spec.args.length > 2 ? arg(part[j], 2) : null;
        }
        break;
      case 'first_value':
        for (let j = 0; j < n; j++) values[part[j]] = arg(part[0], 0);
        break;
      case 'last_value':
        for (let j = 0; j < n; j++) values[part[j]] = arg(part[peerEnd[j] - 1], 0);
        break;
      default: {
        const agg = spec.aggregate!;
        const state = agg.create();
        for (let s = 0; s < n; ) {
          const e = peerEnd[s];
          for (let j = s; j < e; j++) state.add(rows[part[j]]);
          const v = state.result();
          for (let j = s; j < e; j++) values[part[j]] = v;
          s = e;
        }
      }
    }
  }
  return { values, order };
}
