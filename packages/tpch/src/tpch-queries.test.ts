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
