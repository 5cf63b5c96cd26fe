import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jdvWorkload } from '@junction/tpch';
import { benchDatabase, PLACEMENT, prepareBenchData } from '../../../../packages/query-core/bench/databases.js';
import { restSource } from '../../bench/rest-target.js';
import { startHarness, type Harness } from '../../test/harness.js';
import {
  nodePgPrepared,
  nodePgStream,
  runJdbc,
  runPgbench,
  runPsql,
  runPsycopg,
  writePgbenchScript,
  type PgTarget,
} from '../../test/pg-clients/clients.js';
import { startPgWire, type PgWireServer } from './server.js';
import { textOf, typeOfText } from './types.js';

/**
 * Clients no one here wrote — psql, psycopg 3, pgjdbc, node-postgres, pgbench — run the JDV
 * queries against Junction's PostgreSQL port over the four-source layout (SF 0.01), and get
 * the rows POST /api/v1/query gives.
 */
const SF = 0.01;
const workload = jdvWorkload(SF);
const H_KEY = 7;
let h: Harness;
let wire: PgWireServer;
let admin: PgTarget;
let analyst: PgTarget;
/** per query: REST's rows as PostgreSQL text, sorted (the JDV SQL leaves some orders open) */
const expected = new Map<string, (string | null)[][]>();

const sorted = (rows: (string | null)[][]) =>
  [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
const paramsOf = (q: string) => (q === 'H' ? [H_KEY] : []);

beforeAll(async () => {
  await prepareBenchData(SF, true);
  h = await startHarness();
  for (const name of ['dbA', 'dbB', 'dbC', 'dbD']) {
    const r = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: restSource(name, PLACEMENT[name]!, benchDatabase(SF, name)),
    });
    expect(r.statusCode).toBe(201);
  }
  // the analyst reads dbA only
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'dbA' } });
  wire = await startPgWire(h.app, { host: '127.0.0.1', port: 0 });
  admin = {
    host: '127.0.0.1',
    port: wire.port,
    user: 'admin',
    password: h.passwords.admin,
    database: 'junction',
    sslmode: 'disable',
  };
  analyst = { ...admin, user: 'analyst', password: h.passwords.analyst };
  for (const q of workload.queries) {
    const r = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: q.federated, params: paramsOf(q.id) },
    });
    expect(r.statusCode).toBe(200);
    const body = r.json() as { columns: { type: string }[]; rows: unknown[][] };
    const types = body.columns.map((c) => typeOfText(c.type));
    expected.set(q.id, sorted(body.rows.map((row) => row.map((v, i) => textOf(types[i]!, v as never)))));
  }
  expect(expected.get('A')!.length).toBeGreaterThan(0);
}, 300_000);
afterAll(async () => {
  await wire?.close();
  await h?.close();
});

/** The JDV SQL with $1 spelled as a psql variable (psql 15 has no \bind). */
const forPsql = (sql: string) => sql.replace(/\$1\b/g, ':h_key');

