import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in ticks of 10 ms on every architecture Node runs on here. */
const TICK_MS = 10;

/** user + system CPU of one process so far, in ms; 0 once it has exited. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The processes on this host with one of these command names: pid → name. */
export function processesNamed(names: readonly string[]): Map<number, string> {
  const byPid = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (names.includes(comm)) byPid.set(Number(entry), comm);
  }
  return byPid;
}

/** CPU so far of every process on this host with one of these command names, by pid (PostgreSQL runs one per connection). */
function cpuOfCommands(names: readonly string[]): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of processesNamed(names).keys()) byPid.set(pid, cpuMs(pid));
  return byPid;
}

/** CPU spent between two samples by the processes alive at both (a backend that exited took its time with it). */
function spent(before: ReadonlyMap<number, number>, now: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, ms] of now) {
    const was = before.get(pid);
    if (was !== undefined && ms >= was) total += ms - was;
  }
  return total;
}

/** CPU time (ms) of each process a benchmark query crosses. */
export interface CpuByProcess {
  /** the benchmark process: its clients, and the engine itself for an in-process variant */
  readonly bench: number;
  readonly server: number;
  readonly postgres: number;
  readonly mariadb: number;
}

/** A sample to measure from: the processes' CPU so far. */
export interface CpuSample {
  readonly bench: number;
  readonly server: number;
  readonly postgres: ReadonlyMap<number, number>;
  readonly mariadb: ReadonlyMap<number, number>;
}

/**
 * Where a query's CPU goes, machine-wide: on two cores a federated query competes with its own
 * sources, so executions per second are bounded by the sum, not by Junction's share alone.
 * Counts every PostgreSQL and MariaDB process on the host, so it is only meaningful when the
 * databases are local and nothing else uses them; a backend that starts or exits between two
 * samples is left out (the benchmark's pools keep theirs open).
 */
export function sampleCpu(serverPid: number): CpuSample {
  return {
    bench: cpuMs(process.pid),
    server: cpuMs(serverPid),
    postgres: cpuOfCommands(['postgres']),
    mariadb: cpuOfCommands(['mariadbd', 'mysqld']),
  };
}

export function cpuSince(before: CpuSample, serverPid: number): CpuByProcess {
  const now = sampleCpu(serverPid);
  return {
    bench: now.bench - before.bench,
    server: now.server - before.server,
    postgres: spent(before.postgres, now.postgres),
    mariadb: spent(before.mariadb, now.mariadb),
  };
}

export function addCpu(a: CpuByProcess, b: CpuByProcess): CpuByProcess {
  return {
    bench: a.bench + b.bench,
    server: a.server + b.server,
    postgres: a.postgres + b.postgres,
    mariadb: a.mariadb + b.mariadb,
  };
}

export const NO_CPU: CpuByProcess = { bench: 0, server: 0, postgres: 0, mariadb: 0 };

/** "bench / server / PostgreSQL / MariaDB = total" per execution, in ms. */
export function cpuCell(cpu: CpuByProcess, executions: number): string {
  if (executions === 0) return '–';
  const per = (ms: number) => (ms / executions).toFixed(2);
  const total = cpu.bench + cpu.server + cpu.postgres + cpu.mariadb;
  return `${per(cpu.bench)} / ${per(cpu.server)} / ${per(cpu.postgres)} / ${per(cpu.mariadb)} = ${per(total)}`;
}
