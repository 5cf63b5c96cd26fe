import { JunctionError, type RemoteQuery, type SqlPosition } from '@junction/connectors';
import type { ExecutionBackend, RegisteredSource } from './api.js';
import type { BackendFailureHook } from './exec/context.js';
import type { BackendRouting } from './optimizer/context.js';
import type { LogicalPlan } from './plan/logical.js';
import type { TableNaming } from './physical/remote-query.js';
import { children } from './plan/fields.js';
import { engineHint } from './sql/hints.js';

/**
 * Backends Junction knows by name whether or not this server configured one: asking for one that
 * is not configured gets an error saying so (`trino_not_configured`), not "no such engine", and
 * never a quiet local run.
 */
const KNOWN_BACKENDS: readonly string[] = ['trino'];

/** `auto` sends a query to the backend when it would fetch more rows than this locally. */
export const DEFAULT_AUTO_ROWS = 1_000_000;

/** What a query asked for: 'local', 'auto' or the backend's name, and who asked. */
export interface RequestedEngine {
  readonly engine: string;
  readonly why: string;
  /** named by the query (option or hint), rather than the default */
  readonly explicit: boolean;
}

/** why a query that names no engine runs where it runs */
export const DEFAULT_ENGINE_REASON = 'the default';

/** The engine option wins over a hint (an API caller overrides the text it sends); then the backend's default. */
export function requestedEngine(
  sql: string,
  option: string | undefined,
  backend: ExecutionBackend | undefined,
): RequestedEngine {
  if (option !== undefined)
    return { engine: checkName(option, backend), why: 'asked for by the engine option', explicit: true };
  const hint = engineHint(sql);
  if (hint)
    return {
      engine: checkName(hint.name, backend, hint.position),
      why: `asked for by the hint engine(${hint.name})`,
      explicit: true,
    };
  return { engine: backend?.defaultEngine ?? 'local', why: DEFAULT_ENGINE_REASON, explicit: false };
}

function checkName(name: string, backend: ExecutionBackend | undefined, position?: SqlPosition): string {
  const n = name.toLowerCase();
  if (n === 'local' || n === 'auto') return n;
  if (backend && n === backend.name.toLowerCase()) return backend.name;
  const at = position ? { position } : {};
  if (KNOWN_BACKENDS.includes(n)) {
    throw new JunctionError(
      `${n}_not_configured`,
      'user',
      `The query asks to run on ${n}, but this server has no ${n} engine configured: run it locally (engine local, or no engine hint), or ask an administrator to configure ${n}.`,
      { ...at, details: { engine: n } },
    );
  }
  const names = ['local', 'auto', ...(backend ? [backend.name] : [])];
  throw new JunctionError(
    'unknown_engine',
    'user',
    `There is no engine named "${name}": use ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}.`,
    {
      ...at,
      details: { engine: name, engines: names },
    },
  );
}

/** A backend's name must not be taken for a source's, nor for a mode. */
export function checkBackendName(name: string, sourceNames: Iterable<string>): void {
  if (!/^[a-z][a-z0-9_]*$/.test(name) || name === 'local' || name === 'auto') {
    throw new JunctionError(
      'invalid_backend',
      'user',
      `"${name}" cannot name an engine: use lower-case letters, digits and _, and neither local nor auto.`,
    );
  }
  for (const s of sourceNames) {
    if (s.toLowerCase() === name) {
      throw new JunctionError(
        'backend_name_taken',
        'conflict',
        `A source is named "${s}", so an engine cannot be called ${name}: rename the source or the engine.`,
        {
          details: { source: s, engine: name },
        },
      );
    }
  }
}

/** Which registered sources the backend reads, and for the others why not, as EXPLAIN says it. */
export function routingOf(backend: ExecutionBackend, sources: Iterable<RegisteredSource>): BackendRouting {
  const readable = new Set<string>();
  const unreadable = new Map<string, string>();
  for (const s of sources) {
    let where: ReturnType<ExecutionBackend['tableOf']>;
    try {
      where = backend.tableOf(s.name);
    } catch (e) {
      where = { local: true, reason: e instanceof Error ? e.message : String(e) };
    }
    if (isLocal(where))
      unreadable.set(
        s.name,
        `${s.connector.engine} source ${s.name} is not readable by ${backend.name}: ${where.reason}`,
      );
    else readable.add(s.name);
  }
  return { name: backend.name, readable, unreadable };
}

/** How the backend names a table of a source it reads: its catalog, the source's schema unless it maps one. */
export function backendTableNaming(backend: ExecutionBackend): TableNaming {
  return (t) => {
    const where = backend.tableOf(t.source);
    if (isLocal(where)) {
      throw new JunctionError(
        'backend_table_unreachable',
        'internal',
        `Internal error: source ${t.source} was planned on ${backend.name}, which cannot read it (${where.reason}).`,
      );
    }
    return { catalog: where.catalog, schema: where.schema ?? t.schema, table: t.table };
  };
}

