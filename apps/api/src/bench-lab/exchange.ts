import { defuse, type ExportOptions } from '../lib/result-encoders.js';
import type { LatencyStats } from './stats.js';
import type { QueryResultEntry, RunResults } from './results.js';

export const EXPORT_FORMAT = 'junction-benchmark-run';

export interface RunRecord {
  id: string;
  name: string;
  benchmarkId: string | null;
  status: string;
  /** a role whose members may read the run besides its owner and admins (an import does not keep it) */
  sharedRole?: string | null;
  progress: unknown;
  definition: unknown;
  results: Partial<RunResults>;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** The JSON export: everything needed to import the run elsewhere and chart it. */
export function exportJson(run: RunRecord): Record<string, unknown> {
  return { format: EXPORT_FORMAT, version: 1, exportedAt: new Date().toISOString(), run };
}

const MODES = ['direct', 'pushdown', 'federated', 'trino'] as const;
type EntryMode = (typeof MODES)[number];

/** A query entry's stats in a mode (runs stored before the trino mode have no such field). */
const statsIn = (q: QueryResultEntry, m: EntryMode): LatencyStats | null => q[m] ?? null;
/** The answer check of that mode: Trino's own, the federated one for the modes through Junction. */
const equivalentIn = (q: QueryResultEntry, m: EntryMode): boolean | null =>
  m === 'trino' ? (q.trinoEquivalent ?? null) : q.equivalent;
const COLUMNS = [
  'executions',
  'errors',
  'rows',
  'bytes',
  'minMs',
  'meanMs',
  'p50Ms',
  'p90Ms',
  'p95Ms',
  'p99Ms',
  'maxMs',
] as const;

/** formulaSafe: phase and query names are the definer's text, defused as in query exports */
function csvCell(v: unknown, formulaSafe: boolean): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' && formulaSafe ? defuse(v) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line per query, phase and mode (results.queries), then the concurrency steps. */
export function exportCsv(run: RunRecord, opts: ExportOptions = {}): string {
  const cell = (v: unknown) => csvCell(v, opts.formulaSafe ?? true);
  const lines = [['run', 'phase', 'query', 'mode', 'users', 'throughput', ...COLUMNS, 'equivalent'].join(',')];
  for (const q of run.results.queries ?? []) {
    for (const m of MODES) {
      const s = statsIn(q, m);
      if (!s) continue;
      lines.push(
        [run.id, q.phase, q.query, m, '', '', ...COLUMNS.map((c) => s[c]), equivalentIn(q, m)].map(cell).join(','),
      );
    }
  }
  for (const st of run.results.steps ?? []) {
    lines.push(
      [run.id, st.phase, st.query, st.mode, st.users, st.throughput, ...COLUMNS.map((c) => st.stats[c]), '']
        .map(cell)
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
}

export interface CompareRow {
  readonly phase: string;
  readonly phaseIndex: number;
  readonly query: string;
  readonly mode: string;
  readonly a: LatencyStats | null;
  readonly b: LatencyStats | null;
  /** (b − a) / a of p50, in percent; negative is faster */
  readonly p50DiffPct: number | null;
  readonly p95DiffPct: number | null;
  readonly equivalentA: boolean | null;
  readonly equivalentB: boolean | null;
  /** that run's phase ended early (cancelled or interrupted): its stats are of what it finished */
  readonly partialA?: boolean;
  readonly partialB?: boolean;
}

const pct = (a: number | undefined, b: number | undefined): number | null =>
  a && b !== undefined ? Math.round(((b - a) / a) * 1000) / 10 : null;

/** Two runs side by side: per phase, query and mode, with the difference in percent. */
export function compareRuns(a: RunRecord, b: RunRecord) {
  const key = (q: QueryResultEntry, m: string) => `${q.phase}\u0000${q.query}\u0000${m}`;
  const rows = new Map<
    string,
    { phase: string; phaseIndex: number; query: string; mode: EntryMode; a?: QueryResultEntry; b?: QueryResultEntry }
  >();
  for (const [side, run] of [
    ['a', a],
    ['b', b],
  ] as const) {
    for (const q of run.results.queries ?? []) {
      for (const m of MODES) {
        if (!statsIn(q, m)) continue;
        const k = key(q, m);
        const r = rows.get(k) ?? { phase: q.phase, phaseIndex: q.phaseIndex, query: q.query, mode: m };
        r[side] = q;
        rows.set(k, r);
      }
    }
  }
  const out: CompareRow[] = [...rows.values()].map((r) => {
    const sa = r.a ? statsIn(r.a, r.mode) : null;
    const sb = r.b ? statsIn(r.b, r.mode) : null;
    return {
      phase: r.phase,
      phaseIndex: r.phaseIndex,
      query: r.query,
      mode: r.mode,
      a: sa,
      b: sb,
      p50DiffPct: pct(sa?.p50Ms, sb?.p50Ms),
      p95DiffPct: pct(sa?.p95Ms, sb?.p95Ms),
      equivalentA: r.a ? equivalentIn(r.a, r.mode) : null,
      equivalentB: r.b ? equivalentIn(r.b, r.mode) : null,
      ...(r.a?.partial ? { partialA: true } : {}),
      ...(r.b?.partial ? { partialB: true } : {}),
    };
  });
  const ga = a.results.summary?.geomeanMs ?? null;
  const gb = b.results.summary?.geomeanMs ?? null;
  return {
    a: { id: a.id, name: a.name, status: a.status, createdAt: a.createdAt },
    b: { id: b.id, name: b.name, status: b.status, createdAt: b.createdAt },
    queries: out,
    geomean: { a: ga, b: gb, diffPct: ga && gb !== null ? pct(ga, gb) : null },
  };
}
