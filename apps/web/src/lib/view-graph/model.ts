/**
 * A view as the designer canvas holds it: tables (and views) placed on the canvas, joins
 * between their columns, the output columns, filters, grouping, DISTINCT, ORDER BY and LIMIT.
 * Plain, readonly, JSON-serialisable data: it is stored as the view's layout, and every edit
 * returns a new graph (undo keeps the old ones).
 */
export type JoinType = 'inner' | 'left' | 'right' | 'full';
export type Aggregate = 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';

export interface GraphColumn {
  readonly name: string;
  readonly type: string;
}

export interface GraphForeignKey {
  readonly columns: readonly string[];
  readonly refSchema: string;
  readonly refTable: string;
  readonly refColumns: readonly string[];
}

export interface GraphTable {
  /** the table's alias in the SQL, unique in the graph: it is also the node's id */
  readonly alias: string;
  /** the name as written in SQL: `source.table`, `source.schema.table` or `schema.view` */
  readonly path: readonly string[];
  readonly kind: 'table' | 'view';
  /** the source's engine (postgresql, mysql…) or 'virtual' for a view */
  readonly engine?: string;
  readonly columns: readonly GraphColumn[];
  readonly primaryKey?: readonly string[];
  readonly foreignKeys?: readonly GraphForeignKey[];
  readonly position: { readonly x: number; readonly y: number };
}

export interface ColumnRef {
  readonly table: string;
  readonly column: string;
}

/** `type` is relative to left → right: 'left' keeps every row of the left column's table. */
export interface GraphJoin {
  readonly type: JoinType;
  readonly left: ColumnRef;
  readonly right: ColumnRef;
}

export type OutputSource =
  | { readonly kind: 'column'; readonly ref: ColumnRef }
  /** SQL expression text (computed column), or '*' under count */
  | { readonly kind: 'expr'; readonly sql: string };

export interface GraphOutput {
  readonly source: OutputSource;
  /** the output column's name (AS); absent: the column's own name */
  readonly name?: string;
  readonly aggregate?: Aggregate;
}

export interface GraphSort {
  readonly expr: string;
  readonly desc: boolean;
}

export interface ViewGraph {
  readonly tables: readonly GraphTable[];
  readonly joins: readonly GraphJoin[];
  readonly outputs: readonly GraphOutput[];
  /** predicates, ANDed in WHERE */
  readonly filters: readonly string[];
  readonly distinct: boolean;
  readonly orderBy: readonly GraphSort[];
  readonly limit?: number;
}

export const EMPTY_GRAPH: ViewGraph = { tables: [], joins: [], outputs: [], filters: [], distinct: false, orderBy: [] };

export const JOIN_TYPES: readonly JoinType[] = ['inner', 'left', 'right', 'full'];
export const AGGREGATES: readonly Aggregate[] = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'];

/** The same join seen from the other side: LEFT becomes RIGHT, INNER and FULL stay. */
export function flipJoinType(t: JoinType): JoinType {
  return t === 'left' ? 'right' : t === 'right' ? 'left' : t;
}

export function joinId(j: GraphJoin): string {
  return `${j.left.table}.${j.left.column}=${j.right.table}.${j.right.column}`;
}

const RESERVED = new Set(
  (
    'all and any as asc between both by case cast check collate column constraint create cross current_date ' +
    'current_time current_timestamp default desc distinct do else end except false fetch for foreign from full ' +
    'grant group having in inner intersect into is join lateral leading left like limit natural not null offset ' +
    'on only or order outer primary references right select some table then to trailing true union unique user ' +
    'using when where window with'
  ).split(' '),
);

/**
 * Quotes a name only when it must be: not a plain identifier, or a reserved word. Unquoted
 * names match case-insensitively, so tables and columns keep their catalog spelling bare;
 * an output name (`exactCase`) is quoted unless lower-case, so its case is what the user typed.
 */
export function quoteIdent(name: string, exactCase = false): string {
  const plain = exactCase ? /^[a-z_][a-z0-9_]*$/ : /^[A-Za-z_][A-Za-z0-9_]*$/;
  if (plain.test(name) && !RESERVED.has(name.toLowerCase())) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

export function columnSql(ref: ColumnRef): string {
  return `${quoteIdent(ref.table)}.${quoteIdent(ref.column)}`;
}

/** The output's expression before aggregation. */
export function outputInnerSql(o: GraphOutput): string {
  return o.source.kind === 'column' ? columnSql(o.source.ref) : o.source.sql;
}

/** The output's expression as it stands in the SELECT list (without AS). */
export function outputSql(o: GraphOutput): string {
  const inner = outputInnerSql(o);
  if (!o.aggregate) return inner;
  if (o.aggregate === 'count_distinct') return `count(DISTINCT ${inner})`;
  return `${o.aggregate}(${inner})`;
}

/** The name the output column gets: its AS, the column's own name, or the aggregate's. */
export function outputName(o: GraphOutput): string {
  if (o.name) return o.name;
  if (o.aggregate) return o.aggregate === 'count_distinct' ? 'count' : o.aggregate;
  return o.source.kind === 'column' ? o.source.ref.column : '?column?';
}

export function tableOf(g: ViewGraph, alias: string): GraphTable | undefined {
  return g.tables.find((t) => t.alias === alias);
}

/** A fresh alias for a table: its initials (orders → o, line_item → li), numbered when taken. */
export function newAlias(g: ViewGraph, tableName: string): string {
  const words = tableName
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let base = words.map((w) => w[0]).join('') || 't';
  if (!/^[a-z_]/.test(base)) base = `t${base}`;
  if (RESERVED.has(base)) base = `${base}1`;
  const taken = new Set(g.tables.map((t) => t.alias.toLowerCase()));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
}

export function hasAggregates(g: ViewGraph): boolean {
  return g.outputs.some((o) => o.aggregate !== undefined);
}

/** Tables joined to no other (with two or more tables): they enter the view as a CROSS JOIN. */
export function unjoinedTables(g: ViewGraph): string[] {
  if (g.tables.length < 2) return [];
  return g.tables.map((t) => t.alias).filter((a) => !g.joins.some((j) => j.left.table === a || j.right.table === a));
}
