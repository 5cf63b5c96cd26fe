import { JunctionError } from '@junction/connectors';
import type { CatalogSnapshot, SqlPosition, TableInfo } from '@junction/connectors';
import type { AccessPolicy, RegisteredSource, ViewDefinition } from '../api.js';
import type { TableRef } from '../plan/logical.js';
import { displayName, nameMatches, pick, suggest } from './names.js';
import type { NamePart } from './names.js';

export type ResolvedRelation =
  | { readonly kind: 'table'; readonly source: RegisteredSource; readonly table: TableInfo; readonly ref: TableRef }
  | { readonly kind: 'view'; readonly view: ViewDefinition };

export interface ResolveOptions {
  /** schemas searched for unqualified names: a view schema, a source name, or "source.schema" */
  readonly searchPath?: readonly string[];
  readonly access?: AccessPolicy;
  /** where the name is written, for the error */
  readonly position?: SqlPosition;
}

/**
 * Everything a query can name: registered sources (with their introspected snapshots) and
 * virtual schemas holding views. Names resolve as
 *   source.table · source.schema.table · source.catalog.schema.table (SQL Server) ·
 *   view_schema.view · unqualified through the search path.
 * Access is checked here, at bind time, before any source is contacted.
 */
export class Catalog {
  private readonly sourceMap = new Map<string, RegisteredSource>();
  private readonly viewMap = new Map<string, ViewDefinition>();

  constructor(sources: readonly RegisteredSource[] = [], views: readonly ViewDefinition[] = []) {
    for (const s of sources) this.registerSource(s);
    for (const v of views) this.defineView(v);
  }

  registerSource(source: RegisteredSource): void {
    for (const existing of this.sourceMap.values()) {
      if (existing.name !== source.name && existing.name.toLowerCase() === source.name.toLowerCase()) {
        throw new JunctionError(
          'duplicate_source',
          'conflict',
          `a source named "${existing.name}" already exists; source names are case-insensitive`,
        );
      }
    }
    this.sourceMap.set(source.name, source);
  }

  removeSource(name: string): boolean {
    return this.sourceMap.delete(name);
  }

  /** Replaces a source's snapshot after re-introspection; plans bound later see the new tables. */
  refreshSource(name: string, snapshot: CatalogSnapshot): void {
    const s = this.getSource(name);
    if (!s) throw new JunctionError('unknown_source', 'not_found', `no source named "${name}"`);
    this.sourceMap.set(s.name, { ...s, catalog: snapshot });
  }

  /** A source by name, case-insensitively. */
  getSource(name: string): RegisteredSource | undefined {
    const exact = this.sourceMap.get(name);
    if (exact) return exact;
    const lower = name.toLowerCase();
    for (const s of this.sourceMap.values()) if (s.name.toLowerCase() === lower) return s;
    return undefined;
  }

  sources(): RegisteredSource[] {
    return [...this.sourceMap.values()];
  }

  /** Stores a view; its SQL is bound lazily on use, so views may name views defined later. */
  defineView(view: ViewDefinition): void {
    if (this.getSource(view.schema)) {
      throw new JunctionError(
        'name_conflict',
        'conflict',
        `"${view.schema}" is a source name; choose another schema for views`,
      );
    }
    this.viewMap.set(viewKey(view.schema, view.name), view);
  }

  dropView(schema: string, name: string): boolean {
    return this.viewMap.delete(viewKey(schema, name));
  }

  views(): ViewDefinition[] {
    return [...this.viewMap.values()];
  }

  resolve(parts: readonly NamePart[], options: ResolveOptions = {}): ResolvedRelation {
    const found = this.lookup(parts, options);
    if (found.length === 1) {
      const r = found[0];
      if (r.kind === 'table' && options.access && !options.access.canReadSource(r.source.name)) {
        throw new JunctionError(
          'access_denied',
          'forbidden',
          `you may not read source "${r.source.name}"; ask an administrator for access`,
          {
            position: options.position,
            details: { source: r.source.name },
          },
        );
      }
      if (r.kind === 'view' && options.access && !options.access.canReadView(r.view.schema, r.view.name)) {
        throw new JunctionError(
          'access_denied',
          'forbidden',
          `you may not read view "${r.view.schema}.${r.view.name}"; ask an administrator for access`,
          {
            position: options.position,
            details: { schema: r.view.schema, view: r.view.name },
          },
        );
      }
      return r;
    }
    const name = displayName(parts);
    if (found.length > 1) {
      const options_ = found.map(describe).join(', ');
      throw new JunctionError(
        'ambiguous_table',
        'user',
        `table name "${name}" is ambiguous: it matches ${options_}; qualify it`,
        {
          position: options.position,
          details: { name, candidates: found.map(describe) },
        },
      );
    }
    const hint = suggest(name, this.allNames(options.access));
    throw new JunctionError(
      'unknown_table',
      'user',
      `relation "${name}" does not exist${hint ? `; did you mean "${hint}"?` : ''}`,
      { position: options.position, details: { name, ...(hint ? { suggestion: hint } : {}) } },
    );
  }

