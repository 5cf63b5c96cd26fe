import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../contract/connector.js';
import { t, type ColumnMeta } from '../contract/types.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import { createConnector } from '../create-connector.js';
import { startFaultProxy, type FaultProxy } from '../../test/support/fault-proxy.js';
import { collect, eventually, sourceFromUrl } from '../../test/support/sources.js';

// The network between Junction and PostgreSQL misbehaves (a relay injects the faults): what
// the connector says, and that its pool keeps working afterwards.

const url = process.env.TEST_PG_URL!;
const CONNECT_TIMEOUT_MS = 1000;
let proxy: FaultProxy;
let conn: Connector;

async function failure(p: Promise<unknown>): Promise<JunctionError> {
  try {
    await p;
  } catch (e) {
    if (!isJunctionError(e)) throw e;
    return e;
  }
  throw new Error('expected a failure');
}

const series = (n: number) => ({
  sql: `SELECT g FROM generate_series(1, ${n}) g`,
  params: [],
  columns: [{ name: 'g', type: t.int32, nullable: false }] as ColumnMeta[],
});

beforeAll(async () => {
  const cfg = sourceFromUrl(url, 'pgnet');
  proxy = await startFaultProxy(cfg.host!, cfg.port ?? 5432);
  conn = createConnector({
    ...cfg,
    host: '127.0.0.1',
    port: proxy.port,
    options: { pool: { max: 1 }, connectTimeoutMs: CONNECT_TIMEOUT_MS, cancelGraceMs: 500 },
  });
});
afterAll(async () => {
  proxy?.set({ kind: 'none' });
  await conn?.close();
  await proxy?.close();
});

describe('postgres connector, network faults', () => {
  it('a statement waiting for a busy pool is not failed by the connect timeout', async () => {
    // the only connection is busy for longer than the connect timeout: the second statement waits
    const slow = conn.execute('SELECT pg_sleep(1.5)::text AS slept');
    await new Promise((r) => setTimeout(r, 100));
    const waiting = conn.execute('SELECT 2 AS n');
    const [slept, waited] = await Promise.all([slow, waiting]);
    expect(slept.rows).toEqual([['']]);
    expect(waited.rows).toEqual([[2]]);
  });

  it('a reset mid-result says the connection broke; the pool replaces the connection', async () => {
    expect((await conn.execute('SELECT 1 AS n')).rows).toEqual([[1]]);
    proxy.set({ kind: 'reset', afterBytes: 64 * 1024 });
    let rows = 0;
    const err = await failure(
      (async () => {
        for await (const b of conn.stream(series(500_000), { batchSize: 1000 })) rows += b.rows.length;
      })(),
    );
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(500_000);
    expect([err.kind, err.code, err.details]).toEqual(['external', 'source_error', { source: 'pgnet', driverCode: 'ECONNRESET' }]);
    expect(err.message).toMatch(/^Source "pgnet" failed the query: the connection to its server broke \(read ECONNRESET\); /);
    proxy.set({ kind: 'none' });
    const again = await collect(conn.stream(series(3)));
    expect(again.rows).toEqual([[1], [2], [3]]);
    await eventually('only the pooled connection is left', () => proxy.connections() <= 1);
  });

  it('a statement stopped while it waits for the pool leaves no request behind to open a connection later', async () => {
    expect((await conn.execute('SELECT 1 AS n')).rows).toEqual([[1]]);
    proxy.set({ kind: 'blackhole' });
    const holding = failure(collect(conn.stream(series(3), { timeoutMs: 300 })));
    const waiting = failure(collect(conn.stream(series(3), { timeoutMs: 300 })));
    expect((await holding).code).toBe('source_statement_timeout');
    expect((await waiting).code).toBe('source_statement_timeout');
    // the only connection dies; a request still queued in the pool would now open a new one
    proxy.resetAll();
    await eventually('no connection left', () => proxy.connections() === 0);
    // the dead connection leaves the pool once its cancel grace (500 ms) is over; a request left
    // queued would then open a connection, held for the connect timeout
    let most = 0;
    for (const until = Date.now() + 500 + CONNECT_TIMEOUT_MS + 1000; Date.now() < until; ) {
      most = Math.max(most, proxy.connections());
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(most).toBe(0);
    proxy.set({ kind: 'none' });
    expect((await collect(conn.stream(series(2)))).rows).toEqual([[1], [2]]);
  });

  it('a blackholed path fails a new connection within the connect timeout, as unavailable', async () => {
    proxy.resetAll();
    await eventually('no connection left', () => proxy.connections() === 0);
    proxy.set({ kind: 'blackhole' });
    const t0 = performance.now();
    const err = await failure(collect(conn.stream(series(3), { timeoutMs: 10_000 })));
    const ms = performance.now() - t0;
    expect([err.kind, err.code, err.details?.diagnosis]).toEqual(['external', 'source_unavailable', 'timeout']);
    expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS + 3000);
    proxy.set({ kind: 'none' });
    expect((await collect(conn.stream(series(2)))).rows).toEqual([[1], [2]]);
  });
});
