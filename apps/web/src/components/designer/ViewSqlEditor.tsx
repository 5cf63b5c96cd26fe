import Editor from '@monaco-editor/react';
// configures the bundled Monaco (no CDN) before the editor mounts
import '../../editor/monaco-setup.js';
import { useTheme } from '../../lib/theme.js';

/**
 * The view's SQL in Monaco: read-only while it follows the canvas, editable as SQL.
 * Editable is uncontrolled (a controlled value drops keystrokes under React 19 StrictMode).
 */
export default function ViewSqlEditor({
  value,
  readOnly,
  onChange,
}: {
  value: string;
  readOnly: boolean;
  onChange?(sql: string): void;
}) {
  const { dark } = useTheme();
  return (
    <Editor
      defaultLanguage="sql"
      {...(readOnly ? { value } : { defaultValue: value })}
      onChange={(v) => onChange?.(v ?? '')}
      theme={dark ? 'vs-dark' : 'vs'}
      options={{
        readOnly,
        minimap: { enabled: false },
        fontSize: 13,
        scrollBeyondLastLine: false,
        automaticLayout: true,
        lineNumbers: 'on',
        tabSize: 2,
      }}
      loading={<div className="j-editor-loading">Loading editor…</div>}
    />
  );
}