  private lookup(parts: readonly NamePart[], options: ResolveOptions): ResolvedRelation[] {
    switch (parts.length) {
      case 1:
        return this.lookupUnqualified(parts[0], options.searchPath);
      case 2: {
        const [first, second] = parts;
        const out: ResolvedRelation[] = [];
        for (const source of pick(first, this.sources(), (s) => s.name)) {
          out.push(...this.tablesIn(source, undefined, undefined, second));
        }
        out.push(...this.viewsIn(first, second));
        return out;
      }
      case 3: {
        const [src, schema, table] = parts;
        return pick(src, this.sources(), (s) => s.name).flatMap((s) => this.tablesIn(s, undefined, schema, table));
      }
      case 4: {
        const [src, cat, schema, table] = parts;
        return pick(src, this.sources(), (s) => s.name).flatMap((s) => this.tablesIn(s, cat, schema, table));
      }
      default:
        throw new JunctionError(
          'invalid_name',
          'user',
          `improper qualified name (too many dotted names): ${displayName(parts)}`,
        );
    }
  }

  private lookupUnqualified(part: NamePart, searchPath: readonly string[] | undefined): ResolvedRelation[] {
    if (searchPath && searchPath.length > 0) {
      for (const entry of searchPath) {
        const [a, b] = splitEntry(entry);
        const hits: ResolvedRelation[] = [];
        if (b === undefined) {
          hits.push(...this.viewsIn({ name: a, quoted: true }, part));
          const source = this.getSource(a);
          if (source) hits.push(...this.tablesIn(source, undefined, undefined, part));
        } else {
          const source = this.getSource(a);
          if (source) hits.push(...this.tablesIn(source, undefined, { name: b, quoted: true }, part));
        }
        if (hits.length > 0) return hits;
      }
      return [];
    }
    // no search path: the name must be unique across every view schema and source default schema
    const out: ResolvedRelation[] = [];
    for (const v of this.viewMap.values()) if (nameMatches(part, v.name)) out.push({ kind: 'view', view: v });
    for (const s of this.sourceMap.values()) out.push(...this.tablesIn(s, undefined, undefined, part));
    return out;
  }

  private tablesIn(
    source: RegisteredSource,
    catalog: NamePart | undefined,
    schema: NamePart | undefined,
    table: NamePart,
  ): ResolvedRelation[] {
    const snap = source.catalog;
    const candidates = snap.tables.filter((t) => {
      if (catalog) {
        if (
          t.catalog === undefined ? !nameMatches(catalog, snap.defaultCatalog ?? '') : !nameMatches(catalog, t.catalog)
        )
          return false;
      } else if (t.catalog !== undefined && snap.defaultCatalog !== undefined && t.catalog !== snap.defaultCatalog)
        return false;
      if (schema) return nameMatches(schema, t.schema);
      return t.schema === snap.defaultSchema;
    });
    return pick(table, candidates, (t) => t.name).map((t) => ({
      kind: 'table',
      source,
      table: t,
      ref: {
        source: source.name,
        ...(t.catalog !== undefined
          ? { catalog: t.catalog }
          : catalog
            ? { catalog: snap.defaultCatalog ?? catalog.name }
            : {}),
        schema: t.schema,
        table: t.name,
      },
    }));
  }

  private viewsIn(schema: NamePart, name: NamePart): ResolvedRelation[] {
    const inSchema = [...this.viewMap.values()].filter((v) => nameMatches(schema, v.schema));
    return pick(name, inSchema, (v) => v.name).map((v) => ({ kind: 'view', view: v }));
  }

  /** Every name a user could have meant, for did-you-mean hints (only what they may read). */
  private allNames(access: AccessPolicy | undefined): string[] {
    const names: string[] = [];
    for (const s of this.sourceMap.values()) {
      if (access && !access.canReadSource(s.name)) continue;
      for (const t of s.catalog.tables) {
        names.push(t.schema === s.catalog.defaultSchema ? `${s.name}.${t.name}` : `${s.name}.${t.schema}.${t.name}`);
      }
    }
    for (const v of this.viewMap.values()) {
      if (access && !access.canReadView(v.schema, v.name)) continue;
      names.push(`${v.schema}.${v.name}`);
    }
    return names;
  }
}

function viewKey(schema: string, name: string): string {
  return `${schema}\u0000${name}`;
}

function splitEntry(entry: string): [string, string | undefined] {
  const i = entry.indexOf('.');
  return i < 0 ? [entry, undefined] : [entry.slice(0, i), entry.slice(i + 1)];
}

function describe(r: ResolvedRelation): string {
  if (r.kind === 'view') return `view ${r.view.schema}.${r.view.name}`;
  return `table ${r.ref.source}.${r.ref.catalog ? r.ref.catalog + '.' : ''}${r.ref.schema}.${r.ref.table}`;
}
