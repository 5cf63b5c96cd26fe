/**
 * Disk faults (issue 26): the spill directory and the data directory each on a small tmpfs that
 * a filler file fills while Junction spills a join, a sort and an aggregate, spills a cached
 * result, refreshes a materialized view and writes its metadata. The user gets `disk_full`
 * (507, `details.disk` naming the disk), nothing half-written survives, and the same request
 * works once the filler is gone.
 *
 * JUNCTION_FAULTS_SECONDS > 0 repeats every fill → observe → free cycle for that long and prints
 * one line per cycle; 0 (CI) runs each once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { openMetadata, type OpenedDb } from '../db/client.js';
import { sha256 } from '../lib/secrets.js';
import { defaultEngineFactory } from '../services/junction.js';
import { createPgDatabase, pgExec, pgSourcePayload } from '../../test/harness.js';
import { Tmpfs, tmpfsUnavailable } from '../../../../packages/query-core/test/support/tmpfs.js';

const FAULT_SECONDS = Number(process.env.JUNCTION_FAULTS_SECONDS ?? 0) || 0;
const TMPFS_BYTES = 8 * 1024 * 1024;
/** what a "full" disk still has: enough for a write to start and be cut short part-way */
const LEFT_BYTES = 64 * 1024;
const ROWS = 10_000;

const skipReason = tmpfsUnavailable();
if (skipReason) console.warn(`disk fault tests skipped: ${skipReason}`);

