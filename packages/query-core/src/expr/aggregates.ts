import { JunctionError } from '@junction/connectors';
import type { AggFn, JType, Value } from '@junction/connectors';
import * as dec from './decimal.js';
import { comparatorFor, makeKeyFn } from './compare.js';
import { formatSmall, parseSmall, reg } from './fast-decimal.js';
import { formatInterval, parseInterval } from './datetime.js';
import { aggregateReturnType } from './types.js';

/**
 * Aggregate accumulators with PostgreSQL's result types. States are mutable objects: `add`
 * and `merge` may update their first argument and return it. `merge` combines two partial
 * states exactly (partial aggregation below a federated join, per-worker partials), so
 * avg keeps sum and count, sum keeps the exact decimal and its scale.
 */
export interface Accumulator<S = unknown> {
  readonly resultType: JType;
  init(): S;
  /** `value` is the first argument; `extra` the second (string_agg's separator) */
  add(state: S, value: Value, extra?: Value): S;
  merge(a: S, b: S): S;
  finish(state: S): Value;
  /** approximate bytes of a state that grows with its input (DISTINCT values, string_agg parts), so the hash aggregate can count and spill it */
  sizeOf?(state: S): number;
}

export interface AccumulatorOptions {
  readonly distinct?: boolean;
}

export function makeAccumulator(fn: AggFn, argType: JType | undefined, options: AccumulatorOptions = {}): Accumulator {
  const resultType = aggregateReturnType(fn, argType);
  const base = baseAccumulator(fn, argType ?? { kind: 'null' }, resultType);
  return options.distinct && fn !== 'count_star' ? distinctOf(base, argType ?? { kind: 'null' }) : base;
}

function baseAccumulator(fn: AggFn, arg: JType, resultType: JType): Accumulator {
  switch (fn) {
    case 'count_star':
      return counter(resultType, true);
    case 'count':
      return counter(resultType, false);
    case 'sum':
      return sumOf(arg, resultType);
    case 'avg':
      return avgOf(arg, resultType);
    case 'min':
    case 'max':
      return extremum(arg, resultType, fn === 'max' ? 1 : -1);
    case 'bool_and':
    case 'bool_or':
      return boolAgg(resultType, fn === 'bool_and');
    case 'string_agg':
      return stringAgg(resultType);
  }
}

interface Count {
  n: number;
}

function counter(resultType: JType, star: boolean): Accumulator<Count> {
  return {
    resultType,
    init: () => ({ n: 0 }),
    add: star
      ? (s) => {
          s.n++;
          return s;
        }
      : (s, v) => {
          if (v !== null) s.n++;
          return s;
        },
    merge: (a, b) => {
      a.n += b.n;
      return a;
    },
    finish: (s) => BigInt(s.n),
  };
}

interface IntSum {
  /** exact while |n| < 2^53; past that `big` takes over */
  n: number;
  big: bigint | null;
  any: boolean;
}

function toBig(v: Value): bigint {
  return typeof v === 'bigint' ? v : BigInt(v as number);
}

function sumOf(arg: JType, resultType: JType): Accumulator {
  switch (arg.kind) {
    case 'int16':
    case 'int32': {
      const acc: Accumulator<IntSum> = {
        resultType,
        init: () => ({ n: 0, big: null, any: false }),
        add: (s, v) => {
          if (v === null) return s;
          s.any = true;
          if (s.big !== null) s.big += BigInt(v as number);
          else {
            const next = s.n + (v as number);
            if (Number.isSafeInteger(next)) s.n = next;
            else {
              s.big = BigInt(s.n) + BigInt(v as number);
              s.n = 0;
            }
          }
          return s;
        },
        merge: (a, b) => {
          if (!b.any) return a;
          a.any = true;
          if (a.big === null && b.big === null && Number.isSafeInteger(a.n + b.n)) a.n += b.n;
          else {
            a.big = (a.big ?? BigInt(a.n)) + (b.big ?? BigInt(b.n));
            a.n = 0;
          }
          return a;
        },
        finish: (s) => {
          if (!s.any) return null;
          const total = s.big ?? BigInt(s.n);
          if (total > 2n ** 63n - 1n || total < -(2n ** 63n))
            throw new JunctionError('numeric_value_out_of_range', 'user', 'bigint out of range');
          return total;
        },
      };
      return acc as Accumulator;
    }
    case 'int64':
    case 'decimal':
    case 'null':
      return decimalSum(arg, resultType) as Accumulator;
    case 'float32':
    case 'float64': {
      const acc: Accumulator<{ x: number; any: boolean }> = {
        resultType,
        init: () => ({ x: 0, any: false }),
        add: (s, v) => {
          if (v !== null) {
            s.x += v as number;
            s.any = true;
          }
          return s;
        },
        merge: (a, b) => {
          a.x += b.x;
          a.any ||= b.any;
          return a;
        },
        finish: (s) => (s.any ? s.x : null),
      };
      return acc as Accumulator;
    }
    case 'interval':
      return intervalSum(resultType, false) as Accumulator;
  }
  throw new JunctionError('undefined_function', 'user', `function sum(${arg.kind}) does not exist`);
}

