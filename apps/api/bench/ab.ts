/**
 * node --import tsx apps/api/bench/ab.ts <checkout> [<checkout>…] [--query A] [--ndjson] [--rounds 10] [--per 200]
 *
 * The server's own CPU per request of two (or more) checkouts of Junction, e.g. `git worktree
 * add /tmp/before HEAD~1` beside this one: each checkout's server (its apps/api/src/main.ts, in
 * a child process) on the benchmark's four JDV sources, warmed with 1500 requests, then rounds of
 * `per` back-to-back requests sent to each in turn. CPU is read from /proc for the server process
 * alone (user + system), so a busy machine inflates both sides alike; a latency median is
 * printed too but says less on a shared machine. SF 1 databases as `npm run bench` loads them.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { jdvWorkload } from '@junction/tpch';
import { PLACEMENT, benchDatabase } from '../../../packages/query-core/bench/databases.js';
import { cpuMs } from './process-cpu.js';
import { restSource, startRestTarget, type RestTarget } from './rest-target.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    query: { type: 'string', default: 'A' },
    ndjson: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '10' },
    per: { type: 'string', default: '200' },
    sf: { type: 'string', default: '1' },
  },
});
if (positionals.length === 0) throw new Error('name at least one checkout (a directory holding apps/api/src/main.ts)');
const sources = ['dbA', 'dbB', 'dbC', 'dbD'].map((n) => restSource(n, PLACEMENT[n], benchDatabase(Number(args.sf), n)));

const workload = jdvWorkload(Number(args.sf));
const q = workload.query(args.query);
const [keyParam] = q.params;
const params = (): unknown[] => (keyParam ? [keyParam.min + Math.floor(Math.random() * 1000)] : []);
const rounds = Number(args.rounds);
const per = Number(args.per);

const targets: RestTarget[] = [];
try {
  for (const dir of positionals)
    targets.push(
      await startRestTarget({ sources, tokenConcurrency: 16, mainTs: path.resolve(dir, 'apps/api/src/main.ts') }),
    );
  const send = (t: RestTarget) => t.query(q.federated, params(), { ndjson: args.ndjson });
  for (const t of targets) for (let i = 0; i < 1500; i++) await send(t);
  const cpu = targets.map(() => 0);
  const latency = targets.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < targets.length; i++) {
      const before = cpuMs(targets[i].pid);
      for (let k = 0; k < per; k++) {
        const t0 = performance.now();
        await send(targets[i]);
        latency[i].push(performance.now() - t0);
      }
      cpu[i] += cpuMs(targets[i].pid) - before;
    }
  console.log(`JDV ${args.query}${args.ndjson ? ' (NDJSON)' : ''}: ${rounds} rounds × ${per} requests per checkout`);
  console.log('checkout | server CPU per request (ms) | ÷ first | client latency p50 (ms)');
  positionals.forEach((dir, i) => {
    const l = latency[i].sort((a, b) => a - b);
    const c = cpu[i] / (rounds * per);
    const first = cpu[0] / (rounds * per);
    console.log(`${dir} | ${c.toFixed(3)} | ${(c / first).toFixed(2)} | ${l[l.length >> 1].toFixed(2)}`);
  });
} finally {
  await Promise.allSettled(targets.map((t) => t.close()));
}
