import { useState } from 'react';
import { formatCell, isNumericType, type ResultColumn } from '../../lib/query-protocol.js';
import { visibleRange } from '../../lib/virtual-rows.js';

const ROW_HEIGHT = 26;

/** Renders only the rows in view; the table keeps its full scroll height through spacers. */
export function ResultsGrid({
  columns,
  rows,
  rowCount,
  finished,
}: {
  columns: readonly ResultColumn[];
  rows: readonly (readonly unknown[])[];
  rowCount: number;
  /** the query ran to its end: no rows then means an empty answer, not rows still to come */
  finished: boolean;
}) {
  const [view, setView] = useState({ top: 0, height: 600 });
  // rowCount is in the props so new rows re-render even though the array grows in place
  const total = Math.min(rows.length, rowCount);
  const { start, end } = visibleRange(view.top, view.height, ROW_HEIGHT, total);
  const numeric = columns.map((c) => isNumericType(c.type));
  return (
    <div
      className="j-grid-scroll"
      data-testid="results-grid"
      ref={(el) => {
        if (el && el.clientHeight && el.clientHeight !== view.height)
          setView({ top: el.scrollTop, height: el.clientHeight });
      }}
      onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
    >
      <table className="j-grid" aria-rowcount={total + 1}>
        <thead>
          <tr>
            <th className="j-rownum">#</th>
            {columns.map((c, i) => (
              <th key={i} title={c.type}>
                {c.name}
                <span className="j-coltype">{c.type}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {start > 0 && <tr style={{ height: start * ROW_HEIGHT }} aria-hidden />}
          {rows.slice(start, end).map((r, i) => (
            <tr key={start + i} style={{ height: ROW_HEIGHT }}>
              <td className="j-rownum">{start + i + 1}</td>
              {r.map((v, j) => (
                <td key={j} className={v === null ? 'j-null' : numeric[j] ? 'j-num' : undefined}>
                  {formatCell(v)}
                </td>
              ))}
            </tr>
          ))}
          {end < total && <tr style={{ height: (total - end) * ROW_HEIGHT }} aria-hidden />}
        </tbody>
      </table>
      {finished && total === 0 && (
        <p className="j-grid-empty" role="status" data-testid="results-empty">
          No rows: the query ran to the end and its answer is empty.
        </p>
      )}
    </div>
  );
}