interface DecSum {
  /** exact sum = v + small, both unscaled at scale s */
  v: bigint;
  /** running part kept as a JS integer while it stays exact */
  small: number;
  s: number;
  count: number;
}

function total(st: DecSum): bigint {
  return st.small === 0 ? st.v : st.v + BigInt(st.small);
}

function decimalSum(arg: JType, resultType: JType): Accumulator<DecSum> {
  const isInt = arg.kind === 'int64';
  return {
    resultType,
    init: () => ({ v: 0n, small: 0, s: 0, count: 0 }),
    add: (st, v) => {
      if (v === null) return st;
      st.count++;
      if (isInt) {
        st.v += st.s === 0 ? toBig(v) : toBig(v) * dec.pow10(st.s);
        return st;
      }
      if (parseSmall(v as string)) {
        if (st.count === 1) {
          // the first value sets the scale: merging partial sums a source grouped (one value
          // per group) then never needs BigInt
          st.s = reg.s;
          st.small = reg.v;
          return st;
        }
        if (reg.s === st.s) {
          const next = st.small + reg.v;
          if (Number.isSafeInteger(next)) st.small = next;
          else {
            st.v += BigInt(st.small) + BigInt(reg.v);
            st.small = 0;
          }
          return st;
        }
      }
      if (st.small !== 0) {
        st.v += BigInt(st.small);
        st.small = 0;
      }
      const d = dec.parseDec(v as string);
      if (d.s === st.s) st.v += d.v;
      else if (d.s < st.s) st.v += d.v * dec.pow10(st.s - d.s);
      else {
        st.v = st.v * dec.pow10(d.s - st.s) + d.v;
        st.s = d.s;
      }
      return st;
    },
    merge: (a, b) => {
      const s = Math.max(a.s, b.s);
      a.v = dec.rescale({ v: total(a), s: a.s }, s).v + dec.rescale({ v: total(b), s: b.s }, s).v;
      a.small = 0;
      a.s = s;
      a.count += b.count;
      return a;
    },
    finish: (st) =>
      st.count === 0 ? null : st.v === 0n ? formatSmall(st.small, st.s) : dec.formatDec({ v: total(st), s: st.s }),
  };
}

function avgOf(arg: JType, resultType: JType): Accumulator {
  switch (arg.kind) {
    case 'int16':
    case 'int32':
    case 'int64':
    case 'decimal':
    case 'null': {
      const sum = decimalSum(arg.kind === 'decimal' || arg.kind === 'null' ? arg : { kind: 'int64' }, resultType);
      const acc: Accumulator<DecSum> = {
        resultType,
        init: sum.init,
        add: sum.add,
        merge: sum.merge,
        // PostgreSQL divides the exact sum by the count with numeric division's scale rule
        finish: (st) =>
          st.count === 0 ? null : dec.formatDec(dec.div({ v: total(st), s: st.s }, { v: BigInt(st.count), s: 0 })),
      };
      return acc as Accumulator;
    }
    case 'float32':
    case 'float64': {
      const acc: Accumulator<{ x: number; n: number }> = {
        resultType,
        init: () => ({ x: 0, n: 0 }),
        add: (s, v) => {
          if (v !== null) {
            s.x += v as number;
            s.n++;
          }
          return s;
        },
        merge: (a, b) => {
          a.x += b.x;
          a.n += b.n;
          return a;
        },
        finish: (s) => (s.n === 0 ? null : s.x / s.n),
      };
      return acc as Accumulator;
    }
    case 'interval':
      return intervalSum(resultType, true) as Accumulator;
  }
  throw new JunctionError('undefined_function', 'user', `function avg(${arg.kind}) does not exist`);
}

