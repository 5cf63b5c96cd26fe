import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { t, type Row } from '@junction/connectors';
import { DiskTracker } from './context.js';
import { DistinctOp } from './distinct.js';
import { makeKeyFn } from './hash-key.js';
import { SetOpOp } from './set-op.js';
import { RowsOp, bag, run, testContext } from './test-support.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'junction-hash-set-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Deterministic rows with many duplicates, NULLs and decimals that are equal by value ('7.0' = '7.00'). */
function rows(n: number, seed: number, distinctKeys: number): Row[] {
  let s = seed;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) % distinctKeys;
  const out: Row[] = [];
  for (let i = 0; i < n; i++) {
    const a = next();
    out.push([a % 97 === 0 ? null : a, a % 5 === 0 ? `${a % 11}.0` : `${a % 11}.00`, `pad-${'x'.repeat(a % 40)}`]);
  }
  return out;
}
const types = [t.int32, t.decimal(), t.string];
const key = makeKeyFn([0, 1, 2], types, true);
/** the rows' identity as the set operations see it: decimals by value */
const ident = (r: Row): string => JSON.stringify([r[0], Number(r[1]), r[2]]);

/** SQL's answers computed the plain way, as bags of identities. */
function expected(op: 'distinct' | 'union' | 'intersect' | 'except', all: boolean, L: Row[], R: Row[]): string[] {
  const count = (rs: Row[]) => {
    const m = new Map<string, number>();
    for (const r of rs) m.set(ident(r), (m.get(ident(r)) ?? 0) + 1);
    return m;
  };
  const l = count(L);
  const r = count(R);
  const out: string[] = [];
  const emit = (k: string, n: number) => {
    for (let i = 0; i < n; i++) out.push(k);
  };
  if (op === 'distinct') for (const k of l.keys()) emit(k, 1);
  else if (op === 'union') {
    if (all) for (const x of [...L, ...R]) out.push(ident(x));
    else for (const k of new Set([...l.keys(), ...r.keys()])) emit(k, 1);
  } else
    for (const [k, n] of l) {
      const m = r.get(k) ?? 0;
      if (op === 'intersect') emit(k, all ? Math.min(n, m) : m > 0 ? 1 : 0);
      else emit(k, all ? Math.max(0, n - m) : m > 0 ? 0 : 1);
    }
  return out.sort();
}

describe('duplicate elimination past the memory budget', () => {
  const L = rows(6000, 1, 3000);
  const R = rows(5000, 2, 4000);
  const batches = (rs: Row[]) => Array.from({ length: Math.ceil(rs.length / 500) }, (_, i) => rs.slice(i * 500, i * 500 + 500));

  const cases: ['distinct' | 'union' | 'intersect' | 'except', boolean][] = [
    ['distinct', false],
    ['union', false],
    ['union', true],
    ['intersect', false],
    ['intersect', true],
    ['except', false],
    ['except', true],
  ];
  for (const [op, all] of cases) {
    it(`${op}${all ? ' all' : ''}: the same rows in memory and on disk, the files removed and the budget given back`, async () => {
      const make = () =>
        op === 'distinct' ? new DistinctOp(new RowsOp(batches(L)), key) : new SetOpOp(op, all, new RowsOp(batches(L)), new RowsOp(batches(R)), key);
      const want = expected(op, all, L, R);

      const roomy = make();
      const inMemory = await run(roomy, testContext({ budget: 64 * 1024 * 1024, spillDir: dir }));
      expect(inMemory.map(ident).sort()).toEqual(want);
      expect(roomy.spill.bytes).toBe(0);

      // 12 kB holds about 150 keys: the first level spills, and its partitions split again
      const tight = make();
      const disk = new DiskTracker(1 << 30);
      const ctx = testContext({ budget: 12_000, spillDir: dir, disk });
      const onDisk = await run(tight, ctx);
      expect(bag(onDisk.map((r) => [ident(r)]))).toEqual(bag(want.map((k) => [k])));
      if (!(op === 'union' && all)) {
        expect(tight.spill.bytes).toBeGreaterThan(0);
        expect(tight.spill.depth).toBeGreaterThanOrEqual(2);
        expect(tight.info().detail).toMatch(/^ \(spilled [\d.]+ kB in \d+ partitions, depth \d\)$/);
      }
      expect(ctx.memory.usedBytes).toBe(0);
      expect(disk.usedBytes).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('keeps input order for the keys that fit, and the first row of each key', async () => {
    const op = new DistinctOp(new RowsOp([[[1, '1.0', 'a'], [2, '2', 'b'], [1, '1.00', 'a']]]), key);
    expect(await run(op, testContext({ budget: 64 * 1024, spillDir: dir }))).toEqual([
      [1, '1.0', 'a'],
      [2, '2', 'b'],
    ]);
  });

  it('a budget that cannot hold a handful of keys still fails with the budget named', async () => {
    const op = new DistinctOp(new RowsOp(batches(L)), key);
    const err = await run(op, testContext({ budget: 50, spillDir: dir })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'memory_budget_exceeded', details: { budgetBytes: 50, operator: 'HashDistinct' } });
    expect(readdirSync(dir)).toEqual([]);
  });
});
