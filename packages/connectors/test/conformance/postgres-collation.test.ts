import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/contract/connector.js';
import type { RemoteQuery } from '../../src/contract/remote-query.js';
import { t, type Row } from '../../src/contract/types.js';
import { createConnector } from '../../src/create-connector.js';
import { PostgresDialect } from '../../src/postgres/dialect.js';
import { renderQuery } from '../../src/sql/generator.js';
import { agg, call, col, lit, table } from '../../src/sql/ir-builders.js';

/**
 * A PostgreSQL source whose collation is linguistic (ICU here) orders 'a' before 'B'. The
 * dialect, told so by the probed semantics, adds COLLATE "C" to string ordering only, and the
 * rows come back in Junction's code-point order.
 */
const url = new URL(process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test');
const schema = `jt_conf_coll_${randomBytes(4).toString('hex')}`;
const linguistic = new PostgresDialect({
  serverVersion: '15',
  defaultCollation: 'und-x-icu',
  caseSensitive: true,
  accentSensitive: true,
  padSpace: false,
  timeZone: 'UTC',
  maxBindParams: 65535,
  maxIdentifierLength: 63,
});

describe('conformance: postgresql under a linguistic collation', () => {
  let pg: Connector;
  beforeAll(async () => {
    pg = createConnector({
      name: 'pgicu',
      engine: 'postgresql',
      host: url.hostname,
      port: Number(url.port || 5432),
      database: url.pathname.slice(1),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      options: { pool: { max: 1 } },
    });
    await pg.execute(`CREATE SCHEMA ${schema}`);
    await pg.execute(`CREATE TABLE ${schema}.names (id integer, v text COLLATE "und-x-icu")`);
    await pg.execute(`INSERT INTO ${schema}.names VALUES (1, 'b'), (2, 'B'), (3, 'a'), (4, 'A'), (5, NULL)`);
  });
  afterAll(async () => {
    try {
      await pg?.execute(`DROP SCHEMA ${schema} CASCADE`);
    } finally {
      await pg?.close();
    }
  });

  const v = col('n', 'v', t.string);
  const run = async (q: RemoteQuery): Promise<Row[]> => {
    const rows: Row[] = [];
    for await (const b of pg.stream(renderQuery(linguistic, q))) rows.push(...b.rows);
    return rows;
  };

  it('the raw collation is not code-point order (why the dialect adds COLLATE "C")', async () => {
    const raw = await pg.execute(`SELECT v FROM ${schema}.names WHERE v IS NOT NULL ORDER BY v`);
    expect(raw.rows).toEqual([['a'], ['A'], ['b'], ['B']]);
  });

  it('ORDER BY, <, MIN and MAX follow code points', async () => {
    expect(await run({ select: [{ expr: v, alias: 'v' }], from: table('names', 'n', schema), orderBy: [{ expr: v, desc: false, nullsFirst: false }] })).toEqual([
      ['A'], ['B'], ['a'], ['b'], [null],
    ]);
    expect(
      await run({
        select: [{ expr: col('n', 'id', t.int32), alias: 'id' }],
        from: table('names', 'n', schema),
        where: call('lt', [v, lit('a', t.string)]),
        orderBy: [{ expr: col('n', 'id', t.int32), desc: false, nullsFirst: false }],
      }),
    ).toEqual([[2], [4]]);
    expect(
      await run({
        select: [
          { expr: agg('min', [v], t.string), alias: 'lo' },
          { expr: agg('max', [v], t.string), alias: 'hi' },
        ],
        from: table('names', 'n', schema),
      }),
    ).toEqual([['A', 'b']]);
  });
});
