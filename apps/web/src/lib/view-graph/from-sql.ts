import {
  EMPTY_GRAPH,
  flipJoinType,
  outputInnerSql,
  type Aggregate,
  type ColumnRef,
  type GraphColumn,
  type GraphForeignKey,
  type GraphJoin,
  type GraphOutput,
  type GraphSort,
  type GraphTable,
  type JoinType,
  type ViewGraph,
} from './model.js';
import { isName, SqlTokenError, tokenize, type Token } from './tokens.js';

/** What the catalog knows of a table or view named in the SQL. */
export interface ResolvedTable {
  readonly path: readonly string[];
  readonly kind: 'table' | 'view';
  readonly engine?: string;
  readonly columns: readonly GraphColumn[];
  readonly primaryKey?: readonly string[];
  readonly foreignKeys?: readonly GraphForeignKey[];
}
export type ResolveTable = (path: readonly string[]) => ResolvedTable | undefined;

export type ParseResult =
  { readonly ok: true; readonly graph: ViewGraph } | { readonly ok: false; readonly reason: string };

/** The SQL is valid, but the canvas cannot show it: the reason says which part. */
class Unsupported extends Error {}

const CLAUSE_END = new Set([
  'FROM',
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'FETCH',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'WINDOW',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'NATURAL',
  'ON',
  'USING',
]);
const AGGREGATE_FNS = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);
const NOT_AN_ALIAS = new Set(['END', 'NULL', 'TRUE', 'FALSE', 'ASC', 'DESC', 'DISTINCT']);

/**
 * Reads SQL back onto the canvas when it stays within what the canvas shows: one SELECT over
 * tables joined on column equalities, with WHERE, GROUP BY of the non-aggregated outputs,
 * ORDER BY and LIMIT. Anything else is a reason, never a guess. `positions` places tables by
 * alias (a stored layout); others go on a grid.
 */
export function sqlToGraph(
  sql: string,
  resolve: ResolveTable,
  positions: ReadonlyMap<string, { x: number; y: number }> = new Map(),
): ParseResult {
  try {
    return { ok: true, graph: new Parser(sql, resolve, positions).parse() };
  } catch (e) {
    if (e instanceof Unsupported || e instanceof SqlTokenError) return { ok: false, reason: e.message };
    throw e;
  }
}

class Parser {
  private readonly t: Token[];
  private p = 0;
  private tables: GraphTable[] = [];
  private joins: GraphJoin[] = [];

  constructor(
    private readonly sql: string,
    private readonly resolve: ResolveTable,
    private readonly positions: ReadonlyMap<string, { x: number; y: number }>,
  ) {
    this.t = tokenize(sql);
    while (this.t.length > 0 && this.t[this.t.length - 1]!.text === ';') this.t.pop();
  }

  parse(): ViewGraph {
    if (this.t.length === 0) return EMPTY_GRAPH;
    if (this.peekWord('WITH')) throw new Unsupported('WITH (common table expressions) is not shown on the canvas');
    this.expectWord('SELECT');
    const distinct = this.acceptWord('DISTINCT');
    if (distinct && this.peekWord('ON')) throw new Unsupported('DISTINCT ON is not shown on the canvas');
    if (this.acceptWord('ALL') && distinct) throw new Unsupported('DISTINCT ALL is not valid');
    const selectItems = this.until(new Set(['FROM']));
    if (!this.acceptWord('FROM')) throw new Unsupported('a SELECT without FROM has no tables to show');
    this.fromClause();
    const filters = this.acceptWord('WHERE') ? splitAnd(this.sql, this.until(CLAUSE_END)) : [];
    const outputs = this.selectList(selectItems);
    let groups: string[] = [];
    if (this.acceptWord('GROUP')) {
      this.expectWord('BY');
      groups = splitComma(this.until(CLAUSE_END)).map((g) => this.text(g));
    }
    if (this.peekWord('HAVING')) throw new Unsupported('HAVING is not shown on the canvas');
    const orderBy = this.acceptWord('ORDER') ? (this.expectWord('BY'), this.orderBy()) : [];
    let limit: number | undefined;
    if (this.acceptWord('LIMIT')) {
      const n = this.next();
      if (n?.kind !== 'number' || !/^\d+$/.test(n.text))
        throw new Unsupported('LIMIT takes a whole number on the canvas');
      limit = Number(n.text);
    }
    const rest = this.t[this.p];
    if (rest) {
      const what = rest.kind === 'word' ? rest.upper : `"${rest.text}"`;
      throw new Unsupported(`${what} is not shown on the canvas`);
    }
    checkGroups(outputs, groups);
    return {
      tables: this.tables,
      joins: this.joins,
      outputs,
      filters,
      distinct,
      orderBy,
      ...(limit !== undefined ? { limit } : {}),
    };
  }

