import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { readByKeys } from '../../plan/fields.js';
import { capabilitiesOf, tableInfo, type OptimizerContext } from '../context.js';
import { conjoin, conjuncts, fieldIds, isConstant, isInteger, keyColumn, refsOf, sameType } from '../exprs.js';
import { distinctInOutput, distinctOf, estimateRows } from '../stats.js';
import { knownPredicates } from './infer-predicates-through-join-keys.js';

/** Below this many estimated rows a side may drive a dependent join. */
export const DEPENDENT_MAX_DRIVER_ROWS = 50_000;
/** …and only when the other side is estimated at least this many times larger. */
export const DEPENDENT_MIN_RATIO = 10;
export const DEPENDENT_MAX_PARALLEL = 4;
/** A probed side estimated at most this many rows is read whole: asking it by key saves nothing. */
export const TINY_SIDE_ROWS = 1000;
/**
 * When the driver's keys are expected to cover more than this share of the other side's
 * distinct keys (column statistics), IN lists would ask for nearly every row, in many
 * statements: the other side is read once instead.
 */
export const DEPENDENT_MAX_KEY_COVERAGE = 0.5;
/**
 * Driver keys that select more than this share of the other side's key values make the source
 * read most of its table's pages for any batch of them, the rows of a key lying scattered
 * (PostgreSQL scans all of lineitem for 2,000 of SF 10's 100,000 suppliers): spread over
 * DEPENDENT_MAX_PARALLEL statements they would read the table that many times at once (TPC-H
 * Q7 at SF 10: four scans of lineitem and orders for 8,000 suppliers). They are not spread: one
 * statement where the source takes them all, else one statement at a time.
 */
export const DEPENDENT_SPREAD_MAX_COVERAGE = 0.01;

/**
 * Picks how Junction runs each join it keeps. Equi-joins hash with the smaller estimated side
 * as build. When one side is small (for a semi join, either: `IN (subquery)` with a selective
 * subquery in another source reads the outer table by the subquery's keys) and the other is a Remote whose source takes IN lists of
 * the key's type exactly, the join is dependent: read the small side, send its keys to the
 * other source in IN lists. Not when the other side is tiny (reading it whole costs less than a
 * round trip per key batch) or its key is already pinned to a constant by key inference.
 * Estimates can be wrong, so the executor also switches a hash join to a dependent join at
 * run time when the build side turns out small.
 */
