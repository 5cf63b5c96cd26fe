import { JunctionError, type AggFn, type ErrorKind, type JType, type Row, type Value } from '@junction/connectors';
import { makeAccumulator } from '../../expr/aggregates.js';
import { makeKeyFn } from '../hash-key.js';
import { decodeColumn, encodeColumn, type Column } from '../workers/columns.js';

/** What a worker needs to rebuild one aggregate's accumulator: plain data, no closures. */
export interface AggregateDescriptor {
  readonly fn: AggFn;
  readonly argType?: JType;
  readonly distinct: boolean;
}

export interface PartialAggregateTask {
  readonly rows: number;
  readonly columns: readonly Column[];
  /** columns holding the group key values, with their types (hash-key.ts equality) */
  readonly keyColumns: readonly number[];
  readonly keyTypes: readonly JType[];
  readonly aggregates: readonly (AggregateDescriptor & {
    readonly args: readonly number[];
    /** a boolean column: rows where it is not true are left out (FILTER clause) */
    readonly filter?: number;
  })[];
}

/**
 * One aggregate's states for every group, laid out as columns: one per state field when
 * the states are flat objects of one shape (every accumulator but DISTINCT and
 * string_agg), else the states as they are. Cloning thousands of small objects across
 * threads cost 20x the aggregation itself; a few typed arrays cost next to nothing.
 */
export type PackedStates = { readonly fields: readonly string[]; readonly columns: readonly Column[] } | { readonly states: readonly unknown[] };

/** Groups in the order first seen in the chunk: key values per key column, states per aggregate. */
export type PartialAggregateResult =
  | { readonly groups: number; readonly keys: readonly Column[]; readonly states: readonly PackedStates[] }
  | { readonly error: { readonly name: string; readonly message: string; readonly code?: string; readonly kind?: ErrorKind; readonly details?: Record<string, unknown> } };

/**
 * Worker task: aggregates one chunk of rows, given as columns, into partial groups the
 * main thread merges with the accumulators' exact `merge`. Errors come back as data:
 * an Error crossing threads would lose JunctionError's code and kind.
 */
export function aggregate(task: PartialAggregateTask): PartialAggregateResult {
  try {
    const cols = task.columns.map(decodeColumn);
    const descs = task.aggregates;
    const accs = descs.map((d) => makeAccumulator(d.fn, d.argType, { distinct: d.distinct }));
    const nk = task.keyColumns.length;
    const keyCols = task.keyColumns.map((c) => cols[c]);
    const keyOf = nk === 0 ? undefined : makeKeyFn(task.keyColumns.map((_, i) => i), task.keyTypes, true);
    const arg0 = descs.map((d) => (d.args[0] === undefined ? undefined : cols[d.args[0]]));
    const arg1 = descs.map((d) => (d.args[1] === undefined ? undefined : cols[d.args[1]]));
    const filters = descs.map((d) => (d.filter === undefined ? undefined : cols[d.filter]));
    const groups = new Map<unknown, unknown[]>();
    const keys: Row[] = [];
    const states: unknown[][] = [];
    const keyRow = new Array<Value>(nk);
    for (let i = 0; i < task.rows; i++) {
      for (let c = 0; c < nk; c++) keyRow[c] = keyCols[c][i];
      const k = keyOf ? keyOf(keyRow) : 0;
      let st = groups.get(k);
      if (st === undefined) {
        st = accs.map((a) => a.init());
        groups.set(k, st);
        keys.push(keyRow.slice());
        states.push(st);
      }
      for (let a = 0; a < accs.length; a++) {
        const f = filters[a];
        if (f && f[i] !== true) continue;
        const a0 = arg0[a];
        const a1 = arg1[a];
        st[a] = accs[a].add(st[a], a0 ? a0[i] : null, a1 ? a1[i] : undefined);
      }
    }
    return {
      groups: keys.length,
      keys: task.keyColumns.map((_, c) => encodeColumn(keys.map((k) => k[c]))),
      states: accs.map((_, a) => packStates(states.map((st) => st[a]))),
    };
  } catch (e) {
    if (e instanceof JunctionError) return { error: { name: e.name, message: e.message, code: e.code, kind: e.kind, details: e.details } };
    const err = e instanceof Error ? e : new Error(String(e));
    return { error: { name: err.name, message: err.message } };
  }
}

/** The error a worker reported, rebuilt as the main thread would have thrown it. */
export function workerError(error: Extract<PartialAggregateResult, { error: unknown }>['error']): Error {
  if (error.code !== undefined && error.kind !== undefined) return new JunctionError(error.code, error.kind, error.message, { details: error.details });
  const e = new Error(error.message);
  e.name = error.name;
  return e;
}

function packStates(states: readonly unknown[]): PackedStates {
  const first = states[0];
  if (first === null || typeof first !== 'object' || Object.getPrototypeOf(first) !== Object.prototype) return { states };
  const fields = Object.keys(first);
  const values = fields.map(() => new Array<Value>(states.length));
  for (let g = 0; g < states.length; g++) {
    const st = states[g] as Record<string, unknown>;
    for (let f = 0; f < fields.length; f++) {
      const v = st[fields[f]];
      // nested values (Map, arrays) or undefined: keep the objects as they are
      if (v !== null && typeof v === 'object') return { states };
      if (v === undefined) return { states };
      values[f][g] = v as Value;
    }
  }
  return { fields, columns: values.map(encodeColumn) };
}

/** The states packStates laid out, as objects again (fields in the same order, so of one shape). */
export function unpackStates(packed: PackedStates, groups: number): unknown[] {
  if ('states' in packed) return packed.states as unknown[];
  const cols = packed.columns.map(decodeColumn);
  const fields = packed.fields;
  const out = new Array<unknown>(groups);
  for (let g = 0; g < groups; g++) {
    const st: Record<string, unknown> = {};
    for (let f = 0; f < fields.length; f++) st[fields[f]] = cols[f][g];
    out[g] = st;
  }
  return out;
}
