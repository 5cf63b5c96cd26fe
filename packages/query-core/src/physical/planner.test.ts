import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import type { Expr, Field, LogicalPlan } from '../plan/logical.js';
import { MAX_ARRAY_KEYS_PER_STATEMENT } from '../exec/dependent-join/key-batches.js';
import { keyCarrier, switchKeyLimit } from './planner.js';

describe('switchKeyLimit', () => {
  it('restricts a probe by up to a tenth of its estimated rows in keys, at least the configured number, at most one statement’s IN lists', () => {
    // Q20: 871,129 grouped lineitem rows estimated; its 2,100 part keys are well within
    expect(switchKeyLimit(1000, 871_129, 1000)).toBe(50_000);
    expect(switchKeyLimit(1000, 120_000, 1000)).toBe(12_000);
    // a small probe: the configured number
    expect(switchKeyLimit(1000, 5000, 1000)).toBe(1000);
    expect(switchKeyLimit(1000, undefined, 1000)).toBe(1000);
    // the source takes 100 values per IN list: 50 lists of them
    expect(switchKeyLimit(1000, 871_129, 100)).toBe(5000);
  });

  it('lets a source that binds the keys as one array take up to MAX_ARRAY_KEYS_PER_STATEMENT of them', () => {
    // Q9 at SF 10: 108,000 green part keys against 60 million lineitem rows restrict the probe
    expect(switchKeyLimit(1000, 59_986_052, 1000, true)).toBe(MAX_ARRAY_KEYS_PER_STATEMENT);
    expect(switchKeyLimit(1000, 59_986_052, 1000, false)).toBe(50_000);
    expect(switchKeyLimit(1000, 120_000, 1000, true)).toBe(12_000);
  });
});

describe('keyCarrier', () => {
  const field = (id: number): Field => ({ id, name: `f${id}`, type: t.int32, nullable: false });
  const ref = (id: number): Expr => ({ kind: 'ref', id, type: t.int32 });
  const scan = (ids: number[]): LogicalPlan => ({ kind: 'Scan', table: { source: 's', schema: 'public', table: 't' }, fields: ids.map(field), columns: ids.map((i) => `c${i}`), alias: 't' });
  const remote = (ids: number[]): LogicalPlan => ({ kind: 'Remote', source: 's', plan: scan(ids), fields: ids.map(field) });
  const a = remote([1, 2]);
  const b = remote([3, 4]);
  const join = (type: 'inner' | 'left' | 'semi'): LogicalPlan => ({ kind: 'Join', type, left: a, right: b, condition: { kind: 'call', fn: 'eq', args: [ref(1), ref(3)], type: t.bool } });
  // SELECT k, min(v) FROM a JOIN b … GROUP BY k, the key renamed by a projection on top (id 10 ← 5 ← 4)
  const grouped = (input: LogicalPlan, key: number): LogicalPlan => ({
    kind: 'Project',
    input: {
      kind: 'Aggregate',
      input,
      groupBy: [{ field: field(5), expr: ref(key) }],
      aggregates: [{ field: field(6), fn: 'min', args: [ref(2)], distinct: false }],
    },
    exprs: [
      { field: field(10), expr: ref(5) },
      { field: field(11), expr: ref(6) },
    ],
  });

  it('follows a key through projections, grouping by it and either side of an inner join to the statement that reads it', () => {
    expect(keyCarrier(grouped(join('inner'), 4), 10)).toEqual({ remote: b, id: 4 });
    expect(keyCarrier(grouped(join('inner'), 1), 10)).toEqual({ remote: a, id: 1 });
    expect(keyCarrier({ kind: 'Sort', input: { kind: 'Distinct', input: a }, keys: [] }, 2)).toEqual({ remote: a, id: 2 });
    expect(keyCarrier(join('semi'), 1)).toEqual({ remote: a, id: 1 });
  });

  it('stops where restricting the statement would change more than the rows holding other keys', () => {
    // an aggregate's result, not a grouping key
    expect(keyCarrier(grouped(join('inner'), 4), 11)).toBeUndefined();
    // the NULL-extended side of an outer join
    expect(keyCarrier(join('left'), 4)).toBeUndefined();
    // a limit sees every row
    expect(keyCarrier({ kind: 'Limit', input: a, limit: 5, offset: 0 }, 1)).toBeUndefined();
    // a computed column
    expect(keyCarrier({ kind: 'Project', input: a, exprs: [{ field: field(12), expr: { kind: 'call', fn: 'add', args: [ref(1), ref(2)], type: t.int32 } }] }, 12)).toBeUndefined();
  });
});
