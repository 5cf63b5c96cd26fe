import type { CatalogSource } from './catalog.js';

/** GET /api/v1/connection-info: where Junction's PostgreSQL listener is, and who you are there. */
export interface ConnectionInfo {
  readonly pgWire: {
    readonly enabled: boolean;
    readonly host: string;
    readonly port: number | null;
    readonly tls: boolean;
    readonly database: string;
  };
  readonly username: string;
  readonly canQuery: boolean;
}

export interface PgConnectStrings {
  readonly psql: string;
  readonly jdbc: string;
  readonly uri: string;
}

/**
 * With TLS the client insists on it (`require`: encrypted, the certificate not checked, which
 * works with a self-signed one); without, it does not ask for it.
 */
export const sslMode = (tls: boolean): 'require' | 'disable' => (tls ? 'require' : 'disable');

/** A libpq keyword value: bare when it can be, else single-quoted with \ and ' escaped. */
function conninfoValue(v: string): string {
  return /^[A-Za-z0-9_.@:%+-]+$/.test(v) ? v : `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** Inside a shell's double quotes only " $ ` \ are special. */
const shellDoubleQuoted = (v: string) => `"${v.replace(/["$`\\]/g, (c) => `\\${c}`)}"`;

/** An IPv6 address goes in brackets in a URL; libpq's host= takes it bare. */
const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The psql command, JDBC URL and libpq URI for a listener that is on. */
export function pgConnectStrings(info: ConnectionInfo): PgConnectStrings {
  const { host, port, database, tls } = info.pgWire;
  const mode = sslMode(tls);
  const keywords = [
    `host=${conninfoValue(host)}`,
    `port=${port}`,
    `dbname=${conninfoValue(database)}`,
    `user=${conninfoValue(info.username)}`,
    `sslmode=${mode}`,
  ].join(' ');
  const hostPort = `${urlHost(host)}:${port}`;
  return {
    psql: `psql ${shellDoubleQuoted(keywords)}`,
    jdbc: `jdbc:postgresql://${hostPort}/${encodeURIComponent(database)}?sslmode=${mode}`,
    uri: `postgresql://${encodeURIComponent(info.username)}@${hostPort}/${encodeURIComponent(database)}?sslmode=${mode}`,
  };
}

/** A PostgreSQL identifier in double quotes: sources keep their case there ("dbA", not dba). */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface ExampleTable {
  readonly schema: string;
  readonly table: string;
}

/**
 * A table to show in the example query: the first table in the default schema of the first source
 * the user can read (over the listener a source is a schema, its default schema's tables its tables);
 * the demo's "dbA"."region" when the catalog has none.
 */
export function exampleTable(catalog: readonly CatalogSource[] | undefined): ExampleTable {
  for (const s of catalog ?? []) {
    if (s.engine === 'virtual') continue;
    const schema =
      s.schemas.find((sc) => sc.name === s.defaultSchema) ?? (s.schemas.length === 1 ? s.schemas[0] : undefined);
    const table = schema?.tables.find((t) => t.kind === 'table') ?? schema?.tables[0];
    if (table) return { schema: s.name, table: table.name };
  }
  return { schema: 'dbA', table: 'region' };
}

/** The example statement for a table. */
export const exampleQuery = (t: ExampleTable) =>
  `SELECT * FROM ${quoteIdent(t.schema)}.${quoteIdent(t.table)} LIMIT 10;`;

/** A virtual schema of the user's, to name in the note on views (undefined when there is none). */
export function exampleVirtualSchema(catalog: readonly CatalogSource[] | undefined): string | undefined {
  return catalog?.find((s) => s.engine === 'virtual')?.name;
}
