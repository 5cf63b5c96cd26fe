import type { JType, Row, Value } from '@junction/connectors';
import type { KeyFn, RowFn } from './expr-fn.js';

/**
 * Canonical hash key of one value, so values `=` calls equal hash equal across types:
 * 1 (int32), 1n (int64) and "1.00" (decimal) all become the number 1; char(n) ignores
 * trailing blanks; binary compares by bytes.
 */
export function canonicalValue(v: Value, type: JType): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case 'number':
      return v === 0 ? 0 : v; // -0 = 0
    case 'bigint':
      return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : `i${v}`;
    case 'string':
      if (type.kind === 'decimal') return canonicalDecimal(v);
      if (type.kind === 'string' && type.fixed) return v.replace(/ +$/, '');
      return v;
    case 'boolean':
      return v;
    default:
      return 'x' + Buffer.from(v as Uint8Array).toString('hex');
  }
}

/** "001.500" → 1.5 as a number when exact, else a normalised string. */
function canonicalDecimal(s: string): unknown {
  let neg = false;
  let t = s.trim();
  if (t.startsWith('-')) {
    neg = true;
    t = t.slice(1);
  } else if (t.startsWith('+')) t = t.slice(1);
  let [int, frac = ''] = t.split('.');
  int = int.replace(/^0+/, '');
  frac = frac.replace(/0+$/, '');
  if (int === '' && frac === '') return 0;
  if (frac === '' && int.length <= 15) return neg ? -Number(int) : Number(int);
  return `d${neg ? '-' : ''}${int || '0'}${frac ? '.' + frac : ''}`;
}

/**
 * Key function over the given row positions. `nullsEqual` false (join keys): a NULL in
 * any key column yields null, which never matches. true (GROUP BY, DISTINCT, set ops):
 * NULLs form one group.
 */
export function makeKeyFn(columns: readonly (number | RowFn)[], types: readonly JType[], nullsEqual: boolean): KeyFn {
  if (columns.some((c) => typeof c !== 'number')) {
    const fns = columns.map((c) => (typeof c === 'number' ? (row: Row) => row[c] : c));
    const inner = makeKeyFn(fns.map((_, i) => i), types, nullsEqual);
    return (row: Row) => inner(fns.map((f) => f(row)));
  }
  const positions = columns as readonly number[];
  if (positions.length === 1) {
    const p = positions[0];
    const ty = types[0];
    if (!nullsEqual) return (row: Row) => canonicalValue(row[p], ty);
    return (row: Row) => {
      const v = row[p];
      return v === null ? NULL_KEY : canonicalValue(v, ty);
    };
  }
  return (row: Row) => {
    let key = '';
    for (let i = 0; i < positions.length; i++) {
      const v = row[positions[i]];
      if (v === null) {
        if (!nullsEqual) return null;
        key += '\u0001N';
        continue;
      }
      const c = canonicalValue(v, types[i]);
      key += (typeof c === 'number' ? '\u0001n' : '\u0001s') + String(c);
    }
    return key;
  };
}

/** Stands for NULL inside grouping keys (a unique object, so it equals nothing but itself). */
export const NULL_KEY = Symbol('NULL');
