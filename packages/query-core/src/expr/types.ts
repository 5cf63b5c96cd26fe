import { JunctionError, formatType, t } from '@junction/connectors';
import type { AggFn, JType, ScalarFn, TypeKind, WindowFn } from '@junction/connectors';

/**
 * Type inference and implicit coercion, as PostgreSQL resolves operators and functions.
 * The binder asks these questions; the evaluator trusts the answers (every Expr is typed).
 */

const NUMERIC_RANK: Partial<Record<TypeKind, number>> = {
  int16: 1,
  int32: 2,
  int64: 3,
  decimal: 4,
  float32: 5,
  float64: 6,
};

export function isNumeric(type: JType): boolean {
  return NUMERIC_RANK[type.kind] !== undefined;
}

export function isInteger(type: JType): boolean {
  return type.kind === 'int16' || type.kind === 'int32' || type.kind === 'int64';
}

export function isFloat(type: JType): boolean {
  return type.kind === 'float32' || type.kind === 'float64';
}

export function isTemporal(type: JType): boolean {
  return type.kind === 'date' || type.kind === 'timestamp' || type.kind === 'timestamptz' || type.kind === 'time';
}

export function sameType(a: JType, b: JType): boolean {
  return (
    a.kind === b.kind &&
    a.precision === b.precision &&
    a.scale === b.scale &&
    a.length === b.length &&
    !!a.fixed === !!b.fixed
  );
}

function typeError(message: string): JunctionError {
  return new JunctionError('datatype_mismatch', 'user', message);
}

/** The numeric type both operands are promoted to (int32+int64 → int64, int+decimal → decimal, decimal+float → float64). */
export function numericSupertype(a: JType, b: JType): JType {
  const ra = NUMERIC_RANK[a.kind]!;
  const rb = NUMERIC_RANK[b.kind]!;
  if (ra >= 5 || rb >= 5) return t.float64;
  if (ra === 4 || rb === 4) {
    if (a.kind === 'decimal' && b.kind === 'decimal') return unifyDecimal(a, b);
    // int meets numeric(p,s) as unconstrained numeric: a typmod would round or overflow the integer side
    return t.decimal();
  }
  return ra >= rb ? (a.kind === 'int16' ? t.int32 : a) : b.kind === 'int16' ? t.int32 : b;
}

function unifyDecimal(a: JType, b: JType): JType {
  if (a.precision === b.precision && a.scale === b.scale) return a;
  return t.decimal();
}

/**
 * The common supertype for UNION, CASE, COALESCE, IN lists and comparisons, or undefined
 * when PostgreSQL would refuse (text vs integer). `null` adopts the other side.
 */
export function commonSupertype(a: JType, b: JType): JType | undefined {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (sameType(a, b)) return a;
  if (isNumeric(a) && isNumeric(b)) {
    if (a.kind === b.kind && a.kind !== 'decimal') return a;
    if (a.kind === 'int16' && b.kind === 'int16') return t.int16;
    const s = numericSupertype(a, b);
    return s.kind === 'int32' && a.kind === 'int16' && b.kind === 'int16' ? t.int16 : s;
  }
  if (a.kind === 'string' && b.kind === 'string') {
    if (a.fixed && b.fixed) return a.length === b.length ? a : { kind: 'string', fixed: true };
    // bpchar meets varchar/text as text: PostgreSQL casts char(n) to text (dropping trailing blanks)
    if (a.fixed || b.fixed) return t.string;
    return a.length !== undefined && a.length === b.length ? a : t.string;
  }
  if (a.kind === b.kind)
    return a.kind === 'timestamp' || a.kind === 'time' || a.kind === 'timestamptz' ? { kind: a.kind } : a;
  const temporal: TypeKind[] = ['date', 'timestamp', 'timestamptz'];
  const ia = temporal.indexOf(a.kind);
  const ib = temporal.indexOf(b.kind);
  if (ia >= 0 && ib >= 0) return { kind: temporal[Math.max(ia, ib)] };
  if (a.kind === 'unknown' || b.kind === 'unknown') return a.kind === 'unknown' ? b : a;
  return undefined;
}

export function requireSupertype(a: JType, b: JType, context: string): JType {
  const s = commonSupertype(a, b);
  if (s === undefined) throw typeError(`${context} types ${formatType(a)} and ${formatType(b)} cannot be matched`);
  return s;
}

/** Whether PostgreSQL would apply `from` → `to` implicitly (for operator and function arguments). */
export function canImplicitCast(from: JType, to: JType): boolean {
  if (from.kind === to.kind || from.kind === 'null') return true;
  if (isNumeric(from) && isNumeric(to)) return NUMERIC_RANK[from.kind]! <= NUMERIC_RANK[to.kind]!;
  if (from.kind === 'date' && (to.kind === 'timestamp' || to.kind === 'timestamptz')) return true;
  if (from.kind === 'timestamp' && to.kind === 'timestamptz') return true;
  if (to.kind === 'string' && from.kind === 'unknown') return true;
  return false;
}