export function chooseJoinStrategy(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Join' || node.strategy) return undefined;
  const left = fieldIds(node.left);
  const keys: { l: number; r: number; type: Extract<LogicalPlan, { kind: 'Scan' }>['fields'][number]['type'] }[] = [];
  for (const c of node.condition ? conjuncts(node.condition) : []) {
    if (c.kind !== 'call' || c.fn !== 'eq') continue;
    // a column cast to a wider integer to meet the other side's key still restricts by IN lists
    const [a, b] = c.args.map(keyColumn);
    if (!a || !b) continue;
    if (!sameType(a.type, b.type) && !(isInteger(a.type) && isInteger(b.type))) continue;
    keys.push(left.has(a.id) ? { l: a.id, r: b.id, type: a.type } : { l: b.id, r: a.id, type: a.type });
  }
  if (keys.length === 0) return { ...node, strategy: { kind: 'nested-loop' } };
  const l = estimateRows(node.left, ctx);
  const r = estimateRows(node.right, ctx);
  // the executor restricts the other side by the condition's first key (and narrows by the
  // rest): put first the key whose values select the smallest share of the other side's
  // (partkey before suppkey in a part⋈partsupp⋈supplier ⋈ lineitem join)
  const ordered = orderKeys(node, keys, l <= r ? 'left' : 'right', ctx);
  if (ordered) return chooseJoinStrategy(ordered, ctx);

  // the driver's rows must all be read anyway: the preserved side of an outer join, the
  // probing side of an anti join. A semi join keeps only left rows with a match, so its
  // subquery side may drive too: the left rows whose key is among its keys are all it can keep.
  const drivers: ('left' | 'right')[] =
    node.type === 'inner' || node.type === 'semi'
      ? l <= r
        ? ['left', 'right']
        : ['right', 'left']
      : node.type === 'left' || node.type === 'anti'
        ? ['left']
        : node.type === 'right'
          ? ['right']
          : [];
  for (const driver of drivers) {
    const [small, out, other] = driver === 'left' ? [l, r, node.right] : [r, l, node.left];
    // a grouped source asked by key reads only its keys' rows: its input is what is saved
    const big = Math.max(out, estimateRows(readByKeys(other, new Set(keys.map((k) => (driver === 'left' ? k.r : k.l)))), ctx));
    // a filter no index serves makes the source scan its whole table to answer: IN lists on
    // an indexed key read only the keys' rows (lineitem by orderkey, not by shipdate)
    const reads = Math.max(big, scannedRows(other, new Set(keys.map((k) => (driver === 'left' ? k.r : k.l))), ctx) ?? 0);
    // the keys the driver sends, not its rows, make the IN lists
    const driverKeys = Math.min(small, distinctInOutput(ref(driver === 'left' ? keys[0].l : keys[0].r, keys[0].type), driver === 'left' ? node.left : node.right, ctx) ?? small);
    if (
      driverKeys >= DEPENDENT_MAX_DRIVER_ROWS ||
      small * DEPENDENT_MIN_RATIO > reads ||
      big <= TINY_SIDE_ROWS ||
      other.kind !== 'Remote'
    )
      continue;
    // the driver's keys span (nearly) all of the other side's: IN lists would restrict nothing
    if (keys.every((k) => covers(k, driver, node, small, ctx, DEPENDENT_MAX_KEY_COVERAGE))) continue;
    // key inference already pinned the other side's key to a constant: IN lists add nothing
    const otherKeys = new Set(keys.map((k) => (driver === 'left' ? k.r : k.l)));
    if (knownPredicates(other).some((p) => pinsKey(p, otherKeys))) continue;
    const caps = capabilitiesOf(ctx, other.source);
    if (!caps.in || caps.maxInList <= 0) continue;
    // IN lists restrict one key column; the source must compare its type exactly, or an IN
    // list could match other rows (the executor restricts the first such key)
    const exact = (k: (typeof keys)[number]) =>
      !(k.type.kind === 'string' && !caps.exactStringEquality) &&
      k.type.kind !== 'float32' &&
      k.type.kind !== 'float64';
    if (!keys.some(exact)) continue;
    const scans = covers(keys[0], driver, node, small, ctx, DEPENDENT_SPREAD_MAX_COVERAGE);
    return {
      ...node,
      strategy: {
        kind: 'dependent',
        driver,
        maxInList: Math.min(1000, caps.maxInList),
        maxParallel: scans ? 1 : DEPENDENT_MAX_PARALLEL,
      },
    };
  }
  return { ...node, strategy: { kind: 'hash', buildSide: l <= r ? 'left' : 'right' } };
}

const ref = (id: number, type: Expr['type']): Expr => ({ kind: 'ref', id, type });

/** The share of the other side's distinct key values the driver's values are expected to hit. */
function coverage(
  k: { l: number; r: number; type: Expr['type'] },
  driver: 'left' | 'right',
  join: Extract<LogicalPlan, { kind: 'Join' }>,
  ctx: OptimizerContext,
): number {
  const [mine, theirs] = driver === 'left' ? [k.l, k.r] : [k.r, k.l];
  const [mySide, otherSide] = driver === 'left' ? [join.left, join.right] : [join.right, join.left];
  const other = distinctOf(ref(theirs, k.type), otherSide, ctx);
  const own = distinctInOutput(ref(mine, k.type), mySide, ctx);
  return other === undefined || own === undefined ? 1 : Math.min(1, own / other);
}

