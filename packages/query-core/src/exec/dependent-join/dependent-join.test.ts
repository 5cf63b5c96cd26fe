import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { t, type Connector, type RemoteQuery, type Row } from '@junction/connectors';
import { createMysqlDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { makeKeyFn } from '../hash-key.js';
import { RemoteScanOp } from '../remote-scan.js';
import { RowsOp, bag, run, testContext } from '../test-support.js';
import { DependentJoinOp } from './index.js';
import { MAX_ARRAY_KEYS_PER_STATEMENT, planKeyBatches, restrictToKeys } from './key-batches.js';

let db: TestDatabase;
let conn: Connector;

beforeAll(async () => {
  db = await createMysqlDatabase('depjoin');
  await db.exec(`CREATE TABLE part (p_id int PRIMARY KEY, p_name varchar(20))`);
  await db.exec(`INSERT INTO part VALUES ${Array.from({ length: 50 }, (_, i) => `(${i + 1}, 'part ${i + 1}')`).join(', ')}`);
  await db.exec(`CREATE TABLE ps (ps_partkey int, ps_suppkey int, ps_cost int, PRIMARY KEY (ps_partkey, ps_suppkey))`);
  await db.exec(`INSERT INTO ps VALUES ${Array.from({ length: 40 }, (_, i) => `(${1 + (i % 10)}, ${1 + Math.floor(i / 10)}, ${i})`).join(', ')}`);
  conn = await db.connector('my');
});
afterAll(async () => db?.drop());

const parts = (): RemoteQuery => ({
  select: [
    { expr: { kind: 'column', table: 'p', column: 'p_id', type: t.int32 }, alias: 'p_id' },
    { expr: { kind: 'column', table: 'p', column: 'p_name', type: t.varchar(20) }, alias: 'p_name' },
  ],
  from: { kind: 'table', alias: 'p', schema: db.name, table: 'part' },
});

describe('planKeyBatches', () => {
  it('fills up to 50 IN lists per statement within the parameter limit', () => {
    const keys = Array.from({ length: 12 }, (_, i) => i);
    expect(planKeyBatches(keys, { maxInList: 2, maxBindParams: 100, baseParams: 0 })).toEqual([
      [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
        [8, 9],
        [10, 11],
      ],
    ]);
    expect(planKeyBatches(keys, { maxInList: 2, maxBindParams: 6, baseParams: 1 })).toEqual([
      [[0, 1], [2, 3], [4]],
      [[5, 6], [7, 8], [9]],
      [[10, 11]],
    ]);
    const many = Array.from({ length: 120 }, (_, i) => i);
    expect(planKeyBatches(many, { maxInList: 2, maxBindParams: 65535, baseParams: 0 }).map((s) => s.length)).toEqual([50, 10]);
  });

  it('gives each statement one list where the source binds it as one array parameter', () => {
    const many = Array.from({ length: 120 }, (_, i) => i);
    // neither a parameter limit of 6 nor 2 values per IN list binds: the list is one parameter
    const statements = planKeyBatches(many, { maxInList: 2, maxBindParams: 6, baseParams: 1, array: true });
    expect(statements.map((s) => s.map((l) => l.length))).toEqual([[120]]);
    expect(statements.flat(2)).toEqual(many);
  });

  it('splits an array source\'s keys only past MAX_ARRAY_KEYS_PER_STATEMENT, not at what 50 IN lists hold', () => {
    // Q9 at SF 10: split at 50,000, its 108,000 part keys went out as three statements, each reading lineitem
    const q9 = Array.from({ length: 108_000 }, (_, i) => i);
    expect(planKeyBatches(q9, { maxInList: 1000, maxBindParams: 65535, baseParams: 1, array: true, spread: 4 }).map((s) => s[0].length)).toEqual([108_000]);
    const past = Array.from({ length: MAX_ARRAY_KEYS_PER_STATEMENT + 1 }, (_, i) => i);
    expect(planKeyBatches(past, { maxInList: 1000, maxBindParams: 65535, baseParams: 1, array: true }).map((s) => s[0].length)).toEqual([MAX_ARRAY_KEYS_PER_STATEMENT, 1]);
  });

  it('spreads an array source\'s keys over up to `spread` statements, never fewer than SPREAD_MIN_KEYS keys each, nor past SPREAD_MAX_KEYS in all', () => {
    const keys = Array.from({ length: 12_500 }, (_, i) => i);
    const sizes = (n: number, spread: number) => planKeyBatches(keys.slice(0, n), { maxInList: 1000, maxBindParams: 0, baseParams: 0, array: true, spread }).map((s) => s.map((l) => l.length));
    // 12,500 keys over 4 statements of 3,125: four connections probe the index at once
    expect(sizes(12_500, 4)).toEqual([[3125], [3125], [3125], [3125]]);
    // 3,000 keys: one statement of 2,000 and one of 1,000, not four short ones
    expect(sizes(3000, 4)).toEqual([[2000], [1000]]);
    expect(sizes(1500, 4)).toEqual([[1500]]);
    // without spread, as many as 50 lists hold (50,000 here)
    expect(sizes(12_500, 1)).toEqual([[12_500]]);
    // past SPREAD_MAX_KEYS the source would rather scan than probe: one statement, not four scans
    const many = Array.from({ length: 30_000 }, (_, i) => i);
    expect(planKeyBatches(many, { maxInList: 1000, maxBindParams: 0, baseParams: 0, array: true, spread: 4 }).map((s) => s[0].length)).toEqual([30_000]);
    expect(planKeyBatches(keys, { maxInList: 1000, maxBindParams: 0, baseParams: 0, array: true, spread: 4 }).flat(2)).toEqual(keys);
  });

  it('wraps a grouped query before restricting it by a column it computes, so the IN does not change the groups', () => {
    const count: RemoteQuery = {
      ...parts(),
      select: [parts().select[0], { expr: { kind: 'agg', fn: 'count', distinct: false, args: [parts().select[1].expr], type: t.int64 }, alias: 'n' }],
      groupBy: [parts().select[0].expr],
    };
    const r = restrictToKeys(count, 1, [[1, 2]]);
    expect(r.from.kind).toBe('subquery');
    expect(r.where).toEqual({ kind: 'keySet', expr: { kind: 'column', table: 'dj', column: 'n', type: t.int64 }, values: [1, 2], type: { kind: 'bool' } });
    // with a LIMIT even a grouping key is restricted outside: the limit must see every group
    expect(restrictToKeys({ ...count, limit: 5 }, 0, [[1, 2]]).from.kind).toBe('subquery');
  });

  it('restricts a grouping key before grouping: the groups it keeps are the same, the source groups fewer rows', () => {
    const grouped: RemoteQuery = { ...parts(), groupBy: [parts().select[0].expr] };
    const r = restrictToKeys(grouped, 0, [[1, 2]]);
    expect(r.from).toEqual(grouped.from);
    expect(r.groupBy).toEqual(grouped.groupBy);
    expect(r.where).toEqual({ kind: 'keySet', expr: { kind: 'column', table: 'p', column: 'p_id', type: t.int32 }, values: [1, 2], type: { kind: 'bool' } });
    // DISTINCT alike
    expect(restrictToKeys({ ...parts(), distinct: true }, 1, [['a']]).from.kind).toBe('table');
  });
});

describe('DependentJoinOp on MariaDB', () => {
  it('sends ? placeholders in batches of maxInList and joins exactly', async () => {
    const driver = new RowsOp([[[3, 'a'], [48, 'b'], [7, 'c'], [3, 'd'], [99, 'e'], [null, 'f'], [12, 'g']]]);
    const remote = new RemoteScanOp('my', conn, parts(), conn.render(parts()));
    const op = new DependentJoinOp(
      driver,
      remote,
      { type: 'left', buildSide: 'left', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth: 2 },
      { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 2, maxParallel: 3 },
      '',
    );
    const ctx = testContext();
    const rows: Row[] = await run(op, ctx);
    expect(bag(rows)).toEqual(
      bag([
        [3, 'a', 3, 'part 3'],
        [3, 'd', 3, 'part 3'],
        [48, 'b', 48, 'part 48'],
        [7, 'c', 7, 'part 7'],
        [12, 'g', 12, 'part 12'],
        [99, 'e', null, null],
        [null, 'f', null, null],
      ]),
    );
    expect(ctx.statements.length).toBe(1);
    expect(ctx.statements[0].params).toEqual([3, 48, 7, 99, 12]);
    expect(ctx.statements[0].sql).toMatch(/IN \(\?, \?\)\) OR .*IN \(\?, \?\)\)\) OR .*IN \(\?\)\)\)$/);
    expect(op.report).toEqual({ statements: 1, keys: 5 });
  });

  it('a driver side past the memory budget reads the other side whole and joins it there (sides swapped, then partitioned)', async () => {
    // 3000 driver rows over keys 1..60 (NULL every 50th): far past a 20 kB budget
    const driverRows: Row[] = Array.from({ length: 3000 }, (_, i) => [i % 50 === 0 ? null : 1 + (i % 60), `d${i}`]);
    const batches = (rows: Row[]): Row[][] => Array.from({ length: Math.ceil(rows.length / 100) }, (_, i) => rows.slice(i * 100, i * 100 + 100));
    const expected: Row[] = driverRows.map((d) => (d[0] !== null && (d[0] as number) <= 50 ? [...d, d[0], `part ${d[0]}`] : [...d, null, null]));
    for (const budget of [40_000, 2_000]) {
      const op = new DependentJoinOp(
        new RowsOp(batches(driverRows)),
        new RemoteScanOp('my', conn, parts(), conn.render(parts())),
        { type: 'left', buildSide: 'left', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth: 2 },
        { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 10, maxParallel: 2 },
        '',
      );
      const ctx = testContext({ budget });
      expect(bag(await run(op, ctx))).toEqual(bag(expected));
      // the 50 parts fit 40 kB: the parts become the hash table; in 2 kB nothing fits and both sides are partitioned
      expect(op.spill.swapped).toBe(budget === 40_000);
      expect(op.spill.partitions > 0).toBe(budget === 2_000);
      expect(op.info().detail).toMatch(/driver past the budget: other side read whole/);
      // one statement, without IN lists
      expect(ctx.statements.map((x) => x.params)).toEqual([[]]);
      expect(ctx.memory.usedBytes).toBe(0);
    }
  });

  it('the tested side of a semi or anti join comes back DISTINCT when its columns compare exactly (integers), and as it is otherwise', async () => {
    // ps_partkey 1..10, each 4 times: the semi/anti join needs each once
    const keysOnly: RemoteQuery = {
      select: [{ expr: { kind: 'column', table: 'ps', column: 'ps_partkey', type: t.int32 }, alias: 'ps_partkey' }],
      from: { kind: 'table', alias: 'ps', schema: db.name, table: 'ps' },
    };
    const withText: RemoteQuery = { ...parts(), select: [parts().select[0], parts().select[1]] };
    const join = (type: 'semi' | 'anti' | 'inner', q: RemoteQuery, rightWidth: number) =>
      new DependentJoinOp(
        new RowsOp([[[2, 'x'], [5, 'y'], [5, 'z'], [77, 'w']]]),
        new RemoteScanOp('my', conn, q, conn.render(q)),
        { type, buildSide: 'left', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth },
        { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 10, maxParallel: 2 },
        '',
      );
    for (const [type, expected] of [
      ['semi', [[2, 'x'], [5, 'y'], [5, 'z']]],
      ['anti', [[77, 'w']]],
    ] as const) {
      const ctx = testContext();
      expect(bag(await run(join(type, keysOnly, 1), ctx))).toEqual(bag(expected.map((r) => [...r])));
      expect(ctx.statements[0].sql).toMatch(/^SELECT DISTINCT /);
      expect(ctx.statements[0].rows).toBe(2);
    }
    // an inner join outputs the fetched rows: every duplicate counts
    const inner = testContext();
    expect(await run(join('inner', keysOnly, 1), inner)).toHaveLength(4 + 4 + 4);
    expect(inner.statements[0].sql).toMatch(/^SELECT (?!DISTINCT)/);
    // a text column may compare differently in the source (collations): no DISTINCT
    const text = testContext();
    expect(bag(await run(join('semi', withText, 2), text))).toEqual(bag([[2, 'x'], [5, 'y'], [5, 'z']]));
    expect(text.statements[0].sql).toMatch(/^SELECT (?!DISTINCT)/);
  });

  it('a semi join driven by its subquery side returns each outer row once per copy, never asking for NULL or repeated keys', async () => {
    // the outer side is ps_partkey alone: 1..10, each 4 times; the subquery's keys repeat and hold a NULL
    const outer: RemoteQuery = {
      select: [{ expr: { kind: 'column', table: 'ps', column: 'ps_partkey', type: t.int32 }, alias: 'ps_partkey' }],
      from: { kind: 'table', alias: 'ps', schema: db.name, table: 'ps' },
    };
    const op = new DependentJoinOp(
      new RowsOp([[[2], [5], [null]], [[2], [77], [5]]]),
      new RemoteScanOp('my', conn, outer, conn.render(outer)),
      { type: 'semi', buildSide: 'right', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 1, rightWidth: 1 },
      { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 1, maxParallel: 2 },
      '',
    );
    const ctx = testContext();
    expect(bag(await run(op, ctx))).toEqual(bag([[2], [2], [2], [2], [5], [5], [5], [5]]));
    // the outer rows are the answer: every copy is read, none merged by DISTINCT
    expect(ctx.statements.map((x) => x.sql).join('\n')).not.toMatch(/DISTINCT/);
    expect(ctx.statements.flatMap((x) => x.params)).toEqual([2, 5, 77]);
  });

  it('a two-column join restricts both key columns and matches exact tuples locally', async () => {
    const q: RemoteQuery = {
      select: ['ps_partkey', 'ps_suppkey', 'ps_cost'].map((c) => ({ expr: { kind: 'column' as const, table: 'ps', column: c, type: t.int32 }, alias: c })),
      from: { kind: 'table', alias: 'ps', schema: db.name, table: 'ps' },
    };
    const driver = new RowsOp([[[2, 1, 'a'], [2, 3, 'b'], [5, 3, 'c'], [5, 9, 'none']]]);
    const op = new DependentJoinOp(
      driver,
      new RemoteScanOp('my', conn, q, conn.render(q)),
      {
        type: 'inner',
        buildSide: 'left',
        leftKey: makeKeyFn([0, 1], [t.int32, t.int32], false),
        rightKey: makeKeyFn([0, 1], [t.int32, t.int32], false),
        leftWidth: 3,
        rightWidth: 3,
      },
      { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 10, maxParallel: 2, extraKeys: [{ driverColumn: 1, driverType: t.int32, remoteColumn: 1 }] },
      '',
    );
    const ctx = testContext();
    expect(bag(await run(op, ctx))).toEqual(
      bag([
        [2, 1, 'a', 2, 1, 1],
        [2, 3, 'b', 2, 3, 21],
        [5, 3, 'c', 5, 3, 24],
      ]),
    );
    expect(ctx.statements.length).toBe(1);
    expect(ctx.statements[0].params).toEqual([2, 5, 1, 3, 9]);
    // (5,1) passes both IN lists without being a driver tuple: 4 candidate rows come back, 3 match
    expect(ctx.statements[0].rows).toBe(4);
  });
});