export type ArithmeticOp = 'add' | 'sub' | 'mul' | 'div' | 'mod';

const OP_TEXT: Record<ArithmeticOp, string> = { add: '+', sub: '-', mul: '*', div: '/', mod: '%' };

/**
 * Result type of `a op b` and the types the operands are coerced to before the operation.
 * Decimal results carry the scale when PostgreSQL's rule makes it static (add/sub: max,
 * mul: sum); division's scale depends on the values, so its type has none.
 */
export function arithmeticType(op: ArithmeticOp, a: JType, b: JType): { result: JType; left: JType; right: JType } {
  if (a.kind === 'null' && b.kind === 'null') return { result: t.null, left: a, right: b };
  if (a.kind === 'null') a = b;
  if (b.kind === 'null') b = a;
  if (isNumeric(a) && isNumeric(b)) {
    const s = numericSupertype(a, b);
    if (s.kind === 'decimal') {
      const sa = a.kind === 'decimal' ? a.scale : 0;
      const sb = b.kind === 'decimal' ? b.scale : 0;
      let scale: number | undefined;
      if (sa !== undefined && sb !== undefined) {
        if (op === 'add' || op === 'sub' || op === 'mod') scale = Math.max(sa, sb);
        else if (op === 'mul') scale = sa + sb;
      }
      const dec: JType = scale === undefined ? t.decimal() : { kind: 'decimal', scale };
      const la: JType = a.kind === 'decimal' ? a : t.decimal();
      const lb: JType = b.kind === 'decimal' ? b : t.decimal();
      return { result: dec, left: la, right: lb };
    }
    return { result: s, left: s, right: s };
  }
  // date/time arithmetic, as PostgreSQL's operator catalogue defines it
  const k = `${a.kind} ${op} ${b.kind}`;
  switch (k) {
    case 'date add int16':
    case 'date add int32':
    case 'date sub int16':
    case 'date sub int32':
      return { result: t.date, left: a, right: t.int32 };
    case 'int16 add date':
    case 'int32 add date':
      return { result: t.date, left: t.int32, right: b };
    case 'date sub date':
      return { result: t.int32, left: a, right: b };
    case 'date add interval':
    case 'date sub interval':
      return { result: t.timestamp, left: t.timestamp, right: b };
    case 'interval add date':
      return { result: t.timestamp, left: a, right: t.timestamp };
    case 'timestamp add interval':
    case 'timestamp sub interval':
    case 'timestamptz add interval':
    case 'timestamptz sub interval':
      return { result: { kind: a.kind }, left: a, right: b };
    case 'interval add timestamp':
    case 'interval add timestamptz':
      return { result: { kind: b.kind }, left: a, right: b };
    case 'timestamp sub timestamp':
    case 'timestamptz sub timestamptz':
      return { result: t.interval, left: a, right: b };
    case 'timestamp sub date':
      return { result: t.interval, left: a, right: t.timestamp };
    case 'date sub timestamp':
      return { result: t.interval, left: t.timestamp, right: b };
    case 'interval add interval':
    case 'interval sub interval':
      return { result: t.interval, left: a, right: b };
    case 'interval mul int32':
    case 'interval mul int16':
    case 'interval mul int64':
    case 'interval mul float64':
    case 'interval mul decimal':
    case 'interval div int32':
    case 'interval div float64':
      return { result: t.interval, left: a, right: t.float64 };
    case 'int32 mul interval':
    case 'float64 mul interval':
      return { result: t.interval, left: t.float64, right: b };
    case 'date add time':
      return { result: t.timestamp, left: a, right: b };
  }
  throw new JunctionError(
    'undefined_function',
    'user',
    `operator does not exist: ${formatType(a)} ${OP_TEXT[op]} ${formatType(b)}; add an explicit cast`,
  );
}

/** Result type of a scalar function over already-coerced argument types. */
export function scalarReturnType(fn: ScalarFn, args: readonly JType[]): JType {
  switch (fn) {
    case 'eq':
    case 'ne':
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge':
    case 'is_distinct_from':
    case 'is_not_distinct_from':
    case 'and':
    case 'or':
    case 'not':
    case 'is_null':
    case 'is_not_null':
    case 'like':
    case 'ilike':
    case 'starts_with':
      return t.bool;
    case 'coalesce':
    case 'greatest':
    case 'least':
      return args.reduce((acc, x) => requireSupertype(acc, x, fn.toUpperCase()), t.null as JType);
    case 'nullif':
      return args[0];
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'mod':
      return arithmeticType(fn, args[0], args[1]).result;
    case 'neg':
    case 'abs':
    case 'sign':
      if (fn === 'sign' && isInteger(args[0])) return t.float64;
      return args[0].kind === 'int16' && fn !== 'abs'
        ? t.int16
        : args[0].kind === 'decimal'
          ? decimalNoPrecision(args[0])
          : args[0];
    case 'round':
    case 'trunc':
      if (args[0].kind === 'decimal') {
        return args.length === 1 ? { kind: 'decimal', scale: 0 } : t.decimal();
      }
      return t.float64;
    case 'floor':
    case 'ceil':
      return args[0].kind === 'decimal' ? { kind: 'decimal', scale: 0 } : t.float64;
    case 'power':
    case 'sqrt':
      return args.some((a) => a.kind === 'decimal') ? t.decimal() : t.float64;
    case 'concat':
    case 'lower':
    case 'upper':
    case 'substring':
    case 'trim':
    case 'ltrim':
    case 'rtrim':
    case 'replace':
    case 'left':
    case 'right':
    case 'lpad':
    case 'rpad':
      return t.string;
    case 'length':
    case 'position':
      return t.int32;
    case 'date_part':
      return t.float64;
    case 'date_trunc':
      return args[1]?.kind === 'timestamp' ? t.timestamp : args[1]?.kind === 'interval' ? t.interval : t.timestamptz;
    case 'current_date':
    case 'make_date':
      return t.date;
    case 'current_timestamp':
      return t.timestamptz;
  }
}

