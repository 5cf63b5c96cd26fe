import { describe, expect, it } from 'vitest';
import { isUnsaved, loadDraft, storeDraft, type DesignerDraft } from './designer-draft.js';
import type { StoredView } from './designer-api.js';
import { addTable, toggleColumn } from './view-graph/edit.js';
import { demoTable } from './view-graph/fixtures.js';
import { EMPTY_GRAPH } from './view-graph/model.js';
import { push, startHistory, undo } from './view-graph/history.js';

function memory() {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
  };
}

const canvas = addTable(EMPTY_GRAPH, demoTable('nation'), { x: 40, y: 40 });
const view: StoredView = {
  id: 'v1',
  schema: 'sales',
  name: 'nations',
  sql: 'SELECT * FROM dbD.nation AS n',
  layout: null,
  columns: null,
  description: null,
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('designer drafts', () => {
  it('keep a new view’s canvas per user, across a reload of the page', () => {
    const store = memory();
    storeDraft(store, 'u1', { graph: canvas, baseline: EMPTY_GRAPH });
    expect(loadDraft(store, 'u1')?.graph).toEqual(canvas);
    // another user on the same browser starts from an empty canvas
    expect(loadDraft(store, 'u2')).toBeUndefined();
  });

  it('are forgotten once nothing is unsaved, and survive junk in storage', () => {
    const store = memory();
    storeDraft(store, 'u1', { graph: canvas, baseline: EMPTY_GRAPH });
    storeDraft(store, 'u1', { graph: canvas, baseline: canvas, opened: view });
    expect(loadDraft(store, 'u1')).toBeUndefined();
    store.setItem('junction.designer.draft.u1', '{not json');
    expect(loadDraft(store, 'u1')).toBeUndefined();
    store.setItem('junction.designer.draft.u1', '{"graph":{}}');
    expect(loadDraft(store, 'u1')).toBeUndefined();
  });

  it('tell unsaved work from what was opened or saved', () => {
    const base: DesignerDraft = { graph: EMPTY_GRAPH, baseline: EMPTY_GRAPH };
    expect(isUnsaved(base)).toBe(false);
    expect(isUnsaved({ ...base, graph: canvas })).toBe(true);
    // a view opened and left as it was is nothing to lose, nor is SQL the same as the stored one
    expect(isUnsaved({ graph: canvas, baseline: canvas, opened: view })).toBe(false);
    expect(isUnsaved({ graph: canvas, baseline: canvas, opened: view, edited: { text: `${view.sql}\n` } })).toBe(false);
    expect(isUnsaved({ graph: canvas, baseline: canvas, opened: view, edited: { text: 'SELECT 1' } })).toBe(true);
    const changed = toggleColumn(canvas, { table: 'n', column: 'n_name' });
    expect(isUnsaved({ graph: changed, baseline: canvas, opened: view })).toBe(true);
    // undone back to the opened state: the same graph again
    const h = undo(push(startHistory(canvas), changed));
    expect(isUnsaved({ graph: h.present, baseline: canvas, opened: view })).toBe(false);
    // typed in the SQL tab but not applied yet is unsaved too
    expect(isUnsaved({ graph: canvas, baseline: canvas, opened: view, edited: { text: view.sql, typed: 'SELECT 2' } })).toBe(true);
    // a new view with only SQL typed by hand
    expect(isUnsaved({ ...base, edited: { text: 'SELECT 1' } })).toBe(true);
  });
});
