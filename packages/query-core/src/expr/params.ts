import { JunctionError } from '@junction/connectors';
import type { JType, Value } from '@junction/connectors';
import { castValue } from './cast.js';

/** Parameter types whose values are read from text with PostgreSQL's input rules. */
const TEXT_INPUT = new Set<JType['kind']>([
  'bool', 'int16', 'int32', 'int64', 'float32', 'float64', 'decimal', 'date', 'time', 'timestamp', 'timestamptz', 'interval', 'uuid',
]);

/**
 * Gives every parameter value its bound type once, before planning, so a source receives an
 * exactly-typed literal and never applies its own lenient cast (MariaDB reads '1abc' as 1).
 * PostgreSQL receives parameters as text and parses them with the type's input function, so a
 * JSON number 1.5 bound to an integer fails as the text "1.5" would.
 */
export function coerceParams(params: readonly Value[], types: readonly JType[]): Value[] {
  if (params.length !== types.length) {
    throw new JunctionError(
      'wrong_parameter_count',
      'user',
      `The statement has ${types.length} parameter${types.length === 1 ? '' : 's'} but ${params.length} value${params.length === 1 ? ' was' : 's were'} given.`,
      { details: { expected: types.length, given: params.length } },
    );
  }
  return params.map((v, i) => {
    const type = types[i]!;
    if (v === null || !TEXT_INPUT.has(type.kind)) return v;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') {
      return castValue(String(v), { kind: 'string' }, type);
    }
    return v;
  });
}
