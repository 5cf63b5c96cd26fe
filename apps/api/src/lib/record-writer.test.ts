import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMetadata, type OpenedDb } from '../db/client.js';
import { createPgDatabase, startHarness } from '../../test/harness.js';
import { RecordWriter } from './record-writer.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const row = (i: number, userId = 'u1') => ({
  id: randomUUID(),
  userId,
  queryId: `q${i}`,
  sql: `SELECT ${i}`,
  params: null,
  status: 'ok',
  rows: 1,
  elapsedMs: 1,
  errorCode: null,
});

// the writer sends its own SQL: it must mean the same on both metadata databases
describe.each(['sqlite', 'postgresql'] as const)('RecordWriter on %s metadata', (provider) => {
  let meta: OpenedDb;
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  const warnings: string[] = [];
  const log = { warn: (_o: object, msg: string) => void warnings.push(msg) };
  beforeAll(async () => {
    if (provider === 'postgresql') pgdb = await createPgDatabase('records');
    meta = await openMetadata({ sqliteFile: path.join(dir, 'junction.db'), databaseUrl: pgdb?.url });
    expect(meta.provider).toBe(provider);
    await meta.db.user.create({ data: { id: 'u1', username: 'ann', passwordHash: 'h', role: 'analyst' } });
  });
  afterAll(async () => {
    await meta?.close();
    await pgdb?.drop();
  });

  it('keeps at most maxPending rows in memory: past it, add() waits for the database and nothing is dropped', async () => {
    const w = new RecordWriter(meta.db, log, { flushDelayMs: 3_600_000, batchSize: 1000, maxPending: 5 });
    let most = 0;
    for (let i = 0; i < 23; i++) {
      await w.history(row(i));
      most = Math.max(most, w.pending);
    }
    expect(most).toBeLessThanOrEqual(5);
    await w.close();
    expect(await meta.db.queryHistory.count({ where: { queryId: { startsWith: 'q' } } })).toBe(23);
  });

  it('one row the database refuses does not take the rest of its batch with it', async () => {
    const w = new RecordWriter(meta.db, log, { flushDelayMs: 3_600_000 });
    await w.history({ ...row(1), queryId: 'good-1' });
    await w.history({ ...row(2, 'no-such-user'), queryId: 'orphan' }); // a user deleted meanwhile
    await w.history({ ...row(3), queryId: 'good-2' });
    await w.audit({
      id: randomUUID(),
      actorId: null,
      actorName: null,
      action: 'x.test',
      target: null,
      details: null,
      ip: null,
    });
    await w.flush();
    const ids = (
      await meta.db.queryHistory.findMany({ where: { queryId: { in: ['good-1', 'orphan', 'good-2'] } } })
    ).map((h) => h.queryId);
    expect(ids.sort()).toEqual(['good-1', 'good-2']);
    expect(warnings).toEqual(['could not record a queryHistory row']);
    expect(await meta.db.auditLog.count({ where: { action: 'x.test' } })).toBe(1);
    await w.close();
  });

  it('keeps the time a row was added, not when it was written', async () => {
    const w = new RecordWriter(meta.db, log, { flushDelayMs: 3_600_000 });
    const at = new Date('2026-01-02T03:04:05.678Z');
    await w.history({ ...row(9), queryId: 'dated', createdAt: at });
    await w.close();
    expect((await meta.db.queryHistory.findFirstOrThrow({ where: { queryId: 'dated' } })).createdAt).toEqual(at);
  });

  it('every column reads back through Prisma exactly as written', async () => {
    const w = new RecordWriter(meta.db, log, { flushDelayMs: 3_600_000 });
    const at = new Date('2026-03-04T05:06:07.089Z');
    const history = {
      id: randomUUID(),
      userId: 'u1',
      queryId: 'exact',
      sql: "SELECT 'it''s' AS \"q\", $1 -- ünïcode ✓",
      params: '[1,"two",null]',
      status: 'error',
      rows: null,
      elapsedMs: 2_000_000_000,
      errorCode: 'query_timeout',
      createdAt: at,
    };
    const audit = {
      id: randomUUID(),
      actorId: 'u1',
      actorName: 'ann',
      action: 'x.exact',
      target: 'source:dbA',
      details: '{"a":1}',
      ip: '::1',
      createdAt: at,
    };
    await w.history(history);
    await w.audit(audit);
    await w.close();
    expect(await meta.db.queryHistory.findUniqueOrThrow({ where: { id: history.id } })).toEqual(history);
    expect(await meta.db.auditLog.findUniqueOrThrow({ where: { id: audit.id } })).toEqual(audit);
  });
});

describe('query history through the API', () => {
  it('is written after the reply, and is in the database after a clean stop', async () => {
    // an hour's delay: only close() can have written the row
    const h = await startHarness({ records: { flushDelayMs: 3_600_000 } });
    let closed = false;
    try {
      const res = await h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT 1 AS one' } });
      expect(res.statusCode).toBe(200);
      const queryId = res.json().queryId as string;
      // the reply is out and the row is not yet written: the request did not wait for it
      expect(await h.meta.db.queryHistory.count({ where: { queryId } })).toBe(0);
      // the history row, and the audit of the token's first use from this address
      expect(h.app.records.pending).toBe(2);
      await h.app.close();
      closed = true;
      const stored = await h.meta.db.queryHistory.findFirstOrThrow({ where: { queryId } });
      expect(stored).toMatchObject({
        userId: h.userIds.analyst,
        sql: 'SELECT 1 AS one',
        status: 'ok',
        rows: 1,
        errorCode: null,
      });
    } finally {
      if (closed) {
        await h.meta.close();
        rmSync(h.dir, { recursive: true, force: true });
      } else await h.close();
    }
  });

  it('GET /history sees rows still waiting in the writer', async () => {
    const h = await startHarness({ records: { flushDelayMs: 3_600_000 } });
    try {
      const res = await h.as('viewer', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT 1' } });
      expect(res.statusCode).toBe(403);
      await h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT 2 AS two' } });
      const history = (await h.as('analyst', { method: 'GET', url: '/api/v1/history' })).json();
      expect(history.map((x: { sql: string }) => x.sql)).toEqual(['SELECT 2 AS two']);
      // a clear removes waiting rows too: they do not come back after it
      await h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT 3 AS three' } });
      expect((await h.as('analyst', { method: 'DELETE', url: '/api/v1/history' })).statusCode).toBe(200);
      await h.app.records.flush();
      expect(await h.meta.db.queryHistory.count({ where: { userId: h.userIds.analyst } })).toBe(0);
    } finally {
      await h.close();
    }
  });
});
