import { createHash } from 'node:crypto';
import {
  JunctionError,
  isJunctionError,
  quoteTrinoString,
  type Row,
  type SourceConfig,
  type SourceSemantics,
  type TrinoCatalogRef,
} from '@junction/connectors';

/** What runs statements on Trino: a TrinoConnector (its execute()) or anything shaped like it. */
export interface TrinoStatements {
  execute(sql: string): Promise<{ rows: Row[] }>;
}

/** A source read through Trino, or kept in Junction with the reason. */
export type TrinoPlacement =
  | ({ readonly local: false; readonly managed: boolean } & TrinoCatalogRef)
  | { readonly local: true; readonly reason: string };

/** Source options this file reads (SourceConfig.options holds them; the API stores any JSON there). */
interface TrinoSourceOptions {
  /** an existing Trino catalog an admin mapped the source to: used as it is, never dropped */
  readonly trinoCatalog?: unknown;
  /** the schema inside that catalog, when not the source's own default */
  readonly trinoSchema?: unknown;
}

type TrinoConnectorName = 'postgresql' | 'mysql' | 'mariadb' | 'sqlserver';

export interface CatalogDefinition {
  readonly name: string;
  readonly connector: TrinoConnectorName;
  readonly schema: string;
  /** CREATE CATALOG …, every property value escaped */
  readonly sql: string;
}

const NAME_PREFIX = 'junction_';
const MAX_NAME = 100;

/**
 * Trino's name for a source's catalog: `junction_` and the source name lower-cased with every
 * run of characters outside [a-z0-9_] replaced by `_` (none at either end). When that changed anything (case included: two
 * sources "Sales" and "sales" must not share a catalog) a hash of the original name follows,
 * so the name is deterministic and distinct per source name.
 */
export function trinoCatalogName(sourceName: string): string {
  const clean = sourceName
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const changed = clean !== sourceName || clean.length === 0 || NAME_PREFIX.length + clean.length > MAX_NAME;
  if (!changed) return NAME_PREFIX + clean;
  const hash = createHash('sha256').update(sourceName, 'utf8').digest('hex').slice(0, 8);
  return `${NAME_PREFIX}${clean.slice(0, MAX_NAME - NAME_PREFIX.length - 9)}_${hash}`;
}

/** Which Trino connector reads a source: MariaDB is told apart from MySQL by its probed version. */
export function trinoConnectorFor(source: SourceConfig, semantics?: SourceSemantics): TrinoConnectorName | { reason: string } {
  switch (source.engine) {
    case 'postgresql':
      return 'postgresql';
    case 'mysql':
      // Trino's mariadb connector speaks MariaDB's own driver and types; its mysql one
      // expects MySQL (Connector/J). Junction has one engine name for both: the probe says which.
      return /mariadb/i.test(semantics?.serverVersion ?? '') ? 'mariadb' : 'mysql';
    case 'sqlserver':
      return 'sqlserver';
    case 'sqlite':
      return { reason: `Trino has no connector for SQLite: queries reading source "${source.name}" run in Junction.` };
    case 'duckdb':
    case 'documents':
      // Trino would need the same files (or URLs and headers) on its own hosts, under Junction's rules
      return {
        reason: `Source "${source.name}" reads ${source.engine === 'duckdb' ? 'files' : 'documents'} on Junction's own host: queries reading it run in Junction.`,
      };
    default:
      return { reason: `Source "${source.name}" (engine ${source.engine}) cannot be read through Trino.` };
  }
}

/** A host as it may stand in a JDBC URL: a name or an address, nothing that could end the host part. */
function jdbcHost(source: SourceConfig): string {
  const host = source.host ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.-]+$/.test(host) && !/^\[?[0-9A-Fa-f:.]+\]?$/.test(host)) {
    throw new JunctionError('trino_catalog_invalid', 'user', `The host "${host}" of source "${source.name}" cannot be passed to Trino in a JDBC URL.`, {
      details: { source: source.name },
    });
  }
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function jdbcPort(source: SourceConfig, fallback: number): number {
  const port = source.port ?? fallback;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new JunctionError('trino_catalog_invalid', 'user', `The port of source "${source.name}" is not a TCP port.`, { details: { source: source.name } });
  return port;
}

/** A SQL Server JDBC property value: braces make ; and = literal, a closing brace is doubled. */
function sqlServerValue(v: string): string {
  return `{${v.replace(/}/g, '}}')}}`;
}