  private fromClause(): void {
    this.addTable();
    for (;;) {
      if (this.peek()?.text === ',') throw new Unsupported('tables listed with commas are not shown: write JOIN … ON');
      if (this.peekWord('NATURAL')) throw new Unsupported('NATURAL JOIN is not shown on the canvas');
      if (this.acceptWord('CROSS')) {
        this.expectWord('JOIN');
        this.addTable();
        continue;
      }
      let type: JoinType | undefined;
      if (this.acceptWord('JOIN')) type = 'inner';
      else if (this.acceptWord('INNER')) type = 'inner';
      else if (this.acceptWord('LEFT')) type = 'left';
      else if (this.acceptWord('RIGHT')) type = 'right';
      else if (this.acceptWord('FULL')) type = 'full';
      if (!type) return;
      if (this.t[this.p - 1]!.upper !== 'JOIN') {
        this.acceptWord('OUTER');
        this.expectWord('JOIN');
      }
      const table = this.addTable();
      if (this.peekWord('USING')) throw new Unsupported('JOIN … USING is not shown: write JOIN … ON');
      this.expectWord('ON');
      for (const cond of splitAndTokens(this.until(CLAUSE_END))) this.addCondition(cond, table, type);
    }
  }

  private addTable(): GraphTable {
    if (this.peek()?.text === '(') throw new Unsupported('a subquery in FROM is not shown on the canvas');
    const path: string[] = [this.name()];
    while (this.peek()?.text === '.') {
      this.p++;
      path.push(this.name());
    }
    let alias = path[path.length - 1]!;
    if (this.acceptWord('AS')) alias = this.name();
    else if (isName(this.peek()) && !(this.peek()!.kind === 'word' && CLAUSE_END.has(this.peek()!.upper)))
      alias = this.name();
    const found = this.resolve(path);
    if (!found) throw new Unsupported(`${path.join('.')} is not in the catalog`);
    if (this.tables.some((t) => t.alias.toLowerCase() === alias.toLowerCase()))
      throw new Unsupported(`the alias ${alias} is used twice`);
    const i = this.tables.length;
    const table: GraphTable = {
      alias,
      path: found.path,
      kind: found.kind,
      ...(found.engine ? { engine: found.engine } : {}),
      columns: found.columns,
      ...(found.primaryKey ? { primaryKey: found.primaryKey } : {}),
      ...(found.foreignKeys ? { foreignKeys: found.foreignKeys } : {}),
      position: this.positions.get(alias) ?? { x: 40 + i * 340, y: 40 + (i % 2) * 80 },
    };
    this.tables.push(table);
    return table;
  }

  private addCondition(cond: readonly Token[], table: GraphTable, type: JoinType): void {
    const shown = this.text(cond);
    const bad = () =>
      new Unsupported(`the join condition ${shown} is not shown: the canvas joins on equal columns (a.x = b.y)`);
    if (cond.length !== 7 || cond[3]!.text !== '=' || cond[1]!.text !== '.' || cond[5]!.text !== '.') throw bad();
    const a = this.columnRef(cond[0]!, cond[2]!);
    const b = this.columnRef(cond[4]!, cond[6]!);
    if (!a || !b) throw bad();
    // the keyword's type reads from the tables before toward the new one
    if (b.table === table.alias && a.table !== table.alias) this.joins.push({ type, left: a, right: b });
    else if (a.table === table.alias && b.table !== table.alias)
      this.joins.push({ type: flipJoinType(type), left: a, right: b });
    else throw new Unsupported(`the join condition ${shown} does not link ${table.alias} to a table before it`);
  }

  /** `alias.column` to a reference with the catalog's spelling, or undefined. */
  private columnRef(q: Token, c: Token): ColumnRef | undefined {
    if (!isName(q) || !isName(c)) return undefined;
    const eq = (a: string, b: string, quoted: boolean) => (quoted ? a === b : a.toLowerCase() === b.toLowerCase());
    const table = this.tables.find((t) => eq(t.alias, q.text, q.kind === 'quoted'));
    const col = table?.columns.find((x) => eq(x.name, c.text, c.kind === 'quoted'));
    return table && col ? { table: table.alias, column: col.name } : undefined;
  }

