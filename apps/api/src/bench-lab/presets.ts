import { JunctionError, type EngineName } from '@junction/connectors';
import { jdvWorkload, paramMax, type Workload } from '@junction/tpch/workload';
import type { BenchQuery, Definition, Mode, ParamGen, Phase, Settings } from './definition.js';

/**
 * The lab's presets over the TPC-H-like schema of the JDV workload (packages/tpch/workload/jdv).
 * The layout's sources dbA–dbD map to registered source names (settings.sources), and the direct
 * target is a registered source holding all eight tables (settings.direct; the lab's load form
 * loads the "single" layout there).
 */
export interface Preset {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /**
   * directEngine: the direct target's engine, whose dialect the direct SQL is rendered in
   * (PostgreSQL's by default); trino: Trino can run queries, so the phases run them there too
   */
  build(settings: Settings, directEngine?: EngineName, trino?: boolean): { queries: BenchQuery[]; phases: Phase[] };
}

/** Overrides of a preset's phases a script or the form may give (shorter runs, fewer users). */
export interface Overrides {
  readonly queries?: string[];
  readonly warmups?: number;
  readonly repetitions?: number;
  readonly stepSeconds?: number;
  readonly durationSeconds?: number;
  readonly maxUsers?: number;
  readonly users?: number[];
  readonly warmPasses?: number;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const quoted = (name: string): string => (IDENT.test(name) ? name : `"${name.replace(/"/g, '""')}"`);

/** The layout's source prefixes (dbA.) replaced by the registered names. */
export function mapSources(sql: string, sources: Readonly<Record<string, string>> = {}): string {
  return sql.replace(/\b(db[A-Z])\./g, (m, s: string) => (sources[s] ? `${quoted(sources[s])}.` : m));
}

/** ODBC escapes ({ts '…'}, {d '…'}, {t '…'}) of the study's direct SQL, as standard literals for a native driver. */
export function nativeSql(sql: string): string {
  return sql.replace(/\{\s*(ts|d|t)\s+('(?:[^']|'')*')\s*\}/gi, (_m, k: string, lit: string) => {
    const kind = k.toLowerCase() === 'ts' ? 'TIMESTAMP' : k.toLowerCase() === 'd' ? 'DATE' : 'TIME';
    return `${kind} ${lit}`;
  });
}

/**
 * Why the presets' direct SQL cannot serve a direct target of this engine, or null when it can.
 * It is written for PostgreSQL and rendered for MySQL/MariaDB; elsewhere the answers would
 * differ for reasons that are not Junction's, and the lab would call Junction's answers wrong.
 */
export function directRefusal(engine: EngineName, source: string): string | null {
  switch (engine) {
    case 'postgresql':
    case 'mysql':
      return null;
    case 'sqlite':
      return `The presets' direct SQL cannot run on the SQLite source "${source}": SQLite keeps TPC-H's CHAR values padded with spaces (r_name = 'AFRICA' selects nothing) and DECIMAL as floating point (sums differ in their last digits), so the direct answers would differ from Junction's right ones. Choose a PostgreSQL or MySQL/MariaDB source as the direct target, or define custom queries with SQLite's own direct SQL.`;
    case 'sqlserver':
      return `The presets' direct SQL is not rendered for SQL Server (source "${source}"): T-SQL has no TIMESTAMP literal and binds @p parameters. Choose a PostgreSQL or MySQL/MariaDB source as the direct target, or define custom queries with T-SQL direct SQL.`;
    case 'duckdb':
    case 'documents':
      return `The presets' direct SQL is written for PostgreSQL and MySQL/MariaDB, not for the ${engine === 'duckdb' ? 'file' : 'document'} source "${source}". Choose a PostgreSQL or MySQL/MariaDB source as the direct target, or define custom queries with its own direct SQL.`;
    case 'trino':
      return `"${source}" is the Trino execution backend, not a source holding the data: choose a PostgreSQL or MySQL/MariaDB source as the direct target.`;
  }
}

/**
 * The study's direct SQL in the direct target's dialect: ODBC escapes as standard literals (which
 * PostgreSQL and MySQL read alike) and, for MySQL, PostgreSQL's numbered parameters as its
 * positional ? (each must occur once, in order, for the values to bind as numbered).
 */
