import { readFileSync } from 'node:fs';
import type { EngineName } from '@junction/connectors';
import type { TableName } from './schema.js';

/**
 * The JDV workload (workload/jdv): the federated TPC-H-like layout of the JBoss Data
 * Virtualization study and its queries A–H, each in a direct form (one database holding all
 * tables) and a federated form (sources dbA–dbD). The one copy in the repository: the demo's
 * examples, the tests, the benchmark and the benchmark lab all read it through this module.
 */
const DIR = new URL('../workload/jdv/', import.meta.url);

export interface WorkloadSource {
  readonly name: string;
  readonly engine: EngineName;
  readonly tables: readonly TableName[];
}

/** A parameter drawn per execution: an integer uniform in [min, maxPerScale × SF]. */
export interface WorkloadParam {
  readonly name: string;
  readonly min: number;
  readonly maxPerScale: number;
  /** the value the demo's example and the tests use; it exists at every scale */
  readonly example: number;
}

export interface WorkloadQuery {
  readonly id: string;
  /** what the study measures with it */
  readonly kind: string;
  /** what it does, in words a user of the studio reads */
  readonly title: string;
  /** SQL for one database holding all eight tables */
  readonly direct: string;
  /** SQL over the sources dbA–dbD */
  readonly federated: string;
  /** the sources the federated form reads, in order of first mention */
  readonly sources: readonly string[];
  readonly params: readonly WorkloadParam[];
  /** whether the studio offers it as an example (G is B under concurrency) */
  readonly example: boolean;
  /** constants replaced for this scale (empty at the study's constants) */
  readonly adjusted: readonly (readonly [from: string, to: string])[];
}

export interface Workload {
  readonly sf: number;
  readonly sources: readonly WorkloadSource[];
  /** the reference: one database with every table */
  readonly direct: WorkloadSource;
  readonly queries: readonly WorkloadQuery[];
  query(id: string): WorkloadQuery;
}

/** Below this scale the study's constants select nothing for some queries (see queries.json). */
export const SMALL_SCALE_BELOW = 1;

interface LayoutFile {
  readonly sources: Record<string, { engine: EngineName; tables: TableName[] }>;
  readonly direct: { engine: EngineName; tables: TableName[] };
  readonly queries: Record<string, { kind: string }>;
}

interface QueriesFile {
  readonly queries: Record<
    string,
    {
      title: string;
      example?: boolean;
      params?: WorkloadParam[];
      /** [from, to] or [from, to, times]: `from` must occur once (or `times` times) */
      smallScale?: { replace: ([string, string] | [string, string, number])[] };
    }
  >;
}

function read(name: string): string {
  return readFileSync(new URL(name, DIR), 'utf8');
}

let files: { layout: LayoutFile; meta: QueriesFile; sql: Map<string, string> } | undefined;

function load(): NonNullable<typeof files> {
  if (files) return files;
  const layout = JSON.parse(read('layout.json')) as LayoutFile;
  const meta = JSON.parse(read('queries.json')) as QueriesFile;
  const sql = new Map<string, string>();
  for (const id of Object.keys(layout.queries)) {
    if (!meta.queries[id]) throw new Error(`workload/jdv/queries.json has no entry for query ${id}`);
    for (const form of ['direct', 'federated']) sql.set(`${id}.${form}`, read(`${id}.${form}.sql`).trim());
  }
  files = { layout, meta, sql };
  return files;
}

type Replacement = readonly [from: string, to: string, times?: number];

/** Replaces each `from` that occurs as often as said; anything else means the SQL and queries.json drifted apart. */
function adjust(id: string, form: string, sql: string, replace: readonly Replacement[]): string {
  let out = sql;
  for (const [from, to, times = 1] of replace) {
    const parts = out.split(from);
    if (parts.length - 1 !== times)
      throw new Error(`workload/jdv: "${from}" occurs ${parts.length - 1} times in ${id}.${form}.sql (queries.json expects ${times})`);
    out = parts.join(to);
  }
  return out;
}

/** The workload with the constants for scale factor `sf` (the study's own at SF 1 and above). */
export function jdvWorkload(sf = SMALL_SCALE_BELOW): Workload {
  const { layout, meta, sql } = load();
  const queries = Object.entries(layout.queries).map(([id, q]): WorkloadQuery => {
    const m = meta.queries[id];
    const replace = sf < SMALL_SCALE_BELOW ? (m.smallScale?.replace ?? []) : [];
    const federated = adjust(id, 'federated', sql.get(`${id}.federated`)!, replace);
    return {
      id,
      kind: q.kind,
      title: m.title,
      direct: adjust(id, 'direct', sql.get(`${id}.direct`)!, replace),
      federated,
      sources: [...new Set([...federated.matchAll(/\b(db[A-Z])\./g)].map((x) => x[1]))],
      params: m.params ?? [],
      example: m.example ?? true,
      adjusted: replace.map(([from, to]) => [from, to] as const),
    };
  });
  return {
    sf,
    sources: Object.entries(layout.sources).map(([name, s]) => ({ name, engine: s.engine, tables: s.tables })),
    direct: { name: 'direct', engine: layout.direct.engine, tables: layout.direct.tables },
    queries,
    query(id) {
      const q = queries.find((x) => x.id === id);
      if (!q) throw new Error(`the JDV workload has no query ${id}`);
      return q;
    },
  };
}

/** The largest value of a parameter at scale `sf` (at least `min`). */
export function paramMax(p: WorkloadParam, sf: number): number {
  return Math.max(p.min, Math.round(p.maxPerScale * sf));
}
