import type { Row, Value } from '@junction/connectors';

/** A compiled expression: evaluated once per row in operator loops. */
export type Eval = (row: Row, params: readonly Value[]) => Value;

/** Wraps a strict (NULL in → NULL out) one-argument function. */
export function strict1(a: Eval, f: (x: Value) => Value): Eval {
  return (row, params) => {
    const x = a(row, params);
    return x === null ? null : f(x);
  };
}

export function strict2(a: Eval, b: Eval, f: (x: Value, y: Value) => Value): Eval {
  return (row, params) => {
    const x = a(row, params);
    if (x === null) return null;
    const y = b(row, params);
    return y === null ? null : f(x, y);
  };
}

export function strictN(args: readonly Eval[], f: (xs: Value[]) => Value): Eval {
  if (args.length === 1) return strict1(args[0], (x) => f([x]));
  if (args.length === 2) return strict2(args[0], args[1], (x, y) => f([x, y]));
  return (row, params) => {
    const xs: Value[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) {
      const v = args[i](row, params);
      if (v === null) return null;
      xs[i] = v;
    }
    return f(xs);
  };
}
