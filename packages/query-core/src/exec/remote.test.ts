import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import { JunctionError, t, type Connector, type RemoteQuery, type Row } from '@junction/connectors';
import { createPgDatabase, pgAdmin, type TestDatabase } from '../../test/support/databases.js';
import { DependentJoinOp } from './dependent-join/index.js';
import { buildExplain } from '../explain/build.js';
import { HashJoinOp } from './hash-join/index.js';
import { makeKeyFn } from './hash-key.js';
import { LimitOp } from './limit.js';
import { ProjectOp } from './project.js';
import { RemoteScanOp } from './remote-scan.js';
import { RowsOp, bag, run, testContext } from './test-support.js';

let db: TestDatabase;
let conn: Connector;
let admin: pg.Client;

const items: RemoteQuery = {
  select: [
    { expr: { kind: 'column', table: 'i', column: 'id', type: t.int32 }, alias: 'id' },
    { expr: { kind: 'column', table: 'i', column: 'label', type: t.string }, alias: 'label' },
  ],
  from: { kind: 'table', alias: 'i', schema: 'public', table: 'items' },
};

function scan(query: RemoteQuery = items): RemoteScanOp {
  return new RemoteScanOp('src', conn, query, conn.render(query));
}

beforeAll(async () => {
  db = await createPgDatabase('exec');
  await db.exec(`CREATE TABLE items (id integer PRIMARY KEY, label text)`);
  await db.exec(`INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g`);
  await db.exec(`CREATE TABLE big AS SELECT g AS id, 'row ' || g AS label FROM generate_series(1, 200000) g`);
  conn = await db.connector('src');
  admin = await pgAdmin();
});

afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

