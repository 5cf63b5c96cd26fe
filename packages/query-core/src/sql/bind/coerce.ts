import { JunctionError, t } from '@junction/connectors';
import { conjuncts } from '../../plan/exprs.js';
import type { JType, ScalarFn, Value } from '@junction/connectors';
import type { Node } from 'sql-parser-cst';
import type { Expr, Field } from '../../plan/logical.js';
import { castValue } from '../../expr/cast.js';
import { compileExpr } from '../../expr/compile.js';
import { commonSupertype, scalarReturnType } from '../../expr/types.js';
import type { BindContext } from './context.js';
import { typeText } from './context.js';

export function lit(value: Value, type: JType): Expr {
  return { kind: 'literal', value, type };
}

export function ref(f: Field): Expr {
  return { kind: 'ref', id: f.id, type: f.type };
}

export const TRUE: Expr = lit(true, t.bool);

/** A string literal or parameter whose type is not decided yet (PostgreSQL's "unknown"). */
export function isUnknown(ctx: BindContext, e: Expr): boolean {
  return (
    ctx.unknownLiterals.has(e) ||
    (e.kind === 'param' && e.type.kind === 'unknown') ||
    (e.kind === 'literal' && e.type.kind === 'null')
  );
}

/** The type an unknown-typed value adopts from `target`: the base type without length/precision. */
export function adoptable(target: JType): JType {
  switch (target.kind) {
    case 'string':
      return target.fixed ? { kind: 'string', fixed: true } : t.string;
    case 'decimal':
      return t.decimal();
    case 'timestamp':
    case 'timestamptz':
    case 'time':
      return { kind: target.kind };
    default:
      return target;
  }
}

function sameKind(a: JType, b: JType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'string') return !!a.fixed === !!b.fixed;
  return true;
}

/**
 * Brings `e` to `target`: unknown literals are converted now (with the error PostgreSQL
 * gives for bad input, pointing at the literal), parameters take the type, everything else
 * gets a CAST. Literal casts are folded so plans and pushed-down SQL carry typed constants.
 */
export function coerce(ctx: BindContext, e: Expr, target: JType, node?: Node): Expr {
  if (target.kind === 'null' || target.kind === 'unknown') return e;
  if (e.kind === 'param' && e.type.kind === 'unknown') {
    const type = adoptable(target);
    if (ctx.paramTypes[e.index] === undefined) ctx.paramTypes[e.index] = type;
    return { kind: 'param', index: e.index, type: ctx.paramTypes[e.index]! };
  }
  if (e.kind === 'literal') {
    if (e.value === null)
      return lit(null, ctx.unknownLiterals.has(e) || e.type.kind === 'null' ? adoptable(target) : target);
    if (sameKind(e.type, target) && (target.kind !== 'decimal' || target.precision === undefined)) {
      if (!ctx.unknownLiterals.has(e)) return e;
      return lit(e.value, adoptable(target));
    }
    try {
      const type = ctx.unknownLiterals.has(e) ? adoptable(target) : target;
      return lit(castValue(e.value, e.type, type), type);
    } catch (err) {
      if (err instanceof JunctionError) {
        throw new JunctionError(err.code, err.kind, err.message, {
          position: ctx.position(node ?? ctx.origins.get(e)),
          cause: err,
        });
      }
      throw err;
    }
  }
  if (sameKind(e.type, target)) return e;
  return { kind: 'cast', expr: e, type: target };
}

/**
 * The common type of several expressions (CASE arms, COALESCE, IN lists, UNION columns):
 * unknown literals do not vote; if every one is unknown the result is text.
 */
export function unify(
  ctx: BindContext,
  exprs: readonly Expr[],
  context: string,
  node?: Node,
): { exprs: Expr[]; type: JType } {
  let type: JType | undefined;
  for (const e of exprs) {
    if (isUnknown(ctx, e)) continue;
    if (type === undefined) type = e.type;
    else {
      const s = commonSupertype(type, e.type);
      if (s === undefined)
        throw ctx.typeMismatch(
          `${context} types ${typeText(type)} and ${typeText(e.type)} cannot be matched`,
          node ?? ctx.origins.get(e),
        );
      type = s;
    }
  }
  const target = type ?? t.string;
  return { exprs: exprs.map((e) => coerce(ctx, e, target)), type: target };
}

