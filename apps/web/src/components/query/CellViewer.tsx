import { useEffect, useRef, useState } from 'react';
import { formatCell, type ResultColumn } from '../../lib/query-protocol.js';

/** One value in full (long text, JSON), in a modal dialog with a copy button. */
export function CellViewer({
  column,
  rowNumber,
  value,
  onClose,
}: {
  column: ResultColumn;
  rowNumber: number;
  value: unknown;
  onClose(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const text = value === null ? 'NULL' : formatCell(value);
  return (
    <dialog ref={ref} className="j-dialog" aria-label={`Value of ${column.name}`} onClose={onClose} data-testid="cell-viewer">
      <header className="j-dialog-head">
        <strong>{column.name}</strong>
        <span className="j-coltype">{column.type}</span>
        <span className="j-muted j-small">row {rowNumber.toLocaleString('en-US')}</span>
        <span className="j-spacer" />
        <span className="j-muted j-small">{value === null ? '' : `${text.length.toLocaleString('en-US')} characters`}</span>
      </header>
      <pre className={`j-cell-value${value === null ? ' j-null' : ''}`}>{text}</pre>
      <footer className="j-row">
        <button
          type="button"
          disabled={value === null}
          onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true), () => setCopied(false))}
        >
          {copied ? 'Copied' : 'Copy value'}
        </button>
        <button type="button" className="j-primary" onClick={() => ref.current?.close()} autoFocus>
          Close
        </button>
      </footer>
    </dialog>
  );
}
