import type { Value } from '@junction/connectors';
import type { StatementRecord } from '../exec/context.js';
import type { Operator } from '../exec/operator.js';
import type { ExplainNode, StatementTiming } from './explain-node.js';

/** Parameters past this many are summarised as `[N values: a, b, c, …]`. */
const MAX_PARAMS_SHOWN = 10;
/** Longer string parameters are cut to this many characters and their length. */
const MAX_STRING_SHOWN = 60;

export interface BuildOptions {
  /** EXPLAIN ANALYZE: attach actual rows/batches/time and the statements sent */
  readonly analyze?: boolean;
  readonly statements?: readonly StatementRecord[];
  /** a backend engine's plan of the statement an operator sends it, by operator id */
  readonly remotePlans?: ReadonlyMap<number, string>;
}

/** The ExplainNode tree of a physical plan (after execution for ANALYZE). */
export function buildExplain(root: Operator, options: BuildOptions = {}): ExplainNode {
  const byOperator = new Map<number, StatementRecord[]>();
  for (const s of options.statements ?? []) {
    const list = byOperator.get(s.operatorId);
    if (list) list.push(s);
    else byOperator.set(s.operatorId, [s]);
  }
  const visit = (op: Operator): ExplainNode => {
    const info = op.info();
    const statements = byOperator.get(op.id);
    const sent = statements?.[0];
    // a dependent fetch sends variants of the planned statement: show the first one actually sent
    const sql = options.analyze && sent && sent.sql !== info.sql ? sent.sql : info.sql;
    const params = options.analyze && sent && sent.sql !== info.sql ? sent.params : info.params;
    const node: ExplainNode = {
      operator: info.operator,
      runsIn: info.runsIn,
      ...(info.detail ? { detail: info.detail } : {}),
      ...sqlFields(sql, params),
      ...(info.notPushed?.length ? { notPushed: info.notPushed } : {}),
      ...(info.estimatedRows !== undefined ? { estimatedRows: Math.round(info.estimatedRows) } : {}),
      ...(options.remotePlans?.has(op.id) ? { remotePlan: options.remotePlans.get(op.id) } : {}),
      ...(options.analyze ? { actual: actualOf(op, statements) } : {}),
      children: [
        ...op.children.map(visit),
        // a dependent fetch sends several statements: ANALYZE lists each one
        ...(options.analyze && statements && statements.length > 1 ? statements.map(statementNode) : []),
      ],
    };
    return node;
  };
  const tree = visit(root);
  if (!options.analyze || !options.statements) return tree;
  return { ...tree, timeline: options.statements.map(timingOf) };
}

function timingOf(s: StatementRecord): StatementTiming {
  const startMs = round(s.startMs ?? 0);
  return { source: s.source, sql: s.sql, rows: s.rows, startMs, endMs: round(s.endMs ?? startMs + s.timeMs), stoppedEarly: s.stoppedEarly ?? false };
}

/** The SQL and parameters as shown (long IN lists summarised) and, when that cut them, in full. */
export function sqlFields(sql: string | undefined, params: readonly Value[] | undefined) {
  const shownSql = sql === undefined ? undefined : summariseSql(sql);
  const shownParams = params !== undefined && params.length > 0 ? summariseParams(params) : undefined;
  return {
    ...(shownSql !== undefined ? { sql: shownSql } : {}),
    ...(shownSql !== undefined && shownSql !== sql ? { fullSql: sql } : {}),
    ...(shownParams !== undefined ? { params: shownParams } : {}),
    // a long list summarised, or a long value (a key set's array) cut: the copy needs them whole
    ...(shownParams !== undefined && params && (shownParams.length !== params.length || params.some(cutForDisplay)) ? { fullParams: params.map(fullValue) } : {}),
  };
}

function statementNode(s: StatementRecord): ExplainNode {
  return {
    operator: 'Statement',
    runsIn: s.source,
    ...sqlFields(s.sql, s.params),
    actual: { rows: s.rows, batches: s.batches, timeMs: round(s.timeMs), statements: 1 },
    children: [],
  };
}

function actualOf(op: Operator, statements: readonly StatementRecord[] | undefined): NonNullable<ExplainNode['actual']> {
  if (statements && statements.length > 0) {
    const rows = statements.reduce((n, s) => n + s.rows, 0);
    const batches = statements.reduce((n, s) => n + s.batches, 0);
    const timeMs = op.metrics.started ? op.metrics.timeMs : Math.max(...statements.map((s) => s.timeMs));
    return { rows, batches, timeMs: round(timeMs), statements: statements.length };
  }
  const info = op.info();
  const spill = info.spill && info.spill.bytes > 0 ? { spill: { ...info.spill } } : {};
  return { rows: op.metrics.rows, batches: op.metrics.batches, timeMs: round(op.metrics.timeMs), ...(info.sql !== undefined ? { statements: 0 } : {}), ...spill };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Long runs of placeholders (IN lists) collapse to `$1, $2, $3, … $1000`. */
export function summariseSql(sql: string): string {
  // a placeholder, with PostgreSQL's explicit cast when the dialect adds one ($1::integer)
  const ph = String.raw`(?:\$\d+(?:::[a-z][a-z0-9_ ]*(?:\(\d+(?:, ?\d+)?\))?)?|\?|@p\d+)`;
  const run = new RegExp(`${ph}(?:, ?${ph}){9,}`, 'g');
  return sql.replace(run, (list) => {
    const parts = list.split(/, ?(?=\$|\?|@p)/);
    return `${parts.slice(0, 3).join(', ')}, … ${parts[parts.length - 1]} (${parts.length} values)`;
  });
}

export function summariseParams(params: readonly Value[]): readonly unknown[] {
  const shown = params.map(showValue);
  if (params.length <= MAX_PARAMS_SHOWN) return shown;
  return [`[${params.length} values: ${shown.slice(0, 3).map(String).join(', ')}, …]`];
}

function showValue(v: Value): unknown {
  // a key set bound as one array parameter is one long string
  if (cutForDisplay(v)) return `${(v as string).slice(0, MAX_STRING_SHOWN)}… (${(v as string).length} characters)`;
  return fullValue(v);
}

function cutForDisplay(v: Value): boolean {
  return typeof v === 'string' && v.length > MAX_STRING_SHOWN;
}

/** A value as JSON carries it exactly. */
function fullValue(v: Value): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  return v;
}
