/**
 * node --import tsx apps/api/bench/ab.ts <checkout> [<checkout>…] [--query A] [--ndjson] [--rounds 10] [--per 200]
 *   [--layout federated|single] [--cpu-prof DIR]
 *
 * The server's own CPU per request of two (or more) checkouts of Junction, e.g. `git worktree
 * add /tmp/before HEAD~1` beside this one: each checkout's server (its apps/api/src/main.ts, in
 * a child process) on the benchmark's four JDV sources (--layout single: use case 1, the
 * query's direct SQL over the one source holding all eight tables), warmed with 1500 requests, then rounds of
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
    layout: { type: 'string', default: 'federated' },
    // a V8 CPU profile of each server, written to this directory when it stops
    'cpu-prof': { type: 'string' },
  },
});
if (positionals.length === 0) throw new Error('name at least one checkout (a directory holding apps/api/src/main.ts)');
const single = args.layout === 'single';
const sources = (single ? ['direct'] : ['dbA', 'dbB', 'dbC', 'dbD']).map((n) =>
  restSource(n, PLACEMENT[n], benchDatabase(Number(args.sf), n)),
);

const workload = jdvWorkload(Number(args.sf));
const q = workload.query(args.query);
// use case 1 as npm run bench writes it: the direct SQL with each table qualified by the source
const sql = single
  ? q.direct.replace(/\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g, '$1 direct.$2')
  : q.federated;
const [keyParam] = q.params;
const params = (): unknown[] => (keyParam ? [keyParam.min + Math.floor(Math.random() * 1000)] : []);
const rounds = Number(args.rounds);
const per = Number(args.per);

const targets: RestTarget[] = [];
try {
  for (const dir of positionals)
    targets.push(
      await startRestTarget({
        sources,
        tokenConcurrency: 16,
        mainTs: path.resolve(dir, 'apps/api/src/main.ts'),
        ...(args['cpu-prof'] ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] } : {}),
      }),
    );
  const send = (t: RestTarget) => t.query(sql, params(), { ndjson: args.ndjson });
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
  console.log(`JDV ${args.query}${single ? ' (use case 1)' : ''}${args.ndjson ? ' (NDJSON)' : ''}: ${rounds} rounds × ${per} requests per checkout`);
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
