import { describe, expect, it } from 'vitest';
import { NO_CAPABILITIES } from '../contract/capabilities.js';
import { capabilitiesForEngine, renderFor } from '../sql/dialects.js';
import { t } from '../contract/types.js';
import { documentsCapabilities } from './capabilities.js';

describe('documents capabilities', () => {
  it('declares comparisons, logic, NULL tests, IN and LIMIT only', () => {
    const c = documentsCapabilities();
    expect(capabilitiesForEngine('documents')).toEqual(c);
    const kinds = [
      'bool',
      'int16',
      'int32',
      'int64',
      'decimal',
      'float32',
      'float64',
      'string',
      'date',
      'time',
      'timestamp',
      'timestamptz',
      'uuid',
      'null',
    ];
    const cmp = { argKinds: kinds };
    expect(c).toEqual({
      ...NO_CAPABILITIES,
      functions: {
        eq: cmp,
        ne: cmp,
        lt: cmp,
        le: cmp,
        gt: cmp,
        ge: cmp,
        and: true,
        or: true,
        not: true,
        is_null: true,
        is_not_null: true,
      },
      in: true,
      limit: true,
      exactStringEquality: true,
      exactStringOrdering: true,
      maxBindParams: 65535,
      maxInList: 10000,
      maxIdentifierLength: 1024,
    });
  });

  it('renders through renderFor like every engine', () => {
    const r = renderFor('documents', {
      select: [{ expr: { kind: 'column', table: 'a', column: 'id', type: t.int32 }, alias: 'id' }],
      from: { kind: 'table', alias: 'a', table: 'accounts' },
      limit: 5,
    });
    expect([r.sql, r.params]).toEqual(['SELECT "id" FROM "accounts" LIMIT 5', []]);
  });
});
