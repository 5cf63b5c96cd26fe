import { describe, expect, it } from 'vitest';
import type { RemoteExpr, RemoteQuery } from '../contract/remote-query.js';
import { t, type JType, type Value } from '../contract/types.js';
import { parseDocumentQuery, renderDocumentQuery } from './query-text.js';

const col = (column: string, type: JType): RemoteExpr => ({ kind: 'column', table: 'a', column, type });
const lit = (value: Value, type: JType): RemoteExpr => ({ kind: 'literal', value, type });
const call = (
  fn: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'and' | 'or' | 'not' | 'is_null' | 'is_not_null',
  ...args: RemoteExpr[]
): RemoteExpr => ({
  kind: 'call',
  fn,
  args,
  type: t.bool,
});

const DEC = t.decimal(15, 2);
const base = (where?: RemoteExpr, limit?: number): RemoteQuery => ({
  select: [
    { expr: col('id', t.string), alias: 'id' },
    { expr: col('balance', DEC), alias: 'balance' },
  ],
  from: { kind: 'table', alias: 'a', table: 'accounts' },
  ...(where ? { where } : {}),
  ...(limit !== undefined ? { limit } : {}),
});

describe('renderDocumentQuery', () => {
  it('renders filters and LIMIT as readable text with bound parameters, and parses it back', () => {
    const q = base(
      call(
        'and',
        call('gt', col('balance', DEC), lit('100.00', DEC)),
        call('eq', col('currency', t.string), lit('EUR', t.string)),
      ),
      10,
    );
    const r = renderDocumentQuery(q);
    expect(r.sql).toBe('SELECT "id", "balance" FROM "accounts" WHERE ("balance" > $1 AND "currency" = $2) LIMIT 10');
    expect(r.params).toEqual(['100.00', 'EUR']);
    expect(r.columns).toEqual([
      { name: 'id', type: t.string, nullable: true },
      { name: 'balance', type: DEC, nullable: true },
    ]);
    expect(parseDocumentQuery(r.sql)).toEqual({
      table: 'accounts',
      distinct: false,
      select: [
        { expr: { k: 'col', name: 'id' }, alias: 'id' },
        { expr: { k: 'col', name: 'balance' }, alias: 'balance' },
      ],
      where: {
        k: 'and',
        args: [
          { k: 'cmp', op: '>', l: { k: 'col', name: 'balance' }, r: { k: 'param', index: 0 } },
          { k: 'cmp', op: '=', l: { k: 'col', name: 'currency' }, r: { k: 'param', index: 1 } },
        ],
      },
      limit: 10,
    });
  });

  it('types a parameter whose kind the column does not give, and renders OR, NOT, NULL tests, IN lists and key sets', () => {
    const where = call(
      'or',
      call('not', call('le', col('n', t.int32), lit(5n, t.int64))),
      call('is_null', col('currency', t.string)),
      call('is_not_null', col('d', t.date)),
      {
        kind: 'in',
        expr: col('currency', t.string),
        list: [lit('EUR', t.string), lit('USD', t.string)],
        negated: true,
        type: t.bool,
      },
      { kind: 'keySet', expr: col('id', t.string), values: ['a"1', 'b'], type: t.bool },
    );
    const q: RemoteQuery = {
      ...base(where),
      select: [{ expr: col('id', t.string), alias: 'the "id"' }],
      distinct: true,
    };
    const r = renderDocumentQuery(q);
    expect(r.sql).toBe(
      'SELECT DISTINCT "id" AS "the ""id""" FROM "accounts" WHERE (NOT ("n" <= $1::int64) OR "currency" IS NULL OR "d" IS NOT NULL OR "currency" NOT IN ($2, $3) OR "id" IN ($4, $5))',
    );
    expect(r.params).toEqual([5n, 'EUR', 'USD', 'a"1', 'b']);
    const parsed = parseDocumentQuery(r.sql);
    expect(parsed.select).toEqual([{ expr: { k: 'col', name: 'id' }, alias: 'the "id"' }]);
    expect(parsed.distinct).toBe(true);
    expect(parsed.where).toEqual({
      k: 'or',
      args: [
        {
          k: 'not',
          arg: { k: 'cmp', op: '<=', l: { k: 'col', name: 'n' }, r: { k: 'param', index: 0, type: t.int64 } },
        },
        { k: 'isnull', arg: { k: 'col', name: 'currency' }, negated: false },
        { k: 'isnull', arg: { k: 'col', name: 'd' }, negated: true },
        {
          k: 'in',
          arg: { k: 'col', name: 'currency' },
          list: [
            { k: 'param', index: 1 },
            { k: 'param', index: 2 },
          ],
          negated: true,
        },
        {
          k: 'in',
          arg: { k: 'col', name: 'id' },
          list: [
            { k: 'param', index: 3 },
            { k: 'param', index: 4 },
          ],
          negated: false,
        },
      ],
    });
  });

  it('refuses what a documents source does not declare', () => {
    expect(() =>
      renderDocumentQuery({ ...base(), orderBy: [{ expr: col('id', t.string), desc: false, nullsFirst: false }] }),
    ).toThrow('A documents source cannot run ORDER BY: it only filters, projects and limits the rows of one table.');
    expect(() =>
      renderDocumentQuery(
        base({ kind: 'call', fn: 'like', args: [col('id', t.string), lit('a%', t.string)], type: t.bool }),
      ),
    ).toThrow('cannot run the function like');
  });

  it('refuses text it did not render', () => {
    expect(() => parseDocumentQuery('SELECT "id" FROM "accounts"; DROP TABLE x')).toThrow(
      /^A documents source reads only the query text it renders itself; this text is not one \(unexpected ";" at 28\)/,
    );
    expect(() => parseDocumentQuery('SELECT "id" FROM "accounts" ORDER BY "id"')).toThrow(
      '(unexpected text at token 5)',
    );
  });
});
