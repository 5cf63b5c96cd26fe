import type { ShadowCatalog, ShadowRelation } from './shadow.js';

/** The role that owns every object the shadow creates (psql's "Owner" column shows it). */
export const OWNER_ROLE = 'junction';
/** The role clients' statements run as: it may read the shadow's relations and nothing more. */
export const READER_ROLE = 'junction_reader';

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** An E'' literal: its meaning does not depend on standard_conforming_strings. */
export function quoteLiteral(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/**
 * Schemas the embedded PostgreSQL has of its own. A relation claiming one of them cannot be
 * created there without colliding with (or hiding among) PostgreSQL's own objects, so it is
 * left out of the shadow.
 */
export function isSystemSchema(schema: string): boolean {
  return (
    schema === 'pg_catalog' ||
    schema === 'information_schema' ||
    schema === 'pg_toast' ||
    /^pg_temp/.test(schema) ||
    /^pg_toast_temp/.test(schema)
  );
}

/** public exists in every PostgreSQL database: the shadow puts relations in it but never creates or drops it. */
function isPreexisting(schema: string): boolean {
  return schema === 'public';
}

/** A relation as the shadow holds it: `def` is its whole definition, so equal defs are the same relation. */
export interface WantedRelation {
  readonly id: string;
  readonly def: string;
  readonly relation: ShadowRelation;
}

export interface WantedCatalog {
  /** schemas to exist, in first-mention order (search path first) */
  readonly schemas: readonly string[];
  readonly relations: ReadonlyMap<string, WantedRelation>;
}

export function relationId(schema: string, name: string): string {
  return JSON.stringify([schema, name]);
}

export function wantedCatalog(catalog: ShadowCatalog): WantedCatalog {
  const schemas = new Set<string>();
  for (const s of catalog.searchPath) if (!isSystemSchema(s) && !isPreexisting(s)) schemas.add(s);
  const relations = new Map<string, WantedRelation>();
  for (const r of catalog.relations) {
    if (isSystemSchema(r.schema)) continue;
    if (!isPreexisting(r.schema)) schemas.add(r.schema);
    const id = relationId(r.schema, r.name);
    // PostgreSQL holds one relation per name in a schema: the first one listed wins
    if (relations.has(id)) continue;
    const relation: ShadowRelation = {
      schema: r.schema,
      name: r.name,
      kind: r.kind,
      columns: r.columns.map((c) => ({ name: c.name, pgType: c.pgType, nullable: c.nullable })),
      ...(r.primaryKey && r.primaryKey.length > 0 ? { primaryKey: [...r.primaryKey] } : {}),
      ...(r.comment !== undefined ? { comment: r.comment } : {}),
    };
    relations.set(id, { id, def: JSON.stringify(relation), relation });
  }
  return { schemas: [...schemas], relations };
}

/** What is loaded now: which schemas the shadow created and each relation's definition. */
export interface LoadedCatalog {
  readonly schemas: ReadonlySet<string>;
  readonly relations: ReadonlyMap<string, WantedRelation>;
}

export const EMPTY_LOADED: LoadedCatalog = { schemas: new Set(), relations: new Map() };

/**
 * The statements that turn the loaded catalog into the wanted one, run as the owner role in
 * one transaction. Relations that stay the same are left alone so that their OIDs stay the
 * same: a client that read an OID (psql's \d reads it first, then asks by it) must still find
 * the relation after another caller's catalog was loaded in between, whenever both callers
 * see that relation. `types` maps each column's type text to PostgreSQL's own spelling of it.
 */
export function switchStatements(
  loaded: LoadedCatalog,
  wanted: WantedCatalog,
  types: ReadonlyMap<string, string>,
): string[] {
  const out: string[] = [];
  const wantedSchemas = new Set(wanted.schemas);
  for (const [id, r] of loaded.relations) {
    const keep = wanted.relations.get(id);
    if (keep?.def === r.def) continue;
    // a schema about to be dropped takes its relations with it
    if (!isPreexisting(r.relation.schema) && !wantedSchemas.has(r.relation.schema)) continue;
    out.push(`DROP ${r.relation.kind === 'view' ? 'VIEW' : 'TABLE'} ${qualified(r.relation)}`);
  }
  for (const s of loaded.schemas) if (!wantedSchemas.has(s)) out.push(`DROP SCHEMA ${quoteIdent(s)} CASCADE`);
  for (const s of wanted.schemas) if (!loaded.schemas.has(s)) out.push(`CREATE SCHEMA ${quoteIdent(s)}`);
  for (const [id, r] of wanted.relations) {
    if (loaded.relations.get(id)?.def === r.def) continue;
    out.push(createStatement(r.relation, types));
    if (r.relation.comment !== undefined)
      out.push(
        `COMMENT ON ${r.relation.kind === 'view' ? 'VIEW' : 'TABLE'} ${qualified(r.relation)} IS ${quoteLiteral(r.relation.comment)}`,
      );
  }
  return out;
}

function qualified(r: ShadowRelation): string {
  return `${quoteIdent(r.schema)}.${quoteIdent(r.name)}`;
}

function typeOf(types: ReadonlyMap<string, string>, pgType: string): string {
  const t = types.get(pgType);
  if (t === undefined) throw new Error(`the type "${pgType}" was not resolved`);
  return t;
}

function createStatement(r: ShadowRelation, types: ReadonlyMap<string, string>): string {
  if (r.kind === 'view') {
    // a view keeps the type and modifier of each CAST, so \d, \dv and information_schema show
    // them; it has no NOT NULL or key to show, as in PostgreSQL
    const cols = r.columns.map((c) => `CAST(NULL AS ${typeOf(types, c.pgType)}) AS ${quoteIdent(c.name)}`);
    return `CREATE VIEW ${qualified(r)} AS SELECT ${cols.join(', ')} WHERE false`;
  }
  const parts = r.columns.map(
    (c) => `${quoteIdent(c.name)} ${typeOf(types, c.pgType)}${c.nullable ? '' : ' NOT NULL'}`,
  );
  if (r.primaryKey && r.primaryKey.length > 0) parts.push(`PRIMARY KEY (${r.primaryKey.map(quoteIdent).join(', ')})`);
  return `CREATE TABLE ${qualified(r)} (${parts.join(', ')})`;
}

/** Whether a schema name needs allow_system_table_mods to be created (PostgreSQL reserves pg_). */
export function needsSystemTableMods(schemas: Iterable<string>): boolean {
  for (const s of schemas) if (s.startsWith('pg_')) return true;
  return false;
}
