import { describe, expect, it } from 'vitest';
import { buildPredicate, literalFor } from './filter-builder.js';

describe('filter builder', () => {
  it('writes literals of the column type family', () => {
    expect(literalFor('int32', '42')).toBe('42');
    expect(literalFor('decimal(15,2)', '-1.50')).toBe('-1.50');
    expect(literalFor('int32', 'abc')).toBe("'abc'");
    expect(literalFor('varchar(25)', "O'Hara")).toBe("'O''Hara'");
    expect(literalFor('date', '1995-03-01')).toBe("DATE '1995-03-01'");
    expect(literalFor('timestamptz', '1995-03-01 10:00')).toBe("TIMESTAMP '1995-03-01 10:00'");
    expect(literalFor('bool', 'true')).toBe('TRUE');
  });

  it('builds predicates, with LIKE patterns as text and IS NULL without a value', () => {
    const ref = { table: 'o', column: 'o_totalprice' };
    expect(buildPredicate(ref, 'decimal(15,2)', '>=', '1000')).toBe('o.o_totalprice >= 1000');
    expect(buildPredicate({ table: 'c', column: 'c_name' }, 'varchar(25)', 'LIKE', 'Customer#0001%')).toBe(
      "c.c_name LIKE 'Customer#0001%'",
    );
    expect(buildPredicate(ref, 'decimal(15,2)', 'IS NOT NULL', 'ignored')).toBe('o.o_totalprice IS NOT NULL');
  });
});
