import { JunctionError } from '../contract/errors.js';

/**
 * The JSONPath subset document tables use.
 *
 * Row paths: '$' (each document), '$.a.b', '$.a[0]', '$[*]', '$.accounts[*]', '$.*',
 * "$['odd key']", and '$..Account' (a member named Account at any depth). Like XML's
 * '//Account', '$..Account' makes each element of an array value a row of its own, so
 * `"Account": [{…}, {…}]` and `"Account": {…}` both give one row per account.
 *
 * Column paths, relative to the row value: '$' (the row itself), '$.id', '$.balance.amount',
 * '$.tags[0]', "$['odd key']".
 */

export type JsonStep =
  | { readonly kind: 'key'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'any' }
  | { readonly kind: 'descendant'; readonly name: string };

/** A number as the document wrote it: decimals stay exact. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

function pathError(what: string, path: string, why: string): JunctionError {
  return new JunctionError(
    'document_path_invalid',
    'user',
    `The ${what} "${path}" is not a path documents understand: ${why}.`,
    {
      details: { path },
    },
  );
}

export function compileJsonPath(path: string, what: 'row path' | 'column path'): JsonStep[] {
  const p = path.trim();
  if (!p.startsWith('$')) throw pathError(what, path, "it must start with '$'");
  const steps: JsonStep[] = [];
  let i = 1;
  while (i < p.length) {
    const rest = p.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^\.\.([A-Za-z_$][\w$-]*)/.exec(rest))) steps.push({ kind: 'descendant', name: m[1] });
    else if ((m = /^\.([A-Za-z_$][\w$-]*)/.exec(rest))) steps.push({ kind: 'key', name: m[1] });
    else if ((m = /^\.\*/.exec(rest)) || (m = /^\[\s*\*\s*\]/.exec(rest))) steps.push({ kind: 'any' });
    else if ((m = /^\[\s*(\d+)\s*\]/.exec(rest))) steps.push({ kind: 'index', index: Number(m[1]) });
    else if ((m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest)) || (m = /^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest)))
      steps.push({ kind: 'key', name: m[1].replace(/\\(.)/g, '$1') });
    else throw pathError(what, path, `unexpected "${rest.slice(0, 10)}" at ${i + 1}`);
    i += m[0].length;
  }
  if (what === 'column path' && steps.some((s) => s.kind === 'any' || s.kind === 'descendant'))
    throw pathError(what, path, 'a column reads one value: wildcards and ".." belong in the row path');
  return steps;
}

/** A position inside a document: member names and array indexes from the top. */
export type JsonKey = string | number;

/**
 * Whether the value at `keys` is a row. `parentIsArray` tells a '$..name' row path that the
 * value is an element of the array found under that name, which is a row too.
 */
export function matchesJsonPath(steps: readonly JsonStep[], keys: readonly JsonKey[], parentIsArray: boolean): boolean {
  if (matchFrom(steps, 0, keys, 0)) return true;
  const last = steps[steps.length - 1];
  return (
    parentIsArray &&
    last?.kind === 'descendant' &&
    typeof keys[keys.length - 1] === 'number' &&
    matchFrom(steps, 0, keys.slice(0, -1), 0)
  );
}

function matchFrom(steps: readonly JsonStep[], s: number, keys: readonly JsonKey[], k: number): boolean {
  if (s === steps.length) return k === keys.length;
  if (k === keys.length) return false;
  const step = steps[s];
  const key = keys[k];
  switch (step.kind) {
    case 'key':
      return key === step.name && matchFrom(steps, s + 1, keys, k + 1);
    case 'index':
      return key === step.index && matchFrom(steps, s + 1, keys, k + 1);
    case 'any':
      return matchFrom(steps, s + 1, keys, k + 1);
    case 'descendant':
      for (let j = k; j < keys.length; j++)
        if (keys[j] === step.name && matchFrom(steps, s + 1, keys, j + 1)) return true;
      return false;
  }
}

/** A '$..name' row path: an array found under the name is not a row, its elements are. */
export function unwrapsArrays(steps: readonly JsonStep[]): boolean {
  return steps[steps.length - 1]?.kind === 'descendant';
}

/**
 * Whether a value below `keys` could still be a row: lets the reader skip building values for
 * subtrees no row lies in. Conservative: true whenever a descendant step may still match.
 */
export function mayContainRows(steps: readonly JsonStep[], keys: readonly JsonKey[]): boolean {
  const prefix = (s: number, k: number): boolean => {
    if (k === keys.length) return true;
    if (s === steps.length) return false;
    const step = steps[s];
    if (step.kind === 'descendant') return true;
    const key = keys[k];
    if (step.kind === 'key' && key !== step.name) return false;
    if (step.kind === 'index' && key !== step.index) return false;
    return prefix(s + 1, k + 1);
  };
  return prefix(0, 0);
}

/** The value a column path names inside a row; undefined when it is missing. */
export function evaluateColumnPath(steps: readonly JsonStep[], row: JsonValue): JsonValue | undefined {
  let v: JsonValue | undefined = row;
  for (const step of steps) {
    if (v === null || v === undefined || typeof v !== 'object' || v instanceof JsonNumber) return undefined;
    if (step.kind === 'key') {
      if (Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, step.name)) return undefined;
      v = (v as Record<string, JsonValue>)[step.name];
    } else if (step.kind === 'index') {
      if (!Array.isArray(v)) return undefined;
      v = v[step.index];
    } else return undefined;
  }
  return v;
}

/** JSON text of a value, numbers exactly as written. */
export function jsonText(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return '[' + v.map(jsonText).join(',') + ']';
  return (
    '{' +
    Object.keys(v)
      .map((k) => JSON.stringify(k) + ':' + jsonText(v[k]))
      .join(',') +
    '}'
  );
}
