import { useCallback, useEffect, useState } from 'react';
import { EMPTY_GRAPH, type ViewGraph } from '../../lib/view-graph/model.js';
import { push, redo, startHistory, undo, type History } from '../../lib/view-graph/history.js';

/** The canvas graph with undo/redo; Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y outside text fields. */
export function useViewGraph(initial: ViewGraph = EMPTY_GRAPH) {
  const [history, setHistory] = useState<History<ViewGraph>>(() => startHistory(initial));
  const apply = useCallback((f: (g: ViewGraph) => ViewGraph) => setHistory((h) => push(h, f(h.present))), []);
  const reset = useCallback((g: ViewGraph) => setHistory(startHistory(g)), []);
  const onUndo = useCallback(() => setHistory(undo), []);
  const onRedo = useCallback(() => setHistory(redo), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (el?.closest('input, textarea, select, .monaco-editor')) return;
      if (!(e.ctrlKey || e.metaKey)) return;
      const k = e.key.toLowerCase();
      if (k === 'z' && !e.shiftKey) setHistory(undo);
      else if (k === 'y' || (k === 'z' && e.shiftKey)) setHistory(redo);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return {
    graph: history.present,
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    apply,
    reset,
    undo: onUndo,
    redo: onRedo,
  };
}