/** The join with its key equalities reordered, most restrictive first; undefined when already so. */
function orderKeys(
  join: Extract<LogicalPlan, { kind: 'Join' }>,
  keys: readonly { l: number; r: number; type: Expr['type'] }[],
  driver: 'left' | 'right',
  ctx: OptimizerContext,
): Extract<LogicalPlan, { kind: 'Join' }> | undefined {
  if (keys.length < 2 || !join.condition) return undefined;
  const cov = keys.map((k) => coverage(k, driver, join, ctx));
  const best = cov.indexOf(Math.min(...cov));
  if (best === 0 || cov[best] >= cov[0]) return undefined;
  const first = keys[best];
  const parts = conjuncts(join.condition);
  const at = parts.findIndex((c) => c.kind === 'call' && c.fn === 'eq' && [first.l, first.r].every((id) => c.args.some((a) => keyColumn(a)?.id === id)));
  if (at <= 0) return undefined;
  return { ...join, condition: conjoin([parts[at], ...parts.filter((_, i) => i !== at)]) };
}

/** Whether the driver's distinct values of a key cover most of the other side's (both from statistics). */
function covers(
  k: { l: number; r: number; type: Extract<LogicalPlan, { kind: 'Scan' }>['fields'][number]['type'] },
  driver: 'left' | 'right',
  join: Extract<LogicalPlan, { kind: 'Join' }>,
  driverRows: number,
  ctx: OptimizerContext,
  /** the share of the other side's key values the driver's keys must pass */
  share: number,
): boolean {
  const [mine, theirs] = driver === 'left' ? [k.l, k.r] : [k.r, k.l];
  const [mySide, otherSide] = driver === 'left' ? [join.left, join.right] : [join.right, join.left];
  const other = distinctOf(ref(theirs, k.type), otherSide, ctx);
  if (other === undefined) return false;
  const driverKeys = Math.min(driverRows, distinctInOutput(ref(mine, k.type), mySide, ctx) ?? driverRows);
  return driverKeys > other * share;
}

function pinsKey(p: Expr, keys: ReadonlySet<number>): boolean {
  if (p.kind !== 'call' || p.fn !== 'eq') return false;
  const [a, b] = p.args;
  return (a.kind === 'ref' && keys.has(a.id) && isConstant(b)) || (b.kind === 'ref' && keys.has(b.id) && isConstant(a));
}

/**
 * The rows a Remote over one filtered table reads to answer without key lists, when that is
 * its whole table: some key column leads one of the table's indexes (an IN list can seek) and
 * no filter column leads any (the filter cannot). Undefined for any other shape, or when the
 * catalog lists no indexes.
 */
function scannedRows(other: LogicalPlan, keyIds: ReadonlySet<number>, ctx: OptimizerContext): number | undefined {
  let p = other.kind === 'Remote' ? other.plan : undefined;
  let ids = keyIds;
  let filterRefs = new Set<number>();
  while (p && p.kind !== 'Scan') {
    if (p.kind === 'Filter') for (const id of refsOf(p.predicate)) filterRefs.add(id);
    else if (p.kind === 'Project') {
      // only a projection passing the key through as it is keeps its index usable; a filter
      // above it reads the columns its expressions read
      const keys = new Set<number>();
      const filtered = new Set<number>();
      for (const x of p.exprs) {
        if (ids.has(x.field.id) && x.expr.kind === 'ref') keys.add(x.expr.id);
        if (filterRefs.has(x.field.id)) for (const id of refsOf(x.expr)) filtered.add(id);
      }
      ids = keys;
      filterRefs = filtered;
    } else return undefined;
    p = p.input;
  }
  if (!p || filterRefs.size === 0) return undefined;
  const table = tableInfo(ctx, p.table);
  if (!table?.indexes.length || table.rowCount === undefined) return undefined;
  const leading = new Set(table.indexes.map((i) => i.columns[0]));
  const column = (id: number): string | undefined => p.columns[p.fields.findIndex((f) => f.id === id)];
  if (![...ids].some((id) => leading.has(column(id) ?? ''))) return undefined;
  if ([...filterRefs].some((id) => leading.has(column(id) ?? ''))) return undefined;
  return table.rowCount;
}
