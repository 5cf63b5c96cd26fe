import type { RemoteQuery, RenderedQuery, Value } from '@junction/connectors';

export interface RenderedRemote {
  readonly query: RemoteQuery;
  readonly rendered: RenderedQuery;
}

/** Distinct parameter sets remembered per Remote node; a parameterised query cycling through more re-renders. */
const PER_NODE = 32;

interface NodeEntries {
  /** the statement's parameters (0-based) this node's conversion read; its SQL depends on no other */
  used: readonly number[];
  readonly byKey: Map<string, RenderedRemote>;
}

/**
 * Source SQL of a prepared plan's Remote nodes, kept for their next execution with the same
 * parameters. Converting and rendering is a fixed cost per statement that a sub-millisecond
 * source query notices; both are pure functions of the node and the parameter values (a
 * dialect may render a value differently, e.g. a constant LIKE pattern or a NULL, so the values
 * are part of the key). Nodes belong to immutable cached plans, so a WeakMap drops entries with
 * their plan.
 *
 * The key holds only the values the node's conversion read: a statement's other sources do not
 * see `$1` (JDV H pins the customer in two PostgreSQL statements; its MariaDB statements read no
 * parameter and were re-rendered for every new customer). What a conversion reads depends on the
 * node's shape, not on the values; should a conversion ever read one more, the node's entries are
 * dropped and keyed by the larger set from then on.
 */
export class RenderCache {
  private readonly byNode = new WeakMap<object, NodeEntries>();

  get(node: object, params: readonly Value[], make: (params: readonly Value[]) => RenderedRemote): RenderedRemote {
    const entries = this.byNode.get(node);
    const key = entries && keyOf(entries.used, params);
    const hit = key === undefined ? undefined : entries?.byKey.get(key);
    if (hit) return hit;
    const read = new Set<number>();
    const made = make(tracking(params, read));
    const used = [...read].sort((a, b) => a - b);
    let e = entries;
    if (!e || used.some((i) => !e?.used.includes(i))) {
      e = { used: [...new Set([...(e?.used ?? []), ...used])].sort((a, b) => a - b), byKey: new Map() };
      this.byNode.set(node, e);
    }
    const k = keyOf(e.used, params);
    if (k === undefined) return made;
    e.byKey.set(k, made);
    if (e.byKey.size > PER_NODE) e.byKey.delete(e.byKey.keys().next().value as string);
    return made;
  }
}

/** The key of the values at `used`; undefined when one is missing or binary (not cached). */
function keyOf(used: readonly number[], params: readonly Value[]): string | undefined {
  if (used.length === 0) return '';
  if (used[used.length - 1] >= params.length) return undefined;
  return paramsKey(used.map((i) => params[i]));
}

/** `params` as they are, noting each index read. */
function tracking(params: readonly Value[], read: Set<number>): readonly Value[] {
  return new Proxy(params, {
    get(target, prop, receiver) {
      if (typeof prop === 'string') {
        const i = Number(prop);
        if (Number.isInteger(i) && i >= 0 && String(i) === prop) read.add(i);
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
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
