import type { RemoteQuery, RenderedQuery, Value } from '@junction/connectors';

export interface RenderedRemote {
  readonly query: RemoteQuery;
  readonly rendered: RenderedQuery;
}

/** Distinct parameter sets remembered per Remote node; a parameterised query cycling through more re-renders. */
const PER_NODE = 32;

/**
 * Source SQL of a prepared plan's Remote nodes, kept for their next execution with the same
 * parameters. Converting and rendering is a fixed cost per statement that a sub-millisecond
 * source query notices; both are pure functions of the node and the parameter values (a
 * dialect may render a value differently, e.g. a constant LIKE pattern, so the values are
 * part of the key). Nodes belong to immutable cached plans, so a WeakMap drops entries with
 * their plan.
 */
export class RenderCache {
  private readonly byNode = new WeakMap<object, Map<string, RenderedRemote>>();

  get(node: object, params: readonly Value[], make: () => RenderedRemote): RenderedRemote {
    const key = paramsKey(params);
    if (key === undefined) return make();
    let entries = this.byNode.get(node);
    if (!entries) this.byNode.set(node, (entries = new Map()));
    let hit = entries.get(key);
    if (!hit) {
      hit = make();
      entries.set(key, hit);
      if (entries.size > PER_NODE) entries.delete(entries.keys().next().value as string);
    }
    return hit;
  }
}

/** A key that tells every Value apart (1 from 1n from '1'); undefined for binary values, which are not cached. */
export function paramsKey(params: readonly Value[]): string | undefined {
  let key = '';
  for (const v of params) {
    switch (typeof v) {
      case 'string':
        key += `s${v.length}:${v}`;
        break;
      case 'bigint':
        key += `b${v};`;
        break;
      case 'number':
        key += `n${Object.is(v, -0) ? '-0' : String(v)};`;
        break;
      case 'boolean':
        key += v ? 't' : 'f';
        break;
      default:
        if (v === null) key += 'z';
        else return undefined;
    }
  }
  return key;
}