function decimalNoPrecision(a: JType): JType {
  return a.scale === undefined ? t.decimal() : { kind: 'decimal', scale: a.scale };
}

/** Result type of an aggregate, as PostgreSQL declares it. */
export function aggregateReturnType(fn: AggFn, arg: JType | undefined): JType {
  switch (fn) {
    case 'count':
    case 'count_star':
      return t.int64;
    case 'sum':
      if (arg === undefined) break;
      if (arg.kind === 'int16' || arg.kind === 'int32') return t.int64;
      if (arg.kind === 'int64') return t.decimal();
      if (arg.kind === 'decimal') return arg.scale === undefined ? t.decimal() : { kind: 'decimal', scale: arg.scale };
      if (arg.kind === 'float32' || arg.kind === 'float64') return arg.kind === 'float32' ? t.float32 : t.float64;
      if (arg.kind === 'interval') return t.interval;
      if (arg.kind === 'null') return t.decimal();
      break;
    case 'avg':
      if (arg === undefined) break;
      if (isInteger(arg) || arg.kind === 'decimal' || arg.kind === 'null') return t.decimal();
      if (isFloat(arg)) return t.float64;
      if (arg.kind === 'interval') return t.interval;
      break;
    case 'min':
    case 'max':
      if (arg === undefined) break;
      if (arg.kind === 'bool' || arg.kind === 'json' || arg.kind === 'binary') break;
      return arg;
    case 'bool_and':
    case 'bool_or':
      if (arg?.kind === 'bool' || arg?.kind === 'null') return t.bool;
      break;
    case 'string_agg':
      return t.string;
  }
  throw new JunctionError('undefined_function', 'user', `function ${fn}(${arg ? formatType(arg) : ''}) does not exist`);
}

export function windowReturnType(fn: WindowFn | AggFn, args: readonly JType[]): JType {
  switch (fn) {
    case 'row_number':
    case 'rank':
    case 'dense_rank':
      return t.int64;
    case 'ntile':
      return t.int32;
    case 'lag':
    case 'lead':
    case 'first_value':
    case 'last_value':
      return args[0];
    default:
      return aggregateReturnType(fn, args[0]);
  }
}

/** Parses an SQL type name (as written in CAST / ::) into a JType. */
export function parseTypeName(name: string, params: readonly number[] = []): JType | undefined {
  const n = name.toLowerCase().replace(/\s+/g, ' ').trim();
  switch (n) {
    case 'bool':
    case 'boolean':
      return t.bool;
    case 'smallint':
    case 'int2':
      return t.int16;
    case 'int':
    case 'integer':
    case 'int4':
      return t.int32;
    case 'bigint':
    case 'int8':
      return t.int64;
    case 'real':
    case 'float4':
      return t.float32;
    case 'float':
      return params[0] !== undefined && params[0] <= 24 ? t.float32 : t.float64;
    case 'double precision':
    case 'float8':
    case 'double':
      return t.float64;
    case 'numeric':
    case 'decimal':
    case 'dec':
      return params.length === 0 ? t.decimal() : t.decimal(params[0], params[1] ?? 0);
    case 'text':
    case 'string':
      return t.string;
    case 'varchar':
    case 'character varying':
      return t.varchar(params[0]);
    case 'char':
    case 'character':
    case 'bpchar':
      return t.char(params[0] ?? 1);
    case 'date':
      return t.date;
    case 'time':
    case 'time without time zone':
      return t.time;
    case 'timestamp':
    case 'timestamp without time zone':
    case 'datetime':
      return t.timestamp;
    case 'timestamptz':
    case 'timestamp with time zone':
      return t.timestamptz;
    case 'interval':
      return t.interval;
    case 'bytea':
      return t.binary;
    case 'json':
    case 'jsonb':
      return t.json;
    case 'uuid':
      return t.uuid;
  }
  return undefined;
}
