import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, SourceHealth } from '../contract/connector.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import { createConnector } from '../create-connector.js';
import { startFreezeProxy, type FreezeProxy } from '../../test/support/freeze-proxy.js';
import { collect, eventually, sourceFromUrl } from '../../test/support/sources.js';

// A PostgreSQL that stops answering (seen through a relay that passes no byte while frozen):
// Junction's side must end timeouts and cancels at once and report the source degraded.

const url = process.env.TEST_PG_URL!;
let proxy: FreezeProxy;
let conn: Connector;
const health: SourceHealth[] = [];

async function failure(p: Promise<unknown>): Promise<{ err: JunctionError; ms: number }> {
  const t0 = performance.now();
  try {
    await p;
  } catch (e) {
    if (!isJunctionError(e)) throw e;
    return { err: e, ms: performance.now() - t0 };
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  const cfg = sourceFromUrl(url, 'pgfrozen');
  proxy = await startFreezeProxy(cfg.host!, cfg.port ?? 5432);
  conn = createConnector({
    ...cfg,
    host: '127.0.0.1',
    port: proxy.port,
    options: { pool: { max: 2 }, cancelGraceMs: 500, connectTimeoutMs: 3000 },
  });
  conn.onHealth = (h) => health.push(h);
});
afterAll(async () => {
  proxy?.thaw();
  await conn?.close();
  await proxy?.close();
});

describe('postgres connector, source frozen', () => {
  it('a timeout and a cancel end at once; the unanswered cancel destroys the connection and degrades the source; it recovers', async () => {
    expect((await conn.execute('SELECT 1')).rows).toEqual([[1]]);
    proxy.freeze();

    const timedOut = await failure(
      collect(conn.stream({ sql: 'SELECT 1', params: [], columns: [] }, { timeoutMs: 1000 })),
    );
    expect(timedOut.err.kind).toBe('timeout');
    expect(timedOut.ms).toBeLessThan(1500);

    const ac = new AbortController();
    const cancelling = failure(
      collect(conn.stream({ sql: 'SELECT 2', params: [], columns: [] }, { signal: ac.signal })),
    );
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    ac.abort();
    const cancelled = await cancelling;
    expect(cancelled.err.kind).toBe('cancelled');
    expect(performance.now() - t0).toBeLessThan(1000);

    await eventually('the source is degraded', () => health.at(-1)?.status === 'degraded', 5000);
    expect(health.at(-1)).toMatchObject({ reason: expect.stringMatching(/did not answer a cancel within 500 ms/) });

    proxy.thaw();
    await eventually(
      'the source answers again',
      async () => {
        try {
          const r = await collect(conn.stream({ sql: 'SELECT 3 AS n', params: [], columns: [] }, { timeoutMs: 3000 }));
          return r.rows[0]?.[0] === 3;
        } catch {
          return false;
        }
      },
      20_000,
    );
    expect(health.at(-1)).toEqual({ status: 'ok' });
  });
});