async function activeStatements(marker: string): Promise<number> {
  const r = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()`, [`%${marker}%`]);
  return r.rows[0].n as number;
}

describe('RemoteScanOp', () => {
  it('streams the rows of its statement and records it in the stats', async () => {
    const ctx = testContext({ batchSize: 30 });
    const op = scan();
    const rows = await run(op, ctx);
    expect(rows.length).toBe(100);
    expect(rows[0]).toEqual([1, 'item 1']);
    expect(op.metrics.batches).toBe(4);
    expect(ctx.statements.map((s) => [s.source, s.sql, s.rows])).toEqual([['src', op.rendered.sql, 100]]);
  });

  it('asks its source for batches ended by the query\'s batchBytes as well as its batchSize', async () => {
    const rendered = { sql: `SELECT repeat('x', 1000) AS s FROM generate_series(1, 25)`, params: [], columns: [{ name: 's', type: t.string, nullable: false }] };
    // a row of one 1000-character cell weighs 16 + 8 + 16 + 2000 = 2040 bytes: three reach 6120
    const wide = new RemoteScanOp('src', conn, items, rendered);
    expect((await run(wide, testContext({ batchSize: 10, batchBytes: 3 * 2040 }))).length).toBe(25);
    expect(wide.metrics.batches).toBe(9);
    const narrow = new RemoteScanOp('src', conn, items, rendered);
    await run(narrow, testContext({ batchSize: 10 }));
    expect(narrow.metrics.batches).toBe(3);
  });

  it('a satisfied LIMIT closes the remote cursor instead of reading 200,000 rows', async () => {
    const q: RemoteQuery = { ...items, from: { kind: 'table', alias: 'i', schema: 'public', table: 'big' } };
    const ctx = testContext({ batchSize: 100 });
    const op = new LimitOp(scan(q), 150, 0);
    const rows = await run(op, ctx);
    expect(rows.length).toBe(150);
    expect(ctx.statements[0].rows).toBeLessThan(1000);
  });

  it('aborting the query cancels a running pg_sleep on the server', async () => {
    const marker = `jt_cancel_${Math.random().toString(36).slice(2)}`;
    const rendered = { sql: `SELECT pg_sleep(30)::text AS ${marker}`, params: [], columns: [{ name: marker, type: t.string, nullable: true }] };
    const op = new RemoteScanOp('src', conn, items, rendered);
    const ac = new AbortController();
    const ctx = testContext({ signal: ac.signal });
    const started = Date.now();
    const pending = run(op, ctx).catch((e: unknown) => e);
    // wait until the server runs it
    for (let i = 0; i < 100 && (await activeStatements(marker)) === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await activeStatements(marker)).toBe(1);
    ac.abort(new JunctionError('query_cancelled', 'cancelled', 'cancelled by test'));
    const err = await pending;
    expect(err).toBeInstanceOf(JunctionError);
    expect((err as JunctionError).kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(20_000);
    for (let i = 0; i < 40 && (await activeStatements(marker)) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await activeStatements(marker)).toBe(0);
  });
});

describe('DependentJoinOp', () => {
  // every driver row whose key the items table holds (not NULL, not 1000), with its item
  const joined = bag([
    [7, 'x', 7, 'item 7'],
    [7, 'z', 7, 'item 7'],
    [3, 'y', 3, 'item 3'],
    [12, 'w', 12, 'item 12'],
    [5, 'v', 5, 'item 5'],
  ]);
  const driver = (): RowsOp =>
    new RowsOp([
      [
        [7, 'x'],
        [3, 'y'],
        [null, 'n'],
      ],
      [
        [7, 'z'],
        [12, 'w'],
        [1000, 'missing'],
        [5, 'v'],
      ],
    ]);
  const spec = {
    type: 'inner' as const,
    buildSide: 'left' as const,
    leftKey: makeKeyFn([0], [t.int32], false),
    rightKey: makeKeyFn([0], [t.int32], false),
    leftWidth: 2,
    rightWidth: 2,
  };

  // the PostgreSQL connector as a source that takes key sets as IN lists only
  const withCaps = (caps: Partial<ReturnType<Connector['capabilities']>>): Connector =>
    Object.create(conn, { capabilities: { value: () => ({ ...conn.capabilities(), arrayKeySets: [], ...caps }) } }) as Connector;

  it('sends the distinct non-NULL driver keys as one array parameter where the source binds one', async () => {
    const op = new DependentJoinOp(driver(), scan(), spec, { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 2, maxParallel: 2 }, '');
    const ctx = testContext();
    expect(bag(await run(op, ctx))).toEqual(joined);
    expect(ctx.statements.map((s) => [s.sql, s.params])).toEqual([
      ['SELECT "i"."id" AS "id", "i"."label" AS "label" FROM "public"."items" "i" WHERE ("i"."id" = ANY($1::integer[]))', ['{7,3,12,1000,5}']],
    ]);
    expect(op.report).toEqual({ statements: 1, keys: 5 });
  });

  it('sends the distinct non-NULL driver keys as IN batches of at most maxInList values', async () => {
    const remote = scan();
    const op = new DependentJoinOp(
      driver(),
      new RemoteScanOp('src', withCaps({}), items, remote.rendered),
      spec,
      { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 2, maxParallel: 2 },
      '',
    );
    const ctx = testContext();
    const rows = await run(op, ctx);
    expect(bag(rows)).toEqual(joined);
    // 5 distinct keys, 2 per list, all lists in one statement (50 lists allowed); the dialect
    // still spells each list as an array parameter
    expect(ctx.statements.map((s) => [s.sql, s.params])).toEqual([
      [
        'SELECT "i"."id" AS "id", "i"."label" AS "label" FROM "public"."items" "i" WHERE ((("i"."id" = ANY($1::integer[])) OR ("i"."id" = ANY($2::integer[]))) OR ("i"."id" = ANY($3::integer[])))',
        ['{7,3}', '{12,1000}', '{5}'],
      ],
    ]);
    expect(op.report).toEqual({ statements: 1, keys: 5 });
  });

  it('splits statements at the source parameter limit and runs them in parallel', async () => {
    const remote = scan();
    const limited = withCaps({ maxBindParams: 2 });
    const op = new DependentJoinOp(
      driver(),
      new RemoteScanOp('src', limited, items, remote.rendered),
      spec,
      { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 10, maxParallel: 2 },
      '',
    );
    const ctx = testContext();
    const rows = await run(op, ctx);
    expect(rows.length).toBe(5);
    expect(ctx.statements.map((s) => s.params)).toEqual([['{7,3}'], ['{12,1000}'], ['{5}']]);
    expect(op.report.statements).toBe(3);
    // EXPLAIN ANALYZE lists each statement the dependent fetch sent under the remote node
    const tree = buildExplain(op, { analyze: true, statements: ctx.statements });
    const remoteNode = tree.children[1];
    expect(remoteNode.actual).toMatchObject({ rows: 4, statements: 3 });
    expect(remoteNode.children.map((c) => [c.operator, c.params, c.actual?.rows])).toEqual([
      ['Statement', ['{7,3}'], 2],
      ['Statement', ['{12,1000}'], 1],
      ['Statement', ['{5}'], 1],
    ]);
    expect(tree.detail).toContain('5 keys in 3 statements');
  });

  it('never contacts the source when the driver has no keys', async () => {
    const op = new DependentJoinOp(new RowsOp([[[null, 'only null']]]), scan(), spec, { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 2, maxParallel: 2 }, '');
    const ctx = testContext();
    expect(await run(op, ctx)).toEqual([]);
    expect(ctx.statements).toEqual([]);
  });

  it('a left join driven by the left side keeps unmatched driver rows without asking the source', async () => {
    const op = new DependentJoinOp(
      new RowsOp([[[null, 'only null']]]),
      scan(),
      { ...spec, type: 'left' },
      { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 2, maxParallel: 2 },
      '',
    );
    const ctx = testContext();
    expect(await run(op, ctx)).toEqual([[null, 'only null', null, null]]);
    expect(ctx.statements).toEqual([]);
  });
});

describe('HashJoinOp switching to dependent at run time', () => {
  it('restricts the probe statement to the small build side keys', async () => {
    const probe = scan();
    const build = new RowsOp([[[4], [9]]]);
    const op = new HashJoinOp(
      probe,
      build,
      {
        type: 'inner',
        buildSide: 'right',
        leftKey: makeKeyFn([0], [t.int32], false),
        rightKey: makeKeyFn([0], [t.int32], false),
        leftWidth: 2,
        rightWidth: 1,
      },
      '',
      { scan: probe, probeColumn: 0, buildColumn: 0, buildType: t.int32, maxKeys: 10, maxInList: 1000, maxParallel: 2 },
    );
    const ctx = testContext();
    const rows: Row[] = await run(op, ctx);
    expect(bag(rows)).toEqual(bag([[4, 'item 4', 4], [9, 'item 9', 9]]));
    expect(ctx.statements.map((s) => s.params)).toEqual([['{4,9}']]);
    expect(op.report.switched).toBe(true);
  });

  const innerSwitch = (probeScan: RemoteScanOp, probeColumn: number, buildType = t.int32) => ({
    scan: probeScan,
    probeColumn,
    buildColumn: 0,
    buildType,
    maxKeys: 10,
    maxInList: 1000,
    maxParallel: 2,
  });

  it('passes the build keys down to a statement deeper in the probe side (a dynamic filter)', async () => {
    const inner = scan();
    // the probe side is not the statement itself: a projection swaps its columns
    const probe = new ProjectOp(inner, [1, 0], 'label, id');
    const op = new HashJoinOp(
      probe,
      new RowsOp([[[4], [9], [4]]]),
      { type: 'inner', buildSide: 'right', leftKey: makeKeyFn([1], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth: 1 },
      '',
      innerSwitch(inner, 0),
    );
    const ctx = testContext();
    expect(bag(await run(op, ctx))).toEqual(bag([['item 4', 4, 4], ['item 4', 4, 4], ['item 9', 9, 9]]));
    expect(ctx.statements.map((s) => [s.sql, s.params])).toEqual([
      ['SELECT "i"."id" AS "id", "i"."label" AS "label" FROM "public"."items" "i" WHERE ("i"."id" = ANY($1::integer[]))', ['{4,9}']],
    ]);
    expect(op.report).toMatchObject({ filtered: true, switched: false, keys: 2 });
    expect(op.info().detail).toBe("inner build=right , 2 build keys passed down to the probe side's src statement");
  });

  it('a dependent join under the probe side adds the passed-down keys to its own: another column narrows, its own key column intersects', async () => {
    const run2 = async (probeColumn: number, buildRows: Row[], buildType: typeof t.int32) => {
      const inner = scan();
      const dependent = new DependentJoinOp(
        new RowsOp([[[4], [5], [9]]]),
        inner,
        { type: 'inner', buildSide: 'left', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 1, rightWidth: 2 },
        { driverColumn: 0, driverType: t.int32, remoteColumn: 0, maxInList: 1000, maxParallel: 2 },
        '',
      );
      const op = new HashJoinOp(
        dependent,
        new RowsOp([buildRows]),
        {
          type: 'inner',
          buildSide: 'right',
          leftKey: makeKeyFn([1 + probeColumn], [buildType], false),
          rightKey: makeKeyFn([0], [buildType], false),
          leftWidth: 3,
          rightWidth: 1,
        },
        '',
        innerSwitch(inner, probeColumn, buildType),
      );
      const ctx = testContext();
      const rows = bag(await run(op, ctx));
      return { rows, sent: ctx.statements.map((s) => [s.sql, s.params]) };
    };
    const byLabel = await run2(1, [['item 4'], ['item 9'], ['item 77']], t.string);
    expect(byLabel.rows).toEqual(bag([[4, 4, 'item 4', 'item 4'], [9, 9, 'item 9', 'item 9']]));
    expect(byLabel.sent).toEqual([
      [
        'SELECT "i"."id" AS "id", "i"."label" AS "label" FROM "public"."items" "i" WHERE (("i"."id" = ANY($1::integer[])) AND ("i"."label" = ANY($2::text[])))',
        ['{4,5,9}', '{"item 4","item 9","item 77"}'],
      ],
    ]);
    const byId = await run2(0, [[9], [4], [11]], t.int32);
    expect(byId.rows).toEqual(bag([[4, 4, 'item 4', 4], [9, 9, 'item 9', 9]]));
    expect(byId.sent).toEqual([['SELECT "i"."id" AS "id", "i"."label" AS "label" FROM "public"."items" "i" WHERE ("i"."id" = ANY($1::integer[]))', ['{4,9}']]]);
  });

  it('starts the probe statement as soon as the build side shows more keys than the switch takes', async () => {
    const probe = scan();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // the build side's second batch comes only once the probe statement has been sent
    class GatedBuild extends RowsOp {
      protected override async *run(): AsyncIterable<Row[]> {
        yield [[4], [9], [11]];
        await gate;
        yield [[12]];
      }
    }
    const op = new HashJoinOp(
      probe,
      new GatedBuild([]),
      { type: 'inner', buildSide: 'right', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth: 1 },
      '',
      { scan: probe, probeColumn: 0, buildColumn: 0, buildType: t.int32, maxKeys: 2, maxInList: 1000, maxParallel: 2 },
    );
    const ctx = testContext();
    const result = run(op, ctx);
    await vi.waitFor(() => expect(ctx.statements.map((s) => s.params)).toEqual([[]]));
    release();
    expect(bag(await result)).toEqual(bag([[4, 'item 4', 4], [9, 'item 9', 9], [11, 'item 11', 11], [12, 'item 12', 12]]));
    expect(ctx.statements.length).toBe(1);
    expect(op.report.switched).toBe(false);
  });

  it('keeps the probe statement waiting while the build side may still turn the join dependent', async () => {
    const probe = scan();
    const sentWhileBuilding: number[] = [];
    const ctx = testContext();
    class WatchedBuild extends RowsOp {
      protected override async *run(): AsyncIterable<Row[]> {
        yield [[4]];
        await new Promise((r) => setTimeout(r, 50));
        sentWhileBuilding.push(ctx.statements.length);
        yield [[9]];
      }
    }
    const op = new HashJoinOp(
      probe,
      new WatchedBuild([]),
      { type: 'inner', buildSide: 'right', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth: 1 },
      '',
      { scan: probe, probeColumn: 0, buildColumn: 0, buildType: t.int32, maxKeys: 2, maxInList: 1000, maxParallel: 2 },
    );
    expect(bag(await run(op, ctx))).toEqual(bag([[4, 'item 4', 4], [9, 'item 9', 9]]));
    expect(sentWhileBuilding).toEqual([0]);
    expect(ctx.statements.map((s) => s.params)).toEqual([['{4,9}']]);
  });

  it('reads the probe side whole when the build side has more keys than the threshold', async () => {
    const probe = scan();
    const build = new RowsOp([[[4], [9], [11]]]);
    const op = new HashJoinOp(
      probe,
      build,
      { type: 'inner', buildSide: 'right', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 2, rightWidth: 1 },
      '',
      { scan: probe, probeColumn: 0, buildColumn: 0, buildType: t.int32, maxKeys: 2, maxInList: 1000, maxParallel: 2 },
    );
    const ctx = testContext();
    expect((await run(op, ctx)).length).toBe(3);
    expect(ctx.statements.map((s) => s.params)).toEqual([[]]);
    expect(op.report.switched).toBe(false);
  });
});
