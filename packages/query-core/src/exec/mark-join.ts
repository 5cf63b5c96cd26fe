import type { JType, Row, Value } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { concat } from './concat.js';
import { checkAborted, maybeYield, rowBytes, type ExecContext } from './context.js';
import { distinctKeys } from './dependent-join/distinct-keys.js';
import { fetchByKeys, type FetchReport } from './dependent-join/fetch-by-keys.js';
import type { KeyFn, RowFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';
import { prefetch } from './prefetch.js';
import type { RemoteScanOp } from './remote-scan.js';

/** How a counted subquery row decides the mark (absent: EXISTS, any counted row is TRUE). */
export type MarkCompare =
  /** x = y with x over the left row and y over the right row: answered from a hash set per group */
  | { readonly kind: 'equal'; readonly left: KeyFn; readonly right: KeyFn }
  /** any other comparison (x < ANY (…)), evaluated on the joined row */
  | { readonly kind: 'row'; readonly fn: RowFn };

export interface MarkJoinSpec {
  /** the correlation's equality keys: a right row can count only for left rows with the same key */
  readonly leftKey?: KeyFn;
  readonly rightKey?: KeyFn;
  /** the rest of the correlation, on the joined row; a right row counts when it is TRUE */
  readonly residual?: RowFn;
  readonly compare?: MarkCompare;
  /**
   * The subquery is a source's statement restrictable by a correlation key: when the outer
   * rows hold few distinct keys, it is sent restricted to them instead of read whole. Each
   * key's group of subquery rows is then complete (every row with that key comes), so every
   * mark is what the whole subquery gives.
   */
  readonly byKeys?: MarkByKeys;
}

export interface MarkByKeys {
  readonly scan: RemoteScanOp;
  /** the subquery's output column the IN lists restrict */
  readonly column: number;
  /** the outer row's matching key column */
  readonly leftColumn: number | RowFn;
  readonly leftType: JType;
  /** at most this many distinct outer keys restrict the subquery */
  readonly maxKeys: number;
  readonly maxInList: number;
  readonly maxParallel: number;
}

/** Outer rows held while their keys are counted: past this many per allowed key the subquery is read whole. */
const ROWS_PER_KEY = 8;

/** What one correlation group of the subquery says, summarised when no per-row test remains. */
interface Summary {
  readonly values: Set<unknown>;
  nullValue: boolean;
}

const ALL = '';

/**
 * The mark join: every left row once, followed by one boolean column that says whether the
 * subquery (the right input) holds a row for it, in SQL's three-valued logic (see the
 * logical node MarkJoin). The right side is read whole into memory, grouped by the
 * correlation keys; without a residual correlation each group is summarised (a set of the
 * compared values and whether one is NULL), so `x IN (SELECT y …)` costs one lookup per row.
 */
export class MarkJoinOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly left: Operator,
    private readonly right: Operator,
    private readonly spec: MarkJoinSpec,
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
    private readonly estimatedRows?: number,
  ) {
    super();
    this.children = [left, right];
  }

  /** set when the subquery was fetched by the outer rows' keys */
  readonly report: FetchReport & { byKeys: boolean } = { statements: 0, keys: 0, byKeys: false };

  info(): OperatorInfo {
    const fetched = this.report.byKeys ? `, subquery fetched by key: ${this.report.keys} keys in ${this.report.statements} statements` : '';
    return { operator: 'MarkJoin', runsIn: 'junction', detail: this.detail + fetched, notPushed: this.notPushed, estimatedRows: this.estimatedRows };
  }

  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const { leftKey, rightKey, residual, compare } = this.spec;
    const summarised = !residual && compare?.kind !== 'row';
    const leftAhead = prefetch(this.left.execute(ctx), 4);
    const summaries = new Map<unknown, Summary>();
    const rowsByKey = new Map<unknown, Row[]>();
    let held = 0;
    try {
      let outer: AsyncIterable<Row[]> = leftAhead;
      let subquery: AsyncIterable<Row[]> | undefined;
      const by = this.spec.byKeys;
      if (by) {
        // the outer rows come first: few distinct keys restrict the subquery's statement to them
        const it = leftAhead[Symbol.asyncIterator]();
        const buffered: Row[][] = [];
        const seen = new Set<unknown>();
        let rows = 0;
        let bytes = 0;
        let ended = false;
        while (seen.size <= by.maxKeys && rows <= by.maxKeys * ROWS_PER_KEY) {
          const r = await it.next();
          if (r.done) {
            ended = true;
            break;
          }
          checkAborted(ctx.signal);
          buffered.push(r.value);
          rows += r.value.length;
          for (const row of r.value) {
            bytes += rowBytes(row);
            const k = leftKey!(row);
            if (k !== null) seen.add(k);
          }
        }
        ctx.memory.reserve(bytes, 'MarkJoin');
        held += bytes;
        outer = concat(buffered, ended ? undefined : it);
        if (ended) {
          this.report.byKeys = true;
          const keys = distinctKeys(buffered.flat(), by.leftColumn, by.leftType);
          subquery = fetchByKeys(ctx, by.scan, by.column, keys, by, this.report);
        }
      }
      for await (const batch of subquery ?? this.right.execute(ctx)) {
        checkAborted(ctx.signal);
        let bytes = 0;
        for (const r of batch) {
          const k = rightKey ? rightKey(r) : ALL;
          // a NULL correlation key equals no outer value: the row never counts
          if (k === null) continue;
          if (summarised) {
            let s = summaries.get(k);
            if (!s) {
              s = { values: new Set(), nullValue: false };
              summaries.set(k, s);
              bytes += 96 + keyBytes(k);
            }
            if (compare) {
              const v = compare.right(r);
              if (v === null) s.nullValue = true;
              else if (!s.values.has(v)) {
                s.values.add(v);
                bytes += 48 + keyBytes(v);
              }
            }
          } else {
            let list = rowsByKey.get(k);
            if (!list) {
              list = [];
              rowsByKey.set(k, list);
              bytes += 64 + keyBytes(k);
            }
            list.push(r);
            bytes += rowBytes(r);
          }
        }
        ctx.memory.reserve(bytes, 'MarkJoin');
        held += bytes;
      }
      for await (const batch of outer) {
        checkAborted(ctx.signal);
        const out: Row[] = new Array<Row>(batch.length);
        for (let i = 0; i < batch.length; i++) {
          const l = batch[i];
          const k = leftKey ? leftKey(l) : ALL;
          let mark: Value;
          if (k === null) mark = false;
          else if (summarised) mark = summaryMark(summaries.get(k), compare, l);
          else {
            const list = rowsByKey.get(k);
            if (list && list.length > 256) await maybeYield(ctx.signal);
            mark = rowMark(list, l, residual, compare);
          }
          // a new row: the input's rows may be shared with whoever produced them
          const row = l.slice();
          row.push(mark);
          out[i] = row;
        }
        if (out.length > 0) yield out;
      }
    } finally {
      await leftAhead.close();
      ctx.memory.release(held);
    }
  }
}

function summaryMark(s: Summary | undefined, compare: MarkCompare | undefined, l: Row): Value {
  if (!s) return false;
  if (!compare || compare.kind !== 'equal') return true;
  const x = compare.left(l);
  if (x === null) return null;
  if (s.values.has(x)) return true;
  return s.nullValue ? null : false;
}

function rowMark(list: readonly Row[] | undefined, l: Row, residual: RowFn | undefined, compare: MarkCompare | undefined): Value {
  if (!list) return false;
  let sawNull = false;
  for (const r of list) {
    const joined = l.concat(r);
    if (residual && residual(joined) !== true) continue;
    if (!compare) return true;
    const c = compare.kind === 'row' ? compare.fn(joined) : equalKeys(compare.left(l), compare.right(r));
    if (c === true) return true;
    if (c === null) sawNull = true;
  }
  return sawNull ? null : false;
}

function equalKeys(a: unknown, b: unknown): Value {
  if (a === null || b === null) return null;
  return a === b;
}

function keyBytes(k: unknown): number {
  return typeof k === 'string' ? k.length * 2 : 8;
}