  private selectList(items: readonly Token[]): GraphOutput[] {
    if (items.length === 1 && items[0]!.text === '*') return [];
    const out: GraphOutput[] = [];
    for (const item of splitComma(items)) {
      if (item.length === 0) throw new Unsupported('an empty item in the SELECT list');
      let expr = item;
      let name: string | undefined;
      const last = item[item.length - 1]!;
      const before = item[item.length - 2];
      if (before?.kind === 'word' && before.upper === 'AS' && isName(last)) {
        expr = item.slice(0, -2);
        name = last.text;
      } else if (
        before &&
        isName(last) &&
        !(last.kind === 'word' && NOT_AN_ALIAS.has(last.upper)) &&
        (isName(before) || before.text === ')' || before.kind === 'string' || before.kind === 'number') &&
        !(before.kind === 'word' && before.upper === 'CASE')
      ) {
        expr = item.slice(0, -1);
        name = last.text;
      }
      if (expr.length === 3 && expr[1]!.text === '.' && expr[2]!.text === '*') {
        if (name) throw new Unsupported(`${this.text(item)} cannot be renamed`);
        const table = this.tables.find((t) => t.alias.toLowerCase() === expr[0]!.text.toLowerCase());
        if (!table) throw new Unsupported(`${this.text(expr)} names no table of the FROM clause`);
        for (const c of table.columns)
          out.push({ source: { kind: 'column', ref: { table: table.alias, column: c.name } } });
        continue;
      }
      out.push(this.output(expr, name));
    }
    return out;
  }

  private output(expr: readonly Token[], name: string | undefined): GraphOutput {
    const first = expr[0]!;
    const agg =
      first.kind === 'word' &&
      AGGREGATE_FNS.has(first.upper) &&
      expr[1]?.text === '(' &&
      closes(expr, 1) === expr.length - 1;
    if (agg) {
      let inner = expr.slice(2, -1);
      let aggregate = first.upper.toLowerCase() as Aggregate;
      if (inner[0]?.kind === 'word' && inner[0].upper === 'DISTINCT') {
        if (aggregate !== 'count') throw new Unsupported(`${this.text(expr)}: only count(DISTINCT …) is shown`);
        aggregate = 'count_distinct';
        inner = inner.slice(1);
      }
      if (inner.length === 0) throw new Unsupported(`${this.text(expr)} has no argument`);
      if (containsAggregate(inner)) throw new Unsupported(`${this.text(expr)}: an aggregate inside an aggregate`);
      const out: GraphOutput = { source: this.source(inner), aggregate };
      return name ? { ...out, name } : out;
    }
    if (containsAggregate(expr))
      throw new Unsupported(`${this.text(expr)}: an expression over aggregates is not shown on the canvas`);
    const source = this.source(expr);
    if (source.kind === 'column' && (name === undefined || name === source.ref.column)) return { source };
    return name ? { source, name } : { source };
  }

  private source(expr: readonly Token[]): GraphOutput['source'] {
    if (expr.length === 3 && expr[1]!.text === '.') {
      const ref = this.columnRef(expr[0]!, expr[2]!);
      if (ref) return { kind: 'column', ref };
    }
    if (expr.length === 1 && isName(expr[0])) {
      // an unqualified column that exactly one table has
      const c = expr[0];
      const hits = this.tables.flatMap((t) =>
        t.columns
          .filter((x) => (c.kind === 'quoted' ? x.name === c.text : x.name.toLowerCase() === c.text.toLowerCase()))
          .map((x) => ({ table: t.alias, column: x.name })),
      );
      if (hits.length === 1) return { kind: 'column', ref: hits[0]! };
    }
    return { kind: 'expr', sql: this.text(expr) };
  }

  private orderBy(): GraphSort[] {
    return splitComma(this.until(CLAUSE_END)).map((item) => {
      const last = item[item.length - 1];
      if (item.some((x) => x.kind === 'word' && x.upper === 'NULLS'))
        throw new Unsupported('NULLS FIRST/LAST is not shown on the canvas');
      if (last?.kind === 'word' && (last.upper === 'DESC' || last.upper === 'ASC'))
        return { expr: this.text(item.slice(0, -1)), desc: last.upper === 'DESC' };
      return { expr: this.text(item), desc: false };
    });
  }

  /** Tokens up to (not including) a top-level keyword of `stop`. */
  private until(stop: ReadonlySet<string>): Token[] {
    const out: Token[] = [];
    let depth = 0;
    while (this.p < this.t.length) {
      const tok = this.t[this.p]!;
      // LEFT(…) and RIGHT(…) are functions there, not joins
      const call = (tok.upper === 'LEFT' || tok.upper === 'RIGHT') && this.t[this.p + 1]?.text === '(';
      if (depth === 0 && tok.kind === 'word' && stop.has(tok.upper) && !call) break;
      if (
        depth === 0 &&
        tok.kind === 'word' &&
        (tok.upper === 'UNION' || tok.upper === 'INTERSECT' || tok.upper === 'EXCEPT')
      )
        throw new Unsupported(`${tok.upper} is not shown on the canvas`);
      if (tok.text === '(') depth++;
      if (tok.text === ')') depth--;
      out.push(tok);
      this.p++;
    }
    return out;
  }

