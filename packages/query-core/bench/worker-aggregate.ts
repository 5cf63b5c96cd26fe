/**
 * node --import tsx packages/query-core/bench/worker-aggregate.ts [rows]
 *
 * In-thread hash aggregate against the worker path on the same input, for a few group
 * counts: where the worker path starts paying (WORKER_MIN_ROWS) and where too many groups
 * per chunk make it pointless (MAX_GROUPS_PER_ROW) come from here.
 */
import { t, type AggFn, type JType, type Row } from '@junction/connectors';
import { makeAccumulator } from '../src/expr/aggregates.js';
import { HashAggregateOp, type AggregateSpec } from '../src/exec/hash-aggregate/index.js';
import { makeKeyFn } from '../src/exec/hash-key.js';
import { InputOp, benchContext } from './support.js';
import { WorkerPool } from '../src/exec/workers/pool.js';

// columns: group key (int64), decimal(12,2) amount, float64 price, int32 quantity, text region, char(1) flag
const TYPES: JType[] = [t.int64, t.decimal(12, 2), t.float64, t.int32, t.string, t.char(1)];
const REGIONS = ['NORTH', 'SOUTH', 'EAST', 'WEST', 'CENTRAL'];
const FLAGS = ['A', 'N', 'R'];

function rows(n: number, groups: number): Row[][] {
  const out: Row[][] = [];
  let batch: Row[] = [];
  for (let i = 0; i < n; i++) {
    const g = (i * 7919) % groups;
    batch.push([BigInt(g), `${i % 100000}.${String(i % 100).padStart(2, '0')}`, (i % 1000) * 0.25, i % 50, `${REGIONS[g % 5]}-${Math.floor(g / 15)}`, FLAGS[g % 3]]);
    if (batch.length === 1024) {
      out.push(batch);
      batch = [];
    }
  }
  if (batch.length) out.push(batch);
  return out;
}

function agg(fn: AggFn, arg?: number): AggregateSpec {
  const argType = arg === undefined ? undefined : TYPES[arg];
  const acc = makeAccumulator(fn, argType);
  return {
    create() {
      let s = acc.init();
      return {
        add: (row: Row) => void (s = acc.add(s, arg === undefined ? null : row[arg])),
        result: () => acc.finish(s),
      };
    },
    mergeable: { fn, argType, distinct: false, acc, args: arg === undefined ? [] : [arg] },
  };
}

// a TPC-H Q1-like aggregate list (float sums stay in-thread: their result depends on the merge order)
const AGGS = [agg('count_star'), agg('sum', 1), agg('avg', 1), agg('min', 2), agg('max', 2), agg('sum', 3), agg('max', 1)];
const pool = new WorkerPool();
const ctx = benchContext;

async function time(input: Row[][], keys: number[], workers: boolean): Promise<{ ms: number; rows: number; chunks: number; fellBack: string | false }> {
  const types = keys.map((k) => TYPES[k]);
  const op = new HashAggregateOp(new InputOp(input), keys, makeKeyFn(keys, types, true), AGGS, '', undefined, undefined, types);
  const t0 = performance.now();
  let n = 0;
  for await (const b of op.execute(ctx(workers ? pool : undefined))) n += b.length;
  return { ms: performance.now() - t0, rows: n, chunks: op.report.chunks, fellBack: op.report.fellBack };
}

// measure warm threads: a cold pool keeps the aggregate in-thread while its threads start
while (!pool.ready()) await new Promise((r) => setTimeout(r, 50));
const total = Number(process.argv[2] ?? 1_000_000);
const repeats = 3;
process.stdout.write(
  `threads: ${pool.size}, ${repeats} runs each (min … max ms)\ninput rows | groups | key | in-thread ms | workers ms | chunks (fell back) | in-thread / workers (best)\n`,
);
for (const [n, groups, keys] of [
  [131_072, 10, [0]],
  [262_144, 10, [0]],
  [total, 10, [0]],
  [total, 10, [4, 5]],
  [total, 10_000, [0]],
  [total, 10_000, [4, 5]],
  [total, 500_000, [0]],
] as const) {
  const input = rows(n, groups);
  const k = [...keys];
  await time(input, k, false);
  await time(input, k, true);
  const a: number[] = [];
  const w: number[] = [];
  const chunks: string[] = [];
  for (let i = 0; i < repeats; i++) {
    const x = await time(input, k, false);
    const y = await time(input, k, true);
    if (x.rows !== y.rows) throw new Error(`group counts differ: ${x.rows} vs ${y.rows}`);
    a.push(x.ms);
    w.push(y.ms);
    chunks.push(`${y.chunks}${y.fellBack ? ` ${y.fellBack}` : ''}`);
  }
  const span = (v: number[]) => `${Math.min(...v).toFixed(0)} … ${Math.max(...v).toFixed(0)}`;
  const key = k.map((c) => (c === 0 ? 'int64' : c === 4 ? 'text' : 'char(1)')).join('+');
  process.stdout.write(`${n} | ${groups} | ${key} | ${span(a)} | ${span(w)} | ${chunks.join(', ')} | ${(Math.min(...a) / Math.min(...w)).toFixed(2)}\n`);
}
await pool.close();
