import type { Connector, Row } from '@junction/connectors';
import {
  META_TABLE,
  renderMarkerDelete,
  renderMarkerInsert,
  renderLegacyMetaRename,
  renderMarkerSelect,
  renderMetaCreate,
  renderMetaDrop,
  renderTableDdl,
  engineStatisticsSql,
  type LoadMarker,
} from './ddl.js';
import { DEFAULT_SEED, GENERATOR_VERSION, drivingCount, expectedRowCount, generateTable, scaleOf } from './generate.js';
import { TABLES, TABLE_NAMES, type TableName } from './schema.js';

export interface LoadTarget {
  /** source name (dbA…); the marker row is keyed by it */
  readonly name: string;
  readonly connector: Connector;
  readonly tables: readonly TableName[];
}

export interface LoadOptions {
  readonly sf: number;
  readonly seed?: number;
  /** bulk loads running at once across all targets, default 2 */
  readonly concurrency?: number;
  /** reload even when the marker says the data is there */
  readonly force?: boolean;
  readonly batchSize?: number;
  readonly onProgress?: (event: LoadEvent) => void;
}

export type LoadEvent =
  | { readonly kind: 'plan'; readonly target: string; readonly table: TableName; readonly totalRows: number }
  | { readonly kind: 'skip'; readonly target: string; readonly marker: LoadMarker }
  | {
      readonly kind: 'rows';
      readonly target: string;
      readonly table: TableName;
      /** rows written so far into this table (all slices) */
      readonly rows: number;
      readonly totalRows: number;
    }
  | { readonly kind: 'phase'; readonly target: string; readonly phase: 'create' | 'index' | 'analyze' | 'done' };

export interface LoadResult {
  readonly target: string;
  readonly skipped: boolean;
  readonly rows: Readonly<Partial<Record<TableName, number>>>;
  readonly seconds: number;
}

/** Tables bigger than this are loaded as parallel slices. */
const SLICE_ROWS = 500_000;

interface Job {
  readonly target: TargetState;
  readonly table: TableName;
  readonly from: number;
  readonly to: number;
  readonly weight: number;
}

interface TargetState {
  readonly spec: LoadTarget;
  readonly marker: LoadMarker;
  readonly started: number;
  pending: number;
  /** SQLite has one writer: its slices run one at a time */
  readonly serial: boolean;
  busy: boolean;
  /** generated so far (progress) */
  readonly rows: Partial<Record<TableName, number>>;
  /** written, as the connectors' bulk loads report it */
  readonly written: Partial<Record<TableName, number>>;
  readonly expected: Partial<Record<TableName, number>>;
}

/**
 * Loads TPC-H-like data into each target: drop and create its tables, stream generated
 * rows through Connector.bulkLoad, then build keys and indexes, refresh statistics and
 * write a marker row. A target whose marker already records this scale factor, seed and
 * table list is skipped, so running a load twice costs one query per target.
 */
