import { requestJson } from './http.js';

/** The benchmark lab's API (apps/api/src/routes/benchmarks.ts), typed as far as the studio reads it. */
export interface Preset {
  id: string;
  name: string;
  description: string;
  queries: { id: string; title?: string }[];
  /** the preset's phases with their default settings (as built with a direct target) */
  phases: Phase[];
}

export type ParamGen =
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'list'; values: (string | number)[] }
  | { kind: 'sequence'; start: number; step?: number };

export interface BenchQuery {
  id: string;
  title?: string;
  federated: string;
  direct?: { source: string; sql: string };
  params?: ParamGen[];
  weight?: number;
}

/** A phase of a benchmark (apps/api/src/bench-lab/definition.ts) */
export type Phase =
  | { type: 'single'; label?: string; queries?: string[]; warmups: number; repetitions: number; modes?: Mode[] }
  | {
      type: 'concurrency';
      label?: string;
      query: string;
      users: number[];
      stepSeconds: number;
      thinkMs?: number;
      modes?: Mode[];
    }
  | {
      type: 'mix';
      label?: string;
      queries?: string[];
      users: number;
      durationSeconds: number;
      intervalSeconds: number;
      thinkMs?: number;
      mode?: Mode;
    }
  | { type: 'streams'; label?: string; queries?: string[]; users: number; mode?: Mode }
  | { type: 'coldwarm'; label?: string; queries?: string[]; warmPasses: number };

