import { describe, expect, it } from 'vitest';
import type { Capabilities } from '../contract/capabilities.js';
import { NO_CAPABILITIES } from '../contract/capabilities.js';
import type { AggFn, ScalarFn } from '../contract/functions.js';
import type { RemoteExpr, RemoteQuery } from '../contract/remote-query.js';
import { t, type JType, type TypeKind, type Value } from '../contract/types.js';
import { capabilitiesForEngine, renderFor } from './dialects.js';
import { ENGINES, PG_LINGUISTIC, PROBED } from './generator.cases.js';
import { agg, call, col, lit, table } from './ir-builders.js';

const TYPE_OF: Record<string, JType> = {
  bool: t.bool, int16: t.int16, int32: t.int32, int64: t.int64, decimal: t.decimal(15, 2), float32: t.float32, float64: t.float64,
  string: t.varchar(20), date: t.date, time: t.time, timestamp: t.timestamp, timestamptz: t.timestamptz, interval: t.interval,
  binary: t.binary, json: t.json, uuid: t.uuid,
};

const ARITY: Partial<Record<ScalarFn, number>> = {
  not: 1, is_null: 1, is_not_null: 1, neg: 1, abs: 1, round: 1, trunc: 1, floor: 1, ceil: 1, sqrt: 1, sign: 1,
  lower: 1, upper: 1, length: 1, trim: 1, ltrim: 1, rtrim: 1, substring: 3, replace: 3, lpad: 3, rpad: 3, make_date: 3,
  current_date: 0, current_timestamp: 0,
};

/** A call of `fn` whose arguments all have `kind`, shaped the way query-core builds it. */
function sample(fn: ScalarFn, kind: TypeKind): RemoteExpr {
  const type = TYPE_OF[kind] ?? t.int32;
  if (fn === 'date_part' || fn === 'date_trunc') return call(fn, [lit(fn === 'date_part' ? 'year' : 'month', t.string), col('c', 'x', type)], t.float64);
  if (fn === 'like' || fn === 'ilike') return call(fn, [col('c', 'x', type), lit('a%', type)]);
  const n = ARITY[fn] ?? 2;
  return call(fn, Array.from({ length: n }, (_, i) => col('c', `x${i}`, type)), type);
}

function query(expr: RemoteExpr): RemoteQuery {
  return { select: [{ expr, alias: 'v' }], from: table('t', 'c') };
}

describe('capabilities: everything declared can be rendered', () => {
  const configs = [...ENGINES.map((e) => [e, PROBED[e]] as const), ['postgresql', PG_LINGUISTIC] as const, ['mysql', undefined] as const];
  for (const [engine, semantics] of configs) {
    const caps = capabilitiesForEngine(engine, semantics);
    it(`${engine} (${semantics?.defaultCollation ?? 'unprobed'}): declared functions, for every declared argument kind`, () => {
      for (const [fn, decl] of Object.entries(caps.functions) as [ScalarFn, Capabilities['functions'][ScalarFn]][]) {
        const kinds = decl === true ? (['int32'] as TypeKind[]) : (decl!.argKinds ?? []).filter((k) => k !== 'null' && !(fn === 'date_part' && k === 'string'));
        for (const kind of kinds) {
          expect(() => renderFor(engine, query(sample(fn, kind)), semantics), `${fn}(${kind})`).not.toThrow();
        }
      }
    });
    it(`${engine} (${semantics?.defaultCollation ?? 'unprobed'}): declared aggregates, joins and casts`, () => {
      for (const fn of Object.keys(caps.aggregates) as AggFn[]) {
        const args = fn === 'count_star' ? [] : [col('c', 'x', t.int32)];
        expect(() => renderFor(engine, query(agg(fn, args, t.int64)), semantics), fn).not.toThrow();
        expect(() => renderFor(engine, query(agg(fn, args, t.int64, caps.distinctAggregates && fn !== 'count_star')), semantics)).not.toThrow();
      }
      for (const type of Object.keys(caps.joins) as (keyof Capabilities['joins'])[]) {
        const on = type === 'cross' ? undefined : call('eq', [col('a', 'k', t.int32), col('b', 'k', t.int32)]);
        const q: RemoteQuery = { select: [{ expr: col('a', 'k', t.int32), alias: 'k' }], from: { kind: 'join', type, left: table('a'), right: table('b'), on } };
        expect(() => renderFor(engine, q, semantics), type).not.toThrow();
      }
      for (const kind of caps.casts) {
        expect(() => renderFor(engine, query({ kind: 'cast', expr: col('c', 'x', t.string), type: TYPE_OF[kind] }), semantics), kind).not.toThrow();
      }
      for (const [to, from] of Object.entries(caps.castsFrom) as [TypeKind, TypeKind[]][]) {
        // the unbounded form too (decimal without precision): what the binder's widenings produce
        for (const type of [TYPE_OF[to], { kind: to } as JType]) {
          for (const kind of from) {
            expect(() => renderFor(engine, query({ kind: 'cast', expr: col('c', 'x', TYPE_OF[kind]), type }), semantics), `${kind} → ${to}`).not.toThrow();
          }
        }
      }
    });
  }
});