export async function loadTpch(targets: readonly LoadTarget[], options: LoadOptions): Promise<LoadResult[]> {
  scaleOf(options.sf); // validates the scale factor before anything is dropped
  const seed = options.seed ?? DEFAULT_SEED;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const emit = options.onProgress ?? (() => undefined);
  const results: LoadResult[] = [];
  const states: TargetState[] = [];

  for (const spec of targets) {
    const marker: LoadMarker = {
      target: spec.name,
      sf: String(options.sf),
      seed,
      tables: [...spec.tables].sort().join(','),
      generator: GENERATOR_VERSION,
    };
    const existing = await readMarker(spec);
    if (!options.force && existing.marker && sameMarker(existing.marker, marker)) {
      emit({ kind: 'skip', target: spec.name, marker: existing.marker });
      results.push({ target: spec.name, skipped: true, rows: {}, seconds: 0 });
      continue;
    }
    const state: TargetState = {
      spec,
      marker,
      started: Date.now(),
      pending: 0,
      serial: spec.connector.engine === 'sqlite',
      busy: false,
      rows: {},
      written: {},
      expected: {},
    };
    emit({ kind: 'phase', target: spec.name, phase: 'create' });
    await prepare(spec, existing.metaTable);
    for (const table of spec.tables) {
      state.expected[table] = expectedRowCount(table, options.sf, seed);
      state.rows[table] = 0;
      state.written[table] = 0;
      emit({ kind: 'plan', target: spec.name, table, totalRows: state.expected[table] });
    }
    states.push(state);
  }

  const jobs = planJobs(states, options.sf, concurrency);
  const finishing: Promise<void>[] = [];
  const finish = async (state: TargetState): Promise<void> => {
    const { spec } = state;
    for (const table of spec.tables) {
      if (state.written[table] !== state.expected[table]) {
        throw new Error(
          `tpch: ${spec.name}.${table} got ${state.written[table]} rows, expected ${state.expected[table]}`,
        );
      }
    }
    const engine = spec.connector.engine;
    emit({ kind: 'phase', target: spec.name, phase: 'index' });
    for (const table of spec.tables)
      for (const sql of renderTableDdl(engine, TABLES[table]).afterLoad) await spec.connector.execute(sql);
    emit({ kind: 'phase', target: spec.name, phase: 'analyze' });
    for (const table of spec.tables) {
      for (const sql of renderTableDdl(engine, TABLES[table]).analyze) await spec.connector.execute(sql);
      const extra = engineStatisticsSql(engine, table);
      // MySQL rejects MariaDB's statement; its plain ANALYZE above is all it has
      if (extra) await spec.connector.execute(extra).catch(() => undefined);
    }
    await spec.connector.execute(renderMarkerInsert(engine, state.marker, new Date().toISOString()));
    emit({ kind: 'phase', target: spec.name, phase: 'done' });
    results.push({
      target: spec.name,
      skipped: false,
      rows: { ...state.written },
      seconds: (Date.now() - state.started) / 1000,
    });
  };

  const runJob = async (job: Job): Promise<void> => {
    const { target, table } = job;
    const { connector, name } = target.spec;
    const def = TABLES[table];
    async function* rows(): AsyncGenerator<Row[]> {
      for (const batch of generateTable(table, {
        sf: options.sf,
        seed,
        from: job.from,
        to: job.to,
        batchSize: options.batchSize,
      })) {
        yield batch;
        target.rows[table] = (target.rows[table] ?? 0) + batch.length;
        emit({
          kind: 'rows',
          target: name,
          table,
          rows: target.rows[table] ?? 0,
          totalRows: target.expected[table] ?? 0,
        });
        // let the driver's socket writes and other slices interleave with generation
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    const written = await connector.bulkLoad({ name: table, columns: def.columns }, rows());
    target.written[table] = (target.written[table] ?? 0) + written;
    target.pending--;
    if (target.pending === 0) finishing.push(finish(target));
  };

  // a target with no tables still gets its marker
  for (const state of states) if (state.pending === 0) finishing.push(finish(state));
  let poolError: unknown;
  try {
    await runPool(jobs, concurrency, runJob);
  } catch (err) {
    poolError = err;
  }
  // wait for targets already finishing even when a slice failed, so no rejection goes unhandled
  const settled = await Promise.allSettled(finishing);
  if (poolError !== undefined) throw poolError;
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  // keep the caller's target order
  const order = new Map(targets.map((t, i) => [t.name, i]));
  return results.sort((a, b) => (order.get(a.target) ?? 0) - (order.get(b.target) ?? 0));
}

function planJobs(states: TargetState[], sf: number, concurrency: number): Job[] {
  const jobs: Job[] = [];
  for (const target of states) {
    for (const table of target.spec.tables) {
      const count = drivingCount(table, sf);
      const rows = target.expected[table] ?? 0;
      const slices = target.serial || rows < SLICE_ROWS ? 1 : Math.min(concurrency, Math.ceil(rows / SLICE_ROWS));
      for (let s = 0; s < slices; s++) {
        const from = Math.floor((count * s) / slices);
        const to = Math.floor((count * (s + 1)) / slices);
        jobs.push({ target, table, from, to, weight: rows / slices });
      }
    }
    target.pending = jobs.filter((j) => j.target === target).length;
  }
  // biggest first: the long slices start early and the small tables fill the gaps
  return jobs.sort((a, b) => b.weight - a.weight);
}

async function runPool(jobs: Job[], concurrency: number, run: (job: Job) => Promise<void>): Promise<void> {
  const queue = [...jobs];
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const index = queue.findIndex((j) => !(j.target.serial && j.target.busy));
      if (index < 0) {
        if (queue.length === 0) return;
        // only serial targets' slices are left and they are busy: wait for one to finish
        await new Promise<void>((resolve) => setTimeout(resolve, 10));
        continue;
      }
      const [job] = queue.splice(index, 1);
      job.target.busy = true;
      try {
        await run(job);
      } catch (err) {
        failure ??= err;
      } finally {
        job.target.busy = false;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  if (failure !== undefined) throw failure;
}

async function readMarker(target: LoadTarget): Promise<{ metaTable: boolean; marker?: LoadMarker }> {
  const { connector } = target;
  const select = async (): Promise<Row[]> => (await connector.execute(renderMarkerSelect(connector.engine))).rows;
  let rows: Row[];
  try {
    rows = await select();
  } catch {
    try {
      // a marker under its old name (an earlier version): adopt it rather than reload the data
      for (const sql of renderLegacyMetaRename(connector.engine)) await connector.execute(sql);
    } catch {
      // none, or another loader renamed it first
    }
    try {
      rows = await select();
    } catch {
      // no marker table (nothing loaded here yet) or one of an older shape: prepare() recreates it
      return { metaTable: false };
    }
  }
  const row = rows.find((r) => r[0] === target.name);
  if (!row) return { metaTable: true };
  return {
    metaTable: true,
    marker: {
      target: String(row[0]),
      sf: String(row[1]),
      seed: Number(row[2]),
      tables: String(row[3]),
      generator: String(row[4]),
    },
  };
}

function sameMarker(a: LoadMarker, b: LoadMarker): boolean {
  return (
    a.target === b.target && a.sf === b.sf && a.seed === b.seed && a.tables === b.tables && a.generator === b.generator
  );
}

/** Marker table present (its row removed), this target's tables dropped and created empty. */
async function prepare(target: LoadTarget, hasMetaTable: boolean): Promise<void> {
  const { connector } = target;
  const engine = connector.engine;
  if (hasMetaTable) await connector.execute(renderMarkerDelete(engine, target.name));
  else for (const sql of [...renderMetaDrop(engine), ...renderMetaCreate(engine)]) await connector.execute(sql);
  for (const table of target.tables) {
    const ddl = renderTableDdl(engine, TABLES[table]);
    for (const sql of ddl.drop) await connector.execute(sql);
    for (const sql of ddl.create) await connector.execute(sql);
  }
}

/** Every table name this package creates, for callers that clean up a database. */
export const CREATED_TABLES: readonly string[] = [...TABLE_NAMES, META_TABLE];
