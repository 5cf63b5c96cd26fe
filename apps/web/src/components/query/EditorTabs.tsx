import type { Workspace } from '../../lib/workspace-tabs.js';

/** The editor's tabs: pick, add, close. Kept per user across reloads (lib/workspace-tabs.ts). */
export function EditorTabs({
  workspace,
  onSelect,
  onAdd,
  onClose,
}: {
  workspace: Workspace;
  onSelect(id: string): void;
  onAdd(): void;
  onClose(id: string): void;
}) {
  return (
    <div className="j-editor-tabs" role="tablist" aria-label="Editor tabs">
      {workspace.tabs.map((t) => {
        // a saved query's tab whose text differs from what is saved says so
        const changed = t.origin !== undefined && t.origin.sql !== t.sql;
        return (
          <span key={t.id} className="j-editor-tab" data-active={t.id === workspace.active || undefined}>
            <button
              type="button"
              role="tab"
              aria-selected={t.id === workspace.active}
              onClick={() => onSelect(t.id)}
              title={t.origin ? `Saved query "${t.origin.name}"${changed ? ', changed since saved' : ''}` : t.title}
            >
              {t.origin ? t.origin.name : t.title}
              {changed && <span aria-hidden> •</span>}
            </button>
            <button
              type="button"
              className="j-link j-tab-close"
              aria-label={`Close ${t.origin ? t.origin.name : t.title}`}
              onClick={() => onClose(t.id)}
            >
              ×
            </button>
          </span>
        );
      })}
      <button type="button" className="j-link" aria-label="New editor tab" onClick={onAdd}>
        +
      </button>
    </div>
  );
}
