import { JunctionError, type Row } from '@junction/connectors';
import type { QueryStats } from '../api.js';
import type { ExecContext } from './context.js';
import type { Operator } from './operator.js';

export interface RunLimits {
  readonly maxRows?: number;
}

/**
 * One execution of a physical plan: the row stream handed to the caller, with the
 * query's abort controller, row limit and statistics. Whatever ends the stream (last
 * row, error, the caller stopping early) releases the plan and stops any statement still
 * running in a source.
 */
export class QueryRun {
  private rowsOut = 0;
  private readonly started = performance.now();
  private ended: number | undefined;

  constructor(
    readonly root: Operator,
    readonly ctx: ExecContext,
    private readonly controller: AbortController,
    private readonly limits: RunLimits,
    private readonly cleanup: () => void,
  ) {}

  private consumed = false;

  rows(): AsyncIterable<readonly Row[]> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        // a second reader would run every source statement again: a result is read once
        if (self.consumed) throw new JunctionError('result_consumed', 'user', 'The rows of this query result were already read. Run the query again.');
        self.consumed = true;
        let finished = false;
        try {
          for await (const batch of self.root.execute(self.ctx)) {
            self.rowsOut += batch.length;
            if (self.limits.maxRows !== undefined && self.rowsOut > self.limits.maxRows) {
              throw new JunctionError(
                'max_rows_exceeded',
                // the caller asked for (or is capped at) fewer rows than the query returns: a
                // client error to fix with LIMIT or a narrower query, not an overloaded server
                'user',
                `The query returns more than the allowed ${self.limits.maxRows} rows. Add a LIMIT or a narrower WHERE clause.`,
                { details: { maxRows: self.limits.maxRows } },
              );
            }
            yield batch;
          }
          finished = true;
        } catch (e) {
          throw shielded(toJunctionError(e, self.controller.signal), self.ctx);
        } finally {
          self.ended = performance.now();
          if (!finished && !self.controller.signal.aborted) {
            self.controller.abort(new JunctionError('query_closed', 'cancelled', 'The query was closed before its last row.'));
          }
          self.cleanup();
        }
      },
    };
  }

  cancel(reason?: string): void {
    if (!this.controller.signal.aborted) {
      this.controller.abort(new JunctionError('query_cancelled', 'cancelled', reason ? `The query was cancelled: ${reason}` : 'The query was cancelled.'));
    }
  }

  /** the engine's part of the stats (which engine ran) is the caller's to add */
  stats(): Omit<QueryStats, 'engine' | 'engineReason'> {
    return {
      rows: this.rowsOut,
      elapsedMs: (this.ended ?? performance.now()) - this.started,
      sourceStatements: this.ctx.statements.map((s) => ({
        source: s.source,
        sql: s.sql,
        rows: s.rows,
        timeMs: s.timeMs,
        ...(s.startMs !== undefined ? { startMs: s.startMs, endMs: s.endMs ?? s.startMs + s.timeMs } : {}),
        ...(s.stoppedEarly !== undefined ? { stoppedEarly: s.stoppedEarly } : {}),
      })),
      peakMemoryBytes: this.ctx.memory.peak,
      spilledBytes: this.ctx.disk?.writtenBytes ?? 0,
    };
  }
}

/** Errors leave the engine as JunctionErrors: the abort reason when the query was stopped, else the error or an internal one. */
/**
 * The error of a query that reads rows the caller may see only through a view, marked so
 * (details.readThroughView): a message that quotes a value it read (a failed cast, a source's own
 * text) could show a row the view hides, and the API shows such callers a message without it.
 */
export function shielded(e: JunctionError, ctx: ExecContext): JunctionError {
  if (!ctx.readsThroughView || e.details?.readThroughView === true) return e;
  return new JunctionError(e.code, e.kind, e.message, {
    cause: e,
    ...(e.position ? { position: e.position } : {}),
    details: { ...e.details, readThroughView: true },
  });
}

export function toJunctionError(e: unknown, signal: AbortSignal): JunctionError {
  if (signal.aborted && signal.reason instanceof JunctionError && !(e instanceof JunctionError && e.kind !== 'cancelled')) return signal.reason;
  if (e instanceof JunctionError) return e;
  return new JunctionError('internal_error', 'internal', 'Junction hit an internal error while running the query.', { cause: e });
}