interface IvSum {
  months: number;
  days: number;
  us: number;
  n: number;
}

function intervalSum(resultType: JType, average: boolean): Accumulator<IvSum> {
  return {
    resultType,
    init: () => ({ months: 0, days: 0, us: 0, n: 0 }),
    add: (s, v) => {
      if (v === null) return s;
      const iv = parseInterval(v as string);
      s.months += iv.months;
      s.days += iv.days;
      s.us += iv.us;
      s.n++;
      return s;
    },
    merge: (a, b) => {
      a.months += b.months;
      a.days += b.days;
      a.us += b.us;
      a.n += b.n;
      return a;
    },
    finish: (s) => {
      if (s.n === 0) return null;
      if (!average) return formatInterval(s);
      const months = s.months / s.n;
      const wm = Math.trunc(months);
      const days = s.days / s.n + (months - wm) * 30;
      const wd = Math.trunc(days);
      return formatInterval({ months: wm, days: wd, us: Math.round(s.us / s.n + (days - wd) * 86_400_000_000) });
    },
  };
}

function extremum(arg: JType, resultType: JType, sign: number): Accumulator<{ v: Value }> {
  const cmp = comparatorFor(arg);
  return {
    resultType,
    init: () => ({ v: null }),
    add: (s, v) => {
      if (v !== null && (s.v === null || sign * cmp(v, s.v) > 0)) s.v = v;
      return s;
    },
    merge: (a, b) => {
      if (b.v !== null && (a.v === null || sign * cmp(b.v, a.v) > 0)) a.v = b.v;
      return a;
    },
    finish: (s) => s.v,
  };
}

function boolAgg(resultType: JType, and: boolean): Accumulator<{ v: boolean | null }> {
  return {
    resultType,
    init: () => ({ v: null }),
    add: (s, v) => {
      if (v === null) return s;
      s.v = s.v === null ? (v as boolean) : and ? s.v && (v as boolean) : s.v || (v as boolean);
      return s;
    },
    merge: (a, b) => {
      if (b.v === null) return a;
      a.v = a.v === null ? b.v : and ? a.v && b.v : a.v || b.v;
      return a;
    },
    finish: (s) => s.v,
  };
}

interface StrAgg {
  parts: string[];
  seps: string[];
}

function stringAgg(resultType: JType): Accumulator<StrAgg> {
  return {
    resultType,
    init: () => ({ parts: [], seps: [] }),
    add: (s, v, sep) => {
      if (v === null) return s;
      s.parts.push(v as string);
      s.seps.push(sep === null || sep === undefined ? '' : (sep as string));
      return s;
    },
    merge: (a, b) => {
      a.parts.push(...b.parts);
      a.seps.push(...b.seps);
      return a;
    },
    sizeOf: (s) => s.parts.length * 64,
    finish: (s) => {
      if (s.parts.length === 0) return null;
      let out = s.parts[0];
      for (let i = 1; i < s.parts.length; i++) out += s.seps[i] + s.parts[i];
      return out;
    },
  };
}

interface DistinctState {
  seen: Map<string, [Value, Value | undefined]>;
}

/** DISTINCT aggregates: collect the distinct non-NULL values (by PostgreSQL equality), aggregate at the end. */
function distinctOf(inner: Accumulator, arg: JType): Accumulator<DistinctState> {
  const key = makeKeyFn([arg]);
  const one: Value[] = [null];
  return {
    resultType: inner.resultType,
    init: () => ({ seen: new Map() }),
    add: (s, v, extra) => {
      if (v === null) return s;
      one[0] = v;
      const k = key(one);
      if (!s.seen.has(k)) s.seen.set(k, [v, extra]);
      return s;
    },
    merge: (a, b) => {
      for (const [k, v] of b.seen) if (!a.seen.has(k)) a.seen.set(k, v);
      return a;
    },
    sizeOf: (s) => s.seen.size * 112,
    finish: (s) => {
      let st = inner.init();
      for (const [v, extra] of s.seen.values()) st = inner.add(st, v, extra);
      return inner.finish(st);
    },
  };
}
