/**
 * npm run soak -- [--minutes 60] [--sf 1] [--window-minutes 5] [--fault-every-minutes 4]
 *                 [--lab-every-minutes 10] [--max-recovery-seconds 30] [--rss-tolerance 10] [--out FILE]
 *                 [--cpu-prof DIR]
 *
 * Hours of a mixed load against the real server (main.ts in a child process, as `npm start` runs
 * it), with a fault injected every few minutes, reporting per window what an operator watches:
 * throughput, p50/p99, errors by code, the server's RSS, heap, handles, sockets, descriptors and
 * event-loop delay. Exits 1 when memory or handles grow, a 5xx reaches a user outside the faults'
 * own queries, or a fault is not recovered from without a restart (report.ts, verdict()).
 *
 * The load: JDV A–H over the four sources as JSON, one NDJSON stream of 1M rows (or the whole
 * lineitem table below SF 1), designer previews, result-cache hits, sign-ins, benchmark-lab runs,
 * and queries on two extra sources the faults hit: `flaky` (dbA's database behind a TCP proxy
 * that adds delay, loses packets, resets mid-result, blackholes, drops every connection) and
 * `rotated` (dbB's database as its own role, whose password is changed and then set through the
 * API). The other sources are reached directly, so a fault that leaks into their queries shows.
 *
 * Uses the benchmark's databases (jbench_<sf>_*), loading them first when missing.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { jdvWorkload, paramMax, type WorkloadQuery } from '@junction/tpch';
import { startFaultProxy, type Fault, type FaultProxy } from '../../../packages/connectors/test/support/fault-proxy.js';
import { PG_URL, MYSQL_URL, benchDatabase, prepareBenchData } from '../../../packages/query-core/bench/databases.js';
import { restSource, startRestTarget, type RestSource, type RestTarget } from '../bench/rest-target.js';
import { markdown, verdict, windows, type FaultRecord, type Op, type Sample } from './report.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    sf: { type: 'string', default: '1' },
    'window-minutes': { type: 'string' },
    'fault-every-minutes': { type: 'string' },
    'lab-every-minutes': { type: 'string' },
    'max-recovery-seconds': { type: 'string', default: '30' },
    'rss-tolerance': { type: 'string' },
    out: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const minutes = Number(args.minutes);
const sf = Number(args.sf);
if (!(minutes > 0) || !(sf > 0)) throw new Error('--minutes and --sf must be positive numbers');
// a long soak reports the issue's 5-minute windows; a short one cuts itself into six
const windowMs = Number(args['window-minutes'] ?? (minutes >= 30 ? 5 : minutes / 6)) * 60_000;
const faultEveryMs = Number(args['fault-every-minutes'] ?? (minutes >= 30 ? 4 : minutes / 6)) * 60_000;
const labEveryMs = Number(args['lab-every-minutes'] ?? (minutes >= 30 ? 10 : minutes)) * 60_000;
const faultMs = Math.min(60_000, faultEveryMs / 3);
const maxRecoveryMs = Number(args['max-recovery-seconds']) * 1000;
const durationMs = minutes * 60_000;
/** each fault-hit query gives up after this: a blackholed source must not hold a client longer */
const FLAKY_TIMEOUT_MS = 8000;

const log = (line: string): void =>
  void process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

// ---- data and sources ---------------------------------------------------------------------

await prepareBenchData(sf, true);
const pgUrl = new URL(PG_URL);
const ROTATED_ROLE = 'junction_soak_rotated';
let rotatedPassword = randomBytes(12).toString('hex');
{
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(
    `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROTATED_ROLE}') THEN CREATE ROLE ${ROTATED_ROLE} LOGIN; END IF; END $$`,
  );
  await admin.query(`ALTER ROLE ${ROTATED_ROLE} PASSWORD '${rotatedPassword}'`);
  await admin.end();
  const u = new URL(PG_URL);
  u.pathname = `/${benchDatabase(sf, 'dbB')}`;
  const b = new pg.Client({ connectionString: u.toString() });
  await b.connect();
  await b.query(
    `GRANT USAGE ON SCHEMA public TO ${ROTATED_ROLE}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${ROTATED_ROLE}`,
  );
  await b.end();
}
const proxy: FaultProxy = await startFaultProxy(pgUrl.hostname, Number(pgUrl.port || 5432));

