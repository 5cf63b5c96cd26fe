/**
 * npm run bench -- --pg-wire [--sf 1] [--runs 5] [--h-seconds 5] [--only A,B,H] [--skip-load]
 *                             [--no-pgbench] [--cpu-prof DIR] [--main-ts OTHER/apps/api/src/main.ts]
 * (or node --import tsx apps/api/bench/pg-wire.ts with the same options)
 *
 * JDV through Junction's PostgreSQL port, as a PostgreSQL client sees it, beside the strongest
 * baseline such a client has, in the same run: the real server (main.ts) in a child process
 * (rest-target.ts, its PostgreSQL port on a free port, the bench's API token as the password),
 * the four-source layout registered through the API.
 *
 * Variants, interleaved as rest.ts interleaves them (1.5 s of warm-up per variant and query, then
 * `runs` rounds, a short query back to back within a round):
 *   direct        node-postgres on the one-database PostgreSQL copy, named prepared statements
 *   wire prepared node-postgres on Junction's port, named prepared statements (extended protocol)
 *   wire simple   node-postgres on Junction's port, the simple protocol (literal SQL, unprepared)
 *   REST JSON     POST /api/v1/query over keep-alive HTTP (rest-target's query())
 * H at 1, 4 and 16 clients (executions/s, p50/p99, errors, CPU per execution by process) for
 * direct, wire prepared and REST; then H × 16 with pgbench -M prepared (a custom script, a random
 * c_custkey per transaction) against PostgreSQL and against Junction's port.
 * --cpu-prof DIR writes the server's V8 CPU profile there; --main-ts runs another checkout's server.
 * Every variant's first answer is compared with direct's (the rows themselves, in any order);
 * a difference or an error fails the run after the tables are printed.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { jdvWorkload, paramMax } from '@junction/tpch';
import {
  DIRECT_TYPES,
  PLACEMENT,
  benchDatabase,
  prepareBenchData,
} from '../../../packages/query-core/bench/databases.js';
import { rewriteOdbc } from '../../../packages/query-core/src/sql/odbc.js';
import {
  runPgbench,
  targetFromUrl,
  writePgbenchScript,
  type PgbenchResult,
  type PgTarget,
} from '../test/pg-clients/clients.js';
import {
  NO_CPU,
  addCpu,
  cpuCell,
  cpuMs,
  cpuSince,
  processesNamed,
  sampleCpu,
  type CpuByProcess,
} from './process-cpu.js';
import { restSource, startRestTarget, type RestTarget } from './rest-target.js';

// ------------------------------------------------------------------------------ pure helpers

/** Lines of a table, its columns padded to one width ("a | b"), a rule under the header. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    width
      .map((w, i) => (cells[i] ?? '').padEnd(w))
      .join(' | ')
      .trimEnd();
  return [line(header), width.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)];
}

/** 1.23 ms as "1.2", 123.4 as "123" */
export const fmtMs = (ms: number): string => (!Number.isFinite(ms) ? '–' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
export const fmtRatio = (x: number): string => (!Number.isFinite(x) ? '–' : `${x.toFixed(2)}×`);

const NULL_TEXT = '\u0000';
function exactText(v: unknown): string {
  if (v === null || v === undefined) return NULL_TEXT;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
/** A number's text without what does not change its value (1.50 → 1.5, 007 → 7, -0 → 0). */
function canonicalNumber(s: string): string {
  let [int, frac = ''] = s.split('.');
  const neg = int.startsWith('-');
  int = int.replace(/^[-+]/, '').replace(/^0+(?=\d)/, '');
  frac = frac.replace(/0+$/, '');
  const text = frac ? `${int}.${frac}` : int;
  return neg && text !== '0' ? `-${text}` : text;
}
/** A value by what it means: a number's text however it was written, JSON numbers and numeric text alike. */
function looseText(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return canonicalNumber(String(v));
  if (typeof v === 'string' && /^[-+]?\d+(\.\d+)?$/.test(v)) return canonicalNumber(v);
  return exactText(v);
}
const rowKey = (row: readonly unknown[], cell: (v: unknown) => string) => row.map(cell).join('\u0001');

function multisetDiff(a: readonly string[], b: readonly string[]): { onlyA: string[]; onlyB: string[] } {
  const count = new Map<string, number>();
  for (const k of a) count.set(k, (count.get(k) ?? 0) + 1);
  const onlyB: string[] = [];
  for (const k of b) {
    const n = count.get(k) ?? 0;
    if (n > 0) count.set(k, n - 1);
    else onlyB.push(k);
  }
  const onlyA: string[] = [];
  for (const [k, n] of count) for (let i = 0; i < n; i++) onlyA.push(k);
  return { onlyA, onlyB };
}

export interface AnswerCheck {
  /** 'same': every row's text equals direct's; 'same values': equal once numbers are compared by value */
  verdict: 'same' | 'same values' | 'DIFFERS';
  /** a short explanation when not 'same' */
  note: string;
}

/**
 * Another variant's rows against direct's, in any order (duplicates count): first as the text a
 * client reads, then by value (numbers written differently, e.g. JSON's 1.5 against numeric's "1.50").
 */
export function compareAnswers(
  direct: readonly (readonly unknown[])[],
  other: readonly (readonly unknown[])[],
): AnswerCheck {
  const show = (k: string) => JSON.stringify(k.split('\u0001').map((c) => (c === NULL_TEXT ? null : c)));
  const exact = multisetDiff(
    direct.map((r) => rowKey(r, exactText)),
    other.map((r) => rowKey(r, exactText)),
  );
  if (exact.onlyA.length === 0 && exact.onlyB.length === 0) return { verdict: 'same', note: '' };
  const loose = multisetDiff(
    direct.map((r) => rowKey(r, looseText)),
    other.map((r) => rowKey(r, looseText)),
  );
  const example = `e.g. direct ${exact.onlyA[0] !== undefined ? show(exact.onlyA[0]) : '(none)'}, this ${exact.onlyB[0] !== undefined ? show(exact.onlyB[0]) : '(none)'}`;
  if (loose.onlyA.length === 0 && loose.onlyB.length === 0)
    return { verdict: 'same values', note: `${exact.onlyB.length} rows written differently, ${example}` };
  return {
    verdict: 'DIFFERS',
    note: `${direct.length} rows direct, ${other.length} here; ${loose.onlyA.length} of direct's missing, ${loose.onlyB.length} extra; ${example}`,
  };
}

/**
 * A pgbench custom script for H: `\set` draws c_custkey, the query's $1 becomes :k (with -M
 * prepared, pgbench prepares the statement once per client and binds :k as its parameter).
 */
export function pgbenchScript(sql: string, min: number, max: number): string {
  if (!/\$1\b/.test(sql) || /\$[2-9]/.test(sql))
    throw new Error('pgbenchScript: the query must have exactly one parameter, $1');
  if (/(^|[^:]):[A-Za-z_]/.test(sql)) throw new Error('pgbenchScript: the query holds a pgbench :variable');
  return `\\set k random(${min}, ${max})\n${sql.replace(/\$1\b/g, ':k').trim().replace(/;?$/, ';')}\n`;
}

/** The key substituted as a literal, for the simple protocol. */
export const literalH = (sql: string, key: number): string => sql.replace(/\$1\b/g, String(Math.trunc(key)));

const median = (xs: readonly number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs: readonly number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};

/**
 * CPU of pgbench, the server, PostgreSQL and MariaDB over a pgbench run, sampled every 100 ms:
 * pgbench's backends are born and gone within the run, so a before/after pair of samples (as
 * process-cpu.ts takes them) would miss them; a process first seen during the run counts from 0.
 * What a process spends after the last sample before it exits (≤ 100 ms each) is not counted.
 */
function trackCommandsCpu(serverPid: number): { stop(): CpuByProcess } {
  const groups: Record<keyof CpuByProcess, string[]> = {
    bench: ['pgbench'],
    server: [],
    postgres: ['postgres'],
    mariadb: ['mariadbd', 'mysqld'],
  };
  const allNames = Object.values(groups).flat();
  const first = new Map<number, number>();
  const last = new Map<number, { group: keyof CpuByProcess; ms: number }>();
  const sample = (initial: boolean) => {
    const seen: [number, keyof CpuByProcess][] = [[serverPid, 'server']];
    for (const [pid, comm] of processesNamed(allNames))
      for (const [group, names] of Object.entries(groups) as [keyof CpuByProcess, string[]][])
        if (names.includes(comm)) seen.push([pid, group]);
    for (const [pid, group] of seen) {
      const ms = cpuMs(pid);
      if (ms === 0 && !last.has(pid)) continue;
      if (!first.has(pid)) first.set(pid, initial ? ms : 0);
      if (ms >= (last.get(pid)?.ms ?? 0)) last.set(pid, { group, ms });
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 100);
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      const total = { bench: 0, server: 0, postgres: 0, mariadb: 0 };
      for (const [pid, { group, ms }] of last) total[group] += ms - (first.get(pid) ?? 0);
      return total;
    },
  };
}

/** /proc/loadavg's 1, 5 and 15 minute averages */
function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  }
}

