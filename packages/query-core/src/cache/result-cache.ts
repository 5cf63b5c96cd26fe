import { serialize } from 'node:v8';
import { JunctionError, type ColumnMeta, type Row, type Value } from '@junction/connectors';
import type { QueryResult, QueryStats, RelationReference } from '../api.js';
import { checkAborted } from '../exec/context.js';
import type { CacheHit, Recording } from './cache-store.js';
import { statementKey } from './statement.js';

/**
 * The key of a statement's result: the parsed statement (statementKey: never its raw text), its
 * parameter values, search path and resolved relations. Binding already checked the caller's
 * grants on every relation the statement names (a caller without them never gets here), and the
 * answer depends on nothing else about the caller; the resolved relations are part of the key so
 * that one text naming different relations (a search path, an unqualified name) never shares an
 * entry. Callers whose grants admit the statement therefore share one entry, and no one else
 * reaches it.
 */
export function resultKey(
  sql: string,
  params: readonly Value[],
  searchPath: readonly string[] | undefined,
  references: readonly RelationReference[],
  engine = 'local',
): string {
  const refs = references.map((r) => (r.kind === 'table' ? `t:${r.source}.${r.schema}.${r.table}` : `v:${r.schema}.${r.name}`)).sort();
  return JSON.stringify([
    'result',
    statementKey(sql),
    serialize(params).toString('base64'),
    searchPath ?? [],
    refs,
    // one engine's answer is meant to equal another's, but a caller who asked for one gets its run
    ...(engine === 'local' ? [] : [engine]),
  ]);
}

/** A stored result replayed as a query result: maxRows, cancel and the caller's signal apply as to a run. */
export function cachedResult(
  id: string,
  hit: CacheHit,
  columns: readonly ColumnMeta[],
  options: { readonly maxRows?: number; readonly signal?: AbortSignal },
  engine: Pick<QueryStats, 'engine' | 'engineReason'> = { engine: 'local' },
): QueryResult {
  const started = performance.now();
  let ended: number | undefined;
  let rowsOut = 0;
  const controller = new AbortController();
  const outer = options.signal;
  let consumed = false;
  const stats = (): QueryStats => ({
    rows: rowsOut,
    elapsedMs: (ended ?? performance.now()) - started,
    sourceStatements: [],
    peakMemoryBytes: 0,
    spilledBytes: 0,
    cache: 'hit',
    cacheAgeMs: hit.ageMs,
    ...engine,
  });
  return {
    id,
    columns,
    rows: {
      async *[Symbol.asyncIterator]() {
        if (consumed) throw new JunctionError('result_consumed', 'user', 'The rows of this query result were already read. Run the query again.');
        consumed = true;
        try {
          for await (const batch of hit.batches()) {
            checkAborted(controller.signal);
            if (outer) checkAborted(outer);
            rowsOut += batch.length;
            if (options.maxRows !== undefined && rowsOut > options.maxRows) throw maxRowsExceeded(options.maxRows);
            yield batch as Row[];
          }
        } finally {
          ended = performance.now();
        }
      },
    },
    stats,
    cancel: (reason?: string) => {
      if (!controller.signal.aborted)
        controller.abort(new JunctionError('query_cancelled', 'cancelled', reason ? `The query was cancelled: ${reason}` : 'The query was cancelled.'));
    },
  };
}

/** A run's result whose rows are recorded as they pass; stored only when the last row was read. */
export function recordedResult(result: QueryResult, recording: Recording): QueryResult {
  return {
    ...result,
    rows: recording.through(result.rows),
    stats: () => ({ ...result.stats(), cache: 'miss' }),
  };
}

export function maxRowsExceeded(maxRows: number): JunctionError {
  return new JunctionError(
    'max_rows_exceeded',
    'user',
    `The query returns more than the allowed ${maxRows} rows. Add a LIMIT or a narrower WHERE clause.`,
    { details: { maxRows } },
  );
}
