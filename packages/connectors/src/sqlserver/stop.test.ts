import { Request } from 'tedious';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connector, SourceHealth } from '../contract/connector.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import type { Batch } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { startFakeTds, type FakeReply, type FakeTds } from '../../test/support/fake-tds.js';
import { eventually } from '../../test/support/sources.js';

// No SQL Server runs here, so these tests put a fake TDS server (test/support/fake-tds.ts)
// under tedious: the connector's own stop, grace and backpressure paths run unchanged.

const GRACE = 300;
let fake: FakeTds;
let conn: Connector;
let health: SourceHealth[];
const replies: Record<string, FakeReply> = {};

beforeEach(async () => {
  fake = await startFakeTds((sql) => replies[sql] ?? { rows: 1 });
  health = [];
  conn = createConnector({
    name: 'msfake',
    engine: 'sqlserver',
    host: '127.0.0.1',
    port: fake.port,
    database: 'junction',
    user: 'sa',
    password: 'S3cret-mssql!',
    // one connection: a second statement shows whether the first one's connection came back
    options: { pool: { max: 1 }, cancelGraceMs: GRACE, connectTimeoutMs: 3000 },
  });
  conn.onHealth = (h) => health.push(h);
});

afterEach(async () => {
  await conn.close();
  await fake.close();
});

function stmt(sql: string) {
  return { sql, params: [], columns: [] };
}

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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

