import type { Capabilities, JType, ScalarFn } from '@junction/connectors';
import { AGGREGATE_FUNCTIONS, type AggFn } from '@junction/connectors';
import type { AggregateCall, Expr, Field, SortKey, WindowCall } from '../../plan/logical.js';

/**
 * The one pushability check every absorb rule uses. It answers from the source's declared
 * Capabilities only (never from a dialect's name): a part is pushed only when the source
 * promises Junction's exact meaning for it, otherwise the first reason is returned and the
 * caller keeps that part in Junction.
 */
export type PushCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: PushCheck = { ok: true };
const no = (reason: string): PushCheck => ({ ok: false, reason });

const EQUALITY_FNS = new Set<ScalarFn>(['eq', 'ne', 'is_distinct_from', 'is_not_distinct_from', 'nullif']);
const ORDERING_FNS = new Set<ScalarFn>(['lt', 'le', 'gt', 'ge', 'greatest', 'least']);

const isString = (t: JType) => t.kind === 'string';

export function canPushExpr(e: Expr, caps: Capabilities): PushCheck {
  switch (e.kind) {
    case 'ref':
      return OK;
    case 'literal':
      return e.type.kind === 'unknown' ? no('literal of unknown type') : OK;
    case 'param':
      // resolved to a bound value at execution; the source must be told its type
      return e.type.kind === 'unknown' || e.type.kind === 'null'
        ? no(`parameter $${e.index + 1} has no known type`)
        : OK;
    case 'subquery':
      return no('subquery is evaluated in Junction');
    case 'raise':
      return no('run-time check is evaluated in Junction');
    case 'cast':
      if (!caps.casts.includes(e.type.kind) && !caps.castsFrom[e.type.kind]?.includes(e.expr.type.kind))
        return no(`cast to ${e.type.kind} not supported by source`);
      return canPushExpr(e.expr, caps);
    case 'case': {
      if (!caps.case) return no('CASE not supported by source');
      if (e.operand && isString(e.operand.type) && !caps.exactStringEquality) return no(stringEqualityReason);
      return all(
        [...(e.operand ? [e.operand] : []), ...e.whens.flatMap((w) => [w.when, w.then]), ...(e.else ? [e.else] : [])],
        caps,
      );
    }
    case 'in':
      if (!caps.in) return no('IN lists not supported by source');
      if (isString(e.expr.type) && !caps.exactStringEquality) return no(stringEqualityReason);
      return all([e.expr, ...e.list], caps);
    case 'call': {
      // collation first: it is the reason a source leaves string functions undeclared
      const strings = e.args.some((a) => isString(a.type));
      if (strings && EQUALITY_FNS.has(e.fn) && !caps.exactStringEquality) return no(stringEqualityReason);
      if (strings && ORDERING_FNS.has(e.fn) && !caps.exactStringOrdering) return no(stringOrderingReason);
      if ((e.fn === 'like' || e.fn === 'starts_with') && !caps.caseSensitiveLike)
        return no('LIKE is not case-sensitive in source');
      const decl = caps.functions[e.fn];
      if (!decl) return no(`function ${e.fn} not supported by source`);
      if (decl !== true) {
        const kinds = decl.argKinds;
        const bad = kinds && e.args.find((a) => !kinds.includes(a.type.kind));
        if (bad) return no(`function ${e.fn} not supported by source for ${bad.type.kind} arguments`);
        if (decl.maxArgs !== undefined && e.args.length > decl.maxArgs)
          return no(`function ${e.fn} with ${e.args.length} arguments not supported by source`);
        const notLiteral = decl.literalArgs?.find(
          (i) => e.args[i] && e.args[i].kind !== 'literal' && e.args[i].kind !== 'param',
        );
        if (notLiteral !== undefined)
          return no(`function ${e.fn} needs a constant argument ${notLiteral + 1} in source`);
      }
      return all(e.args, caps);
    }
  }
}

const stringEqualityReason = 'string comparison under a case-insensitive or pad-space collation';
const stringOrderingReason = 'string ordering differs from code-point order in source collation';

function all(es: readonly Expr[], caps: Capabilities): PushCheck {
  for (const x of es) {
    const r = canPushExpr(x, caps);
    if (!r.ok) return r;
  }
  return OK;
}

/** GROUP BY / DISTINCT / join keys compare for equality. */
export function canPushGroupKey(e: Expr, caps: Capabilities): PushCheck {
  if (isString(e.type) && !caps.exactStringEquality) return no(stringEqualityReason);
  return canPushExpr(e, caps);
}

export function canPushAggregate(a: AggregateCall, caps: Capabilities): PushCheck {
  if (!caps.aggregates[a.fn]) return no(`aggregate ${a.fn} not supported by source`);
  if (a.distinct && !caps.distinctAggregates) return no(`${a.fn}(DISTINCT …) not supported by source`);
  if (a.filter) return no('aggregate FILTER clause is evaluated in Junction');
  if ((a.fn === 'min' || a.fn === 'max') && a.args.some((x) => isString(x.type)) && !caps.exactStringOrdering)
    return no(stringOrderingReason);
  if (a.distinct && a.args.some((x) => isString(x.type)) && !caps.exactStringEquality) return no(stringEqualityReason);
  return all(a.args, caps);
}

/**
 * A window function with the default frame. Ranking and offset functions need an ORDER BY
 * (without one their answer is arbitrary, and SQL Server refuses them); an aggregate over a
 * window follows the aggregate's own capability.
 */
export function canPushWindow(w: WindowCall, caps: Capabilities): PushCheck {
  const what = `${w.fn} over a window`;
  if (w.frame !== undefined) return no(`${what} with an explicit frame is evaluated in Junction`);
  if ((AGGREGATE_FUNCTIONS as readonly string[]).includes(w.fn)) {
    const check = canPushAggregate({ fn: w.fn as AggFn, args: w.args, distinct: false, field: w.field }, caps);
    if (!check.ok) return check;
  } else {
    if (!caps.windowFunctions[w.fn as keyof Capabilities['windowFunctions']]) return no(`${what} not supported by source`);
    if (w.orderBy.length === 0) return no(`${what} without ORDER BY is evaluated in Junction`);
    const args = all(w.args, caps);
    if (!args.ok) return args;
  }
  for (const p of w.partitionBy) {
    const check = canPushGroupKey(p, caps);
    if (!check.ok) return check;
  }
  for (const k of w.orderBy) {
    const check = canPushSortKey(k, caps);
    if (!check.ok) return check;
  }
  return OK;
}

export function canPushSortKey(k: SortKey, caps: Capabilities): PushCheck {
  if (!caps.orderBy) return no('ORDER BY not supported by source');
  if (!caps.nullsOrdering) return no('NULL ordering not supported by source');
  if (isString(k.expr.type) && !caps.exactStringOrdering) return no(stringOrderingReason);
  return canPushExpr(k.expr, caps);
}

export function canPushDistinct(fields: readonly Field[], caps: Capabilities): PushCheck {
  if (!caps.distinct) return no('DISTINCT not supported by source');
  if (fields.some((f) => isString(f.type)) && !caps.exactStringEquality) return no(stringEqualityReason);
  return OK;
}