function jdbcUrl(connector: TrinoConnectorName, source: SourceConfig): string {
  const tls = source.options?.tls;
  const verify = tls?.rejectUnauthorized ?? true;
  switch (connector) {
    case 'postgresql': {
      const db = encodeURIComponent(source.database ?? 'postgres');
      const ssl = tls?.enabled ? `?sslmode=${verify ? 'verify-full' : 'require'}` : '';
      return `jdbc:postgresql://${jdbcHost(source)}:${jdbcPort(source, 5432)}/${db}${ssl}`;
    }
    case 'mariadb':
      // no database in the URL: Trino reads each MySQL/MariaDB database as a schema
      return `jdbc:mariadb://${jdbcHost(source)}:${jdbcPort(source, 3306)}${tls?.enabled ? `?sslMode=${verify ? 'verify-full' : 'trust'}` : ''}`;
    case 'mysql':
      return `jdbc:mysql://${jdbcHost(source)}:${jdbcPort(source, 3306)}${tls?.enabled ? `?sslMode=${verify ? 'VERIFY_IDENTITY' : 'REQUIRED'}` : ''}`;
    case 'sqlserver': {
      const parts = [`jdbc:sqlserver://${jdbcHost(source)}:${jdbcPort(source, 1433)}`];
      if (source.database) parts.push(`databaseName=${sqlServerValue(source.database)}`);
      parts.push(`encrypt=${tls?.enabled ? 'true' : 'false'}`);
      if (tls?.enabled && !verify) parts.push('trustServerCertificate=true');
      return parts.join(';');
    }
  }
}

/** The schema a source's tables live in, as Trino names it. */
function schemaOf(connector: TrinoConnectorName, source: SourceConfig): string {
  const own = source.options?.schema;
  switch (connector) {
    case 'postgresql':
      return own ?? 'public';
    case 'mysql':
    case 'mariadb':
      return source.database ?? own ?? '';
    case 'sqlserver':
      return own ?? 'dbo';
  }
}

/**
 * The CREATE CATALOG statement for a source. Property names are fixed here; every value goes
 * through the one escaping function for Trino string literals. case-insensitive-name-matching
 * lets Trino (which lower-cases every identifier) reach tables and columns spelled with
 * capitals in the source.
 */
export function catalogDefinition(
  source: SourceConfig,
  semantics?: SourceSemantics,
  name = trinoCatalogName(source.name),
): CatalogDefinition | { local: true; reason: string } {
  const connector = trinoConnectorFor(source, semantics);
  if (typeof connector !== 'string') return { local: true, reason: connector.reason };
  const props: [string, string][] = [
    ['connection-url', jdbcUrl(connector, source)],
    ['connection-user', source.user ?? ''],
    ['connection-password', source.password ?? ''],
    ['case-insensitive-name-matching', 'true'],
    // Trino holds a probe side's scan until the build side's filter arrives, for up to 20 s by
    // default: on these plans the filter never came and short queries took 20 s (JDV C, TPC-H Q3)
    ['dynamic-filtering.wait-timeout', '1s'],
  ];
  const sql = `CREATE CATALOG ${name} USING ${connector} WITH (${props.map(([k, v]) => `"${k}" = ${quoteTrinoString(v)}`).join(', ')})`;
  return { name, connector, schema: schemaOf(connector, source), sql };
}

/** The versions of a source's catalog among Trino's catalogs (`<base>_v<8 hex>`). */
function versionsOf(base: string, catalogs: readonly string[]): string[] {
  return catalogs.filter((c) => c.length === base.length + 10 && c.startsWith(`${base}_v`) && /^[0-9a-f]{8}$/.test(c.slice(base.length + 2)));
}

function optionsOf(source: SourceConfig): TrinoSourceOptions {
  return (source.options ?? {}) as TrinoSourceOptions;
}

const STATIC_REASON =
  'This Trino does not allow CREATE CATALOG (catalog.management=static): set the source option trinoCatalog to a catalog that already reads the source.';

/** Trino refused to create or drop catalogs at run time: its catalogs are static. */
function staticCatalogs(err: unknown): boolean {
  const name = isJunctionError(err) ? err.details?.errorName : undefined;
  return name === 'NOT_SUPPORTED' || /catalog management|static catalog/i.test(err instanceof Error ? err.message : '');
}

function trinoFailure(source: string, catalog: string, err: unknown): JunctionError {
  const msg = err instanceof Error ? err.message : String(err);
  return new JunctionError('trino_catalog_failed', 'external', `Trino cannot read source "${source}" through catalog "${catalog}": ${msg}`, {
    cause: err,
    details: { source, catalog, ...(isJunctionError(err) && err.details ? { trino: err.details } : {}) },
  });
}

/**
 * Junction's sources as Trino catalogs. A source with the option `trinoCatalog` is read
 * through that existing catalog (an admin's; it is never created or dropped here). Otherwise
 * its catalog is created with CREATE CATALOG (Trino's dynamic catalog management) and checked
 * by listing its schemas. The catalog's name carries a version, a keyed digest of its
 * definition (`junction_<source>_v<8 hex>`): Trino never shows a catalog's properties back, so
 * the name is how every server sharing this Trino, and this one after a restart, knows an
 * existing catalog already reads the source with today's settings, instead of each dropping and
 * creating it again under the others' running queries. When the settings change the new version
 * is created and the older ones of the source dropped. The digest is keyed (the server's secret
 * key) because the definition holds the source's password. Sources Trino cannot read (SQLite),
 * and every source when the cluster refuses CREATE CATALOG, stay local with the reason.
 */
