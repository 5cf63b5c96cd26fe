import { outputName, quoteIdent, type ViewGraph } from '../../lib/view-graph/model.js';

interface Props {
  graph: ViewGraph;
  onDistinct(d: boolean): void;
  onSort(expr: string, desc: boolean): void;
  onLimit(n: number | undefined): void;
}

/** DISTINCT, ORDER BY an output column, and LIMIT. */
export function OptionsPanel({ graph, onDistinct, onSort, onLimit }: Props) {
  const sort = graph.orderBy[0];
  const names = graph.outputs.map((o) => quoteIdent(outputName(o), true));
  return (
    <section className="j-dsection" aria-label="Options">
      <h3>Rows</h3>
      <label className="j-row">
        <input type="checkbox" checked={graph.distinct} onChange={(e) => onDistinct(e.target.checked)} /> DISTINCT
      </label>
      <div className="j-row">
        <label className="j-row">
          Order by
          <select
            aria-label="Order by"
            value={sort?.expr ?? ''}
            onChange={(e) => onSort(e.target.value, sort?.desc ?? false)}
          >
            <option value="">—</option>
            {sort && !names.includes(sort.expr) && <option value={sort.expr}>{sort.expr}</option>}
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label className="j-row">
          <input
            type="checkbox"
            checked={sort?.desc ?? false}
            disabled={!sort}
            onChange={(e) => onSort(sort!.expr, e.target.checked)}
          />
          desc
        </label>
      </div>
      <label className="j-row">
        Limit
        <input
          type="number"
          min={0}
          className="j-limit"
          aria-label="Limit"
          value={graph.limit ?? ''}
          onChange={(e) => onLimit(e.target.value === '' ? undefined : Math.max(0, Math.floor(Number(e.target.value))))}
        />
      </label>
    </section>
  );
}
