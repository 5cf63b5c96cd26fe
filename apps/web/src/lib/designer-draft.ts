import type { StoredView } from './designer-api.js';
import { EMPTY_GRAPH, type ViewGraph } from './view-graph/model.js';

/**
 * The designer's unsaved work, kept per user in localStorage: leaving the page (or reloading
 * it) unmounts the designer, and the canvas would otherwise be gone.
 */
export interface DesignerDraft {
  readonly graph: ViewGraph;
  /** the graph as it was when the view was opened or last saved: undoing back to it is no change */
  readonly baseline: ViewGraph;
  /** SQL edited by hand: what preview and save use, why the canvas cannot show it, what is typed but not applied */
  readonly edited?: { readonly text: string; readonly reason?: string; readonly typed?: string };
  /** the saved view being changed; absent for a new view */
  readonly opened?: StoredView;
}

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const keyOf = (userId: string) => `junction.designer.draft.${userId}`;

export function loadDraft(storage: Store, userId: string): DesignerDraft | undefined {
  try {
    const raw = storage.getItem(keyOf(userId));
    if (!raw) return undefined;
    const d = JSON.parse(raw) as Partial<DesignerDraft>;
    // a draft from an older build, or hand-edited storage, must not break the page
    if (!d.graph || !Array.isArray(d.graph.tables)) return undefined;
    return {
      graph: { ...EMPTY_GRAPH, ...d.graph },
      baseline: d.baseline && Array.isArray(d.baseline.tables) ? { ...EMPTY_GRAPH, ...d.baseline } : EMPTY_GRAPH,
      ...(d.edited && typeof d.edited.text === 'string' ? { edited: d.edited } : {}),
      ...(d.opened && typeof d.opened.id === 'string' ? { opened: d.opened } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Keeps the draft while it holds unsaved work, and forgets it once it does not. */
export function storeDraft(storage: Store, userId: string, draft: DesignerDraft): void {
  try {
    if (isUnsaved(draft)) storage.setItem(keyOf(userId), JSON.stringify(draft));
    else storage.removeItem(keyOf(userId));
  } catch {
    // a full or blocked storage loses only the draft, never the live canvas
  }
}

/**
 * Whether discarding the designer's state loses something: SQL typed by hand that is not what
 * the open view stores, or a canvas other than the one opened or saved (a new view: any table).
 * Graphs are immutable and undo returns the very object, so identity is the comparison.
 */
export function isUnsaved(d: DesignerDraft): boolean {
  if (d.edited && (d.edited.typed ?? d.edited.text).trim() !== (d.opened?.sql.trim() ?? '')) return true;
  if (!d.opened) return d.graph.tables.length > 0 && d.graph !== d.baseline;
  return d.graph !== d.baseline && JSON.stringify(d.graph) !== JSON.stringify(d.baseline);
}
