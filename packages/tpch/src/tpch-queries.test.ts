import { describe, expect, it } from 'vitest';
import { tpchFederatedPlacement, tpchFederatedSearchPath, tpchQueries } from './tpch-queries.js';

describe('the TPC-H queries', () => {
  it('are Q1 … Q22 with the validation parameters', () => {
    const qs = tpchQueries();
    expect(qs.map((q) => q.id)).toEqual(Array.from({ length: 22 }, (_, i) => `Q${i + 1}`));
    expect(qs[0].sql).toContain("date '1998-12-01' - interval '90' day");
    expect(qs[4].sql).toContain("r_name = 'ASIA'");
    expect(qs[18].sql).toContain("p_brand = 'Brand#12'");
    expect(qs[21].sql).toContain("('13', '31', '23', '29', '30', '18', '17')");
    // unqualified: the same text runs on one database and, through a search path, on the federation
    for (const q of qs) expect(q.sql).not.toMatch(/\bdb[A-D]\./);
  });

  it('scale Q11\'s FRACTION as 0.0001 / SF and leave every other query as it is', () => {
    const at = (sf: number) => tpchQueries(sf)[10].sql;
    expect(at(1)).toContain('* 0.0001000000 from partsupp');
    expect(at(10)).toContain('* 0.0000100000 from partsupp');
    expect(at(0.1)).toContain('* 0.0010000000 from partsupp');
    expect(tpchQueries(10).filter((q) => q.number !== 11)).toEqual(tpchQueries().filter((q) => q.number !== 11));
    expect(() => tpchQueries(0)).toThrow('a scale factor must be positive (got 0)');
  });

  it('read the federation as the JDV layout places the tables (customer from PostgreSQL B)', () => {
    expect(tpchFederatedSearchPath()).toEqual(['dbA', 'dbB', 'dbC', 'dbD']);
    expect(tpchFederatedPlacement()).toEqual({
      region: 'dbD',
      nation: 'dbD',
      supplier: 'dbC',
      part: 'dbC',
      partsupp: 'dbC',
      customer: 'dbB',
      orders: 'dbA',
      lineitem: 'dbA',
    });
  });
});
