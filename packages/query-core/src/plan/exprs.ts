import type { JType } from '@junction/connectors';
import type { Expr } from './logical.js';

/** AND-ed parts of a predicate, flattened. */
export function conjuncts(e: Expr): Expr[] {
  if (e.kind === 'call' && e.fn === 'and') return e.args.flatMap(conjuncts);
  return [e];
}

export function conjoin(parts: readonly Expr[]): Expr | undefined {
  if (parts.length === 0) return undefined;
  return parts.reduce((a, b) => ({ kind: 'call', fn: 'and', args: [a, b], type: { kind: 'bool' } }));
}

/** `e` with each direct operand replaced by `f` of it (refs, literals, params and subqueries have none). */
export function mapOperands(e: Expr, f: (x: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'call':
      return { ...e, args: e.args.map(f) };
    case 'in':
      return { ...e, expr: f(e.expr), list: e.list.map(f) };
    case 'case':
      return {
        ...e,
        ...(e.operand ? { operand: f(e.operand) } : {}),
        whens: e.whens.map((w) => ({ when: f(w.when), then: f(w.then) })),
        ...(e.else ? { else: f(e.else) } : {}),
      };
    case 'cast':
      return { ...e, expr: f(e.expr) };
    default:
      return e;
  }
}

/** Replaces field references through `map`; unmapped refs stay. */
export function replaceRefs(e: Expr, map: ReadonlyMap<number, Expr>): Expr {
  return e.kind === 'ref' ? (map.get(e.id) ?? e) : mapOperands(e, (x) => replaceRefs(x, map));
}

/** Field ids an expression reads (uncorrelated subqueries read nothing from the outer row). */
export function refsOf(e: Expr, out: Set<number> = new Set()): Set<number> {
  switch (e.kind) {
    case 'ref':
      out.add(e.id);
      break;
    case 'call':
      for (const a of e.args) refsOf(a, out);
      break;
    case 'in':
      refsOf(e.expr, out);
      for (const a of e.list) refsOf(a, out);
      break;
    case 'case':
      if (e.operand) refsOf(e.operand, out);
      for (const w of e.whens) {
        refsOf(w.when, out);
        refsOf(w.then, out);
      }
      if (e.else) refsOf(e.else, out);
      break;
    case 'cast':
      refsOf(e.expr, out);
      break;
    default:
      break;
  }
  return out;
}

const INTEGER_BITS: Readonly<Partial<Record<string, number>>> = { int16: 16, int32: 32, int64: 64 };

/**
 * Whether every value of type `from` is a value of type `to` unchanged: an integer to an
 * integer as wide or wider, or to a decimal without precision; a decimal to one of the same
 * scale without precision. A cast along it neither rounds nor overflows.
 */
export function widensExactly(from: JType, to: JType): boolean {
  const a = INTEGER_BITS[from.kind];
  if (a !== undefined) {
    const b = INTEGER_BITS[to.kind];
    if (b !== undefined) return b >= a;
    return to.kind === 'decimal' && !to.scale && to.precision === undefined;
  }
  return from.kind === 'decimal' && to.kind === 'decimal' && from.scale === to.scale && to.precision === undefined;
}

/**
 * The column a join key reads: the column itself, or one under a widening integer cast (an
 * int32 column cast to int64 to meet an int64 key). Either way its values are the key's, so
 * its source can be asked for rows by that column. undefined for any other expression.
 */
export function keyColumn(e: Expr): Extract<Expr, { kind: 'ref' }> | undefined {
  if (e.kind === 'ref') return e;
  const widened = e.kind === 'cast' && e.expr.kind === 'ref' && INTEGER_BITS[e.type.kind] !== undefined && widensExactly(e.expr.type, e.type);
  return widened ? e.expr : undefined;
}
