import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../contract/connector.js';
import { caught, stopTests } from '../../test/support/native-stop.js';
import { createConnector } from '../create-connector.js';
import { sourceFromUrl, uniqueName } from '../../test/support/sources.js';

const url = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';
const db = uniqueName('mynative');
let admin: mysql.Connection;
let conn: Connector;

async function tables(): Promise<string[]> {
  const [rows] = await admin.query(
    `SELECT table_name AS n FROM information_schema.tables WHERE table_schema = ? ORDER BY 1`,
    [db],
  );
  return (rows as { n: string }[]).map((r) => r.n);
}

async function running(pattern: string): Promise<number> {
  const [rows] = await admin.query(
    `SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'`,
    [pattern],
  );
  return Number((rows as { n: number }[])[0].n);
}

const notReadOnly = (why: string): string =>
  `Source "mysrc" runs this statement read-only, and it ${why}. Only statements that read data are allowed here.`;

beforeAll(async () => {
  admin = await mysql.createConnection(url);
  await admin.query(`CREATE DATABASE ${db} CHARACTER SET utf8mb4`);
  // one connection: every test also proves the previous one left it clean
  conn = createConnector({ ...sourceFromUrl(url, 'mysrc'), database: db, options: { pool: { max: 1 } } });
  await conn.execute(`CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)`);
  await conn.execute(`INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')`);
});

afterAll(async () => {
  await conn?.close();
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.end();
});

describe('mysql native execution', () => {
  it('readOnly refuses DDL, which would commit a READ ONLY transaction implicitly and run', async () => {
    for (const [sql, first] of [
      [`CREATE TABLE x (y INT)`, 'CREATE'],
      [`DROP TABLE t`, 'DROP'],
      [`/* a comment first */ CREATE VIEW v AS SELECT 1`, 'CREATE'],
      [`CALL p()`, 'CALL'],
      [`SET SESSION sql_mode = ''`, 'SET'],
    ]) {
      const err = await caught(conn.execute(sql, [], { readOnly: true }));
      expect({ sql, code: err.code, kind: err.kind, message: err.message }).toEqual({
        sql,
        code: 'native_not_read_only',
        kind: 'forbidden',
        message: notReadOnly(`starts with ${first}, which is not a query`),
      });
    }
    const hidden = await caught(conn.execute(`/*! DROP TABLE t */`, [], { readOnly: true }));
    expect([hidden.code, hidden.message]).toEqual([
      'native_not_read_only',
      notReadOnly('holds a MySQL executable comment (/*! … */), whose text the server runs as code'),
    ]);
    const outfile = await caught(conn.execute(`SELECT * FROM t INTO OUTFILE '/tmp/${db}.txt'`, [], { readOnly: true }));
    expect([outfile.code, outfile.message]).toEqual([
      'native_not_read_only',
      notReadOnly('writes a file on the server (INTO OUTFILE / DUMPFILE)'),
    ]);
    expect(await tables()).toEqual(['t']);
  });

  it('readOnly runs in a READ ONLY transaction: the server refuses a write hidden in a query', async () => {
    await conn.execute(
      `CREATE FUNCTION bump() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO t VALUES (9, 'nine'); RETURN 1; END`,
    );
    const err = await caught(conn.execute(`SELECT bump()`, [], { readOnly: true }));
    expect({ code: err.code, kind: err.kind, message: err.message }).toEqual({
      code: 'native_not_read_only',
      kind: 'forbidden',
      message: notReadOnly('would change data, which the read-only transaction refused'),
    });
    expect((await conn.execute(`SELECT count(*) FROM t`)).rows).toEqual([[3n]]);
    // the connection left no transaction open: a write without readOnly commits
    await conn.execute(`SELECT bump()`);
    expect((await conn.execute(`SELECT count(*) FROM t`)).rows).toEqual([[4n]]);
    await conn.execute(`DELETE FROM t WHERE id = 9`);
  });

  it('one statement per call: the text is refused before sending, and the connection never allows several', async () => {
    const multiple = `Source "mysrc" runs one statement at a time, and this text holds more than one. Send each statement on its own.`;
    const err = await caught(conn.execute(`SELECT 1; INSERT INTO t VALUES (9, 'nine')`, [], { readOnly: true }));
    expect({ code: err.code, kind: err.kind, message: err.message }).toEqual({
      code: 'multiple_statements',
      kind: 'user',
      message: multiple,
    });
    // without readOnly nothing checks the text first: the server itself refuses the second statement
    const byServer = await caught(conn.execute(`SELECT 1; INSERT INTO t VALUES (9, 'nine')`));
    expect(byServer.code).toBe('source_error');
    expect(byServer.details?.driverCode).toBe('ER_PARSE_ERROR');
    expect((await conn.execute(`SELECT count(*) FROM t`)).rows).toEqual([[3n]]);
  });

  it('readOnly runs a query with parameters', async () => {
    const r = await conn.execute(`SELECT id, name FROM t WHERE id >= ? AND name <> ? ORDER BY id`, [2n, 'three'], {
      readOnly: true,
    });
    expect(r.rows).toEqual([[2, 'two']]);
    expect((await conn.execute(`SELECT @@in_transaction`)).rows).toEqual([['0']]);
  });

  stopTests({ conn: () => conn, source: 'mysrc', sleep: 'SELECT SLEEP(30)', running });
});
