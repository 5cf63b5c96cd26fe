import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, ColumnStats, JType } from '@junction/connectors';
import type { Expr } from '../plan/logical.js';
import { estimateRows } from './stats.js';
import { PG_CAPS, PlanBuilder, and, call, col, eq, gt, lit, lt, sources } from './test-support.js';

const or = (...xs: Expr[]) => xs.reduce((a, b) => call('or', a, b));
const date = (v: string): Expr => ({ kind: 'literal', value: v, type: { kind: 'date' } });

function column(name: string, type: JType, stats?: ColumnStats) {
  return { name, type, nativeType: '', nullable: true, ...(stats ? { stats } : {}) };
}

/** part as PostgreSQL's ANALYZE describes it at SF 1 (rounded), lineitem's l_partkey and l_shipdate. */
const catalog: CatalogSnapshot = {
  defaultSchema: 'public',
  introspectedAt: '',
  tables: [
    {
      schema: 'public',
      name: 'part',
      kind: 'table',
      rowCount: 200_000,
      primaryKey: ['p_partkey'],
      foreignKeys: [],
      indexes: [],
      columns: [
        column('p_partkey', { kind: 'int64' }),
        column('p_brand', { kind: 'string' }, { distinct: 25, nullFraction: 0, mostCommon: [{ value: 'Brand#12', frequency: 0.05 }] }),
        column('p_size', { kind: 'int64' }, { distinct: 50, nullFraction: 0, min: '1', max: '50' }),
        column('p_type', { kind: 'string' }, {
          distinct: 3,
          mostCommon: [
            { value: 'PROMO BRASS', frequency: 0.5 },
            { value: 'PROMO TIN', frequency: 0.3 },
            { value: 'SMALL TIN', frequency: 0.2 },
          ],
        }),
        column('p_comment', { kind: 'string' }),
      ],
    },
    {
      schema: 'public',
      name: 'lineitem',
      kind: 'table',
      rowCount: 6_000_000,
      foreignKeys: [],
      indexes: [],
      columns: [
        column('l_partkey', { kind: 'int64' }, { distinct: 200_000, nullFraction: 0 }),
        column('l_shipdate', { kind: 'date' }, { distinct: 2500, nullFraction: 0, min: '1992-01-01', max: '1998-12-31' }),
        column('l_suppkey', { kind: 'int64' }, { distinct: 10_000, nullFraction: 0 }),
      ],
    },
    {
      schema: 'public',
      name: 'partsupp',
      kind: 'table',
      rowCount: 800_000,
      primaryKey: ['ps_partkey', 'ps_suppkey'],
      foreignKeys: [],
      indexes: [],
      columns: [
        column('ps_partkey', { kind: 'int64' }, { distinct: 200_000, nullFraction: 0 }),
        column('ps_suppkey', { kind: 'int64' }, { distinct: 10_000, nullFraction: 0 }),
        column('ps_availqty', { kind: 'int64' }, { distinct: 9999, nullFraction: 0 }),
      ],
    },
  ],
};
const input = sources({ db: { capabilities: PG_CAPS, catalog } });

function tables() {
  const b = new PlanBuilder();
  const p = b.scan('db', 'part', { p_partkey: 'int64', p_brand: 'text', p_size: 'int64', p_type: 'text', p_comment: 'text' });
  const l = b.scan('db', 'lineitem', { l_partkey: 'int64', l_shipdate: 'date' });
  return { b, p, l };
}

const rows = (plan: Parameters<typeof estimateRows>[0]) => Math.round(estimateRows(plan, input));

