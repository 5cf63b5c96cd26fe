/**
 * node --import tsx apps/api/bench/route-overhead.ts [--sf 1] [--n 2000] [--ndjson]
 *
 * The query route's own cost: the app in this process, a Bearer token, JDV A (100 rows of
 * dbB.customer) sent over keep-alive HTTP. Timestamps taken in the server: when Fastify has the
 * request (onRequest), when the route calls the engine, when the engine's last batch comes out,
 * and when the reply has been written (onResponse). Route cost = (engine call − request) +
 * (reply written − last batch); what lies between is the engine's (planning, the source's round
 * trip, its rows). Prints medians and p90s of each part, and the client-side round trip.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { openMetadata } from '../src/db/client.js';
import { hashPassword, sha256 } from '../src/lib/secrets.js';
import type { EngineLike } from '../src/services/junction.js';

const { values: args } = parseArgs({
  options: {
    sf: { type: 'string', default: '1' },
    n: { type: 'string', default: '2000' },
    ndjson: { type: 'boolean', default: false },
    sql: { type: 'string', default: 'SELECT * FROM dbB.customer WHERE c_custkey <= 100' },
    // analyst: the token's queries go through grants (an application's token need not be an admin's)
    role: { type: 'string', default: 'admin' },
  },
});
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const n = Number(args.n);

const dir = mkdtempSync(path.join(os.tmpdir(), 'jbench-route-'));
const meta = await openMetadata({ sqliteFile: path.join(dir, 'junction.db') });
const app = await buildApp({ db: meta.db, secretKey: randomBytes(32), webDist: null });

// per request: [request arrived, engine called, last batch out, reply written]. 'Arrived' is
// the HTTP server's request event, before any of Fastify's hooks (authentication is one).
const marks = new WeakMap<object, number[]>();
const done: number[][] = [];
let current: number[] | undefined;
app.server.prependListener('request', (req: http.IncomingMessage) => {
  if (req.url === '/api/v1/query') {
    const m = [performance.now()];
    marks.set(req, m);
    current = m;
  }
});
app.addHook('onResponse', async (request) => {
  const m = marks.get(request.raw);
  if (m) {
    m.push(performance.now());
    done.push(m);
  }
});
await app.ready();
await app.junction.start();

const engine: EngineLike = await app.junction.engine();
const query = engine.query.bind(engine);
engine.query = async (sql, options) => {
  // requests run one at a time here, so the latest onRequest is this query's
  const m = current!;
  m.push(performance.now());
  const r = await query(sql, options);
  const rows = r.rows;
  return {
    ...r,
    id: r.id,
    columns: r.columns,
    stats: () => r.stats(),
    cancel: (reason?: string) => r.cancel(reason),
    rows: {
      async *[Symbol.asyncIterator]() {
        yield* rows;
        m.push(performance.now());
      },
    },
  };
};

const userId = randomUUID();
await meta.db.user.create({
  data: { id: userId, username: 'bench', role: 'admin', passwordHash: await hashPassword('x-bench-x') },
});
const token = `jct_bench_${randomUUID()}`;
await meta.db.apiToken.create({
  data: {
    id: randomUUID(),
    userId,
    name: 'bench',
    tokenHash: sha256(token),
    prefix: token.slice(0, 10),
    scopes: '["admin"]',
  },
});
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as { port: number }).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const send = (method: string, url: string, body: unknown, accept?: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: url,
        method,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          ...(accept ? { accept } : {}),
        },
      },
      (res) => {
        let s = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (s += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: s }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });

const u = new URL(PG_URL);
const tag = `jbench_${args.sf.replace('.', '_')}`;
await app.junction.createSource({
  name: 'dbB',
  engine: 'postgresql',
  host: u.hostname,
  port: Number(u.port || 5432),
  database: `${tag}_b`,
  user: decodeURIComponent(u.username),
  password: decodeURIComponent(u.password),
});
await meta.db.grant.create({ data: { id: randomUUID(), role: 'analyst', sourceName: 'dbB' } });

const accept = args.ndjson ? 'application/x-ndjson' : undefined;
const client: number[] = [];
for (let i = 0; i < n + 200; i++) {
  const t0 = performance.now();
  const r = await send('POST', '/api/v1/query', { sql: args.sql }, accept);
  const t = performance.now() - t0;
  if (r.status !== 200) throw new Error(`query: ${r.status} ${r.body}`);
  if (i >= 200) client.push(t); // the first 200 warm the JIT, pools and caches
}
const all = done.filter((m) => m.length === 4).slice(200);
const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const show = (name: string, xs: number[]) =>
  process.stdout.write(`${name.padEnd(34)} p50 ${q(xs, 0.5).toFixed(3)} ms   p90 ${q(xs, 0.9).toFixed(3)} ms\n`);
process.stdout.write(`${args.sql}  (${args.ndjson ? 'NDJSON' : 'JSON'}, ${all.length} requests after 200 warm-up)\n`);
show(
  'before the engine (request → call)',
  all.map((m) => m[1] - m[0]),
);
show(
  'engine (call → last batch)',
  all.map((m) => m[2] - m[1]),
);
show(
  'after the engine (last batch → sent)',
  all.map((m) => m[3] - m[2]),
);
show(
  'route cost (before + after)',
  all.map((m) => m[1] - m[0] + (m[3] - m[2])),
);
show('client round trip', client);

agent.destroy();
await app.close();
await meta.close();
rmSync(dir, { recursive: true, force: true });
