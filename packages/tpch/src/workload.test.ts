import { describe, expect, it } from 'vitest';
import { LAYOUTS } from './layouts.js';
import { jdvWorkload, paramMax } from './workload.js';

describe('the JDV workload', () => {
  it('has queries A–H in both forms, and the layout the loader uses', () => {
    const w = jdvWorkload(1);
    expect(w.queries.map((q) => q.id)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
    expect(w.query('A')).toMatchObject({
      direct: 'SELECT * FROM customer WHERE c_custkey <= 100',
      federated: 'SELECT * FROM dbB.customer WHERE c_custkey <= 100',
      sources: ['dbB'],
      kind: 'single-user DSS',
    });
    expect(LAYOUTS.jdv.map((s) => [s.name, s.engine, s.tables.join(',')])).toEqual([
      ['dbA', 'postgresql', 'orders,lineitem'],
      ['dbB', 'postgresql', 'customer'],
      ['dbC', 'mysql', 'part,supplier,partsupp'],
      ['dbD', 'mysql', 'nation,region,customer'],
    ]);
    expect(LAYOUTS.single[0].tables).toHaveLength(8);
    expect(() => w.query('Z')).toThrow('the JDV workload has no query Z');
  });

  it("keeps the study's constants from SF 1 up and swaps the ones that select nothing below it", () => {
    const study = jdvWorkload(1).query('B');
    const small = jdvWorkload(0.01).query('B');
    expect(study.adjusted).toEqual([]);
    expect(study.federated).toContain('p_size = 22');
    expect(small.adjusted).toEqual([
      ['p_size = 22', 'p_size BETWEEN 20 AND 24'],
      ['ps_supplycost < 20', 'ps_supplycost < 100'],
    ]);
    for (const form of [small.direct, small.federated]) {
      expect(form).toContain('p_size BETWEEN 20 AND 24 AND');
      expect(form).toContain('ps_supplycost < 100');
      expect(form).not.toContain('p_size = 22');
    }
    const f = jdvWorkload(0.01).query('F');
    expect(f.adjusted).toEqual([['c_acctbal < 200', 'c_acctbal < 2000']]);
    expect(f.federated.split('c_acctbal < 2000')).toHaveLength(3);
    // both forms stay the same query: only the source prefixes differ
    for (const q of jdvWorkload(0.01).queries) expect(q.federated.replace(/\bdb[A-D]\./g, '')).toBe(q.direct);
  });

  it('offers every query but G (B under concurrency) as an example, and draws H’s key from the scale', () => {
    const w = jdvWorkload(0.01);
    expect(w.queries.filter((q) => q.example).map((q) => q.id)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'H']);
    const [key] = w.query('H').params;
    expect(key).toEqual({ name: 'c_custkey', min: 1, maxPerScale: 150000, example: 1 });
    expect(paramMax(key, 0.01)).toBe(1500);
    expect(paramMax(key, 1)).toBe(150000);
    expect(paramMax(key, 0.000001)).toBe(1);
  });
});
