import { describe, expect, it } from 'vitest';
import { addJoin, addTable } from './edit.js';
import { demoTable } from './fixtures.js';
import { graphJoinWarnings, joinWarnings } from './join-warnings.js';
import { EMPTY_GRAPH, unjoinedTables } from './model.js';
import { suggestJoins } from './suggest-joins.js';

const at = { x: 0, y: 0 };

describe('suggestJoins', () => {
  it('matches key columns by name after a short prefix, with the same type family', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('orders'), at);
    g = addTable(g, demoTable('customer'), at);
    g = addTable(g, demoTable('nation'), at);
    expect(suggestJoins(g)).toEqual([
      {
        join: { type: 'inner', left: { table: 'o', column: 'o_custkey' }, right: { table: 'c', column: 'c_custkey' } },
        reason: 'names match after their prefixes (custkey); both int32',
      },
      {
        join: {
          type: 'inner',
          left: { table: 'c', column: 'c_nationkey' },
          right: { table: 'n', column: 'n_nationkey' },
        },
        // int32 = int64 is not "the same type": the reason says only what matched
        reason: 'names match after their prefixes (nationkey); both numbers (int32, int64)',
      },
    ]);
    // joined pairs get no more suggestions
    g = addJoin(g, { table: 'o', column: 'o_custkey' }, { table: 'c', column: 'c_custkey' });
    expect(suggestJoins(g).map((s) => s.join.left.table + s.join.right.table)).toEqual(['cn']);
  });

  it('says "same name" only for the same name', () => {
    const t = (alias: string, type: string) => ({
      ...demoTable('nation'),
      alias,
      path: ['db', alias],
      columns: [{ name: 'id', type }],
    });
    const g = addTable(addTable(EMPTY_GRAPH, t('a', 'int64'), at), t('b', 'int64'), at);
    expect(suggestJoins(g).map((s) => s.reason)).toEqual(['same name (id); both int64']);
  });

  it('suggests declared foreign keys first', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('nation'), at);
    g = addTable(
      g,
      {
        ...demoTable('customer'),
        foreignKeys: [
          { columns: ['c_nationkey'], refSchema: 'public', refTable: 'nation', refColumns: ['n_nationkey'] },
        ],
      },
      at,
    );
    expect(suggestJoins(g)[0]).toEqual({
      join: {
        type: 'inner',
        left: { table: 'c', column: 'c_nationkey' },
        right: { table: 'n', column: 'n_nationkey' },
      },
      reason: 'foreign key dbB.customer(c_nationkey) → nation(n_nationkey)',
    });
    expect(suggestJoins(g)).toHaveLength(1);
  });
});

describe('joinWarnings', () => {
  it('says nothing for equal types under exact semantics', () => {
    expect(joinWarnings({ label: 'o.o_custkey', type: 'int32' }, { label: 'c.c_custkey', type: 'int32' })).toEqual([]);
  });

  it('explains mismatched families, widened numbers and blank-padded strings', () => {
    expect(joinWarnings({ label: 'o.o_custkey', type: 'int32' }, { label: 'c.c_name', type: 'varchar(25)' })).toEqual([
      'o.o_custkey is int32 and c.c_name is varchar(25): Junction does not compare number with string values, so the view is refused until a computed column CASTs one side.',
    ]);
    expect(joinWarnings({ label: 'a.k', type: 'int32' }, { label: 'b.k', type: 'int64' })).toEqual([
      'int32 and int64 differ: Junction widens both sides to the wider type and compares exactly.',
    ]);
    expect(joinWarnings({ label: 'a.s', type: 'char(10)' }, { label: 'b.s', type: 'text' })).toEqual([
      'a.s is blank-padded char(10): Junction compares it as text without its trailing blanks, as PostgreSQL does.',
    ]);
  });

  it('names a case-insensitive or PAD SPACE source and what Junction does instead', () => {
    const ci = { source: 'crm', defaultCollation: 'utf8mb4_general_ci', caseSensitive: false, padSpace: true };
    expect(
      joinWarnings({ label: 'c.c_name', type: 'varchar(25)', semantics: ci }, { label: 'n.n_name', type: 'text' }),
    ).toEqual([
      "crm compares text case-insensitively, ignoring trailing blanks (PAD SPACE) (collation utf8mb4_general_ci); Junction joins c.c_name exactly (case, accents and trailing blanks count) and does not push this comparison into crm, so 'ABC' and 'abc' do not match here even where crm would match them.",
    ]);
  });
});

describe('graphJoinWarnings and unjoinedTables', () => {
  it('reads each join side from its table and source, and names tables joined to none', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('customer'), { x: 0, y: 0 });
    g = addTable(g, demoTable('nation'), { x: 0, y: 0 });
    g = addTable(g, demoTable('orders'), { x: 0, y: 0 });
    expect(unjoinedTables(g)).toEqual(['c', 'n', 'o']);
    g = addJoin(g, { table: 'c', column: 'c_name' }, { table: 'n', column: 'n_name' });
    expect(unjoinedTables(g)).toEqual(['o']);
    const ci = { source: 'dbB', caseSensitive: false };
    expect(graphJoinWarnings(g, new Map([['dbB', ci]]))).toEqual(
      new Map([
        [
          'c.c_name=n.n_name',
          [
            "dbB compares text case-insensitively; Junction joins c.c_name exactly (case, accents and trailing blanks count) and does not push this comparison into dbB, so 'ABC' and 'abc' do not match here even where dbB would match them.",
          ],
        ],
      ]),
    );
  });
});
