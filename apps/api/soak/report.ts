/**
 * The soak's bookkeeping: operations and server samples fall into fixed windows, and the verdict
 * compares windows. Pure (no I/O), so the rules the soak fails on are unit-tested
 * (report.test.ts) rather than trusted.
 */

export interface Op {
  readonly kind: string;
  readonly at: number;
  readonly ms: number;
  /** HTTP status; 0 when the connection itself failed */
  readonly status: number;
  /** the API's error code, or the client's ('socket_error', 'stream_error') */
  readonly code?: string;
  /** an injected fault's own query: its failure is the fault working, not a defect */
  readonly faulted: boolean;
}

export interface Sample {
  readonly at: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** memory V8 does not hold on its heap: Buffers and the like (RSS growth with a flat heap shows here, or in the allocator) */
  readonly externalBytes: number;
  readonly handles: number;
  readonly sockets: number | null;
  readonly fds: number | null;
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
}

export interface FaultRecord {
  readonly name: string;
  /** ms since the soak started */
  readonly startedAt: number;
  readonly clearedAt: number;
  /** codes the fault's own queries got while it lasted, with counts */
  readonly saw: Readonly<Record<string, number>>;
  /** cleared → first successful query on the faulted source; null: never within the run */
  readonly recoveryMs: number | null;
}

export interface Window {
  readonly index: number;
  readonly fromS: number;
  readonly toS: number;
  readonly ops: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** errors by status:code, the injected faults' own queries apart */
  readonly errors: Readonly<Record<string, number>>;
  readonly faultErrors: number;
  readonly rssMB: number;
  readonly heapMB: number;
  readonly externalMB: number;
  readonly handles: number;
  readonly sockets: number | null;
  readonly fds: number | null;
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Windows of `windowMs` from `t0`; a window's server figures are its last sample (the state it ended in). */
export function windows(
  ops: readonly Op[],
  samples: readonly Sample[],
  t0: number,
  windowMs: number,
  endAt: number,
): Window[] {
  // a tail shorter than half a window says little and would be compared as the "last" one
  const count = Math.max(1, Math.round((endAt - t0) / windowMs));
  endAt = Math.min(endAt, t0 + count * windowMs);
  const out: Window[] = [];
  for (let i = 0; i < count; i++) {
    const from = t0 + i * windowMs;
    const to = Math.min(endAt, from + windowMs);
    const inside = ops.filter((o) => o.at >= from && o.at < to);
    const ok = inside.filter((o) => o.status === 200 && !o.code);
    const ms = ok.map((o) => o.ms).sort((a, b) => a - b);
    const errors: Record<string, number> = {};
    let faultErrors = 0;
    for (const o of inside) {
      if (o.status === 200 && !o.code) continue;
      if (o.faulted) faultErrors++;
      else errors[`${o.status}:${o.code ?? '-'}`] = (errors[`${o.status}:${o.code ?? '-'}`] ?? 0) + 1;
    }
    const within = samples.filter((s) => s.at >= from && s.at < to);
    const last = within[within.length - 1] ?? samples.filter((s) => s.at < to).pop();
    out.push({
      index: i + 1,
      fromS: Math.round((from - t0) / 1000),
      toS: Math.round((to - t0) / 1000),
      ops: inside.length,
      perSecond: round(inside.length / Math.max(0.001, (to - from) / 1000)),
      p50Ms: round(percentile(ms, 50)),
      p99Ms: round(percentile(ms, 99)),
      errors,
      faultErrors,
      rssMB: last ? round(last.rssBytes / 2 ** 20) : 0,
      heapMB: last ? round(last.heapUsedBytes / 2 ** 20) : 0,
      externalMB: last ? round(last.externalBytes / 2 ** 20) : 0,
      handles: last?.handles ?? 0,
      sockets: last?.sockets ?? null,
      fds: last?.fds ?? null,
      loopP99Ms: within.length ? Math.max(...within.map((s) => s.loopP99Ms)) : 0,
      loopMaxMs: within.length ? Math.max(...within.map((s) => s.loopMaxMs)) : 0,
    });
  }
  return out;
}

export interface Verdict {
  readonly ok: boolean;
  readonly findings: readonly string[];
}

/**
 * The goals: the last window's RSS within 10 % (rssTolerance) of the second's (the first is warm-up),
 * handles, sockets and descriptors as flat (10 %, with a small absolute slack for the pools'
 * own churn), no 5xx but the injected faults' own, every fault recovered.
 */
export function verdict(
  ws: readonly Window[],
  faults: readonly FaultRecord[],
  maxRecoveryMs: number,
  rssTolerance = 0.1,
): Verdict {
  const findings: string[] = [];
  if (ws.length >= 3) {
    const second = ws[1];
    const last = ws[ws.length - 1];
    const flat = (what: string, a: number | null, b: number | null, slack: number, tolerance = 0.1): void => {
      if (a === null || b === null) return;
      if (b > a * (1 + tolerance) + slack)
        findings.push(`${what} grew from ${a} (window 2) to ${b} (window ${last.index})`);
    };
    flat('RSS MB', second.rssMB, last.rssMB, 0, rssTolerance);
    flat('handles', second.handles, last.handles, 8);
    flat('sockets', second.sockets, last.sockets, 8);
    flat('file descriptors', second.fds, last.fds, 8);
  } else findings.push(`only ${ws.length} window(s): too short to compare memory and handles over time`);
  for (const w of ws)
    for (const [key, n] of Object.entries(w.errors))
      if (Number(key.split(':')[0]) >= 500 || key.startsWith('0:'))
        findings.push(`window ${w.index}: ${n} × ${key} outside the injected faults`);
  for (const f of faults)
    if (f.recoveryMs === null) findings.push(`fault ${f.name}: the source never answered again`);
    else if (f.recoveryMs > maxRecoveryMs)
      findings.push(`fault ${f.name}: recovered only after ${f.recoveryMs} ms (limit ${maxRecoveryMs} ms)`);
  return { ok: findings.length === 0, findings };
}

export function markdown(ws: readonly Window[], faults: readonly FaultRecord[]): string {
  const errs = (e: Readonly<Record<string, number>>): string =>
    Object.entries(e)
      .map(([k, n]) => `${k}×${n}`)
      .join(' ') || '0';
  const lines = [
    '| window | s | ops | ops/s | p50 ms | p99 ms | errors (not injected) | fault-query errors | RSS MB | heap MB | external MB | handles | sockets | fds | loop p99/max ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...ws.map(
      (w) =>
        `| ${w.index} | ${w.fromS}–${w.toS} | ${w.ops} | ${w.perSecond} | ${w.p50Ms} | ${w.p99Ms} | ${errs(w.errors)} | ${w.faultErrors} | ${w.rssMB} | ${w.heapMB} | ${w.externalMB} | ${w.handles} | ${w.sockets ?? '-'} | ${w.fds ?? '-'} | ${w.loopP99Ms}/${w.loopMaxMs} |`,
    ),
    '',
    '| fault | at s | lasted s | what its queries got | recovery ms |',
    '|---|---|---|---|---|',
  ];
  for (const f of faults)
    lines.push(
      `| ${f.name} | ${Math.round(f.startedAt / 1000)} | ${Math.round((f.clearedAt - f.startedAt) / 1000)} | ${errs(f.saw)} | ${f.recoveryMs ?? 'never'} |`,
    );
  return lines.join('\n');
}
