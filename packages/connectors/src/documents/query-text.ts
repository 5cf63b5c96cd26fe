import { JunctionError } from '../contract/errors.js';
import type { RemoteExpr, RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import { formatType, type JType, type TypeKind, type Value } from '../contract/types.js';

/**
 * A documents source has no SQL engine, yet a RenderedQuery must carry text that fully
 * determines the request (EXPLAIN shows it, caches key on it). render() writes a small
 * SQL-like text for exactly what capabilities() declares, and stream() parses that same text
 * back with the grammar below; nothing else is accepted.
 *
 *   query  := SELECT [DISTINCT] item {, item} FROM ident [WHERE expr] [LIMIT n]
 *   item   := expr [AS ident]
 *   expr   := and {OR and};   and := not {AND not};   not := NOT not | pred
 *   pred   := atom [cmp atom | IS [NOT] NULL | [NOT] IN ( atom {, atom} )]
 *   atom   := ident | $n[::type] | ( expr )
 *
 * A parameter carries its type (`$1::int64`) unless it is compared with a column of its own
 * kind, where the column says it: `"balance" > $1`.
 */

export type CmpOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type DocExpr =
  | { readonly k: 'col'; readonly name: string }
  | { readonly k: 'param'; readonly index: number; readonly type?: JType }
  | { readonly k: 'cmp'; readonly op: CmpOp; readonly l: DocExpr; readonly r: DocExpr }
  | { readonly k: 'and' | 'or'; readonly args: readonly DocExpr[] }
  | { readonly k: 'not'; readonly arg: DocExpr }
  | { readonly k: 'isnull'; readonly arg: DocExpr; readonly negated: boolean }
  | { readonly k: 'in'; readonly arg: DocExpr; readonly list: readonly DocExpr[]; readonly negated: boolean };

export interface DocQuery {
  readonly table: string;
  readonly distinct: boolean;
  readonly select: readonly { readonly expr: DocExpr; readonly alias: string }[];
  readonly where?: DocExpr;
  readonly limit?: number;
}

const CMP: Partial<Record<string, CmpOp>> = { eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=' };

function unsupported(what: string): JunctionError {
  return new JunctionError(
    'document_query_unsupported',
    'unsupported',
    `A documents source cannot run ${what}: it only filters, projects and limits the rows of one table.`,
  );
}

function sameComparison(a: JType, b: JType): boolean {
  return a.kind === b.kind && (a.kind !== 'string' || (a.fixed === true) === (b.fixed === true));
}

export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** Renders a RemoteQuery over one document table; throws for anything capabilities() does not declare. */
export function renderDocumentQuery(query: RemoteQuery): RenderedQuery {
  if (query.from.kind !== 'table') throw unsupported(`a FROM of kind ${query.from.kind}`);
  if (query.groupBy?.length || query.having) throw unsupported('GROUP BY or HAVING');
  if (query.orderBy?.length) throw unsupported('ORDER BY');
  if (query.offset) throw unsupported('OFFSET');
  if (query.select.length === 0)
    throw new JunctionError('empty_select', 'internal', 'a remote query must select at least one column');
  const params: Value[] = [];
  const param = (v: Value, type: JType, cast: boolean): string => {
    params.push(v);
    return `$${params.length}` + (cast ? `::${formatType(type)}` : '');
  };
  const atom = (e: RemoteExpr, peer?: RemoteExpr): string => {
    switch (e.kind) {
      case 'column':
        return quoteIdent(e.column);
      case 'literal':
        // a text value against a char(n) column keeps its type: PostgreSQL compares it as text,
        // trailing blanks significant, where two char(n) values would ignore them
        return param(e.value, e.type, !(peer?.kind === 'column' && sameComparison(peer.type, e.type)));
      default: {
        const s = expr(e);
        return s.startsWith('(') && e.kind === 'call' && (e.fn === 'and' || e.fn === 'or') ? s : `(${s})`;
      }
    }
  };
  const expr = (e: RemoteExpr): string => {
    switch (e.kind) {
      case 'column':
      case 'literal':
        return atom(e);
      case 'call': {
        const op = CMP[e.fn];
        if (op) return `${atom(e.args[0], e.args[1])} ${op} ${atom(e.args[1], e.args[0])}`;
        switch (e.fn) {
          case 'and':
          case 'or':
            return '(' + e.args.map(expr).join(e.fn === 'and' ? ' AND ' : ' OR ') + ')';
          case 'not':
            return `NOT ${atom(e.args[0])}`;
          case 'is_null':
            return `${atom(e.args[0])} IS NULL`;
          case 'is_not_null':
            return `${atom(e.args[0])} IS NOT NULL`;
          default:
            throw unsupported(`the function ${e.fn}`);
        }
      }
      case 'in':
        if (e.list.length === 0)
          throw new JunctionError('empty_in_list', 'internal', 'an IN list needs at least one value');
        return `${atom(e.expr)} ${e.negated ? 'NOT IN' : 'IN'} (${e.list.map((x) => atom(x, e.expr)).join(', ')})`;
      case 'keySet':
        if (e.values.length === 0)
          throw new JunctionError('empty_in_list', 'internal', 'an IN list needs at least one value');
        return `${atom(e.expr)} IN (${e.values.map((v) => param(v, e.expr.type, e.expr.kind !== 'column')).join(', ')})`;
      default:
        throw unsupported(`an expression of kind ${e.kind}`);
    }
  };
  const items = query.select.map((s) =>
    s.expr.kind === 'column' && s.expr.column === s.alias
      ? quoteIdent(s.alias)
      : `${atom(s.expr)} AS ${quoteIdent(s.alias)}`,
  );
  let sql = `SELECT ${query.distinct ? 'DISTINCT ' : ''}${items.join(', ')} FROM ${quoteIdent(query.from.table)}`;
  if (query.where) sql += ` WHERE ${expr(query.where)}`;
  if (query.limit !== undefined) sql += ` LIMIT ${query.limit}`;
  return {
    sql,
    params,
    columns: query.select.map((s) => ({ name: s.alias, type: s.expr.type, nullable: true })),
  };
}

type Tok =
  | { readonly t: 'ident'; readonly v: string }
  | { readonly t: 'param'; readonly v: number }
  | { readonly t: 'word'; readonly v: string }
  | { readonly t: 'num'; readonly v: string }
  | { readonly t: 'punct'; readonly v: string };

function textError(sql: string, why: string): JunctionError {
  return new JunctionError(
    'document_query_invalid',
    'user',
    `A documents source reads only the query text it renders itself; this text is not one (${why}): ${sql.length > 200 ? sql.slice(0, 200) + '…' : sql}`,
  );
}

function lexQuery(sql: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '"') {
      let v = '';
      i++;
      for (;;) {
        if (i >= sql.length) throw textError(sql, 'an identifier is not closed');
        if (sql[i] === '"') {
          if (sql[i + 1] === '"') {
            v += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        v += sql[i++];
      }
      out.push({ t: 'ident', v });
    } else if (c === '$') {
      const m = /^\$(\d+)/.exec(sql.slice(i));
      if (!m) throw textError(sql, `unexpected "$" at ${i + 1}`);
      out.push({ t: 'param', v: Number(m[1]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))!;
      out.push({ t: 'word', v: m[0] });
      i += m[0].length;
    } else if (/\d/.test(c)) {
      const m = /^\d+/.exec(sql.slice(i))!;
      out.push({ t: 'num', v: m[0] });
      i += m[0].length;
    } else {
      const two = sql.slice(i, i + 2);
      const p = ['<>', '<=', '>=', '::'].includes(two) ? two : c;
      if (!['<>', '<=', '>=', '::', '=', '<', '>', '(', ')', ',', '*'].includes(p))
        throw textError(sql, `unexpected "${c}" at ${i + 1}`);
      out.push({ t: 'punct', v: p });
      i += p.length;
    }
  }
  return out;
}

const KINDS = new Set<string>([
  'bool',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'interval',
  'binary',
  'json',
  'uuid',
  'null',
  'unknown',
]);

/** Parses text render() produced. */
export function parseDocumentQuery(sql: string): DocQuery {
  const toks = lexQuery(sql);
  let i = 0;
  const peek = (): Tok | undefined => toks[i];
  const isWord = (w: string, at = i): boolean => toks[at]?.t === 'word' && toks[at].v.toUpperCase() === w;
  const isPunct = (p: string): boolean => toks[i]?.t === 'punct' && toks[i].v === p;
  const expectWord = (w: string): void => {
    if (!isWord(w)) throw textError(sql, `${w} expected`);
    i++;
  };
  const expectPunct = (p: string): void => {
    if (!isPunct(p)) throw textError(sql, `"${p}" expected`);
    i++;
  };
  const ident = (): string => {
    const t = peek();
    if (t?.t !== 'ident') throw textError(sql, 'a quoted name expected');
    i++;
    return t.v;
  };
  const typeText = (): JType => {
    const t = peek();
    if (t?.t !== 'word') throw textError(sql, 'a type expected');
    i++;
    const name = t.v.toLowerCase();
    const args: number[] = [];
    if (isPunct('(')) {
      i++;
      for (;;) {
        const n = peek();
        if (n?.t !== 'num') throw textError(sql, 'a type modifier expected');
        args.push(Number(n.v));
        i++;
        if (isPunct(',')) i++;
        else break;
      }
      expectPunct(')');
    }
    if (name === 'decimal')
      return args.length ? { kind: 'decimal', precision: args[0], scale: args[1] ?? 0 } : { kind: 'decimal' };
    if (name === 'text') return { kind: 'string' };
    if (name === 'varchar') return { kind: 'string', length: args[0] };
    if (name === 'char') return { kind: 'string', length: args[0], fixed: true };
    if (KINDS.has(name)) return { kind: name as TypeKind };
    throw textError(sql, `unknown type ${name}`);
  };
  const atom = (): DocExpr => {
    const t = peek();
    if (t?.t === 'ident') {
      i++;
      return { k: 'col', name: t.v };
    }
    if (t?.t === 'param') {
      i++;
      if (isPunct('::')) {
        i++;
        return { k: 'param', index: t.v - 1, type: typeText() };
      }
      return { k: 'param', index: t.v - 1 };
    }
    if (isPunct('(')) {
      i++;
      const e = or();
      expectPunct(')');
      return e;
    }
    throw textError(sql, 'a column, parameter or "(" expected');
  };
  const pred = (): DocExpr => {
    const l = atom();
    const t = peek();
    if (t?.t === 'punct' && ['=', '<>', '<', '<=', '>', '>='].includes(t.v)) {
      i++;
      return { k: 'cmp', op: t.v as CmpOp, l, r: atom() };
    }
    if (isWord('IS')) {
      i++;
      const negated = isWord('NOT');
      if (negated) i++;
      expectWord('NULL');
      return { k: 'isnull', arg: l, negated };
    }
    if (isWord('IN') || (isWord('NOT') && isWord('IN', i + 1))) {
      const negated = isWord('NOT');
      i += negated ? 2 : 1;
      expectPunct('(');
      const list = [atom()];
      while (isPunct(',')) {
        i++;
        list.push(atom());
      }
      expectPunct(')');
      return { k: 'in', arg: l, list, negated };
    }
    return l;
  };
  const not = (): DocExpr => {
    if (isWord('NOT')) {
      i++;
      return { k: 'not', arg: not() };
    }
    return pred();
  };
  const chain = (word: 'AND' | 'OR', next: () => DocExpr): DocExpr => {
    const first = next();
    if (!isWord(word)) return first;
    const args = [first];
    while (isWord(word)) {
      i++;
      args.push(next());
    }
    return { k: word === 'AND' ? 'and' : 'or', args };
  };
  const and = (): DocExpr => chain('AND', not);
  const or = (): DocExpr => chain('OR', and);

  expectWord('SELECT');
  const distinct = isWord('DISTINCT');
  if (distinct) i++;
  const select: { expr: DocExpr; alias: string }[] = [];
  for (;;) {
    const expr = or();
    let alias: string;
    if (isWord('AS')) {
      i++;
      alias = ident();
    } else if (expr.k === 'col') alias = expr.name;
    else throw textError(sql, 'an expression needs AS');
    select.push({ expr, alias });
    if (!isPunct(',')) break;
    i++;
  }
  expectWord('FROM');
  const table = ident();
  let where: DocExpr | undefined;
  if (isWord('WHERE')) {
    i++;
    where = or();
  }
  let limit: number | undefined;
  if (isWord('LIMIT')) {
    i++;
    const n = peek();
    if (n?.t !== 'num') throw textError(sql, 'a row count expected after LIMIT');
    i++;
    limit = Number(n.v);
  }
  if (i < toks.length) throw textError(sql, `unexpected text at token ${i + 1}`);
  return { table, distinct, select, ...(where ? { where } : {}), ...(limit !== undefined ? { limit } : {}) };
}

/** The column names an expression reads. */
export function columnsOf(e: DocExpr, out: Set<string>): Set<string> {
  switch (e.k) {
    case 'col':
      out.add(e.name);
      break;
    case 'param':
      break;
    case 'cmp':
      columnsOf(e.l, out);
      columnsOf(e.r, out);
      break;
    case 'and':
    case 'or':
      for (const a of e.args) columnsOf(a, out);
      break;
    case 'not':
    case 'isnull':
      columnsOf(e.arg, out);
      break;
    case 'in':
      columnsOf(e.arg, out);
      for (const a of e.list) columnsOf(a, out);
      break;
  }
  return out;
}
