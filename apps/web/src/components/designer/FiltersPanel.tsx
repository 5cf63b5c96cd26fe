import { useState } from 'react';
import { FILTER_OPS, buildPredicate, type FilterOp } from '../../lib/view-graph/filter-builder.js';
import type { ViewGraph } from '../../lib/view-graph/model.js';

interface Props {
  graph: ViewGraph;
  onRemove(i: number): void;
  /** resolves to an error message when the server refuses the predicate */
  onAdd(predicate: string): Promise<string | undefined>;
}

/** WHERE conditions, ANDed: built from a column, an operator and a value, or typed as SQL. */
export function FiltersPanel({ graph, onRemove, onAdd }: Props) {
  const columns = graph.tables.flatMap((t) => t.columns.map((c) => ({ key: `${t.alias}.${c.name}`, t, c })));
  const [col, setCol] = useState('');
  const [op, setOp] = useState<FilterOp>('=');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string>();
  const picked = columns.find((x) => x.key === col) ?? columns[0];
  const needsValue = op !== 'IS NULL' && op !== 'IS NOT NULL';
  return (
    <section className="j-dsection" aria-label="Filters">
      <h3>Filters</h3>
      <ul className="j-dlist">
        {graph.filters.map((f, i) => (
          <li key={`${i}:${f}`} className="j-row" data-testid={`filter-${i}`}>
            <code className="j-small">{f}</code>
            <span className="j-spacer" />
            <button type="button" className="j-link j-danger" onClick={() => onRemove(i)} aria-label="Remove filter">
              ×
            </button>
          </li>
        ))}
      </ul>
      {picked && (
        <form
          className="j-dform"
          onSubmit={async (e) => {
            e.preventDefault();
            const err = await onAdd(
              buildPredicate({ table: picked.t.alias, column: picked.c.name }, picked.c.type, op, value),
            );
            setError(err);
            if (!err) setValue('');
          }}
        >
          <div className="j-row">
            <select aria-label="Filter column" value={picked.key} onChange={(e) => setCol(e.target.value)}>
              {columns.map((x) => (
                <option key={x.key} value={x.key}>
                  {x.key}
                </option>
              ))}
            </select>
            <select aria-label="Filter operator" value={op} onChange={(e) => setOp(e.target.value as FilterOp)}>
              {FILTER_OPS.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          </div>
          <div className="j-row">
            {needsValue && (
              <input
                value={value}
                onChange={(e) => setValue(e.target.value)}
                placeholder={picked.c.type}
                aria-label="Filter value"
              />
            )}
            <button type="submit" disabled={needsValue && value.trim() === ''}>
              Add filter
            </button>
          </div>
          {error && <p className="j-error j-small">{error}</p>}
        </form>
      )}
    </section>
  );
}
