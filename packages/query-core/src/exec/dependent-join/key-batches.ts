import type { RemoteExpr, RemoteQuery, Value } from '@junction/connectors';

/** Teiid sends at most this many IN lists in one statement (OR-ed together). */
export const MAX_IN_LISTS_PER_STATEMENT = 50;

/**
 * Keys one array parameter carries (Capabilities.arrayKeySets), about 4 MB of text for integer
 * keys. Not the IN-list cap: split at 50,000, TPC-H Q9's 108,000 green part keys at SF 10 went out as three
 * statements, each scanning all of lineitem and orders, or (past a hash join's switch limit) not
 * at all, and the 60 million lineitem rows were read whole.
 */
export const MAX_ARRAY_KEYS_PER_STATEMENT = 500_000;

export interface KeyBatchLimits {
  /** values per IN list */
  readonly maxInList: number;
  /** bound parameters per statement, all of them (the query's own included) */
  readonly maxBindParams: number;
  /** parameters the base query already binds */
  readonly baseParams: number;
  /**
   * The source binds a whole key list as one array parameter (Capabilities.arrayKeySets): each
   * statement gets one list, up to MAX_ARRAY_KEYS_PER_STATEMENT keys whatever `maxInList`.
   */
  readonly array?: boolean;
  /**
   * Statements an array source's keys may be spread over (they run in parallel, each on its own
   * connection): a source answers one statement on one core, and a dependent join's thousands
   * of index probes are the bulk of its time. Never below SPREAD_MIN_KEYS keys a statement.
   */
  readonly spread?: number;
}

/** Below this many keys a statement, another round trip costs more than the probes it takes over. */
export const SPREAD_MIN_KEYS = 2000;
/**
 * Past this many keys in all, a source tends to scan the table for each statement rather than
 * probe an index: spread, the scans compete for the same cores (TPC-H Q3's 30,000 customers
 * over orders took twice as long in four statements as in one).
 */
export const SPREAD_MAX_KEYS = 16_000;

/** Splits distinct keys into statements, each a list of IN lists, within the source's limits. */
export function planKeyBatches(keys: readonly Value[], limits: KeyBatchLimits): Value[][][] {
  const perList = Math.max(1, limits.maxInList);
  if (limits.array) {
    const spread = keys.length > SPREAD_MAX_KEYS ? 1 : Math.max(1, limits.spread ?? 1);
    const perStatement = Math.min(MAX_ARRAY_KEYS_PER_STATEMENT, Math.max(SPREAD_MIN_KEYS, Math.ceil(keys.length / spread)));
    const statements: Value[][][] = [];
    for (let i = 0; i < keys.length; i += perStatement) statements.push([keys.slice(i, i + perStatement)]);
    return statements;
  }
  const room = limits.maxBindParams > 0 ? limits.maxBindParams - limits.baseParams : Infinity;
  const perStatement = Math.max(1, Math.min(perList * MAX_IN_LISTS_PER_STATEMENT, room));
  const statements: Value[][][] = [];
  for (let i = 0; i < keys.length; i += perStatement) {
    const slice = keys.slice(i, i + perStatement);
    const lists: Value[][] = [];
    for (let j = 0; j < slice.length; j += perList) lists.push(slice.slice(j, j + perList));
    statements.push(lists);
  }
  return statements;
}

const BOOL = { kind: 'bool' } as const;

/**
 * The base query restricted to rows whose output column `column` is in one of `lists`.
 * A plain SELECT gets the IN lists in its WHERE, and so does one grouped by the restricted
 * columns; another with GROUP BY, DISTINCT or LIMIT is wrapped in a derived table first,
 * since a WHERE there would change what it computes.
 */
export function restrictToKeys(
  query: RemoteQuery,
  column: number,
  lists: readonly (readonly Value[])[],
  /** further key columns of a multi-column join, each restricted to its own values (a superset of the key tuples) */
  extra: readonly { readonly column: number; readonly lists: readonly (readonly Value[])[] }[] = [],
): RemoteQuery {
  const base = needsWrap(query) && !filtersGroups(query, [column, ...extra.map((x) => x.column)]) ? wrap(query) : query;
  let cond = inLists(base.select[column].expr, lists);
  for (const x of extra) {
    const c = inLists(base.select[x.column].expr, x.lists);
    if (c) cond = cond ? { kind: 'call', fn: 'and', args: [cond, c], type: BOOL } : c;
  }
  if (!cond) return base;
  return { ...base, where: base.where ? { kind: 'call', fn: 'and', args: [base.where, cond], type: BOOL } : cond };
}