describe('estimates from column statistics', () => {
  it('an equality on a common value takes its frequency; another value an even share of the rest', () => {
    const { b, p } = tables();
    expect(rows(b.filter(p, eq(col(p, 'p_brand'), lit('Brand#12'))))).toBe(10_000);
    // (1 − 0.05) of the rows over the 24 other brands
    expect(rows(b.filter(p, eq(col(p, 'p_brand'), lit('Brand#23'))))).toBe(7917);
    // no statistics on p_comment: 1 in 100
    expect(rows(b.filter(p, eq(col(p, 'p_comment'), lit('x'))))).toBe(2000);
  });

  it('IN sums its values; a value that is none of a complete list of common values matches (almost) nothing', () => {
    const { b, p } = tables();
    const inList = (values: string[]): Expr => ({ kind: 'in', expr: col(p, 'p_type'), list: values.map((v) => lit(v)), negated: false, type: { kind: 'bool' } });
    expect(rows(b.filter(p, inList(['PROMO BRASS', 'SMALL TIN'])))).toBe(140_000);
    expect(rows(b.filter(p, eq(col(p, 'p_type'), lit('LARGE TIN'))))).toBe(2);
  });

  it('ranges interpolate between min and max (numbers and dates)', () => {
    const { b, p, l } = tables();
    expect(rows(b.filter(p, lt(col(p, 'p_size'), lit(11))))).toBe(40_816);
    // one year of seven: the two bounds make one range, not the product of two halves
    const year = and(call('ge', col(l, 'l_shipdate'), date('1994-01-01')), lt(col(l, 'l_shipdate'), date('1995-01-01')));
    expect(rows(b.filter(l, year))).toBe(856_808);
    // 40 > p_size is p_size < 40
    expect(rows(b.filter(p, gt(lit(40), col(p, 'p_size'))))).toBe(159_184);
  });

  it('LIKE counts the common values it matches when they cover the column', () => {
    const { b, p } = tables();
    expect(rows(b.filter(p, call('like', col(p, 'p_type'), lit('PROMO%'))))).toBe(160_000);
    // p_comment has no statistics: the fixed guess
    expect(rows(b.filter(p, call('like', col(p, 'p_comment'), lit('%x%'))))).toBe(50_000);
  });

  it('an OR of conjunctions multiplies within each term and adds the terms (Q19)', () => {
    const { b, p } = tables();
    const term = (brand: string, size: number) => and(eq(col(p, 'p_brand'), lit(brand)), lt(col(p, 'p_size'), lit(size)));
    // 0.05·(10/49) + (0.95/24)·(5/49) − their product, of 200,000
    expect(rows(b.filter(p, or(term('Brand#12', 11), term('Brand#23', 6))))).toBe(2840);
  });

  it('groups are the product of the keys’ distinct counts, never more than the rows', () => {
    const { b, p, l } = tables();
    expect(rows(b.aggregate(p, ['p_brand', 'p_size'], []))).toBe(1250);
    expect(rows(b.aggregate(b.filter(l, eq(col(l, 'l_partkey'), col(l, 'l_partkey'))), ['l_partkey', 'l_shipdate'], []))).toBe(600_000);
  });

  it('a join on a column that is not unique divides by its distinct count', () => {
    const { b, p, l } = tables();
    const small = b.filter(p, eq(col(p, 'p_brand'), lit('Brand#12')));
    // part's key is unique: 10,000 parts × 6,000,000 lines / 200,000 keys
    expect(rows(b.join('inner', small, l, eq(col(p, 'p_partkey'), col(l, 'l_partkey'))))).toBe(300_000);
  });

  it('a join on the columns of a composite primary key divides by that table’s rows', () => {
    const b = new PlanBuilder();
    const ps = b.scan('db', 'partsupp', { ps_partkey: 'int64', ps_suppkey: 'int64', ps_availqty: 'int64' });
    const l = b.scan('db', 'lineitem', { l_partkey: 'int64', l_suppkey: 'int64' });
    const on = and(eq(col(ps, 'ps_partkey'), col(l, 'l_partkey')), eq(col(ps, 'ps_suppkey'), col(l, 'l_suppkey')));
    // every line meets its one partsupp row: 800,000 × 6,000,000 / 800,000
    expect(rows(b.join('inner', ps, l, on))).toBe(6_000_000);
    // a filter on partsupp keeps its share of the lines
    const some = b.filter(ps, lt(col(ps, 'ps_availqty'), lit(5000)));
    expect(rows(b.join('inner', l, some, on))).toBe(Math.round((6_000_000 * estimateRows(some, input)) / 800_000));
    // only part of the key: the columns' distinct counts as before (6,000,000 × 800,000 / 200,000)
    expect(rows(b.join('inner', ps, l, eq(col(ps, 'ps_partkey'), col(l, 'l_partkey'))))).toBe(24_000_000);
  });
});
