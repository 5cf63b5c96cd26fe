import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../contract/connector.js';
import { caught, stopTests } from '../../test/support/native-stop.js';
import { createConnector } from '../create-connector.js';
import { sourceFromUrl, uniqueName } from '../../test/support/sources.js';

const url = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const db = uniqueName('pgnative');
let admin: pg.Client;
let conn: Connector;

async function tables(): Promise<string[]> {
  const r = await conn.execute(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
  );
  return r.rows.map((x) => String(x[0]));
}

/** Statements of this database whose text is like `like`, running now (asked on the admin connection). */
async function active(like: string): Promise<number> {
  const r = await admin.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2`,
    [db, like],
  );
  return r.rows[0].n as number;
}

const notReadOnly = (why: string): string =>
  `Source "pgsrc" runs this statement read-only, and it ${why}. Only statements that read data are allowed here.`;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${db}`);
  // one connection: every test also proves the previous one left it clean
  conn = createConnector({ ...sourceFromUrl(url, 'pgsrc'), database: db, options: { pool: { max: 1 } } });
  await conn.execute(`CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL)`);
  await conn.execute(`INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')`);
});

afterAll(async () => {
  await conn?.close();
  await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await admin.end();
});

describe('postgres native execution', () => {
  it('readOnly sends one statement through the extended protocol: a COMMIT smuggled after it never runs', async () => {
    const err = await caught(conn.execute(`SELECT 1; COMMIT; CREATE TABLE x ()`, [], { readOnly: true }));
    expect({ code: err.code, kind: err.kind, message: err.message }).toEqual({
      code: 'multiple_statements',
      kind: 'user',
      message: `Source "pgsrc" runs one statement at a time, and this text holds more than one. Send each statement on its own.`,
    });
    expect(await tables()).toEqual(['t']);
  });

  it('the server refuses several statements itself, whatever the text looks like to Junction', async () => {
    // Junction's lexer does not know E'' strings: it sees one unterminated literal, no second
    // statement. Sent as a simple query this COMMIT would end the read-only transaction and
    // CREATE TABLE would run; the Parse message of the extended protocol takes one statement.
    const err = await caught(conn.execute(`SELECT E'\\''; COMMIT; CREATE TABLE y ()`, [], { readOnly: true }));
    expect(err.code).toBe('multiple_statements');
    expect(await tables()).toEqual(['t']);
  });

  it('readOnly refuses writes: by the read-only transaction, and statements that are not queries before sending', async () => {
    const byServer = await caught(
      conn.execute(`WITH gone AS (DELETE FROM t RETURNING id) SELECT count(*) FROM gone`, [], { readOnly: true }),
    );
    expect({ code: byServer.code, kind: byServer.kind, message: byServer.message }).toEqual({
      code: 'native_not_read_only',
      kind: 'forbidden',
      message: notReadOnly('would change data, which the read-only transaction refused'),
    });
    for (const [sql, first] of [
      [`CREATE TABLE z (x int)`, 'CREATE'],
      [`COPY (SELECT 1) TO PROGRAM 'true'`, 'COPY'],
      [`DO $$ BEGIN EXECUTE 'CREATE TABLE z (x int)'; END $$`, 'DO'],
      [`SET search_path TO nowhere`, 'SET'],
    ]) {
      const err = await caught(conn.execute(sql, [], { readOnly: true }));
      expect([err.code, err.message]).toEqual([
        'native_not_read_only',
        notReadOnly(`starts with ${first}, which is not a query`),
      ]);
    }
    expect(await tables()).toEqual(['t']);
    expect((await conn.execute(`SELECT count(*) FROM t`)).rows).toEqual([[3n]]);
  });

  it('readOnly runs a query with parameters and leaves the pooled session as it found it', async () => {
    const r = await conn.execute(`SELECT id, name FROM t WHERE id >= $1 AND name <> $2 ORDER BY id`, [2n, 'three'], {
      readOnly: true,
    });
    expect(r.rows).toEqual([[2, 'two']]);
    // set_config(…, false) and session advisory locks are allowed in a read-only transaction
    await conn.execute(`SELECT set_config('search_path', 'nowhere', false), pg_advisory_lock(4242)`, [], {
      readOnly: true,
    });
    expect((await conn.execute(`SHOW search_path`)).rows).toEqual([['"$user", public']]);
    const locks = await admin.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242`,
    );
    expect(locks.rows[0].n).toBe(0);
    expect((await conn.execute(`SELECT current_setting('transaction_read_only')`)).rows).toEqual([['off']]);
    // and writes without readOnly still work on it
    expect((await conn.execute(`UPDATE t SET name = 'uno' WHERE id = 1`)).rowCount).toBe(1);
    await conn.execute(`UPDATE t SET name = 'one' WHERE id = 1`);
  });

  stopTests({ conn: () => conn, source: 'pgsrc', sleep: 'SELECT pg_sleep(30)', running: active });
});