/** `e IN (…) OR e IN (…) …`, one key set per list; undefined for no lists. */
function inLists(keyExpr: RemoteExpr, lists: readonly (readonly Value[])[]): RemoteExpr | undefined {
  let cond: RemoteExpr | undefined;
  for (const values of lists) {
    const set: RemoteExpr = { kind: 'keySet', expr: keyExpr, values, type: BOOL };
    cond = cond ? { kind: 'call', fn: 'or', args: [cond, set], type: BOOL } : set;
  }
  return cond;
}

/**
 * Whether keys on these output columns may go in the WHERE of a grouping (or DISTINCT) query
 * itself: each column is a grouping key, so the rows a key list keeps are exactly the rows of
 * the groups it keeps, and the source filters before it groups instead of grouping a whole
 * table and discarding most groups (MariaDB does not push a condition into a grouped derived
 * table). Not with LIMIT/OFFSET or window functions, which see every row.
 */
function filtersGroups(query: RemoteQuery, columns: readonly number[]): boolean {
  if (query.limit !== undefined || query.offset !== undefined || query.select.some((s) => hasWindow(s.expr))) return false;
  const groups = query.groupBy?.length ? query.groupBy.map(exprText) : undefined;
  if (!groups && !query.distinct) return false;
  if (!groups && query.select.some((s) => s.expr.kind === 'agg')) return false;
  return columns.every((c) => {
    const e = query.select[c]?.expr;
    if (!e || hasAgg(e)) return false;
    return groups ? groups.includes(exprText(e)) : true;
  });
}

function exprText(e: RemoteExpr): string {
  return JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

function hasAgg(e: RemoteExpr): boolean {
  switch (e.kind) {
    case 'agg':
      return true;
    case 'call':
      return e.args.some(hasAgg);
    case 'in':
      return hasAgg(e.expr) || e.list.some(hasAgg);
    case 'case':
      return (e.operand !== undefined && hasAgg(e.operand)) || e.whens.some((w) => hasAgg(w.when) || hasAgg(w.then)) || (e.else !== undefined && hasAgg(e.else));
    case 'cast':
      return hasAgg(e.expr);
    default:
      return false;
  }
}

/** Whether restrictToKeys can run on a source with these abilities. */
export function canRestrict(query: RemoteQuery, subqueryInFrom: boolean): boolean {
  return !needsWrap(query) || subqueryInFrom;
}

/**
 * A key filter added to this SELECT's WHERE would act before its grouping, DISTINCT,
 * LIMIT or window functions (which would then see fewer rows): it must wrap it.
 */
function needsWrap(query: RemoteQuery): boolean {
  return (
    (query.groupBy?.length ?? 0) > 0 ||
    query.having !== undefined ||
    query.distinct === true ||
    query.limit !== undefined ||
    query.offset !== undefined ||
    query.select.some((s) => s.expr.kind === 'agg' || hasWindow(s.expr))
  );
}

function hasWindow(e: RemoteExpr): boolean {
  switch (e.kind) {
    case 'window':
      return true;
    case 'call':
    case 'agg':
      return e.args.some(hasWindow);
    case 'in':
      return hasWindow(e.expr) || e.list.some(hasWindow);
    case 'case':
      return (e.operand !== undefined && hasWindow(e.operand)) || e.whens.some((w) => hasWindow(w.when) || hasWindow(w.then)) || (e.else !== undefined && hasWindow(e.else));
    case 'cast':
      return hasWindow(e.expr);
    default:
      return false;
  }
}

function wrap(query: RemoteQuery): RemoteQuery {
  const alias = 'dj';
  return {
    select: query.select.map((s) => ({ expr: { kind: 'column', table: alias, column: s.alias, type: s.expr.type }, alias: s.alias })),
    from: { kind: 'subquery', alias, query },
  };
}
