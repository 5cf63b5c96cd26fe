import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import Editor, { type OnMount } from '@monaco-editor/react';
import type { SqlPosition } from '../lib/api-error.js';
import { markerRange } from './markers.js';
import { acquireSqlCompletion, monaco, setCompletionCatalog, type CompletionCatalog } from './monaco-setup.js';

export interface SqlEditorHandle {
  getValue(): string;
  setValue(sql: string): void;
  insert(text: string): void;
  showError(message: string, position: SqlPosition): void;
  clearError(): void;
  focus(): void;
}

export interface SqlEditorProps {
  ref?: Ref<SqlEditorHandle>;
  defaultValue: string;
  catalog: CompletionCatalog;
  onChange?(sql: string): void;
  onRun(): void;
  onReady?(): void;
}

const OWNER = 'junction';

/** Uncontrolled on purpose: a controlled value drops keystrokes under React 19 StrictMode. */
export default function SqlEditor({ ref, defaultValue, catalog, onChange, onRun, onReady }: SqlEditorProps) {
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const onRunRef = useRef(onRun);
  onRunRef.current = onRun;

  useEffect(() => setCompletionCatalog(catalog), [catalog]);
  useEffect(() => acquireSqlCompletion(), []);

  useImperativeHandle(ref, () => ({
    getValue: () => editorRef.current?.getValue() ?? '',
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
    showError(message, position) {
      const model = editorRef.current?.getModel();
      if (!model) return;
      monaco.editor.setModelMarkers(model, OWNER, [
        { ...markerRange(model.getValue(), position), message, severity: monaco.MarkerSeverity.Error },
      ]);
      editorRef.current?.revealLineInCenterIfOutsideViewport(position.line);
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
    ed.onDidChangeModelContent(() => {
      const model = ed.getModel();
      if (model) monaco.editor.setModelMarkers(model, OWNER, []);
    });
    ed.focus();
    onReady?.();
  };

  return (
    <Editor
      defaultLanguage="sql"
      defaultValue={defaultValue}
      onChange={(v) => onChange?.(v ?? '')}
      onMount={onMount}
      theme="vs"
      options={{
        minimap: { enabled: false },
        fontSize: 14,
        scrollBeyondLastLine: false,
        automaticLayout: true,
        wordWrap: 'off',
        renderValidationDecorations: 'on',
        tabSize: 2,
      }}
      loading={<div className="j-editor-loading">Loading editor…</div>}
    />
  );
}