export interface LatencyStats {
  executions: number;
  errors: number;
  rows: number;
  bytes: number;
  minMs: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** trino: the federated SQL run with engine trino, on the server's Trino backend */
export type Mode = 'direct' | 'pushdown' | 'federated' | 'trino';
/** Every mode, in the order the tables and charts show them. */
export const MODES: readonly Mode[] = ['direct', 'pushdown', 'federated', 'trino'];

export interface QueryEntry {
  query: string;
  phase: string;
  phaseIndex: number;
  type: string;
  direct: LatencyStats | null;
  pushdown: LatencyStats | null;
  federated: LatencyStats | null;
  /** absent in runs stored before the lab had the trino mode */
  trino?: LatencyStats | null;
  equivalent: boolean | null;
  /** Trino's answers against the direct ones, when the run checked them */
  trinoEquivalent?: boolean | null;
  failed: boolean;
  /** the phase was cancelled or interrupted before its end: these are the executions it finished */
  partial?: boolean;
}

export interface AnswerCheck {
  direct: { rows: number; checksum: string } | null;
  federated: { rows: number; checksum: string } | null;
  equivalent: boolean | null;
  sample?: { onlyDirect: string[]; onlyFederated: string[] };
  error?: string;
  params?: (string | number)[];
  /** one per parameter set compared (absent in runs stored before several were) */
  checks?: { params: (string | number)[]; directRows: number; federatedRows: number; equivalent: boolean }[];
  /** rows both sides returned, over every check; 0: the check compared nothing */
  rowsCompared?: number;
  /** Trino's rows against the same direct rows, when a phase runs the query on Trino */
  trino?: {
    digest: { rows: number; checksum: string } | null;
    equivalent: boolean | null;
    sample?: { onlyDirect: string[]; onlyEngine: string[] };
    error?: string;
  };
}

export interface RunResults {
  environment?: Record<string, unknown>;
  answers?: Record<string, AnswerCheck>;
  queries?: QueryEntry[];
  steps?: {
    phase: string;
    phaseIndex: number;
    query: string;
    mode: Mode;
    users: number;
    seconds: number;
    throughput: number;
    stats: LatencyStats;
    partial?: boolean;
  }[];
  intervals?: {
    phase: string;
    phaseIndex: number;
    step: string;
    t: number;
    /** absent in runs stored before it was returned */
    seconds?: number;
    executions: number;
    errors: number;
    throughput: number;
    p50Ms: number;
    p90Ms: number;
    p95Ms: number;
    p99Ms: number;
    maxMs: number;
  }[];
  streams?: {
    phase: string;
    phaseIndex?: number;
    mode: Mode;
    users: number;
    geomeanMs: number;
    perQueryGeomeanMs: Record<string, number>;
    orders: string[][];
  }[];
  coldWarm?: {
    phase: string;
    phaseIndex?: number;
    query: string;
    coldMs: number | null;
    warmMs: (number | null)[];
    secondUserWarmMs: number | null;
  }[];
  samples?: {
    t: number;
    cpuPct: number;
    rssMb: number;
    eventLoopMeanMs: number;
    eventLoopMaxMs: number;
    machineBusyPct: number;
    /** absent in runs stored before it was sampled; null where the server cannot read it */
    ioWaitPct?: number | null;
    load1: number;
    sources: Record<string, { active: number | null }>;
  }[];
  errors?: { phase: string; query: string; mode: Mode; code: string; message: string; t: number }[];
  summary?: { executions: number; errors: number; mismatches: string[]; geomeanMs: number | null; seconds: number };
  /** what makes the numbers doubtful (the data at another scale than the settings say, an answer check over 0 rows) */
  warnings?: string[];
}

export interface Progress {
  phase: string | null;
  phaseIndex: number;
  phases: number;
  step: string | null;
  elapsedMs: number;
  executions: number;
  errors: number;
  fraction: number;
  error?: string;
  /** why a failed run failed: 'answers' when Junction's rows differed from the direct ones */
  failure?: 'answers' | 'error';
}

/** interrupted: the server stopped during the run; it keeps the results flushed until then */
export type RunStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'interrupted';

/** Where an imported run came from. */
export interface Imported {
  at: string;
  from: string | null;
  exportedAt: string | null;
}

export interface Run {
  id: string;
  name: string;
  benchmarkId: string | null;
  status: RunStatus;
  /** a role whose members may read the run besides its owner and admins */
  sharedRole: string | null;
  /** the caller may cancel, delete and share it (its owner or an admin) */
  mayChange: boolean;
  progress: Progress | null;
  results: RunResults;
  /** an import of an exported run, not run here */
  imported: Imported | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface RunSummary {
  id: string;
  name: string;
  benchmarkId: string | null;
  status: RunStatus;
  sharedRole: string | null;
  /** the caller's own run (else shared with their role, or an admin reading another's) */
  mine: boolean;
  imported?: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  summary: RunResults['summary'] | null;
}

export interface CompareRow {
  phase: string;
  phaseIndex?: number;
  query: string;
  mode: Mode;
  a: LatencyStats | null;
  b: LatencyStats | null;
  p50DiffPct: number | null;
  p95DiffPct: number | null;
  equivalentA: boolean | null;
  equivalentB: boolean | null;
  /** that run's phase ended early (cancelled or interrupted) */
  partialA?: boolean;
  partialB?: boolean;
}

export interface Comparison {
  a: { id: string; name: string; status: string; createdAt: string };
  b: { id: string; name: string; status: string; createdAt: string };
  queries: CompareRow[];
  geomean: { a: number | null; b: number | null; diffPct: number | null };
}

export interface LoadJob {
  id: string;
  status: 'running' | 'done' | 'failed';
  layout: 'jdv' | 'single';
  sf: number;
  rows: number;
  totalRows: number;
  fraction: number;
  message: string | null;
}

export interface NewBenchmark {
  name: string;
  preset?: string;
  queries?: BenchQuery[];
  phases?: Phase[];
  sources?: Record<string, string>;
  settings?: { sf?: number; direct?: string };
  overrides?: {
    repetitions?: number;
    warmups?: number;
    stepSeconds?: number;
    durationSeconds?: number;
    maxUsers?: number;
    warmPasses?: number;
  };
}

const enc = encodeURIComponent;

export const benchApi = {
  presets: () => requestJson<Preset[]>('/benchmarks/presets'),
  create: (b: NewBenchmark) => requestJson<{ id: string }>('/benchmarks', { body: b }),
  start: (benchmarkId: string) =>
    requestJson<{ runId: string }>(`/benchmarks/${enc(benchmarkId)}/runs`, { method: 'POST', body: {} }),
  runs: () => requestJson<RunSummary[]>('/benchmark-runs'),
  run: (id: string) => requestJson<Run>(`/benchmark-runs/${enc(id)}`),
  cancel: (id: string) =>
    requestJson<{ ok: boolean; status: string }>(`/benchmark-runs/${enc(id)}`, { method: 'DELETE' }),
  share: (id: string, sharedRole: string | null) =>
    requestJson<{ ok: boolean }>(`/benchmark-runs/${enc(id)}`, { method: 'PATCH', body: { sharedRole } }),
  compare: (a: string, b: string) => requestJson<Comparison>(`/benchmark-runs/${enc(a)}/compare/${enc(b)}`),
  exportUrl: (id: string, format: 'json' | 'csv') => `/api/v1/benchmark-runs/${enc(id)}/export?format=${format}`,
  importRun: (json: unknown) => requestJson<{ runId: string }>('/benchmark-runs/import', { body: json }),
  load: (layout: 'jdv' | 'single', sf: number, sources: Record<string, string>) =>
    requestJson<LoadJob>('/benchmarks/load', { body: { layout, sf, sources } }),
  loadJob: (id: string) => requestJson<LoadJob>(`/benchmarks/load/${enc(id)}`),
};