// ------------------------------------------------------------------------------ the benchmark

/** each variant of each query runs this long before it is measured (as rest.ts) */
const WARM_MS = 1500;
const QUERIES = ['A', 'B', 'C', 'D', 'E', 'F'] as const;

type Rows = unknown[][];
interface Variant {
  name: string;
  /** one execution; the rows as the client decoded them */
  run(): Promise<Rows>;
}

class Errors {
  readonly count = new Map<string, number>();
  readonly first = new Map<string, string>();
  add(where: string, e: unknown): void {
    this.count.set(where, (this.count.get(where) ?? 0) + 1);
    if (!this.first.has(where))
      this.first.set(where, (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 300));
  }
  get total(): number {
    let n = 0;
    for (const c of this.count.values()) n += c;
    return n;
  }
}

export async function runPgWireBench(argv: readonly string[]): Promise<number> {
  const { values: args } = parseArgs({
    args: [...argv],
    options: {
      'pg-wire': { type: 'boolean', default: false },
      sf: { type: 'string', default: '1' },
      runs: { type: 'string', default: '5' },
      'h-seconds': { type: 'string', default: '5' },
      only: { type: 'string' },
      'skip-load': { type: 'boolean', default: false },
      pgbench: { type: 'boolean', default: true },
      'cpu-prof': { type: 'string' },
      'main-ts': { type: 'string' },
    },
    allowNegative: true,
  });
  const sf = Number(args.sf);
  const runs = Number(args.runs);
  const hSeconds = Number(args['h-seconds']);
  const only = args.only ? new Set(args.only.split(',').map((s) => s.trim().toUpperCase())) : undefined;
  const want = (q: string) => !only || only.has(q);
  const workload = jdvWorkload(sf);
  const sqlOf = (q: string, kind: 'direct' | 'federated') => workload.query(q)[kind];

  const lines: string[] = [];
  const out = (s = '') => {
    lines.push(s);
    process.stdout.write(s + '\n');
  };
  const table = (header: string[], rows: string[][]) => formatTable(header, rows).forEach((l) => out(l));
  const errors = new Errors();
  const wrong: string[] = [];
  const notes: string[] = [];

  await prepareBenchData(sf, !args['skip-load']);
  const placement = Object.fromEntries(
    Object.entries(PLACEMENT).map(([t, url]) => [t, [url, benchDatabase(sf, t)] as const]),
  );
  const profDir = args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const server: RestTarget = await startRestTarget({
    sources: ['dbA', 'dbB', 'dbC', 'dbD'].map((n) => restSource(n, ...placement[n])),
    tokenConcurrency: 16,
    maxSockets: 16,
    pgWire: true,
    ...(profDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] } : {}),
    ...(args['main-ts'] ? { mainTs: path.resolve(args['main-ts']) } : {}),
    log: (l) => process.stderr.write(`server: ${l}\n`),
  });
  const wireAt = server.pg!;
  let rssPeak = server.rssBytes();
  /** the peak since the current section began */
  let sectionRss = rssPeak;
  const rssSampler = setInterval(() => {
    const now = server.rssBytes();
    rssPeak = Math.max(rssPeak, now);
    sectionRss = Math.max(sectionRss, now);
  }, 250);
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

  const directUrl = new URL(PLACEMENT.direct);
  directUrl.pathname = `/${benchDatabase(sf, 'direct')}`;
  const directPool = new pg.Pool({ connectionString: directUrl.toString(), max: 16 });
  const wirePool = new pg.Pool({ ...wireAt, max: 16, application_name: 'junction-bench-pg-wire' });
  for (const [name, pool] of [
    ['direct', directPool],
    ['wire', wirePool],
  ] as const)
    pool.on('error', (e) => errors.add(`${name} pool (idle connection)`, e));

  // node-postgres as a program uses it: rows as arrays, values decoded as run.ts's direct baseline decodes them
  const prepared = (pool: pg.Pool, name: string, text: string, values: unknown[] = []): Promise<Rows> =>
    pool.query({ name, text, values, rowMode: 'array', types: DIRECT_TYPES }).then((r) => r.rows as Rows);
  const simple = (pool: pg.Pool, text: string): Promise<Rows> =>
    pool.query({ text, rowMode: 'array', types: DIRECT_TYPES }).then((r) => r.rows as Rows);
  const restRows = async (sql: string, params: unknown[] = []): Promise<Rows> =>
    (JSON.parse((await server.query(sql, params, { keepBody: true })).body!) as { rows: Rows }).rows;
  const restCount = async (sql: string, params: unknown[] = []): Promise<number> =>
    (await server.query(sql, params)).rows;

  /** column names and type OIDs of the wire's answer against direct's, as a client reads them */
  const columns = { same: [] as string[], differ: [] as string[] };
  const describeCheck = async (q: string, directSql: string, wireSql: string, values: unknown[] = []) => {
    try {
      const [d, w] = [
        await directPool.query({ name: `jdv_${q}`, text: directSql, values, rowMode: 'array', types: DIRECT_TYPES }),
        await wirePool.query({ name: `jdv_${q}`, text: wireSql, values, rowMode: 'array', types: DIRECT_TYPES }),
      ];
      const diffs = d.fields
        .map((f, i) => [f, w.fields[i]] as const)
        .filter(([a, b]) => !b || a.name !== b.name || a.dataTypeID !== b.dataTypeID)
        .map(([a, b]) => `${a.name}:${a.dataTypeID} vs ${b ? `${b.name}:${b.dataTypeID}` : 'missing'}`);
      if (w.fields.length !== d.fields.length)
        diffs.push(`${d.fields.length} columns direct, ${w.fields.length} through the wire`);
      if (diffs.length) {
        columns.differ.push(q);
        notes.push(`${q}: columns (name:type OID) differ between direct and the wire: ${diffs.join(', ')}`);
      } else columns.same.push(q);
    } catch (e) {
      columns.differ.push(q);
      notes.push(`${q}: could not compare the columns: ${(e as Error).message}`);
    }
  };

  try {
    const adjusted = workload.queries.filter((x) => x.adjusted.length > 0).map((x) => x.id);
    out(
      `JDV through Junction's PostgreSQL port (the server in a child process, node-postgres signed in with an API token as the password), SF ${sf}, four sources (dbA, dbB PostgreSQL; dbC, dbD MariaDB)`,
    );
    if (args['main-ts']) out(`server: ${path.resolve(args['main-ts'])} (not this checkout's)`);
    out(
      `load average at the start: ${loadAverage()} (${os.cpus().length} CPUs; other work on this host skews every variant, interleaving spreads it)`,
    );
    if (adjusted.length)
      out(`constants adjusted for SF < 1 (the study's select nothing there): ${adjusted.join(', ')}`);

    // ---------------------------------------------------------------- connection set-up
    // what a client without a pool pays per connection: TCP, start-up, sign-in, ReadyForQuery
    const connectMs = async (config: pg.ClientConfig, label: string): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const c = new pg.Client(config);
        const t0 = performance.now();
        try {
          await c.connect();
          times.push(performance.now() - t0);
        } catch (e) {
          errors.add(`connect ${label}`, e);
        } finally {
          await c.end().catch(() => undefined);
        }
      }
      return median(times);
    };
    const connDirect = await connectMs({ connectionString: directUrl.toString() }, 'direct');
    const connWire = await connectMs({ ...wireAt }, "Junction's port");
    out();
    out(
      `connection set-up (connect, sign-in, first ReadyForQuery), median of 5: direct ${fmtMs(connDirect)} ms (SCRAM), Junction ${fmtMs(connWire)} ms (cleartext over loopback, the API token as the password)`,
    );

    // ---------------------------------------------------------------- A–F
    sectionRss = server.rssBytes();
    const totals = [0, 0, 0, 0];
    let aDelta: { wire: number; simple: number } | undefined;
    const afRows: string[][] = [];
    const firstRows: string[][] = [];
    const answerRows: string[][] = [];
    const variantNames = ['direct', 'wire prepared', 'wire simple', 'REST JSON'];
    for (const q of QUERIES) {
      if (!want(q)) continue;
      const d = rewriteOdbc(sqlOf(q, 'direct')).text;
      const f = sqlOf(q, 'federated');
      const variants: Variant[] = [
        { name: 'direct', run: () => prepared(directPool, `jdv_${q}`, d) },
        { name: 'wire prepared', run: () => prepared(wirePool, `jdv_${q}`, f) },
        { name: 'wire simple', run: () => simple(wirePool, f) },
        { name: 'REST JSON', run: () => restRows(f) },
      ];
      // timed executions count rows as a client reads them; REST's JSON is parsed whole either way
      const timed: (() => Promise<number>)[] = [
        () => variants[0].run().then((r) => r.length),
        () => variants[1].run().then((r) => r.length),
        () => variants[2].run().then((r) => r.length),
        () => restCount(f),
      ];
      // the first execution of each: its time (the wire's includes Parse; Junction's plan cache is cold) and its answer
      const first: (Rows | undefined)[] = [];
      const firstMs: number[] = [];
      for (const v of variants) {
        const t0 = performance.now();
        try {
          first.push(await v.run());
          firstMs.push(performance.now() - t0);
        } catch (e) {
          errors.add(`${q} ${v.name}`, e);
          first.push(undefined);
          firstMs.push(NaN);
        }
      }
      const verdicts = variants.slice(1).map((v, i) => {
        const rows = first[i + 1];
        if (!first[0]) return 'no direct answer';
        if (!rows) return 'ERROR';
        const c = compareAnswers(first[0], rows);
        if (c.verdict === 'DIFFERS') wrong.push(`${q} ${v.name}: ${c.note}`);
        else if (c.verdict === 'same values') notes.push(`${q} ${v.name}: ${c.note}`);
        return c.verdict;
      });
      answerRows.push([q, String(first[0]?.length ?? '–'), ...verdicts]);
      await describeCheck(q, d, f);

      const reps = timed.map(() => 1);
      for (let v = 0; v < timed.length; v++) {
        const warmUntil = performance.now() + WARM_MS;
        let best = Infinity;
        do {
          const t0 = performance.now();
          try {
            await timed[v]();
          } catch (e) {
            errors.add(`${q} ${variantNames[v]}`, e);
            break;
          }
          best = Math.min(best, performance.now() - t0);
        } while (performance.now() < warmUntil);
        reps[v] = Number.isFinite(best) ? Math.max(1, Math.min(10, Math.floor(20 / best))) : 1;
      }
      const times = timed.map(() => [] as number[]);
      const rows = timed.map(() => -1);
      for (let i = 0; i < runs; i++)
        for (let v = 0; v < timed.length; v++)
          for (let r = 0; r < reps[v]; r++) {
            const t0 = performance.now();
            try {
              rows[v] = await timed[v]();
              times[v].push(performance.now() - t0);
            } catch (e) {
              errors.add(`${q} ${variantNames[v]}`, e);
            }
          }
      const m = times.map(median);
      m.forEach((x, i) => (totals[i] += x));
      if (q === 'A') aDelta = { wire: m[1] - m[0], simple: m[2] - m[0] };
      // a variant that never answered (-1) is counted in the errors, not here
      const answered = rows.filter((r) => r >= 0);
      const same = answered.every((r) => r === answered[0]);
      afRows.push([
        q,
        same ? String(answered[0] ?? '–') : `${rows.join('/')} MISMATCH`,
        fmtMs(m[0]),
        fmtMs(m[1]),
        fmtRatio(m[1] / m[0]),
        fmtMs(m[2]),
        fmtRatio(m[2] / m[0]),
        fmtMs(m[3]),
        fmtRatio(m[3] / m[0]),
      ]);
      firstRows.push([q, ...firstMs.map(fmtMs)]);
      if (!same)
        wrong.push(
          `${q}: row counts differ between variants in the timed runs (direct/wire prepared/wire simple/REST): ${rows.join('/')}`,
        );
    }
    if (afRows.length) {
      afRows.push([
        'A–F total',
        '',
        fmtMs(totals[0]),
        fmtMs(totals[1]),
        fmtRatio(totals[1] / totals[0]),
        fmtMs(totals[2]),
        fmtRatio(totals[2] / totals[0]),
        fmtMs(totals[3]),
        fmtRatio(totals[3] / totals[0]),
      ]);
      out();
      out(
        `A–F: median ms of ${runs} interleaved rounds after ${WARM_MS / 1000} s of warm-up per variant, short queries back to back within a round (as rest.ts)`,
      );
      table(
        ['query', 'rows', 'direct', 'wire prepared', '÷ direct', 'wire simple', '÷ direct', 'REST JSON', '÷ direct'],
        afRows,
      );
      out();
      out(
        "A–F: first execution, ms (the wire-prepared one includes Parse; it runs first, so it alone finds Junction's plan cache cold for the query)",
      );
      table(['query', ...variantNames], firstRows);
      out();
      out(
        "A–F answers: each variant's first answer against direct's (every row, in any order; 'same values': equal once numbers are compared by value)",
      );
      table(['query', 'direct rows', 'wire prepared', 'wire simple', 'REST JSON'], answerRows);
      out(`server RSS peak during A–F: ${mb(sectionRss)}`);
    }

    // ---------------------------------------------------------------- H
    let pgb: { direct?: PgbenchResult; wire?: PgbenchResult; cpuDirect?: CpuByProcess; cpuWire?: CpuByProcess } = {};
    if (want('H')) {
      const [keyParam] = workload.query('H').params;
      const customers = paramMax(keyParam, sf);
      const key = () => keyParam.min + Math.floor(Math.random() * (customers - keyParam.min + 1));
      const hD = sqlOf('H', 'direct');
      const hF = sqlOf('H', 'federated');

      // answers for three keys, every variant (the simple protocol with the key as a literal)
      const hAnswers: string[][] = [];
      for (const k of [keyParam.example, key(), key()]) {
        let d: Rows | undefined;
        try {
          d = await prepared(directPool, 'jdv_H', hD, [k]);
        } catch (e) {
          errors.add('H direct', e);
        }
        const cells: string[] = [String(k), String(d?.length ?? '–')];
        for (const [name, fn] of [
          ['wire prepared', () => prepared(wirePool, 'jdv_H', hF, [k])],
          ['wire simple', () => simple(wirePool, literalH(hF, k))],
          ['REST JSON', () => restRows(hF, [k])],
        ] as const) {
          try {
            const rows = await fn();
            if (!d) {
              cells.push('no direct answer');
              continue;
            }
            const c = compareAnswers(d, rows);
            if (c.verdict === 'DIFFERS') wrong.push(`H(${k}) ${name}: ${c.note}`);
            else if (c.verdict === 'same values') notes.push(`H(${k}) ${name}: ${c.note}`);
            cells.push(c.verdict);
          } catch (e) {
            errors.add(`H ${name}`, e);
            cells.push('ERROR');
          }
        }
        hAnswers.push(cells);
      }
      await describeCheck('H', hD, hF, [keyParam.example]);
      out();
      out("H answers (c_custkey: the workload's example, then two random): every variant against direct");
      table(['c_custkey', 'direct rows', 'wire prepared', 'wire simple', 'REST JSON'], hAnswers);

      const variants: [string, () => Promise<unknown>][] = [
        ['direct', () => prepared(directPool, 'jdv_H', hD, [key()])],
        ['wire prepared', () => prepared(wirePool, 'jdv_H', hF, [key()])],
        ['REST JSON', () => restCount(hF, [key()])],
      ];
      const hRows: string[][] = [];
      const cpuRows: string[][] = [];
      for (const clients of [1, 4, 16]) {
        const cpu: CpuByProcess[] = variants.map(() => NO_CPU);
        const lat = variants.map(() => [] as number[]);
        const done = variants.map(() => 0);
        const failed = variants.map(() => 0);
        let peak = 0;
        const slice = async (v: number, count: boolean) => {
          const deadline = performance.now() + 1000;
          const before = sampleCpu(server.pid);
          await Promise.all(
            Array.from({ length: clients }, async () => {
              while (performance.now() < deadline) {
                const t0 = performance.now();
                try {
                  await variants[v][1]();
                  if (count) {
                    done[v]++;
                    lat[v].push(performance.now() - t0);
                  }
                } catch (e) {
                  if (count) failed[v]++;
                  errors.add(`H × ${clients} ${variants[v][0]}${count ? '' : ' (warm-up)'}`, e);
                }
              }
            }),
          );
          if (count) cpu[v] = addCpu(cpu[v], cpuSince(before, server.pid));
          peak = Math.max(peak, server.rssBytes());
        };
        for (let v = 0; v < variants.length; v++) await slice(v, false);
        for (let i = 0; i < hSeconds; i++) for (let v = 0; v < variants.length; v++) await slice(v, true);
        const cell = (v: number) =>
          `${(done[v] / hSeconds).toFixed(0)} (${fmtMs(pct(lat[v], 0.5))} / ${fmtMs(pct(lat[v], 0.99))})${failed[v] ? ` [${failed[v]} errors]` : ''}`;
        hRows.push([
          String(clients),
          cell(0),
          cell(1),
          fmtRatio(done[1] / done[0]),
          cell(2),
          fmtRatio(done[2] / done[0]),
          `${(peak / 2 ** 20).toFixed(0)} MB`,
        ]);
        cpuRows.push([String(clients), ...variants.map((_, v) => cpuCell(cpu[v], done[v] + failed[v]))]);
      }
      out();
      out(
        `H (a random c_custkey per execution), ${hSeconds} interleaved 1 s slices per variant: executions/s (p50 / p99 ms) [errors]`,
      );
      table(
        ['clients', 'direct prepared', 'wire prepared', '÷ direct', 'REST JSON', '÷ direct', 'server RSS peak'],
        hRows,
      );
      out();
      out(
        'H: CPU per execution on this host, ms (bench process / Junction server / PostgreSQL / MariaDB = total; every process of those databases counts)',
      );
      table(['clients', ...variants.map((v) => v[0])], cpuRows);

      // ---------------------------------------------------------------- pgbench
      if (args.pgbench) {
        const directTarget: PgTarget = targetFromUrl(directUrl.toString());
        const wireTarget: PgTarget = {
          host: wireAt.host,
          port: wireAt.port,
          user: wireAt.user,
          password: wireAt.password,
          database: wireAt.database,
        };
        const scripts = {
          direct: writePgbenchScript(pgbenchScript(hD, keyParam.min, customers), 'jdv-h-direct.sql'),
          wire: writePgbenchScript(pgbenchScript(hF, keyParam.min, customers), 'jdv-h-federated.sql'),
        };
        const bench = async (target: PgTarget, script: string, label: string) => {
          sectionRss = server.rssBytes();
          const cpu = trackCommandsCpu(server.pid);
          try {
            const r = await runPgbench(target, script, {
              clients: 16,
              jobs: 2,
              seconds: hSeconds,
              protocol: 'prepared',
            });
            if (r.failed || r.aborted || r.exitCode !== 0)
              errors.add(
                `pgbench ${label}`,
                `${r.failed} failed transactions, ${r.aborted} aborted clients, exit ${r.exitCode}: ${r.stderr.split('\n').find((l) => /error|abort/i.test(l)) ?? r.stderr.slice(0, 200)}`,
              );
            return { r, cpu: cpu.stop(), rss: Math.max(sectionRss, server.rssBytes()) };
          } catch (e) {
            cpu.stop();
            errors.add(`pgbench ${label}`, e);
            return undefined;
          } finally {
            rssPeak = Math.max(rssPeak, server.rssBytes());
          }
        };
        const d = await bench(directTarget, scripts.direct, 'direct');
        const w = await bench(wireTarget, scripts.wire, 'Junction');
        pgb = { direct: d?.r, wire: w?.r, cpuDirect: d?.cpu, cpuWire: w?.cpu };
        const row = (label: string, x?: { r: PgbenchResult; cpu: CpuByProcess; rss: number }) =>
          x
            ? [
                label,
                x.r.tps.toFixed(0),
                x.r.latencyAvgMs === null ? '–' : x.r.latencyAvgMs.toFixed(1),
                String(x.r.processed),
                `${x.r.failed} failed, ${x.r.aborted} aborted`,
                label === 'direct' ? '1.00×' : pgb.direct ? fmtRatio(x.r.tps / pgb.direct.tps) : '–',
                cpuCell(x.cpu, x.r.processed),
                mb(x.rss),
              ]
            : [label, 'ERROR', '', '', '', '', '', ''];
        out();
        out(
          `H × 16 with pgbench -M prepared -n -c 16 -j 2 -T ${hSeconds} (a custom script: \\set k random(${keyParam.min}, ${customers}), the H query with :k), direct then Junction`,
        );
        table(
          [
            'target',
            'tps',
            'latency avg ms',
            'transactions',
            'errors',
            '÷ direct',
            'CPU per transaction, ms (pgbench / server / PostgreSQL / MariaDB = total)',
            'server RSS peak',
          ],
          [row('direct', d), row("Junction's port", w)],
        );
      }
    }

    // ---------------------------------------------------------------- goals and summary
    out();
    out('Goals (from the issue), for the wire with prepared statements:');
    const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'MET' : 'MISSED');
    const signed = (ms: number) => (Number.isFinite(ms) ? `${ms >= 0 ? '+' : ''}${ms.toFixed(2)} ms` : '–');
    const goalRows: string[][] = [];
    goalRows.push([
      'A within +1 ms of direct',
      aDelta ? `${signed(aDelta.wire)} (simple protocol ${signed(aDelta.simple)})` : '–',
      verdict(aDelta && Number.isFinite(aDelta.wire) ? aDelta.wire <= 1 : undefined),
    ]);
    const allAF = QUERIES.every(want);
    const afRatio = totals[1] / totals[0];
    goalRows.push([
      `A–F total ≤ 1.0× direct${allAF ? '' : ' (only some of A–F ran)'}`,
      totals[0] > 0 ? `${fmtRatio(afRatio)} (simple protocol ${fmtRatio(totals[2] / totals[0])})` : '–',
      verdict(allAF && Number.isFinite(afRatio) ? afRatio <= 1 : undefined),
    ]);
    const pgRatio = pgb.direct && pgb.wire ? pgb.wire.tps / pgb.direct.tps : undefined;
    goalRows.push([
      'H × 16 (pgbench, prepared) ≥ 0.35× direct',
      pgRatio === undefined
        ? '–'
        : `${fmtRatio(pgRatio)} (${pgb.wire!.tps.toFixed(0)} / ${pgb.direct!.tps.toFixed(0)} tps)`,
      verdict(pgRatio === undefined ? undefined : pgRatio >= 0.35),
    ]);
    table(['goal', 'measured', ''], goalRows);
    rssPeak = Math.max(rssPeak, server.rssBytes());
    out();
    out(`load average at the end: ${loadAverage()}`);
    out(`server RSS: peak ${mb(rssPeak)} over the run (sampled every 250 ms), ${mb(server.rssBytes())} at the end`);
    out(
      `answers: ${wrong.length === 0 ? 'every variant answered what direct answered' : `${wrong.length} DIFFER`}; errors: ${errors.total}`,
    );
    if (columns.same.length || columns.differ.length)
      out(
        `columns through the wire (names and type OIDs in RowDescription): as direct's for ${columns.same.join(', ') || 'none'}${columns.differ.length ? `; different for ${columns.differ.join(', ')} (see the notes)` : ''}`,
      );
    for (const w of wrong) out(`  wrong: ${w}`);
    for (const [where, n] of errors.count) out(`  error × ${n} in ${where}: ${errors.first.get(where)}`);
    for (const n of notes) out(`  note: ${n}`);
  } finally {
    clearInterval(rssSampler);
    await Promise.allSettled([directPool.end(), wirePool.end()]);
    await server.close();
  }
  if (profDir) out(`server CPU profile written to ${profDir}`);
  return wrong.length === 0 && errors.total === 0 ? 0 : 1;
}

// run directly (npm run bench -- --pg-wire imports it and calls runPgWireBench)
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  runPgWireBench(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
