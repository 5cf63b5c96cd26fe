import type { Value } from '@junction/connectors';
import type { AggregateCall, Expr, Field, LogicalPlan, NamedExpr, SortKey } from '../plan/logical.js';
import { sameType } from './exprs.js';

/**
 * Field ids of `b` → field ids of `a`, when the two subplans compute the same rows: the same
 * tables, predicates, joins and expressions, node for node, differing only in field ids (and
 * display names). A query that repeats itself (TPC-H Q11's HAVING subquery, Q15's view read
 * twice) binds each copy with fresh ids, so equality has to look through them.
 *
 * Deliberately strict: a node kind it does not know, a subquery expression, or any
 * difference at all means "not the same".
 */
export function matchPlans(a: LogicalPlan, b: LogicalPlan): Map<number, number> | undefined {
  const ids = new Map<number, number>();
  return same(a, b, ids) ? ids : undefined;
}

/** Whether `a` and `b` are the same expression once `b`'s field ids are read through `ids`. */
export function sameExpr(a: Expr, b: Expr, ids: ReadonlyMap<number, number>): boolean {
  switch (a.kind) {
    case 'ref':
      return b.kind === 'ref' && (ids.get(b.id) ?? b.id) === a.id;
    case 'literal':
      return b.kind === 'literal' && sameType(a.type, b.type) && sameValue(a.value, b.value);
    case 'param':
      return b.kind === 'param' && a.index === b.index && sameType(a.type, b.type);
    case 'call':
      return b.kind === 'call' && a.fn === b.fn && sameType(a.type, b.type) && sameList(a.args, b.args, ids);
    case 'in':
      return (
        b.kind === 'in' && a.negated === b.negated && sameExpr(a.expr, b.expr, ids) && sameList(a.list, b.list, ids)
      );
    case 'case':
      return (
        b.kind === 'case' &&
        sameType(a.type, b.type) &&
        sameOptional(a.operand, b.operand, ids) &&
        sameOptional(a.else, b.else, ids) &&
        a.whens.length === b.whens.length &&
        a.whens.every((w, i) => sameExpr(w.when, b.whens[i].when, ids) && sameExpr(w.then, b.whens[i].then, ids))
      );
    case 'cast':
      return b.kind === 'cast' && sameType(a.type, b.type) && sameExpr(a.expr, b.expr, ids);
    case 'subquery':
      return false;
    case 'raise':
      return b.kind === 'raise' && a.code === b.code && a.message === b.message;
  }
}

function same(a: LogicalPlan, b: LogicalPlan, ids: Map<number, number>): boolean {
  switch (a.kind) {
    case 'Scan':
      return (
        b.kind === 'Scan' &&
        a.table.source === b.table.source &&
        a.table.catalog === b.table.catalog &&
        a.table.schema === b.table.schema &&
        a.table.table === b.table.table &&
        a.columns.length === b.columns.length &&
        a.columns.every((c, i) => c === b.columns[i]) &&
        defineAll(a.fields, b.fields, ids)
      );
    case 'Filter':
      return b.kind === 'Filter' && same(a.input, b.input, ids) && sameExpr(a.predicate, b.predicate, ids);
    case 'Project':
      return b.kind === 'Project' && same(a.input, b.input, ids) && sameNamed(a.exprs, b.exprs, ids);
    case 'Join':
      return (
        b.kind === 'Join' &&
        a.type === b.type &&
        same(a.left, b.left, ids) &&
        same(a.right, b.right, ids) &&
        sameOptional(a.condition, b.condition, ids)
      );
    case 'Aggregate':
      return (
        b.kind === 'Aggregate' &&
        same(a.input, b.input, ids) &&
        sameNamed(a.groupBy, b.groupBy, ids) &&
        a.aggregates.length === b.aggregates.length &&
        a.aggregates.every(
          (x, i) => sameAggregate(x, b.aggregates[i], ids) && define(x.field, b.aggregates[i].field, ids),
        )
      );
    case 'Sort':
      return b.kind === 'Sort' && same(a.input, b.input, ids) && sameKeys(a.keys, b.keys, ids);
    case 'Limit':
      return b.kind === 'Limit' && a.limit === b.limit && a.offset === b.offset && same(a.input, b.input, ids);
    case 'Distinct':
      return b.kind === 'Distinct' && same(a.input, b.input, ids);
    default:
      return false;
  }
}

/** Same call on the same arguments (after `ids`); the result fields are not compared. */
export function sameAggregate(a: AggregateCall, b: AggregateCall, ids: ReadonlyMap<number, number>): boolean {
  return (
    a.fn === b.fn &&
    a.distinct === b.distinct &&
    sameType(a.field.type, b.field.type) &&
    sameList(a.args, b.args, ids) &&
    sameOptional(a.filter, b.filter, ids)
  );
}

function sameNamed(a: readonly NamedExpr[], b: readonly NamedExpr[], ids: Map<number, number>): boolean {
  return (
    a.length === b.length && a.every((x, i) => sameExpr(x.expr, b[i].expr, ids) && define(x.field, b[i].field, ids))
  );
}

function sameKeys(a: readonly SortKey[], b: readonly SortKey[], ids: ReadonlyMap<number, number>): boolean {
  return (
    a.length === b.length &&
    a.every((k, i) => k.desc === b[i].desc && k.nullsFirst === b[i].nullsFirst && sameExpr(k.expr, b[i].expr, ids))
  );
}

function sameList(a: readonly Expr[], b: readonly Expr[], ids: ReadonlyMap<number, number>): boolean {
  return a.length === b.length && a.every((x, i) => sameExpr(x, b[i], ids));
}

function sameOptional(a: Expr | undefined, b: Expr | undefined, ids: ReadonlyMap<number, number>): boolean {
  return a === undefined || b === undefined ? a === b : sameExpr(a, b, ids);
}

function defineAll(a: readonly Field[], b: readonly Field[], ids: Map<number, number>): boolean {
  return a.length === b.length && a.every((f, i) => define(f, b[i], ids));
}

/** Records that `b` stands for `a`; fields of different type or nullability are not the same field. */
function define(a: Field, b: Field, ids: Map<number, number>): boolean {
  if (!sameType(a.type, b.type) || a.nullable !== b.nullable) return false;
  ids.set(b.id, a.id);
  return true;
}

function sameValue(a: Value, b: Value): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  }
  return a === b;
}
