import type { GraphTable, ViewGraph } from './model.js';

/** A node's size on the canvas, estimated from its column count (the node renders to about this). */
export function nodeSize(columns: number): { w: number; h: number } {
  return { w: 270, h: 34 + 19 * columns };
}

const GAP = 40;

/**
 * Where a new table goes: where it was dropped, moved right past any table it would cover,
 * so a drop onto a crowded canvas never hides a table behind another.
 */
export function freeSpot(g: ViewGraph, at: { x: number; y: number }, columns: number): { x: number; y: number } {
  const size = nodeSize(columns);
  const pos = { x: Math.round(at.x), y: Math.round(at.y) };
  const covers = (t: GraphTable) => {
    const s = nodeSize(t.columns.length);
    return (
      pos.x < t.position.x + s.w + GAP &&
      t.position.x < pos.x + size.w + GAP &&
      pos.y < t.position.y + s.h + GAP &&
      t.position.y < pos.y + size.h + GAP
    );
  };
  for (let hit = g.tables.find(covers); hit; hit = g.tables.find(covers))
    pos.x = hit.position.x + nodeSize(hit.columns.length).w + GAP;
  return pos;
}
