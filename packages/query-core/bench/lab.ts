/**
 * JUNCTION_TOKEN=jct_… npm run bench -- --preset jdv|oltp-mix|streams [--url http://127.0.0.1:8080]
 *   [--sources dbA=dbA,dbB=dbB,dbC=dbC,dbD=dbD] [--direct tpch] [--sf 0.01] [--short]
 *   [--repetitions N] [--warmups N] [--step-seconds S] [--duration S] [--max-users N] [--name …] [--json]
 *
 * Drives the studio's benchmark lab (apps/api/src/bench-lab) through its REST API: defines a
 * benchmark from a preset with the given overrides, starts a run in the server, prints its
 * progress, then a table per phase (p50/p95/p99/max per query and mode, the answer check) and
 * the users steps. The run is stored like one started from the studio. Ctrl-C cancels it.
 * The token comes from JUNCTION_TOKEN (--token still works, with a warning: npm prints the
 * command line it runs, and the shell keeps it); the URL from --url or JUNCTION_URL.
 */
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    preset: { type: 'string' },
    url: { type: 'string', default: process.env.JUNCTION_URL ?? 'http://127.0.0.1:8080' },
    token: { type: 'string' },
    sources: { type: 'string', default: 'dbA=dbA,dbB=dbB,dbC=dbC,dbD=dbD' },
    direct: { type: 'string' },
    sf: { type: 'string', default: '0.01' },
    short: { type: 'boolean', default: false },
    repetitions: { type: 'string' },
    warmups: { type: 'string' },
    'step-seconds': { type: 'string' },
    duration: { type: 'string' },
    'max-users': { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

if (!args.preset) throw new Error('--preset is required (jdv, oltp-mix or streams)');
if (args.token)
  process.stderr.write(
    'warning: a token given with --token may be echoed (npm prints the command line it runs) and kept in the shell history; set JUNCTION_TOKEN instead\n',
  );
const token = args.token ?? process.env.JUNCTION_TOKEN;
if (!token) throw new Error('JUNCTION_TOKEN is required: an API token with the query scope (see --help)');

const base = args.url!.replace(/\/+$/, '') + '/api/v1';
async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
const sources: Record<string, string> = Object.fromEntries(
  args
    .sources!.split(',')
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]),
);
if (args.direct) sources.direct = args.direct;
const overrides = Object.fromEntries(
  Object.entries({
    ...(args.short
      ? { warmups: 0, repetitions: 2, stepSeconds: 2, durationSeconds: 5, maxUsers: 4, warmPasses: 1 }
      : {}),
    ...(args.repetitions ? { repetitions: num(args.repetitions) } : {}),
    ...(args.warmups ? { warmups: num(args.warmups) } : {}),
    ...(args['step-seconds'] ? { stepSeconds: num(args['step-seconds']) } : {}),
    ...(args.duration ? { durationSeconds: num(args.duration) } : {}),
    ...(args['max-users'] ? { maxUsers: num(args['max-users']) } : {}),
  }),
);

type Stats = { p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number; executions: number; errors: number };
type Entry = { query: string; phase: string; phaseIndex: number; equivalent: boolean | null } & Record<
  'direct' | 'pushdown' | 'federated',
  Stats | null
>;
interface Run {
  status: string;
  progress: { phase: string | null; step: string | null; executions: number; errors: number; elapsedMs: number } | null;
  results: {
    queries?: Entry[];
    steps?: { phase: string; query: string; mode: string; users: number; throughput: number; stats: Stats }[];
    streams?: { phase: string; mode: string; users: number; geomeanMs: number }[];
    coldWarm?: { query: string; coldMs: number | null; warmMs: (number | null)[]; secondUserWarmMs: number | null }[];
    summary?: { executions: number; errors: number; mismatches: string[] };
    warnings?: string[];
  };
}

const { id } = await call<{ id: string }>('POST', '/benchmarks', {
  name: args.name ?? `${args.preset} from the CLI`,
  preset: args.preset,
  sources,
  settings: { sf: Number(args.sf) },
  ...(Object.keys(overrides).length ? { overrides } : {}),
});
const { runId } = await call<{ runId: string }>('POST', `/benchmarks/${id}/runs`, {});
process.stderr.write(`run ${runId} started\n`);
let cancelling = false;
process.on('SIGINT', () => {
  if (cancelling) process.exit(130);
  cancelling = true;
  process.stderr.write('\ncancelling…\n');
  void call('DELETE', `/benchmark-runs/${runId}`).catch(() => undefined);
});

let run: Run;
for (;;) {
  run = await call<Run>('GET', `/benchmark-runs/${runId}`);
  const p = run.progress;
  if (p && process.stderr.isTTY)
    process.stderr.write(
      `\r${Math.round(p.elapsedMs / 1000)} s · ${p.phase ?? ''}${p.step ? ` · ${p.step}` : ''} · ${p.executions} executions · ${p.errors} errors\x1b[K`,
    );
  if (!['queued', 'running'].includes(run.status)) break;
  await new Promise((r) => setTimeout(r, 1000));
}
if (process.stderr.isTTY) process.stderr.write('\n');

if (args.json) {
  process.stdout.write(JSON.stringify(run, null, 2) + '\n');
} else {
  const out = (s: string) => process.stdout.write(s + '\n');
  for (const w of run.results.warnings ?? []) out(`warning: ${w}`);
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
  const cell = (s: Stats | null) =>
    s
      ? `${f(s.p50Ms)} / ${f(s.p95Ms)} / ${f(s.p99Ms)} / ${f(s.maxMs)} (${s.executions}${s.errors ? `, ${s.errors} errors` : ''})`
      : '–';
  const phases = [...new Set((run.results.queries ?? []).map((e) => e.phase))];
  for (const phase of phases) {
    out(`\n${phase}`);
    out('query | direct p50 / p95 / p99 / max ms | Junction 1 source | Junction federated | answer');
    for (const e of (run.results.queries ?? []).filter((x) => x.phase === phase))
      out(
        `${e.query} | ${cell(e.direct)} | ${cell(e.pushdown)} | ${cell(e.federated)} | ${
          e.equivalent === true ? 'same rows' : e.equivalent === false ? 'WRONG ANSWER (failure)' : 'not checked'
        }`,
      );
  }
  if (run.results.steps?.length) {
    out('\nphase | query | mode | users | executions/s | p50 | p95 | p99 | errors');
    for (const s of run.results.steps)
      out(
        `${s.phase} | ${s.query} | ${s.mode} | ${s.users} | ${s.throughput} | ${f(s.stats.p50Ms)} | ${f(s.stats.p95Ms)} | ${f(s.stats.p99Ms)} | ${s.stats.errors}`,
      );
  }
  for (const s of run.results.streams ?? [])
    out(`\n${s.phase}: geometric mean ${f(s.geomeanMs)} ms (${s.users} users)`);
  if (run.results.coldWarm?.length) {
    out('\nquery | cold ms | warm ms | second user warm ms');
    for (const c of run.results.coldWarm)
      out(
        `${c.query} | ${c.coldMs ?? '–'} | ${c.warmMs.map((w) => w ?? '–').join(', ')} | ${c.secondUserWarmMs ?? '–'}`,
      );
  }
  const s = run.results.summary;
  out(
    `\nrun ${runId}: ${run.status}; ${s?.executions ?? 0} executions, ${s?.errors ?? 0} errors${
      s?.mismatches.length ? `; WRONG ANSWERS: ${s.mismatches.join(', ')}` : ''
    }`,
  );
}
process.exitCode = run.status === 'done' && !run.results.summary?.mismatches.length ? 0 : 1;
