import type { AnswerCheck } from './answer.js';
import type { Mode } from './definition.js';
import type { LatencyStats } from './stats.js';

/** What a run stores (BenchmarkRun.results) and the API returns. */
export interface QueryResultEntry {
  readonly query: string;
  readonly phase: string;
  readonly phaseIndex: number;
  readonly type: string;
  direct: LatencyStats | null;
  pushdown: LatencyStats | null;
  federated: LatencyStats | null;
  /** the federated SQL run on the Trino backend (absent in runs stored before the lab had the mode) */
  trino?: LatencyStats | null;
  /** federated vs direct answers (row count + order-independent checksum); null without a direct target */
  equivalent: boolean | null;
  /** Trino's answers vs the direct ones; set only when the run checked them (a phase runs the query on trino) */
  trinoEquivalent?: boolean | null;
  /** a wrong answer, federated or on Trino, is a failure whatever its speed */
  failed: boolean;
  /** the phase ended early (cancelled, or the server stopped): the stats are of what it finished */
  partial?: boolean;
}

export interface StepEntry {
  readonly phase: string;
  readonly phaseIndex: number;
  readonly query: string;
  readonly mode: Mode;
  readonly users: number;
  readonly seconds: number;
  readonly throughput: number;
  readonly stats: LatencyStats;
  /** a step cut short by a cancel */
  readonly partial?: boolean;
}

export interface IntervalEntry {
  readonly phase: string;
  readonly phaseIndex: number;
  readonly step: string;
  /** seconds since the run started, at the end of the interval */
  readonly t: number;
  readonly seconds: number;
  readonly executions: number;
  readonly errors: number;
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface StreamEntry {
  readonly phase: string;
  readonly phaseIndex: number;
  readonly mode: Mode;
  readonly users: number;
  readonly geomeanMs: number;
  readonly perQueryGeomeanMs: Record<string, number>;
  readonly orders: string[][];
  readonly seconds: number;
}

export interface ColdWarmEntry {
  readonly phase: string;
  readonly phaseIndex: number;
  readonly query: string;
  coldMs: number | null;
  warmMs: (number | null)[];
  secondUserWarmMs: number | null;
}

export interface Sample {
  readonly t: number;
  readonly cpuPct: number;
  readonly rssMb: number;
  readonly eventLoopMeanMs: number;
  readonly eventLoopMaxMs: number;
  readonly machineBusyPct: number;
  /** share of the machine's CPU time spent idle waiting for I/O; null where it cannot be read */
  readonly ioWaitPct: number | null;
  readonly load1: number;
  readonly sources: Record<string, { active: number | null }>;
}

export interface RunError {
  readonly phase: string;
  readonly query: string;
  readonly mode: Mode;
  readonly code: string;
  readonly message: string;
  readonly t: number;
}

export interface RunResults {
  environment: Record<string, unknown>;
  answers: Record<string, AnswerCheck>;
  queries: QueryResultEntry[];
  steps: StepEntry[];
  intervals: IntervalEntry[];
  streams: StreamEntry[];
  coldWarm: ColdWarmEntry[];
  samples: Sample[];
  /** the first errors (up to 200); every error is counted in the stats */
  errors: RunError[];
  /** what makes the numbers doubtful: data at another scale than the settings say, a check over 0 rows */
  warnings: string[];
  summary: {
    executions: number;
    errors: number;
    mismatches: string[];
    geomeanMs: number | null;
    seconds: number;
  };
}

export interface Progress {
  phase: string | null;
  phaseIndex: number;
  phases: number;
  step: string | null;
  elapsedMs: number;
  executions: number;
  errors: number;
  /** 0…1: phases done, and within a phase its steps and, in a timed one, its time */
  fraction: number;
  /** why a run failed: 'answers' when Junction's rows differ from the direct ones */
  failure?: 'answers' | 'error';
  error?: string;
}

export function emptyResults(): RunResults {
  return {
    environment: {},
    answers: {},
    queries: [],
    steps: [],
    intervals: [],
    streams: [],
    coldWarm: [],
    samples: [],
    errors: [],
    warnings: [],
    summary: { executions: 0, errors: 0, mismatches: [], geomeanMs: null, seconds: 0 },
  };
}
