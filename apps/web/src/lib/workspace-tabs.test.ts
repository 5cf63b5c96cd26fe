import { describe, expect, it } from 'vitest';
import {
  activeTab,
  addTab,
  closeTab,
  loadWorkspace,
  paramsToSend,
  paramValues,
  saveWorkspace,
  STARTER_SQL,
  storageKey,
  updateTab,
  type KeyValueStore,
} from './workspace-tabs.js';

function memory(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

describe('editor tabs', () => {
  it('start with one starter tab, keep edits per user, and drop the old shared draft', () => {
    const store = memory();
    store.setItem('junction.draft', 'SELECT secret FROM somebody_elses_draft');
    let w = loadWorkspace(store, 'u1');
    expect(w.tabs.map((t) => [t.title, t.sql])).toEqual([['Query 1', STARTER_SQL]]);
    expect(store.getItem('junction.draft')).toBeNull();
    w = addTab(w);
    w = updateTab(w, w.active, { sql: 'SELECT 2' });
    saveWorkspace(store, 'u1', w);
    const again = loadWorkspace(store, 'u1');
    expect(again.tabs.map((t) => [t.title, t.sql])).toEqual([
      ['Query 1', STARTER_SQL],
      ['Query 2', 'SELECT 2'],
    ]);
    expect(activeTab(again).sql).toBe('SELECT 2');
    // another user sees none of it
    expect(loadWorkspace(store, 'u2').tabs.map((t) => t.sql)).toEqual([STARTER_SQL]);
    expect([...store.data.keys()]).toEqual([storageKey('u1')]);
  });

  it('closing a tab activates its left neighbour; closing the last leaves an empty one', () => {
    let w = loadWorkspace(memory(), 'u');
    const first = w.active;
    w = addTab(w);
    const second = w.active;
    w = closeTab(w, second);
    expect(w.active).toBe(first);
    w = closeTab(w, first);
    expect(w.tabs.map((t) => [t.title, t.sql])).toEqual([['Query 1', '']]);
  });

  it('survives unreadable storage', () => {
    const store = memory();
    store.setItem(storageKey('u'), '{not json');
    expect(loadWorkspace(store, 'u').tabs).toHaveLength(1);
  });

  it('turns stored parameter values into form values and back', () => {
    expect(paramValues([1, 'x', null, true])).toEqual([{ text: '1' }, { text: 'x' }, null, { text: 'true' }]);
    expect(paramsToSend([{ text: '5' }, null], 3)).toEqual(['5', null, '']);
  });
});