export function call(fn: ScalarFn, args: readonly Expr[], type?: JType): Expr {
  return {
    kind: 'call',
    fn,
    args,
    type:
      type ??
      scalarReturnType(
        fn,
        args.map((a) => a.type),
      ),
  };
}

export function and(parts: readonly Expr[]): Expr | undefined {
  if (parts.length === 0) return undefined;
  return parts.reduce((a, b) => call('and', [a, b]));
}


/** Whether `e` can be NULL, given which fields can. */
export function nullable(e: Expr, fieldNullable: (id: number) => boolean): boolean {
  switch (e.kind) {
    case 'ref':
      return fieldNullable(e.id);
    case 'literal':
      return e.value === null;
    case 'param':
    case 'subquery':
    case 'raise':
      return true;
    case 'cast':
      return nullable(e.expr, fieldNullable);
    case 'in':
      return nullable(e.expr, fieldNullable) || e.list.some((x) => nullable(x, fieldNullable));
    case 'case':
      return !e.else || e.whens.some((w) => nullable(w.then, fieldNullable)) || nullable(e.else, fieldNullable);
    case 'call':
      switch (e.fn) {
        case 'is_null':
        case 'is_not_null':
        case 'is_distinct_from':
        case 'is_not_distinct_from':
        case 'current_date':
        case 'current_timestamp':
          return false;
        case 'coalesce':
          return e.args.every((a) => nullable(a, fieldNullable));
        case 'greatest':
        case 'least':
          return e.args.every((a) => nullable(a, fieldNullable));
        case 'nullif':
          return true;
        default:
          return e.args.some((a) => nullable(a, fieldNullable));
      }
  }
}

/** A stable text key for structural equality of expressions (GROUP BY matching, dedup). */
export function exprKey(e: Expr): string {
  return JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

const VOLATILE = new Set(['current_date', 'current_timestamp']);

/**
 * Evaluates a call over constants now (date '1993-07-01' + interval '3' month becomes a
 * timestamp constant), so predicates reach sources as column-vs-constant comparisons.
 * Anything that fails to evaluate is left for run time, where it raises its error only if reached.
 */
export function fold(e: Expr): Expr {
  if (e.kind !== 'call' || VOLATILE.has(e.fn) || !e.args.every((a) => a.kind === 'literal')) return e;
  if (e.type.kind === 'null' || e.type.kind === 'unknown') return e;
  try {
    return lit(compileExpr(e, new Map())([], []), e.type);
  } catch {
    return e;
  }
}

function disjuncts(e: Expr): Expr[] {
  if (e.kind === 'call' && e.fn === 'or') return e.args.flatMap(disjuncts);
  return [e];
}

/**
 * (a AND b) OR (a AND c) → a AND (b OR c). Distributivity holds in three-valued logic, and
 * pulling the shared conjuncts out exposes join keys written inside every OR arm (TPC-H Q19)
 * to the optimizer instead of leaving a cross join under one opaque predicate.
 */
export function factorOr(e: Expr): Expr {
  if (e.kind !== 'call' || (e.fn !== 'or' && e.fn !== 'and')) return e;
  if (e.fn === 'and') return call('and', e.args.map(factorOr), e.type);
  const arms = disjuncts(e).map((d) => conjuncts(factorOr(d)));
  const keysPerArm = arms.map((cs) => new Set(cs.map(exprKey)));
  const common = arms[0].filter((c) => keysPerArm.every((ks) => ks.has(exprKey(c))));
  if (common.length === 0) return e;
  const commonKeys = new Set(common.map(exprKey));
  const rests = arms.map((cs) => cs.filter((c) => !commonKeys.has(exprKey(c))));
  // an arm left empty is TRUE, which makes the whole OR true
  if (rests.some((r) => r.length === 0)) return and(common)!;
  const or = rests.map((r) => and(r)!).reduce((a, b) => call('or', [a, b]));
  return and([...common, or])!;
}
