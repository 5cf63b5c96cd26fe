import type { PlanNode } from './plan.js';

/** Steps that pass every input row on: their output is as large as their input. */
const ROW_PRESERVING = new Set(['Sort', 'Project', 'Window']);

/** The row limit of a Limit or TopN step, from its detail ("10", "10 OFFSET 5 by …"; "ALL": none). */
function limitOf(n: PlanNode): number | undefined {
  const m = /^(\d+)(?:\s+OFFSET\s+(\d+))?/.exec(n.detail ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * The plan with the row estimates the engine leaves out where they follow from the input's: a
 * Sort or a Project returns what it reads, a Limit at most its limit. Steps whose size cannot
 * be told (a Filter without an estimate) stay without one, and are shown without one.
 */
export function withDerivedEstimates(plan: PlanNode): PlanNode {
  const children = plan.children.map(withDerivedEstimates);
  const changed = children.some((c, i) => c !== plan.children[i]);
  const base = changed ? { ...plan, children } : plan;
  if (base.estimatedRows !== undefined || children.length !== 1) return base;
  const input = children[0]!.estimatedRows;
  if (input === undefined) return base;
  if (ROW_PRESERVING.has(base.operator)) return { ...base, estimatedRows: input };
  if (base.operator === 'Limit' || base.operator === 'TopN') {
    const limit = limitOf(base);
    return { ...base, estimatedRows: limit === undefined ? input : Math.min(limit, input) };
  }
  return base;
}

/**
 * Places numbered as the plan's legend numbers them (placeIndex), with any further ones (a
 * statement to a source no plan step names) after them, so each source keeps one colour
 * wherever it is drawn.
 */
export function withPlaces(places: ReadonlyMap<string, number>, names: readonly string[]): Map<string, number> {
  const out = new Map(places);
  for (const n of names) if (!out.has(n)) out.set(n, out.size);
  return out;
}

/** The colour class of a place (a source, or Junction); the palette has six colours. */
export function placeClass(places: ReadonlyMap<string, number>, place: string): string {
  return `j-place-${(places.get(place) ?? 0) % 6}`;
}
