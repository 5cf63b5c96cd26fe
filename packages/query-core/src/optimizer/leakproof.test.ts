import { describe, expect, it } from 'vitest';
import type { Expr } from '../plan/logical.js';
import { isLeakproof } from './leakproof.js';
import { PlanBuilder, and, call, col, eq, lit, lt, param } from './test-support.js';

describe('isLeakproof', () => {
  const b = new PlanBuilder();
  const s = b.scan('dbA', 'staff', { name: 'text', salary: 'int32', note: 'text' });
  const cast = (expr: Expr, type: Expr['type']): Expr => ({ kind: 'cast', expr, type });

  it('accepts comparisons, IN, IS NULL and LIKE of columns with constants, and their AND/OR/NOT', () => {
    for (const e of [
      eq(col(s, 'name'), lit('ann')),
      and(lt(col(s, 'salary'), param(0, 'int32')), call('is_null', col(s, 'note'))),
      call('not', call('or', eq(col(s, 'salary'), lit(1, 'int32')), call('like', col(s, 'name'), lit('a%')))),
      { kind: 'in', expr: col(s, 'salary'), list: [lit(1, 'int32'), lit(2, 'int32')], negated: false, type: { kind: 'bool' } } as Expr,
      // the binder widens an int32 column to meet an int64 constant
      eq(cast(col(s, 'salary'), { kind: 'int64' }), lit(5)),
    ])
      expect(isLeakproof(e)).toBe(true);
  });

  it('refuses what can raise an error on some row: arithmetic, casts that can fail, patterns from columns, CASE', () => {
    for (const e of [
      lt(lit(0, 'int32'), call('div', lit(1, 'int32'), call('sub', col(s, 'salary'), lit(90000, 'int32')))),
      eq(cast(col(s, 'note'), { kind: 'int32' }), lit(1, 'int32')),
      call('like', col(s, 'name'), col(s, 'note')),
      eq(call('upper', col(s, 'name')), lit('ANN')),
      { kind: 'case', whens: [{ when: eq(col(s, 'salary'), lit(1, 'int32')), then: lit(true, 'bool') }], type: { kind: 'bool' } } as Expr,
    ])
      expect(isLeakproof(e)).toBe(false);
  });
});