describe('capabilities: what each engine declares', () => {
  it('every engine bounds its parameters and IN lists', () => {
    expect(ENGINES.map((e) => [e, capabilitiesForEngine(e).maxBindParams, capabilitiesForEngine(e).maxInList])).toEqual([
      ['postgresql', 65535, 1000],
      ['mysql', 65535, 1000],
      ['sqlserver', 2100, 1000],
      ['sqlite', 32766, 1000],
    ]);
  });

  it('only PostgreSQL binds a key set as one array parameter, and its dialect renders every kind it declares so', () => {
    expect(ENGINES.map((e) => [e, capabilitiesForEngine(e).arrayKeySets])).toEqual([
      ['postgresql', ['int16', 'int32', 'int64', 'decimal', 'string', 'date']],
      ['mysql', []],
      ['sqlserver', []],
      ['sqlite', []],
    ]);
    const sample: Partial<Record<string, Value>> = { int16: 1, int32: 1, int64: 1n, decimal: '1.5', string: 'a', date: '1995-03-01' };
    for (const kind of capabilitiesForEngine('postgresql').arrayKeySets) {
      const type = { kind } as JType;
      const sql = renderFor('postgresql', query({ kind: 'keySet', expr: col('c', 'x', type), values: [sample[kind] ?? null], type: t.bool })).sql;
      expect(sql, kind).toMatch(/= ANY\(\$1::[a-z]+\[\]\)/);
    }
  });

  it('MySQL/MariaDB: strings are exact only once the flavour is known (NO PAD binary collation)', () => {
    const probed = capabilitiesForEngine('mysql', PROBED.mysql);
    expect([probed.exactStringEquality, probed.exactStringOrdering, probed.caseSensitiveLike]).toEqual([true, true, true]);
    expect(probed.functions.eq).toEqual({ argKinds: ['bool', 'int16', 'int32', 'int64', 'decimal', 'float64', 'date', 'time', 'timestamp', 'null', 'string'] });
    const unprobed = capabilitiesForEngine('mysql');
    expect([unprobed.exactStringEquality, unprobed.exactStringOrdering, unprobed.caseSensitiveLike]).toEqual([false, false, false]);
    expect(unprobed.functions.like).toBeUndefined();
    expect(unprobed.functions.eq).toEqual({ argKinds: ['bool', 'int16', 'int32', 'int64', 'decimal', 'float64', 'date', 'time', 'timestamp', 'null'] });
    // MySQL 5.7 has no NO PAD binary utf8mb4 collation
    expect(capabilitiesForEngine('mysql', { ...PROBED.mysql!, serverVersion: '5.7.44' }).exactStringEquality).toBe(false);
    expect(capabilitiesForEngine('mysql', { ...PROBED.mysql!, serverVersion: '8.0.36' }).exactStringEquality).toBe(true);
  });

  it('MySQL: the semantic traps stay undeclared', () => {
    const c = capabilitiesForEngine('mysql', PROBED.mysql);
    expect(c.aggregates.avg).toBeUndefined();
    expect(c.joins.full).toBeUndefined();
    // DIV and MOD by zero give NULL where PostgreSQL raises division_by_zero
    expect([c.functions.div, c.functions.mod]).toEqual([undefined, undefined]);
    expect(c.functions.add).toEqual({ argKinds: ['int16', 'int32', 'int64', 'decimal', 'float64', 'null'] });
    for (const fn of ['lower', 'upper', 'ilike', 'greatest', 'least', 'current_date', 'date_trunc'] as const) expect(c.functions[fn], fn).toBeUndefined();
    expect(c.casts).toEqual(['date']);
  });

  it('SQL Server: PAD SPACE under every collation, so no string semantics at all', () => {
    const c = capabilitiesForEngine('sqlserver');
    expect([c.exactStringEquality, c.exactStringOrdering, c.caseSensitiveLike]).toEqual([false, false, false]);
    for (const decl of Object.values(c.functions)) if (decl !== true) expect((decl!.argKinds ?? []).includes('string') && decl !== c.functions.date_part).toBe(false);
    expect(c.functions.like).toBeUndefined();
    expect(c.functions.mul).toEqual({ argKinds: ['int16', 'int32', 'int64', 'null'] });
    expect(c.aggregates.avg).toBeUndefined();
  });

  it('SQLite: nothing over decimals, LIKE via GLOB, joins by version', () => {
    const c = capabilitiesForEngine('sqlite', PROBED.sqlite);
    expect(c.functions.eq).toEqual({ argKinds: ['bool', 'int16', 'int32', 'int64', 'float64', 'date', 'null', 'string'] });
    expect(c.aggregates).toEqual({ count: true, count_star: true, min: true, max: true });
    expect(c.caseSensitiveLike).toBe(true);
    expect([c.functions.div, c.functions.mod]).toEqual([undefined, undefined]);
    expect(c.joins).toEqual({ inner: true, left: true, right: true, full: true, cross: true });
    expect(capabilitiesForEngine('sqlite', { ...PROBED.sqlite!, serverVersion: '3.38.5' }).joins).toEqual({ inner: true, left: true, cross: true });
    expect(capabilitiesForEngine('sqlite', { ...PROBED.sqlite!, defaultCollation: 'NOCASE' }).exactStringEquality).toBe(false);
  });

  it('PostgreSQL: everything but what depends on the source session clock or TimeZone', () => {
    const c = capabilitiesForEngine('postgresql', PROBED.postgresql);
    expect(c.functions.current_date).toBeUndefined();
    expect(c.functions.current_timestamp).toBeUndefined();
    expect(c.functions.date_trunc).toEqual({ argKinds: ['string', 'timestamp', 'interval'] });
    expect(c.functions.ilike).toBe(true);
    expect(c.aggregates.avg).toBe(true);
    expect(c.exactStringOrdering).toBe(true);
  });

  it('an engine declares a subset of the contract defaults shape', () => {
    for (const e of ENGINES) expect(Object.keys(capabilitiesForEngine(e)).sort()).toEqual(Object.keys(NO_CAPABILITIES).sort());
  });
});
