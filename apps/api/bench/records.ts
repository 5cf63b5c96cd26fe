/**
 * node --import tsx apps/api/bench/records.ts [--database-url postgres://…]
 *
 * What writing query history costs the server's thread: CPU per row of Prisma's createMany
 * against the one INSERT … FROM a JSON array the RecordWriter sends, at the batch sizes the
 * writer sees (a few rows per 500 ms under light load, hundreds under heavy load). SQLite metadata unless
 * --database-url names a PostgreSQL database.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openMetadata } from '../src/db/client.js';
import { RecordWriter, type HistoryRow } from '../src/lib/record-writer.js';

const { values: args } = parseArgs({ options: { 'database-url': { type: 'string' } } });
const dir = mkdtempSync(path.join(os.tmpdir(), 'jbench-records-'));
const meta = await openMetadata({ sqliteFile: path.join(dir, 'junction.db'), databaseUrl: args['database-url'] });
const db = meta.db;
const userId = randomUUID();
await db.user.create({ data: { id: userId, username: `bench-${userId}`, role: 'admin', passwordHash: 'x' } });

const row = (): HistoryRow => ({
  id: randomUUID(),
  userId,
  queryId: randomUUID(),
  sql: 'SELECT * FROM dbB.customer WHERE c_custkey <= 100',
  params: null,
  status: 'ok',
  rows: 100,
  elapsedMs: 2,
  errorCode: null,
  createdAt: new Date(),
});

async function cpuPerRow(rowsTotal: number, batch: number, write: (rows: HistoryRow[]) => Promise<unknown>) {
  await write(Array.from({ length: batch }, row)); // warm-up (and a compiled plan, where one is kept)
  const c0 = process.cpuUsage();
  for (let i = 0; i < rowsTotal / batch; i++) await write(Array.from({ length: batch }, row));
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / rowsTotal;
}

const writer = new RecordWriter(db, { warn: () => undefined }, { flushDelayMs: 3_600_000, batchSize: 100_000 });
console.log(`CPU ms per history row (${meta.provider} metadata)`);
console.log('rows per write | Prisma createMany | RecordWriter (one INSERT) | ratio');
for (const batch of [1, 3, 30, 300]) {
  const total = Math.max(300, batch * 4);
  const prisma = await cpuPerRow(total, batch, (rows) => db.queryHistory.createMany({ data: rows }));
  const ours = await cpuPerRow(total, batch, async (rows) => {
    for (const r of rows) await writer.history(r);
    await writer.flush();
  });
  console.log(`${batch} | ${prisma.toFixed(3)} | ${ours.toFixed(3)} | ${(prisma / ours).toFixed(1)}×`);
}
await writer.close();
await db.user.delete({ where: { id: userId } });
await meta.close();
rmSync(dir, { recursive: true, force: true });