/** A placement that keeps the source local (one the backend reads may say `local: false`). */
function isLocal(
  where: ReturnType<ExecutionBackend['tableOf']>,
): where is { readonly local: true; readonly reason: string } {
  return 'local' in where && where.local === true;
}

/** The sources whose statements run on their own, below `plan`, in order of first appearance. */
function remoteSources(plan: LogicalPlan, out: Set<string> = new Set()): Set<string> {
  if (plan.kind === 'Remote') out.add(plan.source);
  else for (const c of children(plan)) remoteSources(c, out);
  return out;
}

/**
 * Which engine a plan made for the backend really runs on, and why: the backend when any
 * statement goes to it (saying what it left to the sources it cannot read), else local.
 */
export function backendOutcome(
  plan: LogicalPlan,
  routing: BackendRouting,
  why: string,
): { engine: string; reason: string } {
  const read = remoteSources(plan);
  const kept = [...read].flatMap((s) => {
    const r = routing.unreadable.get(s);
    return r === undefined ? [] : [r];
  });
  if (read.has(routing.name))
    return { engine: routing.name, reason: kept.length > 0 ? `${why}; kept local: ${kept.join('; ')}` : why };
  if (kept.length > 0) return { engine: 'local', reason: `${why}, but ${kept.join('; ')}` };
  return { engine: 'local', reason: `${why}, but the query reads no source` };
}

/** The reason `auto` gives for its choice. */
/**
 * The memory estimate past which `auto` expects the local plan to spill: half the budget, since
 * the estimate runs low (TPC-H Q5 with pushdown off: 181 MB estimated, 1.4 GB needed).
 */
export function spillLine(budget: number): number {
  return budget / 2;
}

/** Why `auto` chose: the local plan's rows fetched and memory held, against the threshold and the budget. */
export function autoReason(e: { fetched: number; threshold: number; memory: number; budget: number }, backend: string): string {
  const n = Math.round(e.fetched).toLocaleString('en-US');
  const t = e.threshold.toLocaleString('en-US');
  const mb = (b: number) =>
    b < 1024
      ? `${Math.ceil(b)} bytes`
      : b < 1024 * 1024
        ? `${Math.ceil(b / 1024).toLocaleString('en-US')} KB`
        : `${Math.ceil(b / (1024 * 1024)).toLocaleString('en-US')} MB`;
  const rows = `about ${n} rows would be fetched from sources to run it locally, ${e.fetched > e.threshold ? 'over' : 'within'} ${backend}'s threshold of ${t}`;
  const memory = `about ${mb(e.memory)} held in memory, ${e.memory > spillLine(e.budget) ? 'over' : 'within'} half the budget of ${mb(e.budget)}`;
  return `auto: ${rows}; ${memory}`;
}

/** The catalogs a statement for the backend reads, in order of first appearance. */
function catalogsOf(v: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(v)) for (const x of v) catalogsOf(x, out);
  else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.kind === 'table' && typeof o.catalog === 'string') out.add(o.catalog);
    for (const x of Object.values(o)) catalogsOf(x, out);
  }
  return out;
}

/**
 * When a statement on the backend fails from outside Junction, the backend checks each catalog
 * the statement reads: the first it cannot read names the source behind it, so the error says
 * which source is down rather than only that the backend failed. A backend without
 * checkCatalog, or whose catalogs all answer, leaves the error as it was.
 */
export function backendFailureHook(backend: ExecutionBackend, sources: () => Iterable<string>, signal: AbortSignal): BackendFailureHook {
  return {
    backend: backend.name,
    attribute: async (query: RemoteQuery, error: JunctionError): Promise<JunctionError> => {
      if (!backend.checkCatalog) return error;
      const sourceOf = new Map<string, string>();
      for (const s of sources()) {
        const where = backend.tableOf(s);
        if (!isLocal(where) && !sourceOf.has(where.catalog)) sourceOf.set(where.catalog, s);
      }
      for (const catalog of catalogsOf(query)) {
        const source = sourceOf.get(catalog);
        if (source === undefined) continue;
        const down = await backend.checkCatalog(catalog, signal).then(
          () => false,
          () => true,
        );
        if (!down) continue;
        const reason = error.cause instanceof Error ? error.cause.message : error.message;
        const name = typeof error.details?.errorName === 'string' ? `${error.details.errorName}: ` : '';
        return new JunctionError(
          'backend_source_unavailable',
          'external',
          `${backend.name} cannot read source "${source}" through its catalog "${catalog}": ${name}${reason}`,
          { cause: error, details: { ...error.details, source, catalog, engine: backend.name } },
        );
      }
      return error;
    },
  };
}
