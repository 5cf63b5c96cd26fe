import type { NotPushed } from '../plan/logical.js';
import type { Row, Value } from '@junction/connectors';
import { maybeYield, type ExecContext } from './context.js';
import type { SpillMetrics } from './spill/spill-metrics.js';

export interface OperatorMetrics {
  rows: number;
  batches: number;
  /** time spent inside this operator's next() calls, children included (like PostgreSQL's actual time) */
  timeMs: number;
  started: boolean;
}

/** What EXPLAIN shows about an operator; fixed before execution. */
export interface OperatorInfo {
  /** RemoteQuery, HashJoin, DependentJoin, Filter, HashAggregate, Sort, … */
  readonly operator: string;
  readonly runsIn: string;
  readonly detail?: string;
  readonly sql?: string;
  readonly params?: readonly Value[];
  readonly notPushed?: readonly NotPushed[];
  readonly estimatedRows?: number;
  /** what the operator wrote to disk in its last run (operators that spill) */
  readonly spill?: SpillMetrics;
}

let nextId = 1;

/**
 * A physical operator: streams batches of rows. Every operator counts rows, batches and
 * time as it runs so EXPLAIN ANALYZE can print them, and stops its children when its
 * consumer stops early (a returned async generator closes the ones it iterates).
 */
export abstract class Operator {
  readonly id = nextId++;
  readonly metrics: OperatorMetrics = { rows: 0, batches: 0, timeMs: 0, started: false };
  abstract readonly children: readonly Operator[];
  abstract info(): OperatorInfo;
  protected abstract run(ctx: ExecContext): AsyncIterable<Row[]>;

  execute(ctx: ExecContext): AsyncIterable<Row[]> {
    return instrument(this.metrics, this.run(ctx), ctx.signal);
  }
}

function instrument(metrics: OperatorMetrics, source: AsyncIterable<Row[]>, signal: AbortSignal): AsyncIterable<Row[]> {
  metrics.started = true;
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      return {
        async next() {
          const t0 = performance.now();
          try {
            const r = await it.next();
            await maybeYield(signal);
            if (!r.done) {
              metrics.rows += r.value.length;
              metrics.batches++;
            }
            return r;
          } finally {
            metrics.timeMs += performance.now() - t0;
          }
        },
        async return(value?: unknown) {
          if (it.return) await it.return(value);
          return { done: true as const, value: undefined };
        },
      };
    },
  };
}

/** Every row of an input, materialised. Callers reserve memory for what they keep. */
export async function collect(input: AsyncIterable<readonly Row[]>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const b of input) for (const r of b) out.push(r);
  return out;
}

/** Cuts a row array into batches of `size` without copying rows. */
export function* chunk(rows: Row[], size: number): Iterable<Row[]> {
  if (rows.length <= size) {
    if (rows.length > 0) yield rows;
    return;
  }
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
