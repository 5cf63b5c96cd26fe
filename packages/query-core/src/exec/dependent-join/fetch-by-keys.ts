import type { JType, RemoteQuery, Row, Value } from '@junction/connectors';
import type { ExecContext } from '../context.js';
import type { RemoteScanOp } from '../remote-scan.js';
import { streamStatement } from '../remote-scan.js';
import { intersectKeys } from './distinct-keys.js';
import { MAX_IN_LISTS_PER_STATEMENT, planKeyBatches, restrictToKeys } from './key-batches.js';

export interface FetchByKeysOptions {
  readonly maxInList: number;
  readonly maxParallel: number;
  /**
   * The fetched rows only test for a match (the tested side of a semi or anti join): the source
   * may send each distinct row once. An anti join over orders by customer key got every order of
   * 19,000 customers (190,000 rows) where 19,000 keys answer it (TPC-H Q22).
   */
  readonly existenceOnly?: boolean;
}

/** How a dependent fetch was split, for EXPLAIN ANALYZE. */
export interface FetchReport {
  statements: number;
  keys: number;
}

/** Whether the source binds a key set on this output column of the statement as one array parameter. */
export function bindsKeyArray(scan: RemoteScanOp, column: number): boolean {
  return scan.connector.capabilities().arrayKeySets.includes(scan.query.select[column].expr.type.kind);
}

/**
 * Reads the rows of `scan` whose output column `column` equals one of `keys`, as key sets
 * (bound IN lists, or one array parameter where the source takes one) batched to the
 * source's limits, up to `maxParallel` statements at a time. The
 * batches come out in whatever order the statements deliver them.
 */
export async function* fetchByKeys(
  ctx: ExecContext,
  scan: RemoteScanOp,
  column: number,
  keys: readonly Value[],
  options: FetchByKeysOptions,
  report: FetchReport,
  /** distinct values of further key columns (multi-column joins), by output column */
  extra: readonly { readonly column: number; readonly keys: readonly Value[] }[] = [],
): AsyncIterable<Row[]> {
  // a key wider than the source's column (an int64 key for an int32 column) can match no row there
  const fits = (col: number) => (v: Value) => fitsIntegerColumn(v, scan.query.select[col].expr.type);
  keys = keys.filter(fits(column));
  extra = extra.map((x) => ({ column: x.column, keys: x.keys.filter(fits(x.column)) }));
  report.keys += keys.length;
  if (keys.length === 0) return;
  const caps = scan.connector.capabilities();
  // a source that binds a key list as one array parameter gets each column's keys as one list
  const array = (col: number) => bindsKeyArray(scan, col);
  const perList = Math.max(1, Math.min(options.maxInList, caps.maxInList || options.maxInList));
  const statements = planKeyBatches(keys, {
    maxInList: perList,
    maxBindParams: caps.maxBindParams,
    baseParams: scan.rendered.params.length,
    array: array(column),
    // further key columns narrow only a single statement: spreading would send them unnarrowed
    spread: extra.length === 0 ? options.maxParallel : 1,
  });
  report.statements += statements.length;
  // further key columns narrow a single statement when their values fit beside the first key's
  const params = (col: number, n: number) => (array(col) ? 1 : n);
  const lists = (col: number, n: number) => (array(col) ? 1 : Math.ceil(n / perList));
  const extraParams = extra.reduce((n, x) => n + params(x.column, x.keys.length), 0);
  const room = caps.maxBindParams > 0 ? caps.maxBindParams - scan.rendered.params.length - params(column, keys.length) : Infinity;
  const extraLists =
    statements.length === 1 &&
    extraParams <= room &&
    statements[0].length + extra.reduce((n, x) => n + lists(x.column, x.keys.length), 0) <= MAX_IN_LISTS_PER_STATEMENT &&
    extra.every((x) => x.keys.length > 0)
      ? extra.map((x) => ({
          column: x.column,
          lists: array(x.column) ? [x.keys] : planKeyBatches(x.keys, { maxInList: perList, maxBindParams: 0, baseParams: 0 }).flat(),
        }))
      : [];
  const rendered = statements.map((lists) => {
    const restricted = restrictToKeys(scan.query, column, lists, extraLists);
    return scan.connector.render(options.existenceOnly && exactDistinct(restricted) ? { ...restricted, distinct: true } : restricted);
  });
  if (rendered.length === 1) {
    yield* streamStatement(ctx, scan.source, scan.connector, rendered[0], scan.id);
    return;
  }
  yield* mergeBounded(
    rendered.map((r) => () => streamStatement(ctx, scan.source, scan.connector, r, scan.id)),
    Math.max(1, options.maxParallel),
  );
}

