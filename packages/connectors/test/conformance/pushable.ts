import type { Capabilities } from '../../src/contract/capabilities.js';
import type { RemoteExpr, RemoteFrom, RemoteQuery } from '../../src/contract/remote-query.js';

const EQUALITY = new Set(['eq', 'ne', 'is_distinct_from', 'is_not_distinct_from', 'nullif', 'position', 'replace']);
const ORDERING = new Set(['lt', 'le', 'gt', 'ge', 'greatest', 'least']);

/**
 * What a query needs that the capabilities do not declare: the same reading of Capabilities
 * query-core's planner makes. Empty means the whole query may be pushed down.
 */
export function undeclared(caps: Capabilities, q: RemoteQuery): string[] {
  const out: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok && !out.includes(what)) out.push(what);
  };
  const isString = (e: RemoteExpr) => e.type.kind === 'string';

  const expr = (e: RemoteExpr): void => {
    switch (e.kind) {
      case 'column':
      case 'literal':
        return;
      case 'call': {
        const decl = caps.functions[e.fn];
        const kinds = e.args.map((a) => a.type.kind);
        need(
          decl === true ||
            (decl !== undefined &&
              kinds.every((k) => decl.argKinds?.includes(k) ?? true) &&
              e.args.length <= (decl.maxArgs ?? Infinity) &&
              (decl.literalArgs ?? []).every((i) => e.args[i]?.kind === 'literal')),
          `${e.fn}(${kinds.join(', ')})`,
        );
        if (e.args.some(isString)) {
          if (EQUALITY.has(e.fn)) need(caps.exactStringEquality, 'exactStringEquality');
          if (ORDERING.has(e.fn)) need(caps.exactStringOrdering, 'exactStringOrdering');
          if (e.fn === 'like') need(caps.caseSensitiveLike, 'caseSensitiveLike');
        }
        e.args.forEach(expr);
        return;
      }
      case 'in':
        need(caps.in, 'in');
        if (isString(e.expr)) need(caps.exactStringEquality, 'exactStringEquality');
        expr(e.expr);
        e.list.forEach(expr);
        return;
      case 'keySet':
        need(caps.in, 'in');
        if (isString(e.expr)) need(caps.exactStringEquality, 'exactStringEquality');
        expr(e.expr);
        return;
      case 'case':
        need(caps.case, 'case');
        if (e.operand) expr(e.operand);
        e.whens.forEach((w) => (expr(w.when), expr(w.then)));
        if (e.else) expr(e.else);
        return;
      case 'cast':
        need(caps.casts.includes(e.type.kind) || caps.castsFrom[e.type.kind]?.includes(e.expr.type.kind) === true, `cast to ${e.type.kind}`);
        expr(e.expr);
        return;
      case 'window':
        need(e.fn in caps.windowFunctions ? caps.windowFunctions[e.fn as keyof typeof caps.windowFunctions] === true : caps.aggregates[e.fn as keyof typeof caps.aggregates] === true, `${e.fn} over a window`);
        if (e.partitionBy.some(isString)) need(caps.exactStringEquality, 'exactStringEquality');
        if (e.orderBy.length > 0) need(caps.nullsOrdering, 'nullsOrdering');
        if (e.orderBy.some((k) => isString(k.expr))) need(caps.exactStringOrdering, 'exactStringOrdering');
        e.args.forEach(expr);
        e.partitionBy.forEach(expr);
        e.orderBy.forEach((k) => expr(k.expr));
        return;
      case 'inSubquery':
        expr(e.expr);
        need(caps.existsSubquery, 'existsSubquery');
        out.push(...undeclared(caps, e.query).filter((x) => !out.includes(x)));
        return;
      case 'exists':
        need(caps.existsSubquery, 'existsSubquery');
        out.push(...undeclared(caps, e.query).filter((x) => !out.includes(x)));
        return;
      case 'agg':
        need(caps.aggregates[e.fn] === true, e.fn);
        if (e.distinct) need(caps.distinctAggregates, 'distinctAggregates');
        if (e.args.some(isString)) {
          if (e.fn === 'min' || e.fn === 'max') need(caps.exactStringOrdering, 'exactStringOrdering');
          if (e.distinct) need(caps.exactStringEquality, 'exactStringEquality');
        }
        e.args.forEach(expr);
        return;
    }
  };

  const from = (f: RemoteFrom): void => {
    if (f.kind === 'join') {
      need(caps.joins[f.type] === true, `${f.type} join`);
      if (f.on) expr(f.on);
      from(f.left);
      from(f.right);
    } else if (f.kind === 'subquery') {
      need(caps.subqueryInFrom, 'subqueryInFrom');
      out.push(...undeclared(caps, f.query).filter((x) => !out.includes(x)));
    } else if (f.kind === 'setop') {
      need(caps.subqueryInFrom, 'subqueryInFrom');
      need(caps.setOps[f.all ? (`${f.op}_all` as const) : f.op] === true, `${f.op}${f.all ? ' all' : ''}`);
      if (!f.all && f.left.select.some((s) => isString(s.expr))) need(caps.exactStringEquality, 'exactStringEquality');
      for (const side of [f.left, f.right]) out.push(...undeclared(caps, side).filter((x) => !out.includes(x)));
    }
  };

  q.select.forEach((s) => expr(s.expr));
  from(q.from);
  if (q.where) expr(q.where);
  if (q.distinct) {
    need(caps.distinct, 'distinct');
    if (q.select.some((s) => isString(s.expr))) need(caps.exactStringEquality, 'exactStringEquality');
  }
  if (q.groupBy?.length) {
    need(caps.groupBy, 'groupBy');
    if (q.groupBy.some(isString)) need(caps.exactStringEquality, 'exactStringEquality');
    q.groupBy.forEach(expr);
  }
  if (q.having) {
    need(caps.having, 'having');
    expr(q.having);
  }
  if (q.orderBy?.length) {
    need(caps.orderBy, 'orderBy');
    need(caps.nullsOrdering, 'nullsOrdering');
    if (q.orderBy.some((k) => isString(k.expr))) need(caps.exactStringOrdering, 'exactStringOrdering');
    q.orderBy.forEach((k) => expr(k.expr));
  }
  if (q.limit !== undefined) need(caps.limit, 'limit');
  if (q.offset !== undefined) need(caps.offset, 'offset');
  return out;
}
