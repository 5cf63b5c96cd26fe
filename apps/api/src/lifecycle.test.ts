import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { openMetadata } from './db/client.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-api-life-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('shutdown', () => {
  it('answers a request that arrives while the server closes with 503 {code, kind, message} and Retry-After', async () => {
    const meta = await openMetadata({ sqliteFile: path.join(dir, 'shutdown.db') });
    const app = await buildApp({ db: meta.db, secretKey: randomBytes(32), webDist: null });
    // hold the close between "closing" and "stop listening", where a request can still arrive
    let entered!: () => void;
    const closingStarted = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    app.addHook('preClose', async () => {
      entered();
      await held;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const before = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
    expect(before.status).toBe(200);
    const closed = app.close();
    try {
      await closingStarted;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('connection')).toBe('close');
      expect(await res.json()).toEqual({
        code: 'shutting_down',
        kind: 'resources',
        message: 'The server is shutting down; try again shortly.',
        details: { retryAfterSeconds: 5 },
      });
    } finally {
      release();
      await closed;
      await meta.close();
    }
  });
});

describe('the metadata file', () => {
  it('is created owner-only (0600): it holds password hashes and encrypted credentials', async () => {
    const file = path.join(dir, 'fresh.db');
    const meta = await openMetadata({ sqliteFile: file });
    try {
      await meta.db.user.create({ data: { id: 'u', username: 'u', passwordHash: 'h', role: 'viewer' } });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // the write-ahead log holds the same data
      expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      await meta.close();
    }
  });

  it('is tightened to 0600 when an earlier start left it readable to others', async () => {
    const file = path.join(dir, 'old.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const meta = await openMetadata({ sqliteFile: file });
    await meta.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
