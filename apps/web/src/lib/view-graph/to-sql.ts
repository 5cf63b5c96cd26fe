import {
  columnSql,
  flipJoinType,
  hasAggregates,
  outputInnerSql,
  outputName,
  outputSql,
  quoteIdent,
  type GraphJoin,
  type GraphOutput,
  type GraphTable,
  type JoinType,
  type ViewGraph,
} from './model.js';

const JOIN_KEYWORD: Record<JoinType, string> = {
  inner: 'JOIN',
  left: 'LEFT JOIN',
  right: 'RIGHT JOIN',
  full: 'FULL JOIN',
};

/**
 * The view's SQL, in one canonical layout (parseViewSql reads it back to the same graph).
 * Tables join in canvas order: each next table is the first one joined to those already
 * placed; a table joined to none is a CROSS JOIN.
 */
export function graphToSql(g: ViewGraph): string {
  if (g.tables.length === 0) return '';
  const lines: string[] = [];
  lines.push(g.distinct ? 'SELECT DISTINCT' : 'SELECT');
  lines.push(selectList(g));
  lines.push(...fromClause(g));
  if (g.filters.length > 0) lines.push(`WHERE ${g.filters.map(wrapOr).join('\n  AND ')}`);
  const groups = groupBy(g);
  if (groups.length > 0) lines.push(`GROUP BY ${groups.join(', ')}`);
  if (g.orderBy.length > 0)
    lines.push(`ORDER BY ${g.orderBy.map((s) => (s.desc ? `${s.expr} DESC` : s.expr)).join(', ')}`);
  if (g.limit !== undefined) lines.push(`LIMIT ${g.limit}`);
  return lines.join('\n');
}

function selectList(g: ViewGraph): string {
  if (g.outputs.length === 0) return '  *';
  return g.outputs.map((o) => `  ${selectItem(o)}`).join(',\n');
}

function selectItem(o: GraphOutput): string {
  const sql = outputSql(o);
  const plainColumn = o.source.kind === 'column' && !o.aggregate;
  if (!o.name || (plainColumn && o.name === outputName({ ...o, name: undefined }))) return sql;
  return `${sql} AS ${quoteIdent(o.name, true)}`;
}

/** Placement order and the joins that attach each table (the first table has none). */
export function joinOrder(g: ViewGraph): { table: GraphTable; type: JoinType | 'cross'; on: GraphJoin[] }[] {
  const placed = new Set<string>();
  const out: { table: GraphTable; type: JoinType | 'cross'; on: GraphJoin[] }[] = [];
  const rest = [...g.tables];
  const first = rest.shift()!;
  placed.add(first.alias);
  out.push({ table: first, type: 'inner', on: [] });
  while (rest.length > 0) {
    let i = rest.findIndex((t) => g.joins.some((j) => connects(j, t.alias, placed)));
    if (i < 0) i = 0;
    const t = rest.splice(i, 1)[0]!;
    // conditions written placed side first, so the join keyword reads from the placed tables
    const on = g.joins
      .filter((j) => connects(j, t.alias, placed))
      .map((j) => (j.right.table === t.alias ? j : { type: flipJoinType(j.type), left: j.right, right: j.left }));
    out.push({ table: t, type: on.length === 0 ? 'cross' : on[0]!.type, on });
    placed.add(t.alias);
  }
  return out;
}

function connects(j: GraphJoin, alias: string, placed: ReadonlySet<string>): boolean {
  return (j.left.table === alias && placed.has(j.right.table)) || (j.right.table === alias && placed.has(j.left.table));
}

function fromClause(g: ViewGraph): string[] {
  return joinOrder(g).map(({ table, type, on }, i) => {
    const ref = `${table.path.map((p) => quoteIdent(p)).join('.')} AS ${quoteIdent(table.alias)}`;
    if (i === 0) return `FROM ${ref}`;
    if (type === 'cross') return `  CROSS JOIN ${ref}`;
    const conds = on.map((j) => `${columnSql(j.left)} = ${columnSql(j.right)}`).join(' AND ');
    return `  ${JOIN_KEYWORD[type]} ${ref} ON ${conds}`;
  });
}

/** With any aggregate, every other output is a group key, as Dremio's and Denodo's designers do. */
function groupBy(g: ViewGraph): string[] {
  if (!hasAggregates(g)) return [];
  return g.outputs.filter((o) => !o.aggregate).map(outputInnerSql);
}

/** `a OR b` under AND needs its parentheses. */
function wrapOr(p: string): string {
  return /\bor\b/i.test(stripNested(p)) ? `(${p})` : p;
}

/** The text outside parentheses and string literals, to look at top-level keywords. */
export function stripNested(s: string): string {
  let depth = 0;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      i = end < 0 ? s.length : end;
      out += ' ';
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0) out += c;
  }
  return out;
}
