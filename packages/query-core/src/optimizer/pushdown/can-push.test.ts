import { describe, expect, it } from 'vitest';
import { capabilitiesForEngine, type SourceSemantics } from '@junction/connectors';
import type { Expr } from '../../plan/logical.js';
import { MARIADB_CI_CAPS, PG_CAPS, call, eq, lit, lt, param } from '../test-support.js';
import { canPushAggregate, canPushExpr, canPushSortKey } from './can-push.js';

const name: Expr = { kind: 'ref', id: 1, type: { kind: 'string', length: 25 } };
const key: Expr = { kind: 'ref', id: 2, type: { kind: 'int64' } };

const mariadb: SourceSemantics = {
  serverVersion: '10.11.6-MariaDB',
  defaultCollation: 'utf8mb4_general_ci',
  caseSensitive: false,
  accentSensitive: false,
  padSpace: true,
  timeZone: 'UTC',
  maxBindParams: 65535,
  maxIdentifierLength: 64,
};

describe('canPushExpr', () => {
  it("honours a declaration's argument count and constant-argument limits", () => {
    const caps = { ...PG_CAPS, functions: { ...PG_CAPS.functions, trim: { maxArgs: 1 }, like: { literalArgs: [1] } } };
    expect(canPushExpr(call('trim', name), caps)).toEqual({ ok: true });
    expect(canPushExpr(call('trim', name, lit('x')), caps)).toEqual({
      ok: false,
      reason: 'function trim with 2 arguments not supported by source',
    });
    expect(canPushExpr(call('like', name, lit('a%')), caps)).toEqual({ ok: true });
    expect(canPushExpr(call('like', name, param(0, 'string')), caps)).toEqual({ ok: true });
    expect(canPushExpr(call('like', name, name), caps)).toEqual({
      ok: false,
      reason: 'function like needs a constant argument 2 in source',
    });
  });

  it('accepts what a PostgreSQL-like source declares', () => {
    expect(canPushExpr(call('and', eq(name, lit('x')), lt(key, param(0, 'int64'))), PG_CAPS)).toEqual({ ok: true });
  });

  it('refuses string equality and ordering under a case-insensitive collation, integers stay pushable', () => {
    expect(canPushExpr(eq(name, lit('x')), MARIADB_CI_CAPS)).toEqual({
      ok: false,
      reason: 'string comparison under a case-insensitive or pad-space collation',
    });
    expect(canPushExpr(lt(name, lit('x')), MARIADB_CI_CAPS)).toEqual({
      ok: false,
      reason: 'string ordering differs from code-point order in source collation',
    });
    expect(canPushExpr(lt(key, lit(3)), MARIADB_CI_CAPS)).toEqual({ ok: true });
  });

  it('pushes a cast declared only from some kinds (MariaDB: integer to decimal) from those kinds only', () => {
    const caps = capabilitiesForEngine('mysql', mariadb);
    expect(canPushExpr({ kind: 'cast', expr: key, type: { kind: 'decimal' } }, caps)).toEqual({ ok: true });
    expect(canPushExpr({ kind: 'cast', expr: name, type: { kind: 'decimal' } }, caps)).toEqual({
      ok: false,
      reason: 'cast to decimal not supported by source',
    });
  });

  it('refuses LIKE that is not case-sensitive, a missing function, an undeclared cast, an untyped parameter and a subquery', () => {
    expect(canPushExpr(call('like', name, lit('%x')), MARIADB_CI_CAPS).ok).toBe(false);
    expect(canPushExpr(call('upper', name), { ...PG_CAPS, functions: {} })).toEqual({
      ok: false,
      reason: 'function upper not supported by source',
    });
    expect(canPushExpr({ kind: 'cast', expr: key, type: { kind: 'interval' } }, PG_CAPS)).toEqual({
      ok: false,
      reason: 'cast to interval not supported by source',
    });
    expect(canPushExpr(eq(key, { kind: 'param', index: 2, type: { kind: 'unknown' } }), PG_CAPS)).toEqual({
      ok: false,
      reason: 'parameter $3 has no known type',
    });
    expect(
      canPushExpr(
        { kind: 'subquery', plan: { kind: 'Values', rows: [], fields: [] }, type: { kind: 'int64' } },
        PG_CAPS,
      ).ok,
    ).toBe(false);
  });

  it('checks argument kinds of functions declared only for some kinds (real MariaDB capabilities)', () => {
    const caps = capabilitiesForEngine('mysql', mariadb);
    expect(canPushExpr(call('add', key, lit(1)), caps)).toEqual({ ok: true });
    const date: Expr = { kind: 'ref', id: 3, type: { kind: 'date' } };
    expect(canPushExpr(call('add', date, lit(1)), caps)).toEqual({
      ok: false,
      reason: 'function add not supported by source for date arguments',
    });
  });
});

describe('canPushAggregate / canPushSortKey', () => {
  it('refuses DISTINCT aggregates where undeclared, FILTER always, and max over strings without exact ordering', () => {
    const field = { id: 9, name: 'm', type: { kind: 'int64' as const }, nullable: true };
    expect(
      canPushAggregate({ field, fn: 'count', args: [key], distinct: true }, { ...PG_CAPS, distinctAggregates: false })
        .ok,
    ).toBe(false);
    expect(
      canPushAggregate({ field, fn: 'count', args: [key], distinct: false, filter: lt(key, lit(1)) }, PG_CAPS).ok,
    ).toBe(false);
    expect(canPushAggregate({ field, fn: 'max', args: [name], distinct: false }, MARIADB_CI_CAPS).ok).toBe(false);
    expect(canPushAggregate({ field, fn: 'max', args: [key], distinct: false }, MARIADB_CI_CAPS).ok).toBe(true);
  });

  it('requires NULL ordering support for ORDER BY', () => {
    expect(canPushSortKey({ expr: key, desc: false, nullsFirst: false }, { ...PG_CAPS, nullsOrdering: false })).toEqual(
      { ok: false, reason: 'NULL ordering not supported by source' },
    );
  });
});