export function directSql(sql: string, engine: EngineName = 'postgresql'): string {
  const native = nativeSql(sql);
  if (engine !== 'mysql') return native;
  let n = 0;
  // numbered parameters outside string literals
  return native.replace(/('(?:[^']|'')*')|\$(\d+)/g, (m, lit: string | undefined, k: string | undefined) => {
    if (lit !== undefined) return m;
    if (Number(k) !== ++n)
      throw new JunctionError(
        'benchmark_direct_dialect',
        'user',
        `The direct SQL's parameter $${k} is out of order for MySQL's positional parameters.`,
      );
    return '?';
  });
}

const TABLES = /\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g;

/** The direct SQL through Junction over the one source (JDV use case 1: pushdown to one source). */
export function pushdownSql(directSql: string, source: string): string {
  return directSql.replace(TABLES, (_m, kw: string, t: string) => `${kw} ${quoted(source)}.${t}`);
}

function jdvQueries(
  w: Workload,
  settings: Settings,
  ids: readonly string[],
  weights: Record<string, number> = {},
  engine: EngineName = 'postgresql',
) {
  const sf = settings.sf ?? w.sf;
  return ids.map((id): BenchQuery => {
    const q = w.query(id);
    const params: ParamGen[] = q.params.map((p) => ({ kind: 'uniform', min: p.min, max: paramMax(p, sf) }));
    return {
      id,
      title: q.title,
      federated: mapSources(q.federated, settings.sources),
      ...(settings.direct ? { direct: { source: settings.direct, sql: directSql(q.direct, engine) } } : {}),
      ...(settings.direct ? { pushdown: pushdownSql(q.direct, settings.direct) } : {}),
      ...(params.length ? { params } : {}),
      ...(weights[id] !== undefined ? { weight: weights[id] } : {}),
    };
  });
}

const workload = (s: Settings) => jdvWorkload(s.sf ?? 0.01);
/** `modes` and, when Trino can run them, the same federated queries through it beside */
const plus = (modes: Mode[], trino: boolean | undefined): Mode[] => (trino ? [...modes, 'trino'] : modes);

