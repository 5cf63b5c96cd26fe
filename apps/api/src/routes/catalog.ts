import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { CatalogSnapshot } from '@junction/connectors';
import { formatType } from '@junction/connectors';
import { notFound } from '../lib/errors.js';
import { errors, Limit } from '../lib/schemas.js';
import { visibleSchemas, visibleViews } from '../lib/view-visibility.js';

const Column = Type.Object({
  name: Type.String(),
  type: Type.String(),
  nativeType: Type.String(),
  nullable: Type.Boolean(),
});
const ViewColumn = Type.Object({ name: Type.String(), type: Type.String(), nullable: Type.Boolean() });
const TableSummary = Type.Object({
  schema: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  rowCount: Type.Union([Type.Number(), Type.Null()]),
  /** a view's output columns, known without asking (stored when it was saved) */
  columns: Type.Optional(Type.Array(ViewColumn)),
});
const TreeSource = Type.Object({
  source: Type.String(),
  engine: Type.String(),
  status: Type.String(),
  defaultSchema: Type.String(),
  schemas: Type.Array(Type.Object({ name: Type.String(), tables: Type.Array(TableSummary) })),
});
const TableDetail = Type.Object({
  source: Type.String(),
  schema: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  rowCount: Type.Union([Type.Number(), Type.Null()]),
  primaryKey: Type.Array(Type.String()),
  columns: Type.Array(Column),
  foreignKeys: Type.Array(Type.Unknown()),
  indexes: Type.Array(Type.Unknown()),
});
const Hit = Type.Object({
  kind: Type.Union([Type.Literal('table'), Type.Literal('column'), Type.Literal('view')]),
  source: Type.String(),
  schema: Type.String(),
  table: Type.String(),
  column: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
});
type StoredView = { name: string; columns: string | null };
const viewColumns = (v: StoredView): Static<typeof ViewColumn>[] =>
  v.columns ? (JSON.parse(v.columns) as Static<typeof ViewColumn>[]) : [];

/**
 * A virtual schema as a catalog entry beside the sources (engine "virtual"): its views are
 * named `<schema>.<view>` in SQL, as a source's tables in its default schema are, so the
 * tree, search and completion treat both alike.
 */
function virtualEntry(s: { name: string; visible: readonly StoredView[] }) {
  return {
    source: s.name,
    engine: 'virtual',
    status: 'online',
    defaultSchema: s.name,
    schemas: [
      {
        name: s.name,
        tables: s.visible.map((v) => ({
          schema: s.name,
          name: v.name,
          kind: 'view',
          rowCount: null,
          columns: viewColumns(v),
        })),
      },
    ],
  };
}

const TableParams = Type.Object({
  source: Type.String({ maxLength: 128 }),
  schema: Type.String({ maxLength: 128 }),
  table: Type.String({ maxLength: 256 }),
});

/** Catalog browsing reads stored snapshots only: browsing never contacts a source. */
export default async function catalogRoutes(app: FastifyInstance): Promise<void> {
  async function visibleSources(request: Parameters<typeof app.junction.accessPolicy>[0]) {
    const policy = await app.junction.accessPolicy(request);
    const rows = await app.db.source.findMany({ orderBy: { name: 'asc' } });
    return rows
      .filter((s) => policy.canReadSource(s.name) && s.catalog)
      .map((s) => ({ row: s, catalog: JSON.parse(s.catalog as string) as CatalogSnapshot }));
  }

  app.get(
    '/catalog',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Sources → schemas → tables',
        response: { 200: Type.Array(TreeSource), ...errors() },
      },
    },
    async (request) => {
      const sources = (await visibleSources(request.principal!)).map(({ row, catalog }) => {
        const bySchema = new Map<string, Static<typeof TableSummary>[]>();
        for (const t of catalog.tables) {
          const list = bySchema.get(t.schema) ?? [];
          list.push({ schema: t.schema, name: t.name, kind: t.kind, rowCount: t.rowCount ?? null });
          bySchema.set(t.schema, list);
        }
        return {
          source: row.name,
          engine: row.engine,
          status: row.status,
          defaultSchema: catalog.defaultSchema,
          schemas: [...bySchema]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([name, tables]) => ({ name, tables: tables.sort((a, b) => (a.name < b.name ? -1 : 1)) })),
        };
      });
      const virtual = (await visibleSchemas(app, request.principal!)).map(virtualEntry);
      return [...sources, ...virtual].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    },
  );

  app.get<{ Params: Static<typeof TableParams> }>(
    '/catalog/:source/:schema/:table',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Columns, keys and indexes of one table',
        params: TableParams,
        response: { 200: TableDetail, ...errors(404) },
      },
    },
    async (request) => {
      const { source, schema, table } = request.params;
      const vs = (await visibleSchemas(app, request.principal!)).find((s) => s.name === source && s.name === schema);
      const view = vs?.visible.find((v) => v.name === table);
      if (view)
        return {
          source,
          schema,
          name: view.name,
          kind: 'view',
          rowCount: null,
          primaryKey: [],
          columns: viewColumns(view).map((c) => ({ ...c, nativeType: c.type })),
          foreignKeys: [],
          indexes: [],
        };
      const found = (await visibleSources(request.principal!)).find((s) => s.row.name === source);
      const t = found?.catalog.tables.find((x) => x.schema === schema && x.name === table);
      if (!found || !t) throw notFound('table', `${source}.${schema}.${table}`);
      return {
        source,
        schema,
        name: t.name,
        kind: t.kind,
        rowCount: t.rowCount ?? null,
        primaryKey: [...(t.primaryKey ?? [])],
        columns: t.columns.map((c) => ({
          name: c.name,
          type: formatType(c.type),
          nativeType: c.nativeType,
          nullable: c.nullable,
        })),
        foreignKeys: [...t.foreignKeys],
        indexes: [...t.indexes],
      };
    },
  );

  app.get<{ Querystring: { q: string; limit?: string } }>(
    '/catalog/search',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Tables, columns and views whose name contains q (case-insensitive)',
        querystring: Type.Object(
          { q: Type.String({ minLength: 1, maxLength: 100 }), limit: Type.Optional(Limit) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(Hit), ...errors() },
      },
    },
    async (request) => {
      const q = request.query.q.toLowerCase();
      const limit = request.query.limit ? Number(request.query.limit) : 100;
      const hits: Static<typeof Hit>[] = [];
      for (const { row, catalog } of await visibleSources(request.principal!)) {
        for (const t of catalog.tables) {
          if (t.name.toLowerCase().includes(q))
            hits.push({ kind: 'table', source: row.name, schema: t.schema, table: t.name });
          for (const c of t.columns) {
            if (c.name.toLowerCase().includes(q))
              hits.push({
                kind: 'column',
                source: row.name,
                schema: t.schema,
                table: t.name,
                column: c.name,
                type: formatType(c.type),
              });
          }
        }
      }
      // views as the tree lists them: the virtual schema in the source's place
      const visible = await visibleViews(app, request.principal!);
      for (const v of await app.db.view.findMany({ include: { schema: true }, orderBy: { name: 'asc' } })) {
        if (!visible(v)) continue;
        const at = { source: v.schema.name, schema: v.schema.name, table: v.name };
        if (v.name.toLowerCase().includes(q)) hits.push({ kind: 'view', ...at });
        for (const c of viewColumns(v))
          if (c.name.toLowerCase().includes(q)) hits.push({ kind: 'column', ...at, column: c.name, type: c.type });
      }
      return hits.slice(0, limit);
    },
  );
}