describe('sql server connector against a fake TDS server', () => {
  it('an abort mid-result ends the stream at once; the attention, acknowledged within the grace, gives the connection back', async () => {
    // the server takes half the grace to stop: the caller must not wait for that
    replies['SELECT slow'] = { rows: 10_000, rowsPerPacket: 10, paceMs: 200, attention: 'ack', ackDelayMs: GRACE / 2 };
    const ac = new AbortController();
    const it = conn.stream(stmt('SELECT slow'), { signal: ac.signal, batchSize: 10 })[Symbol.asyncIterator]();
    const first = await it.next();
    expect((first.value as Batch).rows[0]).toEqual([1, 'row 1 xxxxxxxxxxxxxx']);
    // the next packet is ~200 ms away: the consumer is waiting inside next() when the abort comes
    const pending = failure(it.next());
    await sleep(20);
    const abortedAt = performance.now();
    ac.abort();
    const stopped = await pending;
    expect(stopped.err).toMatchObject({ code: 'source_statement_cancelled', kind: 'cancelled' });
    expect(performance.now() - abortedAt).toBeLessThan(GRACE / 2 - 50);

    expect((await conn.execute('SELECT 1')).rows).toEqual([[1, 'row 1 xxxxxxxxxxxxxx']]);
    expect(fake.stats).toMatchObject({ accepted: 1, closed: 0, attentions: 1 });
    expect(fake.stats.rowsWritten).toBeLessThan(100);
    expect(health.every((h) => h.status === 'ok')).toBe(true);
  });

  it('a server that ignores the attention: the caller is released at once, the connection is closed after the grace and the next statement gets a fresh one', async () => {
    replies['SELECT hang'] = { rows: 0, then: 'hang', attention: 'ignore' };
    const ac = new AbortController();
    const running = failure(
      (async () => {
        for await (const b of conn.stream(stmt('SELECT hang'), { signal: ac.signal })) void b;
      })(),
    );
    await eventually('the statement reached the server', () => fake.stats.statements.includes('SELECT hang'));
    await sleep(50);
    const abortedAt = performance.now();
    ac.abort();
    const stopped = await running;
    expect(stopped.err).toMatchObject({ code: 'source_statement_cancelled', kind: 'cancelled' });
    expect(performance.now() - abortedAt).toBeLessThan(GRACE);

    await eventually('the fake server saw its socket close', () => fake.stats.closed === 1, GRACE + 2000);
    const closedAfter = performance.now() - abortedAt;
    expect(closedAfter).toBeGreaterThanOrEqual(GRACE - 20);
    expect(closedAfter).toBeLessThan(GRACE + 700);
    expect(fake.stats.attentions).toBe(1);
    expect(health.at(-1)).toMatchObject({
      status: 'degraded',
      reason: expect.stringMatching(new RegExp(`did not answer a cancel within ${GRACE} ms`)),
    });

    expect((await conn.execute('SELECT 1')).rows).toEqual([[1, 'row 1 xxxxxxxxxxxxxx']]);
    expect(fake.stats.accepted).toBe(2);
    expect(health.at(-1)).toEqual({ status: 'ok' });
  });

  it('a consumer that stops reading early returns at once, whatever the server does with the attention', async () => {
    replies['SELECT hang'] = { rows: 30, rowsPerPacket: 10, then: 'hang', attention: 'ignore' };
    const t0 = performance.now();
    for await (const b of conn.stream(stmt('SELECT hang'), { batchSize: 10 })) {
      expect(b.rows).toHaveLength(10);
      break;
    }
    expect(performance.now() - t0).toBeLessThan(GRACE);
    await eventually('the connection was closed after the grace', () => fake.stats.closed === 1, GRACE + 2000);
    expect((await conn.execute('SELECT 1')).rows).toHaveLength(1);
    expect(fake.stats.accepted).toBe(2);
  });

  it('timeoutMs ends a stream and an execute with source_statement_timeout', async () => {
    replies['SELECT acked'] = { rows: 0, then: 'hang', attention: 'ack' };
    replies['SELECT deaf'] = { rows: 0, then: 'hang', attention: 'ignore' };

    const s = await failure(
      (async () => {
        for await (const b of conn.stream(stmt('SELECT acked'), { timeoutMs: 200 })) void b;
      })(),
    );
    expect(s.err).toMatchObject({ code: 'source_statement_timeout', kind: 'timeout', details: { timeoutMs: 200 } });
    expect(s.ms).toBeGreaterThanOrEqual(190);
    expect(s.ms).toBeLessThan(200 + 300);
    // acknowledged: the same connection runs the next statement
    expect((await conn.execute('SELECT 1')).rows).toHaveLength(1);
    expect(fake.stats).toMatchObject({ accepted: 1, closed: 0, attentions: 1 });

    const e = await failure(conn.execute('SELECT deaf', [], { timeoutMs: 200 }));
    expect(e.err).toMatchObject({ code: 'source_statement_timeout', kind: 'timeout' });
    expect(e.ms).toBeLessThan(200 + 300);
    await eventually('the unanswered connection was closed', () => fake.stats.closed === 1, GRACE + 2000);
    expect((await conn.execute('SELECT 1')).rows).toHaveLength(1);
    expect(fake.stats.accepted).toBe(2);
  });

  it('an abort during execute() rejects at once and the connection, acknowledged within the grace, is reused', async () => {
    replies['SELECT acked'] = { rows: 3, then: 'hang', attention: 'ack', ackDelayMs: GRACE / 2 };
    const ac = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      ac.abort();
    }, 100);
    const e = await failure(conn.execute('SELECT acked', [], { signal: ac.signal }));
    expect(e.err).toMatchObject({ code: 'source_statement_cancelled', kind: 'cancelled' });
    expect(performance.now() - abortedAt).toBeLessThan(GRACE / 2 - 50);
    expect((await conn.execute('SELECT 1')).rows).toHaveLength(1);
    expect(fake.stats).toMatchObject({ accepted: 1, closed: 0, attentions: 1 });
  });

  it('a slow consumer holds a bounded number of rows: tedious is paused and the server meets a full socket', async () => {
    const total = 1_000_000;
    replies['SELECT big'] = { rows: total, width: 100, rowsPerPacket: 16, attention: 'ack' };
    let seen = 0;
    // every row tedious parses is a 'row' event on its Request: what reached the connector
    const original = Request.prototype.emit;
    const emit = vi.spyOn(Request.prototype, 'emit').mockImplementation(function (
      this: Request,
      event: string | symbol,
      ...args: unknown[]
    ): boolean {
      if (event === 'row') seen++;
      return Reflect.apply(original, this, [event, ...args]) as boolean;
    });
    try {
      const batch = 100;
      const it = conn.stream(stmt('SELECT big'), { batchSize: batch })[Symbol.asyncIterator]();
      expect(((await it.next()).value as Batch).rows[0]?.[0]).toBe(1);
      // the consumer sleeps; whatever the connector would buffer arrives meanwhile
      await eventually('the server met a full socket', () => fake.stats.stalls > 0, 5000);
      await sleep(300);
      const held = seen;
      await sleep(300);
      expect(seen).toBe(held);
      // the batch read, and two full ones waiting before the request was paused
      expect(held).toBeLessThanOrEqual(3 * batch + 32);
      expect(fake.stats.rowsWritten).toBeLessThan(total / 4);

      // reading resumes the request, in order
      let next = batch + 1;
      for (let i = 0; i < 50; i++) {
        const r = await it.next();
        for (const row of (r.value as Batch).rows) expect(row[0]).toBe(next++);
      }
      // quitting early cancels at once; whether the megabytes still in flight drain within the
      // grace (connection reused) or not (closed) depends on the machine, so only the next
      // statement's success is certain
      const t0 = performance.now();
      await it.return?.();
      expect(performance.now() - t0).toBeLessThan(GRACE);
      expect((await conn.execute('SELECT 1')).rows).toHaveLength(1);
      expect(fake.stats.attentions).toBe(1);
    } finally {
      emit.mockRestore();
    }
  });
});
