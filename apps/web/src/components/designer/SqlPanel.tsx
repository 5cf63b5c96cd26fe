import { lazy, Suspense, useState } from 'react';

const ViewSqlEditor = lazy(() => import('./ViewSqlEditor.js'));

interface Props {
  /** the SQL the canvas generates */
  generated: string;
  /** set while the SQL is edited by hand: its text, if the canvas cannot show it why, and what is typed */
  edited?: { text: string; reason?: string; typed?: string };
  onEdit(): void;
  onApply(text: string): void;
  onBackToCanvas(): void;
  /** text typed and not applied yet: kept with the designer's draft */
  onType(text: string): void;
}

/** The live SQL: follows the canvas read-only, or is edited and read back onto the canvas. */
export function SqlPanel({ generated, edited, onEdit, onApply, onBackToCanvas, onType }: Props) {
  // a restored draft (or a return from another tab) brings back what was typed
  const [draft, setDraft] = useState(() => edited?.typed ?? edited?.text ?? '');
  const editing = edited !== undefined;
  return (
    <div className="j-dsql">
      <div className="j-toolbar">
        {!editing && (
          <>
            <span className="j-muted j-small">Follows the canvas.</span>
            <span className="j-spacer" />
            <button
              type="button"
              onClick={() => {
                setDraft(generated);
                onEdit();
              }}
            >
              Edit as SQL
            </button>
          </>
        )}
        {editing && (
          <>
            {edited.reason ? (
              <span className="j-dwarn j-small" role="status" data-testid="sql-not-on-canvas">
                Stays SQL: {edited.reason}. Preview, plan and save use this text.
              </span>
            ) : (
              <span className="j-muted j-small">Editing SQL: apply it to bring it back onto the canvas.</span>
            )}
            <span className="j-spacer" />
            <button type="button" className="j-primary" onClick={() => onApply(draft)}>
              Apply to canvas
            </button>
            <button type="button" onClick={onBackToCanvas}>
              Discard edits
            </button>
          </>
        )}
      </div>
      <div className="j-dsql-editor" data-testid="designer-sql">
        <Suspense fallback={<div className="j-editor-loading">Loading editor…</div>}>
          {editing ? (
            <ViewSqlEditor
              key="edit"
              value={edited.typed ?? edited.text}
              readOnly={false}
              onChange={(text) => {
                setDraft(text);
                onType(text);
              }}
            />
          ) : (
            <ViewSqlEditor key="read" value={generated} readOnly />
          )}
        </Suspense>
      </div>
    </div>
  );
}
