import { JunctionError } from '../contract/errors.js';

/**
 * The XPath subset document tables use, compiled into what a streaming reader can match
 * against its stack of open elements.
 *
 * Row paths: absolute child steps ('/Customer/Accounts/Account'), a descendant step
 * ('//Account', '/Bank//Account'), prefixed names ('c:Account') resolved through the table's
 * `namespaces`, and attribute predicates on any step ("Account[@type='SAV']").
 *
 * Column paths, relative to the row element: '@id', 'Currency', 'Balance/OnlineActualBal',
 * 'Currency/@code', 'text()', 'Name/text()', '.', and ancestor attributes '../@id', '../../@id'.
 *
 * Names without a prefix match an element by its local name in any namespace, unless the
 * table maps the empty prefix ("": uri), in which case they match that namespace only.
 * Attributes without a prefix are in no namespace, as in XML itself.
 */

export interface QName {
  /** undefined: any namespace (an unprefixed element name without a default) */
  readonly uri: string | undefined;
  readonly local: string;
}

export interface AttrPredicate {
  readonly attr: QName;
  readonly value: string;
}

export interface RowStep {
  readonly name: QName | '*';
  /** '//' before the step: any number of elements in between */
  readonly descendant: boolean;
  readonly predicates: readonly AttrPredicate[];
}

export type XmlColumnPath =
  /** the string value (all descendant text) of the first element at `elements` below the row; [] is the row itself */
  | { readonly kind: 'text'; readonly elements: readonly QName[] }
  /** only the text nodes directly inside the element */
  | { readonly kind: 'ownText'; readonly elements: readonly QName[] }
  | { readonly kind: 'attr'; readonly elements: readonly QName[]; readonly attr: QName }
  /** an attribute of the row's `up`-th ancestor */
  | { readonly kind: 'ancestorAttr'; readonly up: number; readonly attr: QName };

export type Namespaces = Readonly<Record<string, string>>;

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

const NAME = /^[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7\u00C0-\uFFFF]*$/;

function qname(text: string, ns: Namespaces, element: boolean, what: string, path: string): QName {
  const colon = text.indexOf(':');
  const prefix = colon < 0 ? undefined : text.slice(0, colon);
  const local = colon < 0 ? text : text.slice(colon + 1);
  if (!NAME.test(local) || (prefix !== undefined && !NAME.test(prefix)))
    throw pathError(what, path, `"${text}" is not an XML name`);
  if (prefix === undefined) return { uri: element ? ns[''] : '', local };
  const uri = ns[prefix];
  if (uri === undefined)
    throw pathError(what, path, `the prefix "${prefix}" is not declared in the table's namespaces`);
  return { uri, local };
}

export function compileRowPath(path: string, ns: Namespaces = {}): RowStep[] {
  const what = 'row path';
  if (!path.startsWith('/')) throw pathError(what, path, "it must start with '/' or '//'");
  const steps: RowStep[] = [];
  let i = 0;
  while (i < path.length) {
    let descendant = false;
    if (path.startsWith('//', i)) {
      descendant = true;
      i += 2;
    } else if (path[i] === '/') i += 1;
    else throw pathError(what, path, `unexpected "${path[i]}" at ${i + 1}`);
    const m = /^([^/[\]]+)((?:\[[^\]]*\])*)/.exec(path.slice(i));
    if (!m) throw pathError(what, path, `a step is missing at ${i + 1}`);
    i += m[0].length;
    const nameText = m[1].trim();
    const predicates: AttrPredicate[] = [];
    for (const p of m[2].match(/\[[^\]]*\]/g) ?? []) {
      const pm = /^\[\s*@([^\s=]+)\s*=\s*(?:'([^']*)'|"([^"]*)")\s*\]$/.exec(p);
      if (!pm) throw pathError(what, path, `only [@attribute='value'] predicates are supported, not ${p}`);
      predicates.push({ attr: qname(pm[1], ns, false, what, path), value: pm[2] ?? pm[3] });
    }
    steps.push({ name: nameText === '*' ? '*' : qname(nameText, ns, true, what, path), descendant, predicates });
  }
  if (steps.length === 0) throw pathError(what, path, 'it names no element');
  return steps;
}

export function compileColumnPath(path: string, ns: Namespaces = {}): XmlColumnPath {
  const what = 'column path';
  const parts = path.trim().split('/');
  if (parts.some((p) => p === ''))
    throw pathError(what, path, "it must be relative to the row (no leading '/', no '//')");
  let up = 0;
  while (parts[up] === '..') up++;
  if (up > 0) {
    const rest = parts.slice(up);
    if (rest.length !== 1 || !rest[0].startsWith('@'))
      throw pathError(
        what,
        path,
        "after '..' only an attribute ('../@id') can be read: earlier elements are gone when the row streams",
      );
    return { kind: 'ancestorAttr', up, attr: qname(rest[0].slice(1), ns, false, what, path) };
  }
  const elements: QName[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const last = i === parts.length - 1;
    if (p === '.') {
      if (i !== 0 || !last) throw pathError(what, path, "'.' only stands alone");
      continue;
    }
    if (p.startsWith('@')) {
      if (!last) throw pathError(what, path, 'an attribute must be the last step');
      return { kind: 'attr', elements, attr: qname(p.slice(1), ns, false, what, path) };
    }
    if (p === 'text()') {
      if (!last) throw pathError(what, path, 'text() must be the last step');
      return { kind: 'ownText', elements };
    }
    if (p === '..') throw pathError(what, path, "'..' may only lead the path");
    if (p.includes('[') || p.includes('(') || p === '*')
      throw pathError(what, path, `the step "${p}" is not supported in column paths`);
    elements.push(qname(p, ns, true, what, path));
  }
  return { kind: 'text', elements };
}

export function matchesName(q: QName, uri: string, local: string): boolean {
  return q.local === local && (q.uri === undefined || q.uri === uri);
}

/** One open element as the row matcher sees it. */
export interface OpenElement {
  readonly uri: string;
  readonly local: string;
  /** attributes by `uri local` (uri empty for unprefixed ones) */
  readonly attrs: ReadonlyMap<string, string>;
}

export function attrKey(uri: string, local: string): string {
  return uri + ' ' + local;
}

function stepMatches(step: RowStep, el: OpenElement): boolean {
  if (step.name !== '*' && !matchesName(step.name, el.uri, el.local)) return false;
  for (const p of step.predicates) if (el.attrs.get(attrKey(p.attr.uri ?? '', p.attr.local)) !== p.value) return false;
  return true;
}

/**
 * Whether the open elements (root first, the candidate last) match the row path: the last step
 * must match the last element; '//' steps may skip elements. Stacks are shallow, so plain
 * backtracking is enough.
 */
export function matchesRowPath(steps: readonly RowStep[], stack: readonly OpenElement[]): boolean {
  return matchFrom(steps, stack, 0, 0);
}

/** s steps matched against e elements so far; both must end together. Runs for every element outside a row. */
function matchFrom(steps: readonly RowStep[], stack: readonly OpenElement[], s: number, e: number): boolean {
  if (s === steps.length) return e === stack.length;
  if (e === stack.length) return false;
  const step = steps[s];
  if (!step.descendant) return stepMatches(step, stack[e]) && matchFrom(steps, stack, s + 1, e + 1);
  // a last '//' step can only match the last element
  if (s === steps.length - 1) return stepMatches(step, stack[stack.length - 1]);
  for (let k = e; k < stack.length; k++)
    if (stepMatches(step, stack[k]) && matchFrom(steps, stack, s + 1, k + 1)) return true;
  return false;
}