/**
 * A dependent fetch's keys with those a hash join above passed down for the same statement
 * (ExecContext.keyFilters): on the fetch's own key column only keys in both sets can match;
 * another column gets its key set beside the others.
 */
export function narrowByKeyFilter(
  ctx: ExecContext,
  scan: RemoteScanOp,
  column: number,
  keys: readonly Value[],
  extra: readonly { readonly column: number; readonly keys: readonly Value[] }[],
): { keys: readonly Value[]; extra: readonly { readonly column: number; readonly keys: readonly Value[] }[] } {
  const filter = ctx.keyFilters?.get(scan.id);
  if (!filter) return { keys, extra };
  if (filter.column === column) return { keys: intersectKeys(keys, filter.keys, scan.query.select[column].expr.type), extra };
  return { keys, extra: [...extra.filter((x) => x.column !== filter.column), { column: filter.column, keys: filter.keys }] };
}

/** The fetched side is a semi or anti join's right side, which only tests for a match (its rows are never output). */
export function testsOnly(spec: { readonly type: string; readonly buildSide: 'left' | 'right' }): boolean {
  return (spec.type === 'semi' || spec.type === 'anti') && spec.buildSide === 'left';
}

/**
 * Whether the source's DISTINCT over this query's columns merges exactly the rows Junction
 * would find equal: integer, boolean, decimal and date columns only. A source's collation may merge text
 * that Junction tells apart ('a' and 'A' in a case-insensitive one), and floats have -0 and NaN;
 * those queries are sent as they are. Not with LIMIT/OFFSET, whose rows DISTINCT would change.
 */
function exactDistinct(query: RemoteQuery): boolean {
  if (query.distinct || query.limit !== undefined || query.offset !== undefined) return false;
  return query.select.every((s) => EXACT_KINDS.has(s.expr.type.kind));
}

const EXACT_KINDS = new Set(['bool', 'int16', 'int32', 'int64', 'decimal', 'date']);

/**
 * Runs up to `parallel` streams at once and yields their batches as they arrive. Each
 * stream waits while the consumer is behind, so memory stays bounded by the
 * in-flight batches. Stopping early closes every open stream.
 */
export async function* mergeBounded(factories: readonly (() => AsyncIterable<Row[]>)[], parallel: number): AsyncIterable<Row[]> {
  const queue: Row[][] = [];
  let next = 0;
  let active = 0;
  let failure: { error: unknown } | undefined;
  let stopped = false;
  let wakeConsumer: (() => void) | undefined;
  const waitingProducers: (() => void)[] = [];
  const open = new Set<AsyncIterator<Row[]>>();
  const cap = parallel * 2;

  const startOne = (): void => {
    const f = factories[next++];
    active++;
    const it = f()[Symbol.asyncIterator]();
    open.add(it);
    void (async () => {
      try {
        for (;;) {
          if (stopped) break;
          const r = await it.next();
          if (r.done) break;
          queue.push(r.value);
          wakeConsumer?.();
          while (queue.length >= cap && !stopped) await new Promise<void>((res) => waitingProducers.push(res));
        }
      } catch (e) {
        failure ??= { error: e };
      } finally {
        open.delete(it);
        active--;
        if (!stopped && !failure && next < factories.length) startOne();
        wakeConsumer?.();
      }
    })();
  };

  try {
    while (next < factories.length && active < parallel) startOne();
    for (;;) {
      if (failure) throw failure.error;
      if (queue.length > 0) {
        const b = queue.shift()!;
        waitingProducers.shift()?.();
        yield b;
        continue;
      }
      if (active === 0 && next >= factories.length) return;
      await new Promise<void>((res) => (wakeConsumer = res));
      wakeConsumer = undefined;
    }
  } finally {
    stopped = true;
    for (const w of waitingProducers.splice(0)) w();
    await Promise.all([...open].map((it) => it.return?.(undefined).catch(() => undefined)));
  }
}

const INTEGER_RANGE: Readonly<Partial<Record<string, readonly [bigint, bigint]>>> = {
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Whether an integer key value lies in the range of an integer column type (other types: always). */
export function fitsIntegerColumn(value: Value, type: JType): boolean {
  const range = INTEGER_RANGE[type.kind];
  if (!range || (typeof value !== 'bigint' && typeof value !== 'number')) return true;
  if (typeof value === 'number' && !Number.isInteger(value)) return false;
  const v = BigInt(value);
  return v >= range[0] && v <= range[1];
}
