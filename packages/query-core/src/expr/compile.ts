import { JunctionError } from '@junction/connectors';
import type { JType, Row, Value } from '@junction/connectors';
import type { Expr, LogicalPlan } from '../plan/logical.js';
import { castValue } from './cast.js';
import { makeKeyFn } from './compare.js';
import { coerceEval, compileCall } from './functions/index.js';
import type { Eval } from './functions/eval.js';
import { commonSupertype } from './types.js';

export type { Eval } from './functions/eval.js';

export interface CompileOptions {
  /**
   * Evaluates an uncorrelated scalar subquery (Expr 'subquery'). The executor runs the plan
   * once per execution and hands back its single value; without this hook such expressions
   * cannot be compiled.
   */
  readonly subquery?: (plan: LogicalPlan, type: JType) => Eval;
  /** statement start time for current_date/current_timestamp; default: now */
  readonly now?: Date;
}

/**
 * Compiles an expression into a closure over a row. `layout` maps field ids to row
 * positions. Compile once per operator, call per row: no tree walking at run time.
 * Three-valued logic throughout: NULL is JS null and propagates as in PostgreSQL.
 */
export function compileExpr(
  expr: Expr,
  layout: ReadonlyMap<number, number>,
  options: CompileOptions = {},
): (row: Row, params: readonly Value[]) => Value {
  const ctx = { now: options.now ?? new Date() };
  const go = (e: Expr): Eval => {
    switch (e.kind) {
      case 'ref': {
        const pos = layout.get(e.id);
        if (pos === undefined) {
          throw new JunctionError('internal_error', 'internal', `field #${e.id} is not in the operator's input`);
        }
        return (row) => row[pos];
      }
      case 'literal': {
        const v = e.value;
        return () => v;
      }
      case 'param': {
        const i = e.index;
        const type = e.type;
        return (_row, params) => {
          if (i >= params.length) {
            throw new JunctionError('missing_parameter', 'user', `no value supplied for parameter $${i + 1}`);
          }
          const v = params[i];
          return v === null || type.kind === 'unknown' || type.kind === 'null' ? v : normaliseParam(v, type);
        };
      }
      case 'call':
        return compileCall(
          e.fn,
          e.args.map(go),
          e.args.map((a) => a.type),
          e.type,
          ctx,
        );
      case 'in':
        return compileIn(e, go);
      case 'case':
        return compileCase(e, go);
      case 'cast': {
        const inner = go(e.expr);
        const from = e.expr.type;
        const to = e.type;
        return (row, params) => {
          const v = inner(row, params);
          return v === null ? null : castValue(v, from, to);
        };
      }
      case 'subquery':
        if (!options.subquery) {
          throw new JunctionError(
            'internal_error',
            'internal',
            'scalar subquery needs an executor hook to be evaluated',
          );
        }
        return options.subquery(e.plan, e.type);
      case 'raise': {
        const { code, message } = e;
        return () => {
          throw new JunctionError(code, 'user', message);
        };
      }
    }
  };
  return go(expr);
}

/**
 * Parameters arrive as whatever the caller passed (a JS number for a bigint column, a number
 * for a decimal); bring them to the value model of the type the binder inferred.
 */
function normaliseParam(v: Value, type: JType): Value {
  switch (type.kind) {
    case 'int64':
      return typeof v === 'bigint' ? v : castValue(v, typeOfJs(v), type);
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return typeof v === 'number' ? v : castValue(v, typeOfJs(v), type);
    case 'decimal':
      return typeof v === 'string'
        ? castValue(v, { kind: 'string' }, { kind: 'decimal' })
        : castValue(v, typeOfJs(v), { kind: 'decimal' });
    case 'bool':
      return typeof v === 'boolean' ? v : castValue(v, typeOfJs(v), type);
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'interval':
    case 'uuid':
      return typeof v === 'string' ? castValue(v, { kind: 'string' }, type) : v;
    default:
      return v;
  }
}

function typeOfJs(v: Value): JType {
  if (typeof v === 'bigint') return { kind: 'int64' };
  if (typeof v === 'number')
    return Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? { kind: 'int32' } : { kind: 'float64' };
  if (typeof v === 'boolean') return { kind: 'bool' };
  if (v instanceof Uint8Array) return { kind: 'binary' };
  return { kind: 'string' };
}

function compileIn(e: Extract<Expr, { kind: 'in' }>, go: (e: Expr) => Eval): Eval {
  let ct: JType = e.expr.type;
  for (const x of e.list) {
    const s = commonSupertype(ct, x.type);
    if (s === undefined)
      throw new JunctionError(
        'undefined_function',
        'user',
        `IN list types ${ct.kind} and ${x.type.kind} cannot be matched`,
      );
    ct = s;
  }
  const probe = coerceEval(go(e.expr), e.expr.type, ct);
  const negated = e.negated;
  const key = makeKeyFn([ct]);
  const one = [null] as Value[];
  const keyOf = (v: Value) => {
    one[0] = v;
    return key(one);
  };
  if (e.list.every((x) => x.kind === 'literal')) {
    // constant list: one hash probe per row
    const set = new Set<string>();
    let hasNull = false;
    for (const x of e.list) {
      const v = x.kind === 'literal' ? x.value : null;
      if (v === null) hasNull = true;
      else set.add(keyOf(x.type.kind === ct.kind ? v : castValue(v, x.type, ct)));
    }
    return (row, params) => {
      const v = probe(row, params);
      if (v === null) return null;
      if (set.has(keyOf(v))) return !negated;
      return hasNull ? null : negated;
    };
  }
  const items = e.list.map((x) => coerceEval(go(x), x.type, ct));
  return (row, params) => {
    const v = probe(row, params);
    if (v === null) return null;
    const k = keyOf(v);
    let sawNull = false;
    for (const item of items) {
      const w = item(row, params);
      if (w === null) sawNull = true;
      else if (keyOf(w) === k) return !negated;
    }
    return sawNull ? null : negated;
  };
}

function compileCase(e: Extract<Expr, { kind: 'case' }>, go: (e: Expr) => Eval): Eval {
  const thens = e.whens.map((w) => coerceEval(go(w.then), w.then.type, e.type));
  const otherwise = e.else ? coerceEval(go(e.else), e.else.type, e.type) : () => null;
  let conds: Eval[];
  if (e.operand) {
    // CASE x WHEN v …: each arm is x = v (NULL never matches)
    const operand = e.operand;
    conds = e.whens.map((w) =>
      compileCall('eq', [go(operand), go(w.when)], [operand.type, w.when.type], { kind: 'bool' }, { now: new Date() }),
    );
  } else conds = e.whens.map((w) => go(w.when));
  const n = conds.length;
  return (row, params) => {
    for (let i = 0; i < n; i++) if (conds[i](row, params) === true) return thens[i](row, params);
    return otherwise(row, params);
  };
}
