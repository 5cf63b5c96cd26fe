import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import Editor, { type OnMount } from '@monaco-editor/react';
import type { SqlPosition } from '../lib/api-error.js';
import { lineColumnAt, splitStatements, statementAt } from '../lib/statements.js';
import { markerRange } from './markers.js';
import { acquireSqlCompletion, monaco, setCompletionCatalog, type CompletionCatalog } from './monaco-setup.js';

/** What Run sends: the selection, else the statement at the cursor; `start` is its offset in the text. */
export interface RunnableSql {
  readonly sql: string;
  readonly start: number;
  /** the whole editor text, unchanged: a saved query opened here may run by its id */
  readonly whole: boolean;
}

export interface SqlEditorHandle {
  getValue(): string;
  getRunnable(): RunnableSql | undefined;
  setValue(sql: string): void;
  insert(text: string): void;
  /** `base`: offset of the SQL that failed within the editor text (a selection, one statement) */
  showError(message: string, position: SqlPosition, base?: number): void;
  clearError(): void;
  focus(): void;
}

export interface SqlEditorProps {
  ref?: Ref<SqlEditorHandle>;
  /** one model per editor tab: switching tabs keeps each one's text, cursor and undo history */
  path: string;
  defaultValue: string;
  catalog: CompletionCatalog;
  readOnly?: boolean;
  dark?: boolean;
  onChange?(sql: string): void;
  onRun(): void;
  onReady?(): void;
}

const OWNER = 'junction';

/** Uncontrolled on purpose: a controlled value drops keystrokes under React 19 StrictMode. */
export default function SqlEditor({ ref, path, defaultValue, catalog, readOnly, dark, onChange, onRun, onReady }: SqlEditorProps) {
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const onRunRef = useRef(onRun);
  onRunRef.current = onRun;

  useEffect(() => setCompletionCatalog(catalog), [catalog]);
  useEffect(() => acquireSqlCompletion(), []);

  useImperativeHandle(ref, () => ({
    getValue: () => editorRef.current?.getValue() ?? '',
    getRunnable() {
      const ed = editorRef.current;
      const model = ed?.getModel();
      if (!ed || !model) return undefined;
      const text = model.getValue();
      const sel = ed.getSelection();
      if (sel && !sel.isEmpty()) {
        const raw = model.getValueInRange(sel);
        const from = model.getOffsetAt(sel.getStartPosition());
        // one statement selected with its semicolon: send the statement alone
        const parts = splitStatements(raw);
        if (parts.length === 0) return undefined;
        if (parts.length === 1) return { sql: parts[0].text, start: from + parts[0].start, whole: parts[0].text === text.trim() };
        const sql = raw.trim();
        return { sql, start: from + (raw.length - raw.trimStart().length), whole: sql === text.trim() };
      }
      const pos = ed.getPosition();
      const stmt = statementAt(text, pos ? model.getOffsetAt(pos) : 0);
      return stmt ? { sql: stmt.text, start: stmt.start, whole: stmt.text === text.trim() } : undefined;
    },
    setValue(sql) {
      const ed = editorRef.current;
      if (!ed) return;
      ed.setValue(sql);
      ed.focus();
    },
    insert(text) {
      const ed = editorRef.current;
      const sel = ed?.getSelection();
      if (!ed || !sel) return;
      ed.executeEdits('catalog', [{ range: sel, text, forceMoveMarkers: true }]);
      ed.focus();
    },
    showError(message, position, base = 0) {
      const model = editorRef.current?.getModel();
      if (!model) return;
      const text = model.getValue();
      // the server counted from the start of what was sent; the editor counts from its first line
      const at = base === 0 ? position : { ...position, offset: position.offset + base, ...lineColumnAt(text, position.offset + base) };
      monaco.editor.setModelMarkers(model, OWNER, [
        { ...markerRange(text, at), message, severity: monaco.MarkerSeverity.Error },
      ]);
      editorRef.current?.revealLineInCenterIfOutsideViewport(at.line);
    },
    clearError() {
      const model = editorRef.current?.getModel();
      if (model) monaco.editor.setModelMarkers(model, OWNER, []);
    },
    focus: () => editorRef.current?.focus(),
  }));

  const onMount: OnMount = (ed) => {
    editorRef.current = ed;
    ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => {
      // an open suggestion list would otherwise hide the error marker and the first rows
      ed.trigger('run', 'hideSuggestWidget', {});
      onRunRef.current();
    });
    // Tab indents; Escape then Tab (or Shift+Tab) leaves the editor, so the keyboard is never trapped
    const leaving = ed.createContextKey<boolean>('junctionLeaveOnTab', false);
    ed.onKeyDown((e) => {
      if (e.keyCode === monaco.KeyCode.Escape) leaving.set(true);
      else if (e.keyCode !== monaco.KeyCode.Tab && e.keyCode !== monaco.KeyCode.Shift) leaving.set(false);
    });
    const leave = (backwards: boolean) => {
      leaving.set(false);
      focusNextOutside(ed.getDomNode(), backwards);
    };
    ed.addCommand(monaco.KeyCode.Tab, () => leave(false), 'junctionLeaveOnTab');
    ed.addCommand(monaco.KeyMod.Shift | monaco.KeyCode.Tab, () => leave(true), 'junctionLeaveOnTab');
    ed.onDidChangeModelContent(() => {
      const model = ed.getModel();
      if (model) monaco.editor.setModelMarkers(model, OWNER, []);
    });
    ed.focus();
    onReady?.();
  };

  return (
    <Editor
      path={path}
      defaultLanguage="sql"
      defaultValue={defaultValue}
      onChange={(v) => onChange?.(v ?? '')}
      onMount={onMount}
      theme={dark ? 'vs-dark' : 'vs'}
      options={{
        minimap: { enabled: false },
        fontSize: 14,
        scrollBeyondLastLine: false,
        automaticLayout: true,
        wordWrap: 'off',
        renderValidationDecorations: 'on',
        tabSize: 2,
        readOnly: readOnly ?? false,
        ariaLabel: 'SQL editor. Press Escape then Tab to move focus out of the editor.',
      }}
      loading={<div className="j-editor-loading">Loading editor…</div>}
    />
  );
}

/** Moves focus to the next (or previous) focusable element outside the editor's DOM node. */
function focusNextOutside(editorNode: HTMLElement | null, backwards: boolean): void {
  if (!editorNode) return;
  const all = [
    ...document.querySelectorAll<HTMLElement>(
      'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])',
    ),
  ].filter((el) => !editorNode.contains(el) && el.offsetParent !== null);
  const after = (el: HTMLElement) => (editorNode.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  const target = backwards ? all.filter((el) => !after(el)).pop() : all.find(after);
  target?.focus();
}