export const PRESETS: readonly Preset[] = [
  {
    id: 'jdv',
    name: 'JBoss DV study (A–H)',
    description:
      'The JBoss Data Virtualization study: queries A–F and H alone, direct against one database and through Junction over the four sources (use cases 1–2); query G (= B) by 1…20 concurrent users for a fixed time (use case 3); OLTP query H with a fresh random customer key per execution by 1…16 users, throughput per level (use case 4).',
    build: (s, engine, trino) => ({
      queries: jdvQueries(workload(s), s, ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'], {}, engine),
      phases: [
        {
          type: 'single',
          label: 'Use cases 1–2: each query alone',
          queries: ['A', 'B', 'C', 'D', 'E', 'F', 'H'],
          warmups: 1,
          repetitions: 5,
          modes: plus(s.direct ? ['direct', 'pushdown', 'federated'] : ['federated'], trino),
        },
        {
          type: 'concurrency',
          label: 'Use case 3: query G by concurrent users',
          query: 'G',
          users: [1, 2, 5, 10, 20],
          stepSeconds: 10,
          modes: plus(s.direct ? ['direct', 'federated'] : ['federated'], trino),
        },
        {
          type: 'concurrency',
          label: 'Use case 4: OLTP query H, fresh key per execution',
          query: 'H',
          users: [1, 2, 4, 8, 16],
          stepSeconds: 10,
          modes: plus(s.direct ? ['direct', 'federated'] : ['federated'], trino),
        },
      ],
    }),
  },
  {
    id: 'oltp-mix',
    name: 'Weighted OLTP mix',
    description:
      "The TPoX driver's method: queries H (70 %), A (20 %) and E (10 %) drawn by weight by N users for a duration; per-query p50/p90/p95/p99/max and a summary per interval.",
    build: (s, engine, trino) => ({
      queries: jdvQueries(workload(s), s, ['H', 'A', 'E'], { H: 70, A: 20, E: 10 }, engine),
      phases: [
        { type: 'mix', label: 'Weighted mix through Junction', users: 4, durationSeconds: 30, intervalSeconds: 2 },
        ...(trino
          ? [
              {
                type: 'mix' as const,
                label: 'Weighted mix through Trino',
                users: 4,
                durationSeconds: 30,
                intervalSeconds: 2,
                mode: 'trino' as const,
              },
            ]
          : []),
        ...(s.direct
          ? [
              {
                type: 'mix' as const,
                label: 'Weighted mix direct',
                users: 4,
                durationSeconds: 30,
                intervalSeconds: 2,
                mode: 'direct' as const,
              },
            ]
          : []),
      ],
    }),
  },
  {
    id: 'streams',
    name: 'Query streams',
    description:
      "Red Hat's study: several users each run queries A–F and H in a different order; the score is the geometric mean of the per-query times, with the machine's CPU sampled beside it. Then Delphix's cold vs warm: one pass after Junction's caches are cleared, warm passes, and a second user's warm pass.",
    build: (s, engine, trino) => ({
      queries: jdvQueries(workload(s), s, ['A', 'B', 'C', 'D', 'E', 'F', 'H'], {}, engine),
      phases: [
        { type: 'streams', label: 'Query streams through Junction', users: 4 },
        ...(trino
          ? [{ type: 'streams' as const, label: 'Query streams through Trino', users: 4, mode: 'trino' as const }]
          : []),
        ...(s.direct
          ? [{ type: 'streams' as const, label: 'Query streams direct', users: 4, mode: 'direct' as const }]
          : []),
        { type: 'coldwarm', label: 'Cold vs warm', warmPasses: 2 },
      ],
    }),
  },
];

export function presetById(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}

/** A preset's phases with overrides applied (each only where the phase has that setting). */
export function applyOverrides(phases: Phase[], o: Overrides = {}): Phase[] {
  const users = (xs: number[]) => {
    const list = o.users ?? xs;
    const capped = o.maxUsers ? list.filter((u) => u <= o.maxUsers!) : list;
    return capped.length ? capped : [Math.min(...list)];
  };
  const keep = (ids: string[] | undefined) => (o.queries && ids ? ids.filter((i) => o.queries!.includes(i)) : ids);
  // a phase whose own list of queries the overrides emptied has nothing to run
  const empty = (p: Phase) => p.type !== 'concurrency' && p.queries !== undefined && p.queries.length === 0;
  return phases
    .map((p): Phase => {
      switch (p.type) {
        case 'single':
          return {
            ...p,
            queries: keep(p.queries) ?? o.queries,
            warmups: o.warmups ?? p.warmups,
            repetitions: o.repetitions ?? p.repetitions,
          };
        case 'concurrency':
          return { ...p, users: users(p.users), stepSeconds: o.stepSeconds ?? p.stepSeconds };
        case 'mix':
          return {
            ...p,
            queries: keep(p.queries) ?? o.queries,
            users: o.maxUsers ? Math.min(p.users, o.maxUsers) : p.users,
            durationSeconds: o.durationSeconds ?? p.durationSeconds,
          };
        case 'streams':
          return {
            ...p,
            queries: keep(p.queries) ?? o.queries,
            users: o.maxUsers ? Math.min(p.users, o.maxUsers) : p.users,
          };
        case 'coldwarm':
          return { ...p, queries: keep(p.queries) ?? o.queries, warmPasses: o.warmPasses ?? p.warmPasses };
      }
    })
    .filter((p) => p.type !== 'concurrency' || !o.queries || o.queries.includes(p.query))
    .filter((p) => !empty(p));
}

export function definitionOf(
  name: string,
  preset: Preset | undefined,
  settings: Settings,
  parts: { queries?: BenchQuery[]; phases?: Phase[]; overrides?: Overrides },
  directEngine?: EngineName,
  trino?: boolean,
): Definition {
  const built = preset?.build(settings, directEngine, trino);
  const only = parts.overrides?.queries;
  // the queries the overrides leave out are neither run nor checked
  const queries = (parts.queries ?? built?.queries ?? []).filter((q) => !only || only.includes(q.id));
  const phases = applyOverrides(parts.phases ?? built?.phases ?? [], parts.overrides);
  return { name, ...(preset ? { preset: preset.id } : {}), queries, phases, settings };
}