  private text(toks: readonly Token[]): string {
    if (toks.length === 0) return '';
    return this.sql.slice(toks[0]!.start, toks[toks.length - 1]!.end).replace(/\s+/g, ' ');
  }
  private peek(): Token | undefined {
    return this.t[this.p];
  }
  private next(): Token | undefined {
    return this.t[this.p++];
  }
  private peekWord(w: string): boolean {
    const x = this.t[this.p];
    return x?.kind === 'word' && x.upper === w;
  }
  private acceptWord(w: string): boolean {
    if (!this.peekWord(w)) return false;
    this.p++;
    return true;
  }
  private expectWord(w: string): void {
    if (!this.acceptWord(w)) {
      const got = this.peek();
      throw new Unsupported(got ? `expected ${w} before "${got.text}"` : `expected ${w} at the end`);
    }
  }
  private name(): string {
    const x = this.next();
    if (!isName(x)) throw new Unsupported(x ? `expected a name before "${x.text}"` : 'expected a name at the end');
    return x.text;
  }
}

/**
 * The names after FROM and JOIN (`dbA.orders`, `sales.v`): what must be looked up in the
 * catalog before sqlToGraph can resolve the SQL. Empty when the SQL does not tokenize.
 */
export function tablePaths(sql: string): string[][] {
  let toks: Token[];
  try {
    toks = tokenize(sql);
  } catch {
    return [];
  }
  const out: string[][] = [];
  toks.forEach((tok, i) => {
    if (tok.kind !== 'word' || (tok.upper !== 'FROM' && tok.upper !== 'JOIN')) return;
    const path: string[] = [];
    for (let k = i + 1; isName(toks[k]); k += 2) {
      path.push(toks[k]!.text);
      if (toks[k + 1]?.text !== '.') break;
    }
    if (path.length >= 2) out.push(path);
  });
  return out;
}

/** Index of the parenthesis closing the one at `open`. */
function closes(toks: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i]!.text === '(') depth++;
    if (toks[i]!.text === ')' && --depth === 0) return i;
  }
  return -1;
}

function containsAggregate(toks: readonly Token[]): boolean {
  return toks.some((x, i) => x.kind === 'word' && AGGREGATE_FNS.has(x.upper) && toks[i + 1]?.text === '(');
}

function splitComma(toks: readonly Token[]): Token[][] {
  return splitTop(toks, (x) => x.text === ',');
}

/** Top-level AND, except the AND of BETWEEN … AND …; one wrapping pair of parentheses goes. */
function splitAnd(sql: string, toks: readonly Token[]): string[] {
  return splitAndTokens(toks).map((p) => {
    if (p.length > 2 && p[0]!.text === '(' && closes(p, 0) === p.length - 1) p = p.slice(1, -1);
    if (p.length === 0) throw new Unsupported('an empty condition');
    return sql.slice(p[0]!.start, p[p.length - 1]!.end).replace(/\s+/g, ' ');
  });
}

function splitAndTokens(toks: readonly Token[]): Token[][] {
  let between = 0;
  return splitTop(toks, (x) => {
    if (x.kind !== 'word') return false;
    if (x.upper === 'BETWEEN') between++;
    if (x.upper !== 'AND') return false;
    if (between > 0) {
      between--;
      return false;
    }
    return true;
  });
}

/** Splits where `at` holds outside parentheses; the parts can be read as Token arrays. */
function splitTop(toks: readonly Token[], at: (t: Token) => boolean): Token[][] {
  const out: Token[][] = [[]];
  let depth = 0;
  for (const x of toks) {
    if (x.text === '(') depth++;
    if (x.text === ')') depth--;
    if (depth === 0 && at(x)) out.push([]);
    else out[out.length - 1]!.push(x);
  }
  return out.length === 1 && out[0]!.length === 0 ? [] : out;
}

/** GROUP BY must be what the canvas derives: the non-aggregated outputs, in order. */
function checkGroups(outputs: readonly GraphOutput[], groups: readonly string[]): void {
  const hasAgg = outputs.some((o) => o.aggregate);
  const expected = hasAgg ? outputs.filter((o) => !o.aggregate).map(outputInnerSql) : [];
  const norm = (s: string) => s.replace(/\s+/g, ' ').toLowerCase();
  const same = expected.length === groups.length && expected.every((e, i) => norm(e) === norm(groups[i]!));
  if (same) return;
  if (groups.length > 0 && !hasAgg) throw new Unsupported('GROUP BY without aggregates is not shown: use DISTINCT');
  throw new Unsupported('GROUP BY is shown only when it lists exactly the non-aggregated output columns, in order');
}
