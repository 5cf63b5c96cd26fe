import { JunctionError, type Connector, type RemoteQuery, type RenderedQuery, type Row } from '@junction/connectors';
import { checkAborted, type ExecContext, type StatementRecord } from './context.js';
import { Operator, type OperatorInfo } from './operator.js';
import { fetchByKeys } from './dependent-join/fetch-by-keys.js';

/**
 * Runs one rendered statement in its source and streams the rows. The SQL and parameters
 * are fixed at planning time (EXPLAIN shows exactly what runs); the query's abort signal
 * is handed to the connector so cancel and timeout reach the server.
 */
export class RemoteScanOp extends Operator {
  readonly children = [];
  constructor(
    readonly source: string,
    readonly connector: Connector,
    /** kept so a dependent join can add IN lists and render variants of it */
    readonly query: RemoteQuery,
    readonly rendered: RenderedQuery,
    private readonly estimatedRows?: number,
  ) {
    super();
  }
  info(): OperatorInfo {
    return {
      operator: 'RemoteQuery',
      runsIn: this.source,
      sql: this.rendered.sql,
      params: this.rendered.params,
      estimatedRows: this.estimatedRows,
    };
  }
  protected run(ctx: ExecContext): AsyncIterable<Row[]> {
    const filter = ctx.keyFilters?.get(this.id);
    const run = () => streamStatement(ctx, this.source, this.connector, this.rendered, this.id);
    const rows = filter
      ? fetchByKeys(ctx, this, filter.column, filter.keys, { maxInList: this.connector.capabilities().maxInList || 1000, maxParallel: 4 }, { statements: 0, keys: 0 })
      : ctx.fragments
        ? ctx.fragments.wrap(this.source, this.query, this.rendered, run)
        : run();
    const hook = ctx.backendFailure;
    return hook && hook.backend === this.source ? attributed(rows, ctx.signal, (e) => hook.attribute(this.query, e)) : rows;
  }
}

/**
 * A backend's statement reads several sources; when it fails for a reason outside Junction (not
 * a stop, not the data), the backend is asked which of them it could not read.
 */
async function* attributed(
  rows: AsyncIterable<Row[]>,
  signal: AbortSignal,
  attribute: (e: JunctionError) => Promise<JunctionError>,
): AsyncIterable<Row[]> {
  try {
    yield* rows;
  } catch (e) {
    if (signal.aborted || !(e instanceof JunctionError) || e.kind !== 'external') throw e;
    throw await attribute(e);
  }
}

/** Streams one statement, recording it (SQL, params, rows, time) in the query's stats. */
export async function* streamStatement(
  ctx: ExecContext,
  source: string,
  connector: Connector,
  rendered: RenderedQuery,
  operatorId: number,
): AsyncIterable<Row[]> {
  checkAborted(ctx.signal);
  const record: StatementRecord = { source, sql: rendered.sql, params: rendered.params, rows: 0, batches: 0, timeMs: 0, operatorId };
  ctx.statements.push(record);
  const t0 = performance.now();
  if (ctx.startedAt !== undefined) record.startMs = t0 - ctx.startedAt;
  let complete = false;
  try {
    for await (const batch of connector.stream(rendered, { signal: ctx.signal, batchSize: ctx.batchSize, batchBytes: ctx.batchBytes, access: ctx.access })) {
      record.rows += batch.rows.length;
      if (batch.rows.length > 0) {
        record.batches++;
        yield batch.rows as Row[];
      }
    }
    complete = true;
  } finally {
    const t1 = performance.now();
    record.timeMs = t1 - t0;
    if (ctx.startedAt !== undefined) record.endMs = t1 - ctx.startedAt;
    record.stoppedEarly = !complete;
  }
}
