/**
 * node --import tsx packages/query-core/bench/worker-join.ts
 *
 * In-thread hash join against the worker-thread probe on the same inputs, for a few build
 * sizes: where the worker path starts paying (WORKER_MIN_BUILD_ROWS) comes from here.
 */
import { t, type Row } from '@junction/connectors';
import { HashJoinOp } from '../src/exec/hash-join/index.js';
import { WorkerPool } from '../src/exec/workers/pool.js';
import { makeKeyFn } from '../src/exec/hash-key.js';
import { InputOp, benchContext } from './support.js';

function rows(n: number, keyRange: number, seed: number): Row[][] {
  const out: Row[][] = [];
  let batch: Row[] = [];
  for (let i = 0; i < n; i++) {
    // a permutation of the key range: each build key once, probe keys spread evenly
    batch.push([(i * 7919 + seed) % keyRange, `v${i}`, i * 1.5]);
    if (batch.length === 1024) {
      out.push(batch);
      batch = [];
    }
  }
  if (batch.length) out.push(batch);
  return out;
}

const pool = new WorkerPool();
const ctx = benchContext;

async function time(build: Row[][], probe: Row[][], workers: boolean): Promise<{ ms: number; rows: number }> {
  const op = new HashJoinOp(
    new InputOp(probe),
    new InputOp(build),
    { type: 'inner', buildSide: 'right', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 3, rightWidth: 3 },
    '',
  );
  op.forceWorkers = workers;
  const t0 = performance.now();
  let n = 0;
  for await (const b of op.execute(ctx(workers ? pool : undefined))) n += b.length;
  return { ms: performance.now() - t0, rows: n };
}

process.stdout.write(`threads: ${pool.size}\nbuild rows | probe rows | in-thread ms | workers ms\n`);
for (const [b, p] of [
  [10_000, 200_000],
  [50_000, 500_000],
  [200_000, 1_000_000],
]) {
  const build = rows(b, b, 1);
  const probe = rows(p, b * 4, 2);
  await time(build, probe, false);
  await time(build, probe, true);
  const a = await time(build, probe, false);
  const w = await time(build, probe, true);
  if (a.rows !== w.rows) throw new Error(`row counts differ: ${a.rows} vs ${w.rows}`);
  process.stdout.write(`${b} | ${p} | ${a.ms.toFixed(0)} | ${w.ms.toFixed(0)}\n`);
}
await pool.close();
