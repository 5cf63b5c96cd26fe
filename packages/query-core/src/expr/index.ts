/** The expression library every operator uses: compile, compare/hash, aggregate, cast, type rules. */
export { compileExpr } from './compile.js';
export type { CompileOptions, Eval } from './compile.js';
export { compareValues, comparatorFor, compareCodePoints, makeKey, makeKeyFn, trimTrailingBlanks } from './compare.js';
export type { Comparator } from './compare.js';
export { makeAccumulator } from './aggregates.js';
export type { Accumulator, AccumulatorOptions } from './aggregates.js';
export { castValue, valueToText } from './cast.js';
export {
  aggregateReturnType,
  arithmeticType,
  canImplicitCast,
  commonSupertype,
  isNumeric,
  numericSupertype,
  parseTypeName,
  scalarReturnType,
  windowReturnType,
} from './types.js';
export * as decimal from './decimal.js';
