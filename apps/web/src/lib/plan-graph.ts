import type { PlanNode } from './plan.js';

/** A plan node placed for drawing: its box's top-left corner, and the path of child indexes. */
export interface PlacedNode {
  readonly id: string;
  readonly node: PlanNode;
  readonly x: number;
  readonly y: number;
  readonly depth: number;
  readonly parent?: string;
  /** time in this node alone (its time less its children's), EXPLAIN ANALYZE only */
  readonly selfMs?: number;
}

export interface PlanLayout {
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly { readonly from: string; readonly to: string }[];
  readonly width: number;
  readonly height: number;
  /** the node with the most time of its own */
  readonly hot?: string;
}

export const NODE_W = 220;
export const NODE_H = 74;
const GAP_X = 24;
const GAP_Y = 40;

/**
 * A top-down tree: leaves take consecutive slots left to right, a parent sits centred over its
 * children, so edges never cross. Pure data: the SVG component only draws it.
 */
export function layoutPlan(root: PlanNode): PlanLayout {
  const nodes: PlacedNode[] = [];
  const edges: { from: string; to: string }[] = [];
  let nextSlot = 0;
  let maxDepth = 0;
  const place = (n: PlanNode, id: string, depth: number, parent?: string): number => {
    maxDepth = Math.max(maxDepth, depth);
    const childX = n.children.map((c, i) => {
      edges.push({ from: id, to: `${id}.${i}` });
      return place(c, `${id}.${i}`, depth + 1, id);
    });
    const slotX = childX.length > 0 ? (childX[0] + childX[childX.length - 1]) / 2 : nextSlot++ * (NODE_W + GAP_X);
    const childMs = n.children.reduce((t, c) => t + (c.actual?.timeMs ?? 0), 0);
    nodes.push({
      id,
      node: n,
      x: slotX,
      y: depth * (NODE_H + GAP_Y),
      depth,
      ...(parent !== undefined ? { parent } : {}),
      ...(n.actual ? { selfMs: Math.max(0, n.actual.timeMs - (n.operator === 'Statement' ? 0 : childMs)) } : {}),
    });
    return slotX;
  };
  place(root, '0', 0);
  nodes.sort((a, b) => (a.id < b.id ? -1 : 1));
  let hot: PlacedNode | undefined;
  for (const n of nodes) if (n.selfMs !== undefined && n.selfMs > 0 && (!hot || n.selfMs > (hot.selfMs ?? 0))) hot = n;
  return {
    nodes,
    edges,
    width: Math.max(NODE_W, nextSlot * (NODE_W + GAP_X) - GAP_X),
    height: (maxDepth + 1) * (NODE_H + GAP_Y) - GAP_Y,
    ...(hot ? { hot: hot.id } : {}),
  };
}

/** Where a step runs, as a stable colour index: Junction is 0, sources 1… in name order. */
export function placeIndex(root: PlanNode): Map<string, number> {
  const sources = new Set<string>();
  const walk = (n: PlanNode) => {
    if (n.runsIn !== 'junction') sources.add(n.runsIn);
    n.children.forEach(walk);
  };
  walk(root);
  return new Map([['junction', 0], ...[...sources].sort().map((s, i) => [s, i + 1] as const)]);
}

/** What a dependent join would send if its driver side gave `keys` distinct keys. */
export interface DependentWhatIf {
  readonly statements: number;
  readonly keysPerStatement: number;
  /** characters of the largest statement: the planned SQL plus its IN list of placeholders */
  readonly statementChars: number;
}

export interface DependentJoinInfo {
  readonly id: string;
  readonly maxInList: number;
  /** the planned statement of the driven side, before keys are added */
  readonly drivenSql: string;
  readonly drivenSource: string;
  readonly estimatedKeys?: number;
}

/** Dependent joins in a plan with what a what-if needs: batch size, the driven statement, estimated keys. */
export function dependentJoins(root: PlanNode): DependentJoinInfo[] {
  const out: DependentJoinInfo[] = [];
  const walk = (n: PlanNode, id: string) => {
    if (n.operator === 'DependentJoin') {
      const max = /maxInList=(\d+)/.exec(n.detail ?? '');
      const driverRight = /driver=right/.test(n.detail ?? '');
      const driver = n.children[driverRight ? 1 : 0];
      const driven = n.children[driverRight ? 0 : 1];
      const drivenRemote = driven && findRemote(driven);
      if (max && drivenRemote?.sql)
        out.push({
          id,
          maxInList: Number(max[1]),
          drivenSql: drivenRemote.fullSql ?? drivenRemote.sql,
          drivenSource: drivenRemote.runsIn,
          ...(driver?.estimatedRows !== undefined ? { estimatedKeys: driver.estimatedRows } : {}),
        });
    }
    n.children.forEach((c, i) => walk(c, `${id}.${i}`));
  };
  walk(root, '0');
  return out;
}

function findRemote(n: PlanNode): PlanNode | undefined {
  if (n.sql !== undefined && n.runsIn !== 'junction') return n;
  for (const c of n.children) {
    const r = findRemote(c);
    if (r) return r;
  }
  return undefined;
}

/**
 * Batches and statement size for `keys` driver keys: one statement per `maxInList` keys, each
 * the planned SQL with ` AND (key IN (…))` of that many placeholders in the source's style.
 */
export function dependentWhatIf(info: Pick<DependentJoinInfo, 'maxInList' | 'drivenSql'>, keys: number): DependentWhatIf {
  const k = Math.max(0, Math.floor(keys));
  if (k === 0) return { statements: 0, keysPerStatement: 0, statementChars: 0 };
  const per = Math.min(k, info.maxInList);
  const style = placeholderStyle(info.drivenSql);
  let list = 0;
  for (let i = 1; i <= per; i++) list += style(i).length + (i > 1 ? 2 : 0);
  return { statements: Math.ceil(k / info.maxInList), keysPerStatement: per, statementChars: info.drivenSql.length + ' AND (k IN ())'.length + list };
}

function placeholderStyle(sql: string): (i: number) => string {
  if (/@p\d/.test(sql)) return (i) => `@p${i}`;
  const pg = /\$\d+(::[a-z][a-z0-9_ ]*)?/.exec(sql);
  if (pg || !/\?/.test(sql)) return (i) => `$${i}${pg?.[1] ?? '::integer'}`;
  return () => '?';
}