const sources: RestSource[] = [
  ...(['dbA', 'dbB', 'dbC', 'dbD'] as const).map((n) =>
    restSource(n, n === 'dbC' || n === 'dbD' ? MYSQL_URL : PG_URL, benchDatabase(sf, n)),
  ),
  restSource('direct', PG_URL, benchDatabase(sf, 'direct')),
  {
    ...restSource('flaky', PG_URL, benchDatabase(sf, 'dbA')),
    host: '127.0.0.1',
    port: proxy.port,
    options: { pool: { max: 8 }, connectTimeoutMs: 3000 },
  },
  {
    ...restSource('rotated', PG_URL, benchDatabase(sf, 'dbB')),
    user: ROTATED_ROLE,
    password: rotatedPassword,
    options: { pool: { max: 4 } },
  },
];

log(
  `starting the server (SF ${sf}, ${minutes} min, windows of ${windowMs / 60_000} min, a fault every ${faultEveryMs / 60_000} min)`,
);
const target: RestTarget = await startRestTarget({
  sources,
  env: { JUNCTION_MAX_CONCURRENT: '24', JUNCTION_SIGNIN_RATE: '600', LOG_LEVEL: 'warn' },
  tokenConcurrency: 24,
  // where the server's time goes under this load: V8 writes the profile when it exits
  ...(args['cpu-prof'] ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] } : {}),
  log: (l) => log(`server: ${l.slice(0, 400)}`),
});
const rotatedId = await sourceId('rotated');

// ---- HTTP ---------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
  /** NDJSON: row lines counted as they arrived (the body is not kept) */
  lines?: number;
  last?: string;
}

