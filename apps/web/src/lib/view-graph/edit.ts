import type { ResolvedTable } from './from-sql.js';
import {
  joinId,
  newAlias,
  type Aggregate,
  type ColumnRef,
  type GraphJoin,
  type GraphOutput,
  type JoinType,
  type ViewGraph,
} from './model.js';

/** Every edit of the canvas: a pure function from graph to graph (undo keeps the old ones). */

export function addTable(g: ViewGraph, t: ResolvedTable, position: { x: number; y: number }): ViewGraph {
  const alias = newAlias(g, t.path[t.path.length - 1]!);
  return {
    ...g,
    tables: [
      ...g.tables,
      {
        alias,
        path: t.path,
        kind: t.kind,
        ...(t.engine ? { engine: t.engine } : {}),
        columns: t.columns,
        ...(t.primaryKey ? { primaryKey: t.primaryKey } : {}),
        ...(t.foreignKeys ? { foreignKeys: t.foreignKeys } : {}),
        position,
      },
    ],
  };
}

/** The table goes with its joins and the output columns it gave. */
export function removeTable(g: ViewGraph, alias: string): ViewGraph {
  return {
    ...g,
    tables: g.tables.filter((t) => t.alias !== alias),
    joins: g.joins.filter((j) => j.left.table !== alias && j.right.table !== alias),
    outputs: g.outputs.filter((o) => o.source.kind !== 'column' || o.source.ref.table !== alias),
  };
}

export function moveTable(g: ViewGraph, alias: string, position: { x: number; y: number }): ViewGraph {
  return { ...g, tables: g.tables.map((t) => (t.alias === alias ? { ...t, position } : t)) };
}

const samePair = (a: GraphJoin, b: GraphJoin) =>
  (a.left.table === b.left.table && a.right.table === b.right.table) ||
  (a.left.table === b.right.table && a.right.table === b.left.table);

/**
 * A join between two columns of different tables. A further condition between two tables
 * already joined takes that join's type: SQL has one join type per pair.
 */
export function addJoin(g: ViewGraph, left: ColumnRef, right: ColumnRef, type: JoinType = 'inner'): ViewGraph {
  if (left.table === right.table) return g;
  const j: GraphJoin = { type, left, right };
  const id = joinId(j);
  const reverse = joinId({ type, left: right, right: left });
  if (g.joins.some((x) => joinId(x) === id || joinId(x) === reverse)) return g;
  const sibling = g.joins.find((x) => samePair(x, j));
  const typed = sibling ? { ...j, type: sibling.left.table === left.table ? sibling.type : flip(sibling.type) } : j;
  return { ...g, joins: [...g.joins, typed] };
}

const flip = (t: JoinType): JoinType => (t === 'left' ? 'right' : t === 'right' ? 'left' : t);

export function removeJoin(g: ViewGraph, id: string): ViewGraph {
  return { ...g, joins: g.joins.filter((j) => joinId(j) !== id) };
}

/** Sets the type of the join and of the other conditions between the same two tables. */
export function setJoinType(g: ViewGraph, id: string, type: JoinType): ViewGraph {
  const target = g.joins.find((j) => joinId(j) === id);
  if (!target) return g;
  return {
    ...g,
    joins: g.joins.map((j) =>
      !samePair(j, target) ? j : { ...j, type: j.left.table === target.left.table ? type : flip(type) },
    ),
  };
}

const isPicked = (o: GraphOutput, ref: ColumnRef) =>
  o.source.kind === 'column' && !o.aggregate && o.source.ref.table === ref.table && o.source.ref.column === ref.column;

export function isColumnPicked(g: ViewGraph, ref: ColumnRef): boolean {
  return g.outputs.some((o) => isPicked(o, ref));
}

/** Picks the column as an output, or drops it when picked. */
export function toggleColumn(g: ViewGraph, ref: ColumnRef): ViewGraph {
  if (isColumnPicked(g, ref)) return { ...g, outputs: g.outputs.filter((o) => !isPicked(o, ref)) };
  return { ...g, outputs: [...g.outputs, { source: { kind: 'column', ref } }] };
}

function updateOutput(g: ViewGraph, i: number, f: (o: GraphOutput) => GraphOutput): ViewGraph {
  return { ...g, outputs: g.outputs.map((o, k) => (k === i ? f(o) : o)) };
}

/** An empty name, or the column's own, means no AS. */
export function renameOutput(g: ViewGraph, i: number, name: string): ViewGraph {
  return updateOutput(g, i, (o) => {
    const { name: _old, ...rest } = o;
    const own = o.source.kind === 'column' && !o.aggregate && name === o.source.ref.column;
    return name.trim() === '' || own ? rest : { ...rest, name: name.trim() };
  });
}

export function moveOutput(g: ViewGraph, i: number, delta: -1 | 1): ViewGraph {
  const j = i + delta;
  if (j < 0 || j >= g.outputs.length) return g;
  const outputs = [...g.outputs];
  [outputs[i], outputs[j]] = [outputs[j]!, outputs[i]!];
  return { ...g, outputs };
}

export function removeOutput(g: ViewGraph, i: number): ViewGraph {
  return { ...g, outputs: g.outputs.filter((_, k) => k !== i) };
}

export function setAggregate(g: ViewGraph, i: number, aggregate: Aggregate | undefined): ViewGraph {
  return updateOutput(g, i, (o) => {
    const { aggregate: _old, ...rest } = o;
    return aggregate ? { ...rest, aggregate } : rest;
  });
}

export function addComputed(g: ViewGraph, sql: string, name: string, aggregate?: Aggregate): ViewGraph {
  const out: GraphOutput = { source: { kind: 'expr', sql: sql.trim() }, name: name.trim() };
  return { ...g, outputs: [...g.outputs, aggregate ? { ...out, aggregate } : out] };
}

export function addFilter(g: ViewGraph, predicate: string): ViewGraph {
  const p = predicate.trim();
  return p === '' ? g : { ...g, filters: [...g.filters, p] };
}

export function removeFilter(g: ViewGraph, i: number): ViewGraph {
  return { ...g, filters: g.filters.filter((_, k) => k !== i) };
}

export function setDistinct(g: ViewGraph, distinct: boolean): ViewGraph {
  return { ...g, distinct };
}

export function setSort(g: ViewGraph, expr: string, desc: boolean): ViewGraph {
  const e = expr.trim();
  return { ...g, orderBy: e === '' ? [] : [{ expr: e, desc }] };
}

export function setLimit(g: ViewGraph, limit: number | undefined): ViewGraph {
  const { limit: _old, ...rest } = g;
  return limit === undefined ? rest : { ...rest, limit };
}
