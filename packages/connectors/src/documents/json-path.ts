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
 * Where a position stands in the row path: for each way the keys above it can match, the index
 * of the next step to match (the step count when all matched). Kept per open container and advanced one key at a time, so a deep
 * document costs steps, not depth, per value: re-matching the whole key list at every level
 * made '$..name' quadratic in depth.
 */
export type JsonPathState = readonly number[];

const NO_STATE: JsonPathState = [];

/** The state of the top of a document. */
export function startState(): JsonPathState {
  return [0];
}

/** The state one key below `state`. */
export function advanceState(steps: readonly JsonStep[], state: JsonPathState, key: JsonKey): JsonPathState {
  let out: number[] | undefined;
  for (const s of state) {
    if (s === steps.length) continue;
    const step = steps[s];
    let stay = false;
    let next = false;
    switch (step.kind) {
      case 'key':
        next = key === step.name;
        break;
      case 'index':
        next = key === step.index;
        break;
      case 'any':
        next = true;
        break;
      case 'descendant':
        // '..' may pass any number of keys before the one it names
        stay = true;
        next = key === step.name;
        break;
    }
    if (stay && !out?.includes(s)) (out ??= []).push(s);
    if (next && !out?.includes(s + 1)) (out ??= []).push(s + 1);
  }
  return out ?? NO_STATE;
}

/** Whether every step matched: the value there is a row (see `isRowAt` for array elements). */
export function stateMatches(steps: readonly JsonStep[], state: JsonPathState): boolean {
  return state.includes(steps.length);
}

/**
 * Whether a value is a row, given its own state and its parent's. `parentIsArray` tells a
 * '$..name' row path that the value is an element of the array found under that name, which
 * is a row too.
 */
export function isRowAt(
  steps: readonly JsonStep[],
  state: JsonPathState,
  parent: JsonPathState | undefined,
  parentIsArray: boolean,
): boolean {
  if (stateMatches(steps, state)) return true;
  return parentIsArray && parent !== undefined && unwrapsArrays(steps) && stateMatches(steps, parent);
}

/**
 * Whether a value below this state could still be a row: lets the reader skip building values
 * for subtrees no row lies in. A matched state counts, for the elements of an array a '$..name'
 * path unwraps.
 */
export function stateMayContainRows(state: JsonPathState): boolean {
  return state.length > 0;
}

/** A '$..name' row path: an array found under the name is not a row, its elements are. */
export function unwrapsArrays(steps: readonly JsonStep[]): boolean {
  return steps[steps.length - 1]?.kind === 'descendant';
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
