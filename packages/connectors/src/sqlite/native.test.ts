import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../contract/connector.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import { createConnector } from '../create-connector.js';
import { uniqueName } from '../../test/support/sources.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), uniqueName('sqlite_native')));
const file = path.join(dir, 'src.db');
// stands in for Junction's own database (data/junction.db) that a native statement must never reach
const other = path.join(dir, 'junction.db');
let conn: Connector;

async function caught(p: Promise<unknown>): Promise<JunctionError> {
  try {
    await p;
  } catch (e) {
    if (isJunctionError(e)) return e;
    throw e;
  }
  throw new Error('expected a JunctionError');
}

function roleInOther(): string {
  const db = new Database(other, { readonly: true });
  try {
    return db.prepare(`SELECT role FROM "User" WHERE id = 1`).pluck().get() as string;
  } finally {
    db.close();
  }
}

const ATTACH_REFUSED = `Source "lite" does not allow ATTACH: a statement may only use the source's own database file.`;
const MULTIPLE = `Source "lite" runs one statement at a time, and this text holds more than one. Send each statement on its own.`;
const notReadOnly = (why: string): string =>
  `Source "lite" runs this statement read-only, and it ${why}. Only statements that read data are allowed here.`;

beforeAll(async () => {
  const j = new Database(other);
  j.exec(`CREATE TABLE "User" (id INTEGER PRIMARY KEY, role TEXT NOT NULL); INSERT INTO "User" VALUES (1, 'analyst')`);
  j.close();
  conn = createConnector({ name: 'lite', engine: 'sqlite', file });
  await conn.execute(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`);
  await conn.execute(`INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')`);
});

afterAll(async () => {
  await conn.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('sqlite native execution', () => {
  it('refuses the ATTACH escalation script, with or without readOnly, and leaves the other file unchanged', async () => {
    const escalation = `ATTACH '${other}' AS j; UPDATE j."User" SET role = 'admin' WHERE id = 1`;
    for (const options of [undefined, { readOnly: true }]) {
      const err = await caught(conn.execute(escalation, [], options));
      expect({ code: err.code, kind: err.kind, message: err.message }).toEqual({
        code: 'attach_refused',
        kind: 'forbidden',
        message: ATTACH_REFUSED,
      });
    }
    expect(roleInOther()).toBe('analyst');
    // the connection has nothing attached: only its own database
    expect((await conn.execute(`PRAGMA database_list`)).rows.map((r) => r[1])).toEqual(['main']);
  });

  it('refuses ATTACH alone, behind comments or in any case, before SQLite creates the file it names', async () => {
    const fresh = path.join(dir, 'created-by-attach.db');
    for (const sql of [
      `ATTACH DATABASE '${fresh}' AS j`,
      `  -- harmless\n/* really */ attach '${fresh}' as j`,
      `;ATTACH '${fresh}' AS j`,
    ]) {
      const err = await caught(conn.execute(sql));
      expect([err.code, err.message]).toEqual(['attach_refused', ATTACH_REFUSED]);
    }
    expect(fs.existsSync(fresh)).toBe(false);
    const detach = await caught(conn.execute(`DETACH DATABASE j`));
    expect([detach.code, detach.kind, detach.message]).toEqual([
      'attach_refused',
      'forbidden',
      `Source "lite" does not allow DETACH: a statement may only use the source's own database file.`,
    ]);
  });

  it('refuses a script of several statements and runs none of them', async () => {
    const err = await caught(conn.execute(`CREATE TABLE a (x INT); CREATE TABLE b (x INT)`));
    expect({ code: err.code, kind: err.kind, message: err.message }).toEqual({
      code: 'multiple_statements',
      kind: 'user',
      message: MULTIPLE,
    });
    const again = await caught(conn.execute(`SELECT 1; DELETE FROM t`, [], { readOnly: true }));
    expect([again.code, again.message]).toEqual(['multiple_statements', MULTIPLE]);
    const tables = await conn.execute(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`);
    expect(tables.rows).toEqual([['t']]);
    expect((await conn.execute(`SELECT count(*) FROM t`)).rows).toEqual([[3n]]);
    // one statement with a trailing semicolon and comment is still one statement
    expect((await conn.execute(`SELECT count(*) FROM t; -- done`)).rows).toEqual([[3n]]);
  });

  it('readOnly refuses every statement that writes or changes a setting, with the reason', async () => {
    const vacuumed = path.join(dir, 'copy.db');
    const cases: [string, string][] = [
      [`CREATE TABLE x (y INT)`, notReadOnly('would write (to the database or to a file)')],
      [`INSERT INTO t VALUES (4, 'four')`, notReadOnly('would write (to the database or to a file)')],
      [`INSERT INTO t VALUES (5, 'five') RETURNING id`, notReadOnly('would write (to the database or to a file)')],
      [`PRAGMA journal_mode=DELETE`, notReadOnly('changes a setting (PRAGMA journal_mode)')],
      [`PRAGMA main.journal_mode(WAL)`, notReadOnly('changes a setting (PRAGMA journal_mode)')],
      [`PRAGMA query_only=0`, notReadOnly('changes a setting (PRAGMA query_only)')],
      [`PRAGMA locking_mode = EXCLUSIVE`, notReadOnly('changes a setting (PRAGMA locking_mode)')],
      [`VACUUM INTO '${vacuumed}'`, notReadOnly('would write (to the database or to a file)')],
      [`BEGIN`, notReadOnly('returns no rows, so it is not a query')],
    ];
    for (const [sql, message] of cases) {
      const err = await caught(conn.execute(sql, [], { readOnly: true }));
      expect({ sql, code: err.code, kind: err.kind, message: err.message }).toEqual({
        sql,
        code: 'native_not_read_only',
        kind: 'forbidden',
        message,
      });
    }
    expect(fs.existsSync(vacuumed)).toBe(false);
    expect((await conn.execute(`SELECT id, name FROM t ORDER BY id`)).rows).toEqual([
      [1n, 'one'],
      [2n, 'two'],
      [3n, 'three'],
    ]);
    expect((await conn.execute(`PRAGMA journal_mode`)).rows).toEqual([['delete']]);
  });

  it('readOnly runs a query with parameters, and reading PRAGMAs, on a handle that cannot write', async () => {
    const r = await conn.execute(`SELECT id, name FROM t WHERE id >= ? AND name <> ? ORDER BY id`, [2n, 'three'], {
      readOnly: true,
    });
    expect(r.rows).toEqual([[2n, 'two']]);
    expect(r.columns.map((c) => c.name)).toEqual(['id', 'name']);
    const info = await conn.execute(`PRAGMA table_info(t)`, [], { readOnly: true });
    expect(info.rows.map((x) => x[1])).toEqual(['id', 'name']);
    expect((await conn.execute(`PRAGMA query_only`, [], { readOnly: true })).rows).toEqual([[1n]]);
    // the handle for writing is another one, and writes still work
    expect((await conn.execute(`PRAGMA query_only`)).rows).toEqual([[0n]]);
    expect((await conn.execute(`UPDATE t SET name = 'uno' WHERE id = 1`)).rowCount).toBe(1);
    await conn.execute(`UPDATE t SET name = 'one' WHERE id = 1`);
  });

  it('an in-memory source switches query_only on for a readOnly statement and back off after it', async () => {
    const mem = createConnector({ name: 'lite', engine: 'sqlite', file: ':memory:' });
    try {
      await mem.execute(`CREATE TABLE m (x INT)`);
      await mem.execute(`INSERT INTO m VALUES (1)`);
      expect((await mem.execute(`SELECT x FROM m WHERE x = ?`, [1n], { readOnly: true })).rows).toEqual([[1n]]);
      const err = await caught(mem.execute(`DELETE FROM m`, [], { readOnly: true }));
      expect(err.code).toBe('native_not_read_only');
      expect((await mem.execute(`PRAGMA query_only`)).rows).toEqual([[0n]]);
      expect((await mem.execute(`INSERT INTO m VALUES (2)`)).rowCount).toBe(1);
    } finally {
      await mem.close();
    }
  });

  it('an aborted signal stops the statement before it runs', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await caught(conn.execute(`DELETE FROM t`, [], { signal: ac.signal }));
    expect([err.code, err.kind]).toEqual(['source_statement_cancelled', 'cancelled']);
    expect((await conn.execute(`SELECT count(*) FROM t`)).rows).toEqual([[3n]]);
  });
});