function request(
  method: string,
  url: string,
  body?: unknown,
  opts: { headers?: Record<string, string>; ndjson?: boolean; auth?: boolean } = {},
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${target.url}${url}`,
      {
        method,
        agent,
        headers: {
          ...(opts.auth === false ? {} : { authorization: `Bearer ${target.token}` }),
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : {}),
          ...(opts.ndjson ? { accept: 'application/x-ndjson' } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        let lines = 0;
        let tail = '';
        res.on('data', (chunk: string) => {
          if (!opts.ndjson || res.statusCode !== 200) {
            text += chunk;
            return;
          }
          // count rows without keeping 1M of them
          const parts = (tail + chunk).split('\n');
          tail = parts.pop()!;
          lines += parts.length;
          if (parts.length) text = parts[parts.length - 1];
        });
        res.on('end', () => {
          if (opts.ndjson && res.statusCode === 200) {
            if (tail) {
              lines++;
              text = tail;
            }
            resolve({ status: 200, body: '', headers: res.headers, lines, last: text });
          } else resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function sourceId(name: string): Promise<string> {
  const r = await target.call('GET', '/api/v1/sources');
  const s = (r.json as { id: string; name: string }[]).find((x) => x.name === name);
  if (!s) throw new Error(`source ${name} is not registered`);
  return s.id;
}

const codeOf = (a: Answer): string | undefined => {
  if (a.status === 200) return undefined;
  try {
    return (JSON.parse(a.body) as { code?: string }).code ?? 'no_code';
  } catch {
    return 'not_json';
  }
};

// ---- fault state ----------------------------------------------------------------------------

const t0 = Date.now();
const ops: Op[] = [];
const samples: Sample[] = [];
const faults: FaultRecord[] = [];
/** the source a fault is on now or is recovering from; its queries then are the fault's own */
let hit:
  | { source: 'flaky' | 'rotated'; name: string; startedAt: number; clearedAt?: number; saw: Record<string, number> }
  | undefined;
let recovered: ((at: number) => void) | undefined;
let stopping = false;

function record(kind: string, source: string | undefined, start: number, a: { status: number; code?: string }): void {
  const end = Date.now();
  const faulted = hit !== undefined && hit.source === source;
  ops.push({ kind, at: start, ms: end - start, status: a.status, ...(a.code ? { code: a.code } : {}), faulted });
  if (!faulted) return;
  const ok = a.status === 200 && !a.code;
  if (!ok && hit!.clearedAt === undefined) {
    const key = `${a.status}:${a.code ?? '-'}`;
    hit!.saw[key] = (hit!.saw[key] ?? 0) + 1;
  }
  // recovered: a query that began after the fault was cleared answered
  if (ok && hit!.clearedAt !== undefined && start >= hit!.clearedAt) recovered?.(end);
}

async function op(
  kind: string,
  source: string | undefined,
  run: () => Promise<{ status: number; code?: string }>,
): Promise<void> {
  const start = Date.now();
  let a: { status: number; code?: string };
  try {
    a = await run();
  } catch (e) {
    a = { status: 0, code: (e as NodeJS.ErrnoException).code ?? 'socket_error' };
  }
  record(kind, source, start, a);
}

// ---- the load -------------------------------------------------------------------------------

const workload = jdvWorkload(sf);
const draw = (q: WorkloadQuery): number[] => q.params.map((p) => randomInt(p.min, paramMax(p, sf) + 1));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function loop(pauseMs: number, body: () => Promise<void>): Promise<void> {
  while (!stopping) {
    await body();
    if (pauseMs) await sleep(pauseMs);
  }
}

// what the checked queries must return, read once before any fault
const countOf = async (sql: string): Promise<number> => {
  const { body } = await target.query(sql, [], { keepBody: true });
  return Number((JSON.parse(body!) as { rows: unknown[][] }).rows[0][0]);
};
const expected = {
  flaky: await countOf('SELECT count(*) FROM dbA.orders WHERE o_orderkey <= 4000'),
  stream: Math.min(1_000_000, await countOf('SELECT count(*) FROM dbA.lineitem')),
};
if (!(expected.flaky > 0) || !(expected.stream > 0))
  throw new Error(`could not read the expected row counts: ${JSON.stringify(expected)}`);

const query = (sql: string, params: unknown[] = [], extra: Record<string, unknown> = {}): Promise<Answer> =>
  request('POST', '/api/v1/query', { sql, ...(params.length ? { params } : {}), ...extra });

const rowsOf = (a: Answer): number => (JSON.parse(a.body) as { rows: unknown[] }).rows.length;

const clients: Promise<void>[] = [];
for (let i = 0; i < 6; i++)
  clients.push(
    loop(0, async () => {
      const q = workload.queries[randomInt(workload.queries.length)];
      await op(`jdv ${q.id}`, undefined, async () => {
        const a = await query(q.federated, draw(q));
        return { status: a.status, code: codeOf(a) };
      });
    }),
  );
clients.push(
  loop(1000, () =>
    op('ndjson 1M', undefined, async () => {
      const a = await request(
        'POST',
        '/api/v1/query',
        {
          sql: `SELECT l_orderkey, l_linenumber, l_quantity, l_extendedprice FROM dbA.lineitem LIMIT ${expected.stream}`,
        },
        { ndjson: true },
      );
      if (a.status !== 200) return { status: a.status, code: codeOf(a) };
      // columns line, rows, stats line (or an error line when the stream broke)
      if (!a.last?.includes('"stats"')) return { status: 200, code: 'stream_error' };
      return a.lines! - 2 === expected.stream ? { status: 200 } : { status: 200, code: 'wrong_rows' };
    }),
  ),
);
clients.push(
  loop(500, () =>
    op('designer preview', undefined, async () => {
      const a = await request('POST', '/api/v1/views/validate', {
        sql: 'SELECT c.c_name, c.c_acctbal, n.n_name FROM dbB.customer c JOIN dbD.nation n ON n.n_nationkey = c.c_nationkey WHERE c.c_acctbal > 9000',
      });
      return { status: a.status, code: codeOf(a) };
    }),
  ),
);
clients.push(
  loop(200, () =>
    op('cache hit', undefined, async () => {
      const a = await query(
        '/*+ cache(ttl=600) */ SELECT r.r_name, count(*) AS nations FROM dbD.region r JOIN dbD.nation n ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name ORDER BY r.r_name',
      );
      if (a.status !== 200) return { status: a.status, code: codeOf(a) };
      return rowsOf(a) === 5 ? { status: 200 } : { status: 200, code: 'wrong_rows' };
    }),
  ),
);
for (let i = 0; i < 2; i++)
  clients.push(
    loop(100, () =>
      op('flaky', 'flaky', async () => {
        const a = await query(
          'SELECT o_orderkey, o_totalprice, o_comment FROM flaky.orders WHERE o_orderkey <= 4000 ORDER BY o_orderkey',
          [],
          {
            timeoutMs: FLAKY_TIMEOUT_MS,
          },
        );
        if (a.status !== 200) return { status: a.status, code: codeOf(a) };
        return rowsOf(a) === expected.flaky ? { status: 200 } : { status: 200, code: 'wrong_rows' };
      }),
    ),
  );
clients.push(
  loop(200, () =>
    op('rotated', 'rotated', async () => {
      const a = await query('SELECT count(*) AS n FROM rotated.customer', [], { timeoutMs: FLAKY_TIMEOUT_MS });
      return { status: a.status, code: codeOf(a) };
    }),
  ),
);
const signinPassword = randomBytes(12).toString('hex');
{
  const r = await target.call('POST', '/api/v1/users', {
    username: 'soak_analyst',
    password: signinPassword,
    role: 'analyst',
  });
  if (r.status !== 201) throw new Error(`creating the sign-in user failed: ${r.status} ${JSON.stringify(r.json)}`);
}
clients.push(
  loop(2000, () =>
    op('sign-in', undefined, async () => {
      const a = await request(
        'POST',
        '/api/v1/auth/login',
        { username: 'soak_analyst', password: signinPassword },
        { auth: false },
      );
      if (a.status !== 200) return { status: a.status, code: codeOf(a) };
      const cookie = ([] as string[])
        .concat(a.headers['set-cookie'] ?? [])
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = (JSON.parse(a.body) as { csrfToken: string }).csrfToken;
      const me = await request('GET', '/api/v1/auth/me', undefined, { auth: false, headers: { cookie } });
      if (me.status !== 200) return { status: me.status, code: codeOf(me) };
      const out = await request(
        'POST',
        '/api/v1/auth/logout',
        {},
        { auth: false, headers: { cookie, 'x-junction-csrf': csrf } },
      );
      return { status: out.status, code: codeOf(out) };
    }),
  ),
);
clients.push(
  (async () => {
    const made = await target.call('POST', '/api/v1/benchmarks', {
      name: 'soak',
      preset: 'jdv',
      sources: { dbA: 'dbA', dbB: 'dbB', dbC: 'dbC', dbD: 'dbD', direct: 'direct' },
      settings: { sf },
      overrides: { warmups: 0, repetitions: 2, stepSeconds: 2, durationSeconds: 5, maxUsers: 4, warmPasses: 1 },
    });
    if (made.status !== 201)
      throw new Error(`creating the lab benchmark failed: ${made.status} ${JSON.stringify(made.json)}`);
    const { id } = made.json as { id: string };
    await sleep(10_000);
    while (!stopping) {
      const next = Date.now() + labEveryMs;
      await op('lab run', undefined, async () => {
        const r = await target.call('POST', `/api/v1/benchmarks/${id}/runs`, {});
        if (r.status !== 201 && r.status !== 202 && r.status !== 200)
          return { status: r.status, code: (r.json as { code?: string }).code };
        const { runId } = r.json as { runId: string };
        for (;;) {
          await sleep(2000);
          const run = await target.call('GET', `/api/v1/benchmark-runs/${runId}`);
          const status = (run.json as { status?: string }).status;
          if (status === 'done') return { status: 200 };
          if (status && ['failed', 'cancelled', 'interrupted'].includes(status))
            return { status: 200, code: `run_${status}` };
          // a run still going at the end is stopped with the server
          if (stopping) return { status: 200 };
        }
      });
      while (!stopping && Date.now() < next) await sleep(1000);
    }
  })(),
);

// ---- samples --------------------------------------------------------------------------------

async function sample(): Promise<void> {
  try {
    const r = await target.call('GET', '/api/v1/runtime');
    if (r.status !== 200) return void log(`runtime: ${r.status}`);
    const s = r.json as {
      memory: { rssBytes: number; heapUsedBytes: number; externalBytes: number };
      handles: Record<string, number>;
      sockets: number | null;
      fds: number | null;
      eventLoop: { p99Ms: number; maxMs: number };
    };
    samples.push({
      at: Date.now(),
      rssBytes: s.memory.rssBytes,
      heapUsedBytes: s.memory.heapUsedBytes,
      externalBytes: s.memory.externalBytes,
      handles: Object.values(s.handles).reduce((a, b) => a + b, 0),
      sockets: s.sockets,
      fds: s.fds,
      loopP99Ms: s.eventLoop.p99Ms,
      loopMaxMs: s.eventLoop.maxMs,
    });
  } catch (e) {
    log(`runtime sample failed: ${(e as Error).message}`);
  }
}
const sampler = setInterval(() => void sample(), 10_000);

// ---- faults ---------------------------------------------------------------------------------

interface Injection {
  name: string;
  source: 'flaky' | 'rotated';
  /** starts the fault; the returned function clears it */
  start(): Promise<() => Promise<void>>;
}
const proxyFault = (name: string, fault: Fault): Injection => ({
  name,
  source: 'flaky',
  start: async () => {
    proxy.set(fault);
    await sleep(faultMs);
    return async () => proxy.set({ kind: 'none' });
  },
});
const INJECTIONS: Injection[] = [
  proxyFault('latency 200±100 ms', { kind: 'latency', ms: 200, jitterMs: 100 }),
  proxyFault('30 % packet loss', { kind: 'loss', rate: 0.3 }),
  proxyFault('reset mid-result', { kind: 'reset', afterBytes: 16_384 }),
  proxyFault('blackhole after handshake', { kind: 'blackhole' }),
  {
    name: 'source restart (every connection dropped)',
    source: 'flaky',
    start: async () => {
      proxy.resetAll();
      return async () => undefined;
    },
  },
  {
    name: 'credentials rotated',
    source: 'rotated',
    start: async () => {
      // as an operator does it: the database's password first, then Junction's copy
      rotatedPassword = randomBytes(12).toString('hex');
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`ALTER ROLE ${ROTATED_ROLE} PASSWORD '${rotatedPassword}'`);
      await admin.end();
      await sleep(1000);
      return async () => {
        const r = await target.call('PATCH', `/api/v1/sources/${rotatedId}`, { password: rotatedPassword });
        if (r.status !== 200) log(`setting the rotated password failed: ${r.status} ${JSON.stringify(r.json)}`);
      };
    },
  },
];

const faultLoop = (async () => {
  let n = 0;
  await sleep(Math.min(faultEveryMs / 3, 60_000));
  while (!stopping && Date.now() - t0 < durationMs - faultMs - 5_000) {
    const inj = INJECTIONS[n++ % INJECTIONS.length];
    const startedAt = Date.now();
    hit = { source: inj.source, name: inj.name, startedAt, saw: {} };
    log(`fault: ${inj.name}`);
    const clear = await inj.start();
    await clear();
    const clearedAt = Date.now();
    hit.clearedAt = clearedAt;
    const recovery = await Promise.race([
      new Promise<number>((resolve) => (recovered = resolve)),
      sleep(Math.max(maxRecoveryMs * 2, 60_000)).then(() => null),
    ]);
    recovered = undefined;
    faults.push({
      name: inj.name,
      startedAt: startedAt - t0,
      clearedAt: clearedAt - t0,
      saw: hit.saw,
      recoveryMs: recovery === null ? null : recovery - clearedAt,
    });
    log(
      `  ${inj.name}: saw ${JSON.stringify(hit.saw)}, recovered in ${recovery === null ? 'never' : `${recovery - clearedAt} ms`}`,
    );
    hit = undefined;
    const next = startedAt + faultEveryMs;
    while (!stopping && Date.now() < next) await sleep(500);
  }
})();

// ---- the end ---------------------------------------------------------------------------------

await sample();
const windowTimer = setInterval(() => {
  const ws = windows(ops, samples, t0, windowMs, Date.now());
  const w = ws[ws.length - 2];
  if (w)
    log(
      `window ${w.index}: ${w.perSecond} ops/s, p99 ${w.p99Ms} ms, RSS ${w.rssMB} MB, handles ${w.handles}, errors ${JSON.stringify(w.errors)}`,
    );
}, windowMs);
await sleep(durationMs);
await sample();
const endAt = Date.now();
stopping = true;
clearInterval(windowTimer);
clearInterval(sampler);
log('stopping the load');
await Promise.race([Promise.all([...clients, faultLoop]), sleep(60_000)]);

const ws = windows(
  ops.filter((o) => o.at < endAt),
  samples,
  t0,
  windowMs,
  endAt,
);
const v = verdict(ws, faults, maxRecoveryMs, args['rss-tolerance'] ? Number(args['rss-tolerance']) / 100 : undefined);
const table = markdown(ws, faults);
process.stdout.write(
  `\nSoak: ${minutes} min at SF ${sf}, ${ops.length} operations, ${faults.length} faults\n\n${table}\n\n`,
);
const byKind = new Map<string, { n: number; errors: number }>();
for (const o of ops) {
  const k = byKind.get(o.kind) ?? { n: 0, errors: 0 };
  k.n++;
  if (o.status !== 200 || o.code) k.errors++;
  byKind.set(o.kind, k);
}
process.stdout.write(
  `operations: ${[...byKind].map(([k, c]) => `${k} ${c.n}${c.errors ? ` (${c.errors} failed)` : ''}`).join(', ')}\n`,
);
process.stdout.write(v.ok ? '\nverdict: PASS\n' : `\nverdict: FAIL\n${v.findings.map((f) => `- ${f}`).join('\n')}\n`);
if (args.out) {
  writeFileSync(args.out, JSON.stringify({ minutes, sf, windowMs, windows: ws, faults, verdict: v }, null, 2));
  process.stdout.write(`report: ${args.out}\n`);
}

agent.destroy();
await target.close();
await proxy.close();
process.exit(v.ok ? 0 : 1);
