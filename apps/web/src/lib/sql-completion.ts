import type { CatalogSource, CatalogTable } from './catalog.js';

export type SuggestionKind = 'source' | 'schema' | 'table' | 'column' | 'keyword';

export interface Suggestion {
  readonly label: string;
  readonly kind: SuggestionKind;
  readonly detail: string;
}

export const SQL_KEYWORDS = [
  'SELECT',
  'FROM',
  'WHERE',
  'JOIN',
  'LEFT JOIN',
  'INNER JOIN',
  'ON',
  'GROUP BY',
  'ORDER BY',
  'HAVING',
  'LIMIT',
  'OFFSET',
  'UNION ALL',
  'DISTINCT',
  'AS',
  'AND',
  'OR',
  'NOT',
  'IN',
  'EXISTS',
  'BETWEEN',
  'LIKE',
  'IS NULL',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'COUNT',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'CAST',
  'WITH',
];

/** `a.b.` or `a.b.par` just before the cursor: completion after a qualifier */
const DOTTED = /([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)\.[\w$]*$/;

interface TableRef {
  readonly source: CatalogSource;
  readonly schema: string;
  readonly table: CatalogTable;
}

/** Finds `source.table` or `source.schema.table` in the catalog (names compared case-insensitively). */
export function resolveTable(catalog: readonly CatalogSource[], parts: readonly string[]): TableRef | undefined {
  const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const source = catalog.find((s) => eq(s.name, parts[0] ?? ''));
  if (!source) return undefined;
  const rest = parts.slice(1);
  for (const sc of source.schemas) {
    if (rest.length === 1) {
      const t = sc.tables.find((x) => eq(x.name, rest[0]));
      if (t) return { source, schema: sc.name, table: t };
    } else if (rest.length >= 2 && eq(sc.name, rest[rest.length - 2])) {
      const t = sc.tables.find((x) => eq(x.name, rest[rest.length - 1]));
      if (t) return { source, schema: sc.name, table: t };
    }
  }
  return undefined;
}

/** Tables named after FROM/JOIN with their aliases (`dbA.orders o`, `dbB.customer AS c`). */
export function tableReferences(catalog: readonly CatalogSource[], sql: string): Map<string, TableRef> {
  const refs = new Map<string, TableRef>();
  const re = /\b(?:from|join)\s+([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)+)(?:\s+(?:as\s+)?([A-Za-z_][\w$]*))?/gi;
  const notAlias = /^(where|on|join|left|right|inner|full|cross|group|order|limit|union|using|natural|having)$/i;
  for (const m of sql.matchAll(re)) {
    const parts = m[1].split('.');
    const ref = resolveTable(catalog, parts);
    if (!ref) continue;
    refs.set(ref.table.name.toLowerCase(), ref);
    if (m[2] && !notAlias.test(m[2])) refs.set(m[2].toLowerCase(), ref);
  }
  return refs;
}

/**
 * What to offer at the cursor. `before` is the SQL up to the cursor, `all` the whole text
 * (aliases may be declared after the cursor, as in `SELECT o.| FROM dbA.orders o`).
 */
export function suggest(catalog: readonly CatalogSource[], before: string, all: string): Suggestion[] {
  const dotted = DOTTED.exec(before);
  if (dotted) return afterDot(catalog, dotted[1].split('.'), all);
  const out: Suggestion[] = catalog.map((s) => ({
    label: s.name,
    kind: 'source' as const,
    detail: s.engine === 'virtual' ? 'virtual schema' : s.engine ? `source (${s.engine})` : 'source',
  }));
  const seen = new Set<string>();
  for (const ref of tableReferences(catalog, all).values()) {
    if (seen.has(ref.table.name)) continue;
    seen.add(ref.table.name);
    for (const c of ref.table.columns ?? [])
      out.push({ label: c.name, kind: 'column', detail: `${c.type} · ${ref.source.name}.${ref.table.name}` });
  }
  for (const k of SQL_KEYWORDS) out.push({ label: k, kind: 'keyword', detail: 'keyword' });
  return out;
}

/** A view lives in a virtual schema, whose only schema has its name: name the place once. */
function tableDetail(kind: string, source: CatalogSource, schema: string): string {
  if (source.engine === 'virtual' || kind === 'view') return `${kind} in ${schema === source.name ? source.name : `${source.name}.${schema}`}`;
  return `${kind} · ${source.name}.${schema}`;
}

function afterDot(catalog: readonly CatalogSource[], parts: string[], all: string): Suggestion[] {
  const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const source = catalog.find((s) => eq(s.name, parts[0]));
  if (source && parts.length === 1) {
    // `dbA.` → tables of every schema (the default schema's are reachable as source.table) and schema names
    const out: Suggestion[] = [];
    for (const sc of source.schemas) {
      for (const t of sc.tables)
        out.push({ label: t.name, kind: 'table', detail: tableDetail(t.kind, source, sc.name) });
    }
    if (source.schemas.length > 1)
      for (const sc of source.schemas) out.push({ label: sc.name, kind: 'schema', detail: `schema · ${source.name}` });
    return out;
  }
  if (source && parts.length === 2) {
    const sc = source.schemas.find((x) => eq(x.name, parts[1]));
    if (sc)
      return sc.tables.map((t) => ({
        label: t.name,
        kind: 'table' as const,
        detail: tableDetail(t.kind, source, sc.name),
      }));
  }
  const ref = source
    ? resolveTable(catalog, parts)
    : tableReferences(catalog, all).get(parts[parts.length - 1].toLowerCase());
  if (!ref) return [];
  return (ref.table.columns ?? []).map((c) => ({
    label: c.name,
    kind: 'column' as const,
    detail: `${c.type} · ${ref.source.name}.${ref.table.name}`,
  }));
}

/** Tables whose columns a completion at this cursor needs and that are not loaded yet. */
export function tablesNeeded(
  catalog: readonly CatalogSource[],
  before: string,
  all: string,
): { source: string; schema: string; table: string }[] {
  const refs = [...tableReferences(catalog, all).values()];
  const dotted = DOTTED.exec(before);
  if (dotted) {
    const r = resolveTable(catalog, dotted[1].split('.'));
    if (r) refs.push(r);
  }
  const out = new Map<string, { source: string; schema: string; table: string }>();
  for (const r of refs) {
    if (r.table.columns) continue;
    out.set(`${r.source.name}.${r.schema}.${r.table.name}`, {
      source: r.source.name,
      schema: r.schema,
      table: r.table.name,
    });
  }
  return [...out.values()];
}
