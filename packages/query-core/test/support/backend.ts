import {
  JunctionError,
  capabilitiesForEngine,
  renderFor,
  type Connector,
  type RemoteQuery,
  type RenderedQuery,
  type SourceSemantics,
  type StreamOptions,
} from '@junction/connectors';

/**
 * Test backends: connectors that stand where Trino would, so the engine's side of running a query
 * on a backend is tested with any connector (the Trino connector has tests of its own). They
 * render with the PostgreSQL dialect and name tables `"catalog"."schema"."table"` as Trino does:
 * PostgreSQL accepts that naming when the catalog is the database connected to, which lets a real
 * PostgreSQL database play a backend that reads several sources.
 */

const OPEN = '\u0001';
const SEP = '\u0002';

/** Renders `query` as PostgreSQL would, every table named with its catalog in front. */
export function renderWithCatalogs(query: RemoteQuery, semantics?: SourceSemantics): RenderedQuery {
  // the PostgreSQL dialect refuses catalogs: carry catalog and schema as one marked schema name
  // through it, then split that quoted name in two
  const marked = mapTables(query) as RemoteQuery;
  const r = renderFor('postgresql', marked, semantics);
  return { ...r, sql: r.sql.replace(new RegExp(`"${OPEN}([^${SEP}"]*)${SEP}([^"]*)"`, 'g'), '"$1"."$2"') };
}

function mapTables(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(mapTables);
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) out[k] = mapTables(x);
  if (o.kind === 'table' && typeof o.alias === 'string' && typeof o.catalog === 'string') {
    delete out.catalog;
    out.schema = `${OPEN}${o.catalog}${SEP}${String(o.schema)}`;
  }
  return out;
}

/** Every table of a statement, as `catalog.schema.table`, in order. */
export function tablesOf(query: unknown, out: string[] = []): string[] {
  if (Array.isArray(query)) query.forEach((x) => tablesOf(x, out));
  else if (query !== null && typeof query === 'object' && Object.getPrototypeOf(query) === Object.prototype) {
    const o = query as Record<string, unknown>;
    if (o.kind === 'table' && typeof o.alias === 'string')
      out.push([o.catalog, o.schema, o.table].filter((p) => p !== undefined).join('.'));
    for (const x of Object.values(o)) tablesOf(x, out);
  }
  return out;
}

/** A backend that can describe and render (PostgreSQL's capabilities), never run: for plan-only tests. */
export function planOnlyBackend(name: string, semantics: SourceSemantics): Connector {
  const unused = (): never => {
    throw new JunctionError('plan_only', 'internal', `The ${name} test backend is plan-only.`);
  };
  return {
    name,
    engine: 'postgresql',
    capabilities: () => capabilitiesForEngine('postgresql', semantics),
    render: (q) => renderWithCatalogs(q, semantics),
    test: unused,
    probe: async () => semantics,
    introspect: unused,
    stream: unused,
    execute: unused,
    bulkLoad: unused,
    close: async () => undefined,
  };
}

/** What a recording backend saw: each statement's IR and SQL, and the options of each stream. */
export interface Recorded {
  readonly queries: RemoteQuery[];
  readonly streams: { sql: string; options: StreamOptions | undefined }[];
}

/**
 * A backend running on a real PostgreSQL database (`inner`): statements render with catalogs and
 * run there, and everything it is sent is recorded. `hold` makes every stream wait for its abort
 * signal instead, to see a cancel or timeout reach the backend.
 */
export function recordingBackend(
  name: string,
  inner: Connector,
  options: { hold?: boolean } = {},
): { connector: Connector; recorded: Recorded } {
  const recorded: Recorded = { queries: [], streams: [] };
  // delegated one by one: a connector is a class instance, whose methods a spread would not copy
  const connector: Connector = {
    name,
    engine: inner.engine,
    capabilities: () => inner.capabilities(),
    test: () => inner.test(),
    probe: () => inner.probe(),
    introspect: () => inner.introspect(),
    execute: (sql, params, o) => inner.execute(sql, params, o),
    bulkLoad: (t, rows) => inner.bulkLoad(t, rows),
    close: async () => undefined,
    render: (q) => {
      recorded.queries.push(q);
      return renderWithCatalogs(q);
    },
    stream: (q, o) => {
      recorded.streams.push({ sql: q.sql, options: o });
      if (!options.hold) return inner.stream(q, o);
      return {
        async *[Symbol.asyncIterator]() {
          const signal = o?.signal;
          await new Promise<never>((_, reject) => {
            if (!signal) return;
            if (signal.aborted) reject(signal.reason as Error);
            else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
          });
          yield { rows: [] };
        },
      };
    },
  };
  return { connector, recorded };
}