export class TrinoCatalogs {
  /** catalogs known to exist with the definition their name says */
  private readonly known = new Set<string>();
  private dynamicRefused: string | undefined;

  constructor(
    private readonly trino: TrinoStatements,
    /** keyed digest of a definition (SecretBox.digest); hex */
    private readonly digest: (text: string) => string,
  ) {}

  /** Makes the source readable through Trino (or says why it stays local). */
  async ensure(source: SourceConfig, semantics?: SourceSemantics): Promise<TrinoPlacement> {
    // never mapped to a catalog, even one an admin named: Trino cannot read Junction's files
    if (source.engine === 'duckdb' || source.engine === 'documents') return catalogDefinition(source, semantics) as TrinoPlacement;
    const opts = optionsOf(source);
    if (opts.trinoCatalog !== undefined) return this.existing(source, opts, semantics);
    const base = catalogDefinition(source, semantics);
    if ('local' in base) return base;
    if (this.dynamicRefused) return { local: true, reason: this.dynamicRefused };
    const name = `${base.name}_v${this.digest(base.sql).slice(0, 8)}`;
    const def = catalogDefinition(source, semantics, name) as CatalogDefinition;
    if (!this.known.has(name)) {
      const existing = await this.catalogs();
      if (!existing.includes(name)) {
        try {
          await this.trino.execute(def.sql);
        } catch (err) {
          if (staticCatalogs(err)) {
            this.dynamicRefused = STATIC_REASON;
            return { local: true, reason: STATIC_REASON };
          }
          // another server sharing this Trino created it a moment ago
          if (!/already exists/i.test(err instanceof Error ? err.message : '')) throw trinoFailure(source.name, name, err);
        }
        try {
          await this.checkSchema(source.name, name, def.schema);
        } catch (err) {
          // a catalog that cannot log in would fail every query later, less clearly
          await this.trino.execute(`DROP CATALOG IF EXISTS ${name}`).catch(() => undefined);
          throw err;
        }
      }
      for (const old of versionsOf(base.name, existing)) if (old !== name) await this.dropCatalog(old);
      this.known.add(name);
    }
    return { local: false, managed: true, catalog: name, schema: def.schema };
  }

  private async catalogs(): Promise<string[]> {
    return (await this.trino.execute('SHOW CATALOGS')).rows.map((r) => String(r[0]));
  }

  /** Drops the catalogs made for a source, every version (never an admin's). */
  async drop(source: SourceConfig): Promise<void> {
    if (optionsOf(source).trinoCatalog !== undefined) return;
    for (const c of versionsOf(trinoCatalogName(source.name), await this.catalogs())) await this.dropCatalog(c);
  }

  /**
   * Drops a catalog this class made, by name (a removed source's, whose settings are gone). A
   * name it would never make is refused, so an admin's catalog cannot be dropped through here.
   */
  async dropCatalog(catalog: string): Promise<void> {
    if (!/^junction_[a-z0-9_]+$/.test(catalog))
      throw new JunctionError('trino_catalog_invalid', 'internal', `"${catalog}" is not a catalog Junction created for a source; it is not dropped.`, {
        details: { catalog },
      });
    await this.trino.execute(`DROP CATALOG IF EXISTS ${catalog}`);
    this.known.delete(catalog);
  }

  private async existing(source: SourceConfig, opts: TrinoSourceOptions, semantics?: SourceSemantics): Promise<TrinoPlacement> {
    const catalog = opts.trinoCatalog;
    if (typeof catalog !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(catalog))
      throw new JunctionError('trino_catalog_invalid', 'user', `The option trinoCatalog of source "${source.name}" must be a Trino catalog name (letters, digits, _).`, {
        details: { source: source.name },
      });
    const connector = trinoConnectorFor(source, semantics);
    const schema =
      typeof opts.trinoSchema === 'string' ? opts.trinoSchema : typeof connector === 'string' ? schemaOf(connector, source) : (source.options?.schema ?? '');
    await this.checkSchema(source.name, catalog.toLowerCase(), schema);
    return { local: false, managed: false, catalog: catalog.toLowerCase(), schema };
  }

  /** Lists the catalog's schemas: proves Trino can log in to the source, and that the schema is there. */
  private async checkSchema(source: string, catalog: string, schema: string): Promise<void> {
    let rows: Row[];
    try {
      rows = (await this.trino.execute(`SHOW SCHEMAS FROM ${catalog}`)).rows;
    } catch (err) {
      throw trinoFailure(source, catalog, err);
    }
    if (schema && !rows.some((r) => String(r[0]).toLowerCase() === schema.toLowerCase()))
      throw new JunctionError('trino_catalog_failed', 'external', `Trino's catalog "${catalog}" for source "${source}" has no schema "${schema}".`, {
        details: { source, catalog, schema },
      });
  }
}