/** An app whose metadata and materialized view store are in `dataDir`, spilling into `spillDir`. */
async function startApp(opts: { dataDir: string; spillDir: string; memoryBudgetBytes?: number; cacheMemoryBytes?: number }) {
  const meta: OpenedDb = await openMetadata({ sqliteFile: path.join(opts.dataDir, 'junction.db') });
  const app: FastifyInstance = await buildApp({
    db: meta.db,
    secretKey: randomBytes(32),
    webDist: null,
    materializeFile: path.join(opts.dataDir, 'materialized.db'),
    limits: {
      ...(opts.memoryBudgetBytes ? { memoryBudgetBytes: opts.memoryBudgetBytes } : {}),
      ...(opts.cacheMemoryBytes ? { cacheMemoryBytes: opts.cacheMemoryBytes, cacheDiskBytes: 64 * 1024 * 1024 } : {}),
    },
    engineFactory: (o) => defaultEngineFactory({ ...o, spillDir: opts.spillDir }),
    // history rows are written off the request path; a short delay lets the tests reach them
    records: { flushDelayMs: 10 },
  });
  await app.ready();
  const id = randomUUID();
  await meta.db.user.create({ data: { id, username: 'admin', role: 'admin', passwordHash: 'x' } });
  const token = `jct_test_admin_${randomUUID()}`;
  await meta.db.apiToken.create({
    data: {
      id: randomUUID(),
      userId: id,
      name: 'test',
      tokenHash: sha256(token),
      prefix: token.slice(0, 10),
      scopes: JSON.stringify(['read', 'query', 'run', 'design', 'admin', 'tokens']),
    },
  });
  await app.materializer.ready();
  const call = (method: string, url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    app.inject({ method: method as 'GET', url, ...(payload !== undefined ? { payload: payload as object } : {}), headers: { authorization: `Bearer ${token}` } });
  return {
    app,
    meta,
    call,
    query: (sql: string) => call('POST', '/api/v1/query', { sql }),
    close: async () => {
      await app.close();
      await meta.close();
    },
  };
}
type App = Awaited<ReturnType<typeof startApp>>;

/**
 * One fill → observe → free cycle, repeated for JUNCTION_FAULTS_SECONDS in long mode. `recover`
 * runs after the filler is gone; recovery_ms is how long until it passed (printed, not asserted).
 */
async function cycles(name: string, disk: Tmpfs, observe: () => Promise<LightMyRequestResponse>, recover: () => Promise<void>, left = LEFT_BYTES): Promise<void> {
  const until = Date.now() + FAULT_SECONDS * 1000;
  do {
    disk.fill(left);
    let saw: LightMyRequestResponse;
    try {
      saw = await observe();
    } finally {
      disk.free();
    }
    const t0 = performance.now();
    await recover();
    const recoveryMs = Math.round(performance.now() - t0);
    if (FAULT_SECONDS > 0) {
      const code = saw.statusCode === 200 ? 'ok' : (saw.json() as { code?: string }).code;
      console.log(`fault=${name} user saw=${saw.statusCode}/${code} recovery_ms=${recoveryMs}`);
    }
  } while (Date.now() < until);
}

const expectDiskFull = (res: LightMyRequestResponse, disk: string, details: Record<string, unknown> = {}) => {
  expect(res.statusCode, res.body).toBe(507);
  expect(res.json()).toMatchObject({ code: 'disk_full', kind: 'resources', details: { disk, ...details } });
};

const timeout = FAULT_SECONDS * 1000 * 2 + 120_000;

describe.skipIf(skipReason !== undefined)('disk faults: the spill directory on a full tmpfs', () => {
  const spill = new Tmpfs(TMPFS_BYTES);
  let data: string;
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
  let j: App;

  beforeAll(async () => {
    spill.mount();
    data = mkdtempSync(path.join(os.tmpdir(), 'jt-disk-data-'));
    pgdb = await createPgDatabase('api_disk_spill');
    await pgExec(
      pgdb.url,
      `CREATE TABLE public.big (id int PRIMARY KEY, s text NOT NULL, pad text NOT NULL);
       INSERT INTO public.big SELECT i, 'k' || lpad(i::text, 6, '0'), repeat('p', 60) FROM generate_series(1, ${ROWS}) i;`,
    );
    // a 16 KiB budget makes every join, sort and aggregate below spill; a 64 KiB result cache keeps
    // at most 16 KiB of one result in memory, so a larger one goes to a cache file
    j = await startApp({ dataDir: data, spillDir: spill.dir, memoryBudgetBytes: 16 * 1024, cacheMemoryBytes: 64 * 1024 });
    // two sources on one database: a join between them runs in Junction, not in PostgreSQL
    for (const name of ['l', 'r']) expect((await j.call('POST', '/api/v1/sources', pgSourcePayload(name, pgdb))).statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await j?.close();
    await pgdb?.drop();
    spill.close();
    if (data) rmSync(data, { recursive: true, force: true });
  });

  const spillFiles = () => readdirSync(spill.dir).filter((f) => f.startsWith('junction-spill-'));

  const SPILLING: [string, string, () => unknown[][]][] = [
    ['join', 'SELECT count(*) AS n, sum(b.id) AS total FROM l.big a JOIN r.big b ON a.s = b.s', () => [[String(ROWS), String((ROWS * (ROWS + 1)) / 2)]]],
    [
      'sort',
      'SELECT a.id FROM l.big a JOIN r.big b ON a.id = b.id ORDER BY a.s DESC',
      () => Array.from({ length: ROWS }, (_, i) => [ROWS - i]),
    ],
    [
      'aggregate',
      'SELECT count(*) AS groups, sum(n) AS n FROM (SELECT a.s, count(*) AS n FROM l.big a JOIN r.big b ON a.id = b.id GROUP BY a.s) t',
      () => [[String(ROWS), String(ROWS)]],
    ],
  ];

  it.each(SPILLING)(
    'a spilling %s fails with disk_full, leaves no spill file, and answers exactly once space returns',
    async (name, sql, expected) => {
      await cycles(
        `spill_${name}`,
        spill,
        async () => {
          const res = await j.query(sql);
          expectDiskFull(res, 'spill');
          expect(spillFiles()).toEqual([]);
          return res;
        },
        async () => {
          const res = await j.query(sql);
          expect(res.statusCode, res.body).toBe(200);
          expect(res.json().stats.spilledBytes).toBeGreaterThan(LEFT_BYTES);
          expect(res.json().rows).toEqual(expected());
          expect(spillFiles()).toEqual([]);
        },
      );
    },
    timeout,
  );

  it(
    'a cached result that cannot spill to its file is answered but not stored; once space returns it is stored and replayed exactly',
    async () => {
      const sql = `/*+ cache(ttl=300) */ SELECT id, s FROM l.big ORDER BY id`;
      const expected = Array.from({ length: ROWS }, (_, i) => [i + 1, `k${String(i + 1).padStart(6, '0')}`]);
      const cacheFiles = () =>
        readdirSync(spill.dir, { recursive: true, encoding: 'utf8' }).filter((f) => /junction-cache-[^/]*\.bin$/.test(f));
      const results = async () => (await j.call('GET', '/api/v1/cache')).json().results;
      await cycles(
        'cache_spill',
        spill,
        async () => {
          const before = (await results()).stats.rejections;
          const res = await j.query(sql);
          expect(res.statusCode, res.body).toBe(200);
          expect(res.json().stats.cache).toBe('miss');
          expect(res.json().rows).toEqual(expected);
          const after = await results();
          expect(after.entries).toEqual([]);
          expect(after.stats.rejections).toBe(before + 1);
          expect(cacheFiles()).toEqual([]);
          // nothing half-written was kept to be replayed
          const again = await j.query(sql);
          expect(again.json().stats.cache).toBe('miss');
          expect(again.json().rows).toEqual(expected);
          return res;
        },
        async () => {
          const miss = await j.query(sql);
          expect(miss.json().stats.cache).toBe('miss');
          const stored = await results();
          expect(stored.entries).toHaveLength(1);
          expect(stored.entries[0]).toMatchObject({ rows: ROWS, where: 'disk' });
          const hit = await j.query(sql);
          expect(hit.statusCode).toBe(200);
          expect(hit.json().stats.cache).toBe('hit');
          expect(hit.json().rows).toEqual(expected);
          // before the next fill: purging after it would hand the entry's file back as free space
          await j.call('POST', '/api/v1/cache/purge', {});
        },
      );
    },
    timeout,
  );
});

describe.skipIf(skipReason !== undefined)('disk faults: the data directory on a full tmpfs', () => {
  const disk = new Tmpfs(TMPFS_BYTES);
  let spillDir: string;
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
  let j: App;

  beforeAll(async () => {
    disk.mount();
    spillDir = mkdtempSync(path.join(os.tmpdir(), 'jt-disk-spill-'));
    pgdb = await createPgDatabase('api_disk_data');
    await pgExec(
      pgdb.url,
      `CREATE TABLE public.gen (id int PRIMARY KEY, g int NOT NULL, pad text NOT NULL);
       INSERT INTO public.gen SELECT i, 1, repeat('m', 100) FROM generate_series(1, ${ROWS}) i;`,
    );
    j = await startApp({ dataDir: disk.dir, spillDir });
    expect((await j.call('POST', '/api/v1/sources', pgSourcePayload('src', pgdb))).statusCode).toBe(201);
    expect((await j.call('POST', '/api/v1/schemas', { name: 'rep' })).statusCode).toBe(201);
    expect((await j.call('POST', '/api/v1/views', { schema: 'rep', name: 'gen_v', sql: 'SELECT id, g, pad FROM src.gen' })).statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await j?.close();
    await pgdb?.drop();
    disk.close();
    if (spillDir) rmSync(spillDir, { recursive: true, force: true });
  });

  const integrity = (file: string): unknown => {
    const db = new Database(path.join(disk.dir, file), { readonly: true, fileMustExist: true });
    try {
      return db.pragma('integrity_check', { simple: true });
    } finally {
      db.close();
    }
  };

  it(
    'a materialized view refresh on a full store fails with disk_full; the previous rows are still served, and the next refresh after space returns swaps in the new ones',
    async () => {
      const PER_GEN = 'SELECT g, count(*) AS n FROM rep.gen_v GROUP BY g';
      const refresh = () => j.call('POST', '/api/v1/materializations/rep/gen_v/refresh');
      expect((await j.call('PUT', '/api/v1/materializations/rep/gen_v', { intervalSeconds: null, maxStalenessSeconds: 3600 })).statusCode).toBe(200);
      const first = await refresh();
      expect(first.json(), first.body).toMatchObject({ status: 'ok', rows: ROWS });
      let g = 1;
      await cycles(
        'materialized_refresh',
        disk,
        async () => {
          await pgExec(pgdb.url, `UPDATE public.gen SET g = ${g + 1}`);
          const res = await refresh();
          expectDiskFull(res, 'materialized_store', { view: 'rep.gen_v' });
          // the source moved on; the view still answers from the rows of the last good refresh
          expect((await j.query(PER_GEN)).json().rows).toEqual([[g, String(ROWS)]]);
          const status = (await j.call('GET', '/api/v1/materializations')).json()[0];
          expect(status).toMatchObject({ view: 'rep.gen_v', rows: ROWS, refreshing: false });
          return res;
        },
        async () => {
          expect(integrity('materialized.db')).toBe('ok');
          const res = await refresh();
          expect(res.statusCode, res.body).toBe(200);
          // the WAL gives back what the refresh wrote through it, for the metadata database too.
          // Only the first cycle: in long mode the replaced tables kept for a minute (queries
          // planned on them may still run) fill this small disk after a few cycles, and the WAL
          // then cannot be folded back
          if (g === 1) expect(statSync(path.join(disk.dir, 'materialized.db-wal')).size).toBe(0);
          expect(res.json()).toMatchObject({ status: 'ok', rows: ROWS, errorCode: null });
          g++;
          expect((await j.query(PER_GEN)).json().rows).toEqual([[g, String(ROWS)]]);
        },
        // a refresh writes several MiB, far more than this
        256 * 1024,
      );
    },
    timeout,
  );
});

describe.skipIf(skipReason !== undefined)('disk faults: the metadata database on a full tmpfs', () => {
  // a disk of its own: long mode's materializations must not be what fills it
  const disk = new Tmpfs(TMPFS_BYTES);
  let spillDir: string;
  let j: App;

  beforeAll(async () => {
    disk.mount();
    spillDir = mkdtempSync(path.join(os.tmpdir(), 'jt-disk-spill-'));
    j = await startApp({ dataDir: disk.dir, spillDir });
  }, 60_000);
  afterAll(async () => {
    await j?.close();
    disk.close();
    if (spillDir) rmSync(spillDir, { recursive: true, force: true });
  });

  const integrity = (file: string): unknown => {
    const db = new Database(path.join(disk.dir, file), { readonly: true, fileMustExist: true });
    try {
      return db.pragma('integrity_check', { simple: true });
    } finally {
      db.close();
    }
  };

  it(
    'a metadata write on a full disk is a disk_full error; the database stays intact, reads go on, and writes work once space returns',
    async () => {
      const names = async () => ((await j.call('GET', '/api/v1/saved-queries')).json() as { name: string }[]).map((q) => q.name).sort();
      const save = (name: string) =>
        // far larger than what the disk has left
        j.call('POST', '/api/v1/saved-queries', { name, sql: `SELECT 1 /* ${'x'.repeat(200_000)} */` });
      /**
       * SQLite keeps its WAL file at its largest size and later writes reuse it, so after a few
       * cycles a "full" disk would still take a write that fits there. Truncating it after each
       * cycle (as a checkpoint an operator runs) keeps every cycle's fault the same.
       */
      const truncateWal = () => {
        const db = new Database(path.join(disk.dir, 'junction.db'), { fileMustExist: true });
        try {
          db.pragma('wal_checkpoint(TRUNCATE)');
        } finally {
          db.close();
        }
      };
      const saved: string[] = [];
      let n = 0;
      await cycles(
        'metadata_write',
        disk,
        async () => {
          const res = await save(`refused-${n}`);
          expectDiskFull(res, 'metadata');
          expect(integrity('junction.db')).toBe('ok');
          // reads, and queries (whose history rows cannot be written now), are still served
          expect(await names()).toEqual(saved);
          const q = await j.query('SELECT 41 + 1 AS answer');
          expect(q.statusCode, q.body).toBe(200);
          expect(q.json().rows).toEqual([[42]]);
          return res;
        },
        async () => {
          const name = `kept-${n++}`;
          const res = await save(name);
          expect(res.statusCode, res.body).toBe(201);
          saved.push(name);
          saved.sort();
          expect(await names()).toEqual(saved);
          expect(integrity('junction.db')).toBe('ok');
          // long mode must not fill the disk with what it saved
          expect((await j.call('DELETE', `/api/v1/saved-queries/${res.json().id}`)).statusCode).toBe(200);
          saved.splice(saved.indexOf(name), 1);
          truncateWal();
        },
        16 * 1024,
      );
    },
    timeout,
  );
});
