import type { Connector, RemoteQuery, RenderedQuery, Row } from '@junction/connectors';
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
    if (filter) {
      const maxInList = this.connector.capabilities().maxInList || 1000;
      return fetchByKeys(ctx, this, filter.column, filter.keys, { maxInList, maxParallel: 4 }, { statements: 0, keys: 0 });
    }
    const run = () => streamStatement(ctx, this.source, this.connector, this.rendered, this.id);
    return ctx.fragments ? ctx.fragments.wrap(this.source, this.query, this.rendered, run) : run();
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
    for await (const batch of connector.stream(rendered, { signal: ctx.signal, batchSize: ctx.batchSize, access: ctx.access })) {
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
