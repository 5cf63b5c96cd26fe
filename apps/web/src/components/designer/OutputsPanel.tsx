import { useState } from 'react';
import {
  AGGREGATES,
  outputInnerSql,
  outputName,
  type Aggregate,
  type GraphOutput,
} from '../../lib/view-graph/model.js';

interface Props {
  outputs: readonly GraphOutput[];
  onRename(i: number, name: string): void;
  onMove(i: number, delta: -1 | 1): void;
  onRemove(i: number): void;
  onAggregate(i: number, a: Aggregate | undefined): void;
  /** resolves to an error message when the server refuses the expression */
  onAddComputed(sql: string, name: string): Promise<string | undefined>;
}

/** The view's columns in order: rename, reorder, aggregate, remove; computed ones added here. */
export function OutputsPanel(p: Props) {
  return (
    <section className="j-dsection" aria-label="Output columns">
      <h3>Columns</h3>
      {p.outputs.length === 0 && (
        <p className="j-muted j-small">Tick columns on the tables; without any, the view returns every column (*).</p>
      )}
      <ol className="j-dlist j-outputs">
        {p.outputs.map((o, i) => (
          <OutputRow key={`${i}:${outputInnerSql(o)}`} i={i} o={o} last={i === p.outputs.length - 1} {...p} />
        ))}
      </ol>
      <ComputedForm onAdd={p.onAddComputed} />
    </section>
  );
}

function OutputRow({
  i,
  o,
  last,
  onRename,
  onMove,
  onRemove,
  onAggregate,
}: Props & { i: number; o: GraphOutput; last: boolean }) {
  const [name, setName] = useState(o.name ?? '');
  const commit = () => name !== (o.name ?? '') && onRename(i, name);
  return (
    <li data-testid={`output-${i}`}>
      <div className="j-row">
        <input
          className="j-out-name"
          value={name}
          placeholder={outputName({ ...o, name: undefined })}
          aria-label={`Name of column ${i + 1}`}
          data-testid={`out-name-${i}`}
          onChange={(e) => setName(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => e.key === 'Enter' && commit()}
        />
        <select
          aria-label={`Aggregate of column ${i + 1}`}
          value={o.aggregate ?? ''}
          onChange={(e) => onAggregate(i, (e.target.value || undefined) as Aggregate | undefined)}
        >
          <option value="">group / value</option>
          {AGGREGATES.map((a) => (
            <option key={a} value={a}>
              {a === 'count_distinct' ? 'count distinct' : a}
            </option>
          ))}
        </select>
        <button type="button" className="j-link" disabled={i === 0} onClick={() => onMove(i, -1)} aria-label="Move up">
          ↑
        </button>
        <button type="button" className="j-link" disabled={last} onClick={() => onMove(i, 1)} aria-label="Move down">
          ↓
        </button>
        <button type="button" className="j-link j-danger" onClick={() => onRemove(i)} aria-label="Remove column">
          ×
        </button>
      </div>
      <code className="j-muted j-small">{outputInnerSql(o)}</code>
    </li>
  );
}

function ComputedForm({ onAdd }: { onAdd: Props['onAddComputed'] }) {
  const [sql, setSql] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="j-dform"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        const err = await onAdd(sql, name);
        setBusy(false);
        setError(err);
        if (!err) {
          setSql('');
          setName('');
        }
      }}
    >
      <input
        value={sql}
        onChange={(e) => setSql(e.target.value)}
        placeholder="expression, e.g. upper(c.c_name)"
        aria-label="Computed column expression"
      />
      <div className="j-row">
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="name"
          aria-label="Computed column name"
        />
        <button type="submit" disabled={busy || sql.trim() === '' || name.trim() === ''}>
          Add column
        </button>
      </div>
      {error && <p className="j-error j-small">{error}</p>}
    </form>
  );
}