describe('psql', () => {
  it.each(workload.queries.map((q) => q.id))('runs JDV %s with the rows REST gives', async (q) => {
    const r = await runPsql(admin, `\\pset null '<null>'\n${forPsql(workload.query(q).federated)};`, {
      vars: { h_key: String(H_KEY) },
    });
    expect(r.stderr).toBe('');
    expect(sorted(r.rows.map((row) => row.map((v) => (v === '<null>' ? null : v))))).toEqual(expected.get(q));
  });

  it('describes the catalog: \\dn, \\dt, \\d, and only what the user may read', async () => {
    const schemas = await runPsql(admin, '\\dn');
    expect(schemas.rows.map((r) => r[0])).toEqual(['dbA', 'dbB', 'dbC', 'dbD', 'public']);
    const tables = await runPsql(admin, '\\dt "dbD".*');
    expect(tables.rows.map((r) => [r[0], r[1], r[2]])).toEqual([
      ['dbD', 'customer', 'table'],
      ['dbD', 'nation', 'table'],
      ['dbD', 'region', 'table'],
    ]);
    const region = await runPsql(admin, '\\d "dbD".region', { format: 'aligned' });
    expect(region.lines.slice(0, 7)).toEqual([
      '                          Table "dbD.region"',
      '   Column    |          Type          | Collation | Nullable | Default ',
      '-------------+------------------------+-----------+----------+---------',
      ' r_regionkey | integer                |           | not null | ',
      ' r_name      | character(25)          |           | not null | ',
      ' r_comment   | character varying(152) |           |          | ',
      'Indexes:',
    ]);
    const own = await runPsql(analyst, '\\dn');
    expect(own.rows.map((r) => r[0])).toEqual(['dbA', 'public']);
  });

  it('runs \\x and \\copy (query) to a file', async () => {
    const x = await runPsql(admin, '\\x on\nSELECT r_regionkey, r_name FROM dbD.region WHERE r_regionkey = 1;', {
      format: 'aligned',
    });
    expect(x.lines).toEqual([
      '-[ RECORD 1 ]--------------------------',
      'r_regionkey | 1',
      'r_name      | AMERICA                  ',
      '',
    ]);
    const copy = await runPsql(
      admin,
      "\\copy (SELECT r_regionkey, r_name FROM dbD.region ORDER BY 1) to 'regions.tsv'",
    );
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${copy.cwd}/regions.tsv`, 'utf8').split('\n').slice(0, 2)).toEqual([
      '0\tAFRICA                   ',
      '1\tAMERICA                  ',
    ]);
  });

  it('fetches through a cursor with FETCH_COUNT', async () => {
    const r = await runPsql(admin, '\\set FETCH_COUNT 7\nSELECT r_regionkey FROM dbD.region ORDER BY 1;');
    expect(r.stderr).toBe('');
    expect(r.rows).toEqual([['0'], ['1'], ['2'], ['3'], ['4']]);
    const big = await runPsql(admin, '\\set FETCH_COUNT 1000\nSELECT o_orderkey FROM dbA.orders ORDER BY 1;');
    expect(big.rows.length).toBe(
      Number(expected.get('A') ? (await runPsql(admin, 'SELECT count(*) FROM dbA.orders;')).rows[0]![0] : -1),
    );
  });

  it('refuses a wrong password and a source the user may not read', async () => {
    const bad = await runPsql({ ...admin, password: 'wrong' }, 'SELECT 1;', { allowError: true });
    expect(bad.stderr).toContain('password authentication failed for user "admin"');
    const hidden = await runPsql(analyst, 'SELECT count(*) FROM dbB.customer;', { allowError: true });
    expect(hidden.stderr).toMatch(/ERROR: {2}.*dbB/);
  });
});

describe('psycopg 3', () => {
  it.each(workload.queries.map((q) => q.id))('runs JDV %s with the rows REST gives', async (q) => {
    const sql = workload.query(q).federated.replace(/\$1\b/g, '%s');
    const r = await runPsycopg(
      admin,
      'query',
      q === 'H' ? { sql, params: [H_KEY] } : { sql: workload.query(q).federated },
    );
    expect(sorted(r.rows as (string | null)[][])).toEqual(expected.get(q));
  });

  it('prepares on the server and loads binary values', async () => {
    const p = await runPsycopg(admin, 'prepare', {
      sql: workload.query('H').federated.replace(/\$1\b/g, '%s'),
      paramSets: [[H_KEY]],
      repeat: 5,
    });
    expect(p.results.length).toBe(5);
    const b = await runPsycopg(admin, 'binary', {
      sql: 'SELECT r_regionkey, r_name FROM dbD.region WHERE r_regionkey = %s',
      params: [2],
    });
    expect(b.rows).toEqual([['2', 'ASIA                     ']]);
  });

  it('cancels a running query (57014) and keeps the session', async () => {
    const r = await runPsycopg(
      admin,
      'cancel',
      { sql: 'SELECT count(*) FROM dbA.lineitem a, dbA.lineitem b', afterMs: 500 },
      { timeoutMs: 30_000 },
    );
    expect(r.sqlstate).toBe('57014');
  });
});

describe('pgjdbc', () => {
  it('runs JDV A–H with the rows REST gives', async () => {
    for (const q of workload.queries) {
      const sql = workload.query(q.id).federated.replace(/\$1\b/g, String(H_KEY));
      const r = await runJdbc(admin, 'query', [sql]);
      expect(sorted(r.rows!), q.id).toEqual(expected.get(q.id));
    }
  }, 120_000);

  it('reads DatabaseMetaData', async () => {
    const r = await runJdbc(admin, 'metadata', ['dbD', 'region']);
    expect(r.schemas.map((s) => s.TABLE_SCHEM)).toEqual(expect.arrayContaining(['dbA', 'dbB', 'dbC', 'dbD']));
    expect(r.tables.map((t) => t.TABLE_NAME)).toEqual(['customer', 'nation', 'region']);
    expect(r.columns.map((c) => [c.COLUMN_NAME, c.TYPE_NAME, c.NULLABLE])).toEqual([
      ['r_regionkey', 'int4', '0'],
      ['r_name', 'bpchar', '0'],
      ['r_comment', 'varchar', '1'],
    ]);
    expect(r.primaryKeys.map((k) => k.COLUMN_NAME)).toEqual(['r_regionkey']);
  }, 60_000);

  it('runs a PreparedStatement loop (server-prepared) with the rows REST gives', async () => {
    const r = await runJdbc(admin, 'prepared', [
      workload.query('H').federated.replace(/\$1\b/g, '?'),
      '8',
      `long:${H_KEY}`,
    ]);
    expect(r.serverPrepared).toBe(true);
    for (const rows of r.results) expect(sorted(rows as (string | null)[][])).toEqual(expected.get('H'));
  }, 60_000);

  it('cancels and times out statements', async () => {
    const slow = 'SELECT count(*) FROM dbA.lineitem a, dbA.lineitem b';
    const c = await runJdbc(admin, 'cancel', [slow, '500'], { timeoutMs: 60_000 });
    expect([c.sqlState, c.usableAfter]).toEqual(['57014', true]);
    const t = await runJdbc(admin, 'timeout', [slow, '1'], { timeoutMs: 60_000 });
    expect([t.sqlState, t.usableAfter]).toEqual(['57014', true]);
  }, 120_000);
});

describe('node-postgres', () => {
  it('runs H prepared with the rows REST gives', async () => {
    const r = await nodePgPrepared(admin, workload.query('H').federated, [H_KEY], 5);
    for (const rows of r.results) expect(sorted(rows as (string | null)[][])).toEqual(expected.get('H'));
  });

  it('streams a million-row result through a cursor with the server in bounded memory', async () => {
    const sql = 'SELECT l_orderkey, l_comment FROM dbA.lineitem, dbD.nation WHERE n_nationkey < 17';
    const lineitems = Number(
      (
        (
          await h.as('admin', {
            method: 'POST',
            url: '/api/v1/query',
            payload: { sql: 'SELECT count(*) AS n FROM dbA.lineitem' },
          })
        ).json() as { rows: string[][] }
      ).rows[0]![0],
    );
    // the server runs in this process (the client in its own): its RSS is what is sampled here
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const r = await nodePgStream(admin, sql, { batchSize: 5000, timeoutMs: 120_000 });
      expect(r.count).toBe(lineitems * 17);
      expect(r.count).toBeGreaterThan(1_000_000);
    } finally {
      clearInterval(sampler);
    }
    console.log(`pg-wire 1M-row stream: server RSS +${((peak - before) / 2 ** 20).toFixed(0)} MiB`);
    // the rows are ~60 MB as text and several times that as JS values: held whole, RSS would pass this
    expect(peak - before).toBeLessThan(160 * 2 ** 20);
  }, 180_000);
});

describe('pgbench', () => {
  it('runs H prepared from 4 clients without a failure', async () => {
    const script = writePgbenchScript(
      `\\set k random(1, 1500)\n${workload.query('H').federated.replace(/\$1\b/g, ':k')};\n`,
      'jdv-h.sql',
    );
    const r = await runPgbench(admin, script, { clients: 4, transactions: 25, protocol: 'prepared' });
    expect([r.processed, r.failed, r.aborted]).toEqual([100, 0, 0]);
  }, 120_000);
});
