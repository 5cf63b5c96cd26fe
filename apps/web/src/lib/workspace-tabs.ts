/** A saved query (or a view) an editor tab was opened from: running its unchanged text runs it by id. */
export interface TabOrigin {
  readonly id: string;
  readonly name: string;
  readonly sql: string;
  /** a view's SELECT *, run through the view's own route: what a viewer granted the view may run */
  readonly kind?: 'view';
}

/** A parameter value as the form holds it: text the engine casts, or SQL NULL. */
export type ParamValue = { readonly text: string } | null;

export interface EditorTab {
  readonly id: string;
  readonly title: string;
  readonly sql: string;
  readonly params: readonly ParamValue[];
  readonly origin?: TabOrigin;
}

export interface Workspace {
  readonly tabs: readonly EditorTab[];
  readonly active: string;
}

export const STARTER_SQL = 'SELECT * FROM dbB.customer WHERE c_custkey <= 100';
const MAX_TABS = 20;

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Each user's tabs under their own key: a new sign-in never opens another user's drafts. */
export function storageKey(userId: string): string {
  return `junction.workspace.${userId}`;
}

export function newTab(n: number, sql = '', extra: Partial<EditorTab> = {}): EditorTab {
  return { id: `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`, title: `Query ${n}`, sql, params: [], ...extra };
}

export function loadWorkspace(store: KeyValueStore, userId: string): Workspace {
  // the one shared draft of earlier versions belonged to whoever signed in last
  store.removeItem('junction.draft');
  try {
    const raw = store.getItem(storageKey(userId));
    if (raw) {
      const w = JSON.parse(raw) as Workspace;
      const tabs = (w.tabs ?? []).filter((t) => t && typeof t.id === 'string' && typeof t.sql === 'string');
      if (tabs.length > 0) {
        const clean = tabs.map((t) => ({ ...t, params: Array.isArray(t.params) ? t.params : [] }));
        return { tabs: clean, active: clean.some((t) => t.id === w.active) ? w.active : clean[0].id };
      }
    }
  } catch {
    // unreadable: start afresh rather than fail the page
  }
  const first = newTab(1, STARTER_SQL);
  return { tabs: [first], active: first.id };
}

export function saveWorkspace(store: KeyValueStore, userId: string, w: Workspace): void {
  try {
    store.setItem(storageKey(userId), JSON.stringify(w));
  } catch {
    // storage full or blocked: tabs then live for this page only
  }
}

export function activeTab(w: Workspace): EditorTab {
  return w.tabs.find((t) => t.id === w.active) ?? w.tabs[0];
}

export function updateTab(w: Workspace, id: string, patch: Partial<EditorTab>): Workspace {
  return { ...w, tabs: w.tabs.map((t) => (t.id === id ? { ...t, ...patch } : t)) };
}

export function addTab(w: Workspace, extra: Partial<EditorTab> = {}): Workspace {
  if (w.tabs.length >= MAX_TABS) return w;
  const used = new Set(w.tabs.map((t) => t.title));
  let n = w.tabs.length + 1;
  while (used.has(`Query ${n}`)) n++;
  const tab = newTab(n, '', extra);
  return { tabs: [...w.tabs, tab], active: tab.id };
}

/** Closing the last tab leaves one empty tab; the neighbour to the left becomes active. */
export function closeTab(w: Workspace, id: string): Workspace {
  const i = w.tabs.findIndex((t) => t.id === id);
  if (i < 0) return w;
  const tabs = w.tabs.filter((t) => t.id !== id);
  if (tabs.length === 0) {
    const t = newTab(1);
    return { tabs: [t], active: t.id };
  }
  const active = w.active === id ? tabs[Math.max(0, i - 1)].id : w.active;
  return { tabs, active };
}

/** Form values from a saved query's or a history entry's parameter list. */
export function paramValues(params: readonly unknown[] | null | undefined): ParamValue[] {
  return (params ?? []).map((p) => (p === null ? null : { text: typeof p === 'string' ? p : JSON.stringify(p) }));
}

/** The values sent for `count` placeholders: text as typed (the engine casts it), NULL as null. */
export function paramsToSend(values: readonly ParamValue[], count: number): (string | null)[] {
  return Array.from({ length: count }, (_, i) => {
    const v = values[i];
    return v === null ? null : (v?.text ?? '');
  });
}
