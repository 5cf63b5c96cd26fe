import { useMemo, useRef, useState, type KeyboardEvent, type MouseEvent, type PointerEvent } from 'react';
import { normalise, selectionText, viewIndexes, type CellRange, type SortSpec } from '../../lib/grid-view.js';
import { formatCell, isNumericType, type ResultColumn } from '../../lib/query-protocol.js';
import { visibleRange } from '../../lib/virtual-rows.js';
import { CellViewer } from './CellViewer.js';

const ROW_HEIGHT = 26;
const MIN_WIDTH = 48;

interface Props {
  columns: readonly ResultColumn[];
  rows: readonly (readonly unknown[])[];
  rowCount: number;
  /** the query ran to its end: no rows then means an empty answer, not rows still to come */
  finished: boolean;
}

/**
 * The loaded rows, virtualised (only the rows in view are in the DOM; spacers keep the scroll
 * height). Sorting and filtering work on the rows the browser holds; copy puts the selected
 * cells on the clipboard as tab-separated text.
 */
export function ResultsGrid({ columns, rows, rowCount, finished }: Props) {
  const [view, setView] = useState({ top: 0, height: 600 });
  const [sort, setSort] = useState<SortSpec>();
  const [filter, setFilter] = useState('');
  const [sel, setSel] = useState<CellRange>();
  const [widths, setWidths] = useState<Record<number, number>>({});
  const [viewing, setViewing] = useState<{ row: number; col: number }>();
  const [copied, setCopied] = useState<string>();
  const scroller = useRef<HTMLDivElement>(null);

  // rowCount is a dependency so new rows re-sort even though the array grows in place
  const order = useMemo(() => viewIndexes(rows, rowCount, columns, sort, filter), [rows, rowCount, columns, sort, filter]);
  const total = order.length;
  const { start, end } = visibleRange(view.top, view.height, ROW_HEIGHT, total);
  const numeric = columns.map((c) => isNumericType(c.type));
  const range = sel ? normalise(sel) : undefined;
  const loaded = Math.min(rows.length, rowCount);

  async function copy(header: boolean) {
    if (!range) return;
    const text = selectionText(rows, order, columns, range, header);
    try {
      await navigator.clipboard.writeText(text);
      const cells = (range.r1 - range.r0 + 1) * (range.c1 - range.c0 + 1);
      setCopied(`Copied ${cells.toLocaleString('en-US')} ${cells === 1 ? 'cell' : 'cells'}`);
    } catch {
      setCopied('The browser refused the clipboard.');
    }
  }

  function pick(e: MouseEvent, row: number, col: number | 'row') {
    const c0 = col === 'row' ? 0 : col;
    const c1 = col === 'row' ? columns.length - 1 : col;
    if (e.shiftKey && sel) setSel({ ...sel, r1: row, c1: col === 'row' ? columns.length - 1 : col });
    else setSel({ r0: row, c0, r1: row, c1 });
    setCopied(undefined);
  }

  function selectColumn(col: number, e: MouseEvent) {
    if (total === 0) return;
    setSel(e.shiftKey && sel ? { r0: 0, r1: total - 1, c0: sel.c0, c1: col } : { r0: 0, c0: col, r1: total - 1, c1: col });
    setCopied(undefined);
  }

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c' && range) {
      e.preventDefault();
      void copy(e.shiftKey);
    } else if (e.key === 'Enter' && range) {
      e.preventDefault();
      setViewing({ row: range.r0, col: range.c0 });
    } else if (range && ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'].includes(e.key)) {
      e.preventDefault();
      const r = Math.min(total - 1, Math.max(0, range.r0 + (e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0)));
      const c = Math.min(columns.length - 1, Math.max(0, range.c0 + (e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0)));
      setSel({ r0: r, c0: c, r1: r, c1: c });
      const el = scroller.current;
      if (el) {
        const y = r * ROW_HEIGHT;
        if (y < el.scrollTop) el.scrollTop = y;
        else if (y + 2 * ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = y + 2 * ROW_HEIGHT - el.clientHeight;
      }
    }
  }

  function startResize(e: PointerEvent<HTMLSpanElement>, col: number) {
    e.preventDefault();
    e.stopPropagation();
    const th = e.currentTarget.parentElement as HTMLElement;
    const x0 = e.clientX;
    const w0 = th.getBoundingClientRect().width;
    const move = (m: globalThis.PointerEvent) => setWidths((w) => ({ ...w, [col]: Math.max(MIN_WIDTH, Math.round(w0 + m.clientX - x0)) }));
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  const toggleSort = (col: number) =>
    setSort((s) => (s?.column !== col ? { column: col, desc: false } : !s.desc ? { column: col, desc: true } : undefined));

  return (
    <div className="j-results">
      <div className="j-results-bar">
        <input
          type="search"
          placeholder="Filter loaded rows…"
          aria-label="Filter rows"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            setSel(undefined);
          }}
        />
        <button type="button" onClick={() => void copy(false)} disabled={!range} title="Ctrl+C in the grid">
          Copy
        </button>
        <button type="button" onClick={() => void copy(true)} disabled={!range} title="Ctrl+Shift+C in the grid">
          Copy with headers
        </button>
        <span className="j-muted j-small" data-testid="grid-info" aria-live="polite">
          {copied ??
            (filter.trim() !== ''
              ? `${total.toLocaleString('en-US')} of ${loaded.toLocaleString('en-US')} loaded rows match`
              : sort
                ? `Sorted by ${columns[sort.column]?.name} ${sort.desc ? 'descending' : 'ascending'} (loaded rows)`
                : '')}
        </span>
      </div>
      <div
        className="j-grid-scroll"
        data-testid="results-grid"
        tabIndex={0}
        aria-label="Results. Click a cell, Shift+click to extend, Ctrl+C to copy, Enter to view a value."
        ref={(el) => {
          scroller.current = el;
          if (el && el.clientHeight && el.clientHeight !== view.height) setView({ top: el.scrollTop, height: el.clientHeight });
        }}
        onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
        onKeyDown={onKeyDown}
      >
        <table className="j-grid" aria-rowcount={total + 1}>
          <colgroup>
            <col style={{ width: 56 }} />
            {columns.map((_, i) => (
              <col key={i} style={widths[i] ? { width: widths[i] } : undefined} />
            ))}
          </colgroup>
          <thead>
            <tr>
              <th className="j-rownum" scope="col">
                #
              </th>
              {columns.map((c, i) => (
                <th
                  key={i}
                  style={widths[i] ? { width: widths[i], maxWidth: widths[i] } : undefined}
                  scope="col"
                  aria-sort={sort?.column === i ? (sort.desc ? 'descending' : 'ascending') : undefined}
                  className={range && i >= range.c0 && i <= range.c1 ? 'j-col-sel' : undefined}
                >
                  <button
                    type="button"
                    className="j-colname"
                    title={`${c.name} (${c.type}): click to select the column`}
                    aria-label={`Select column ${c.name}`}
                    onClick={(e) => selectColumn(i, e)}
                  >
                    {c.name}
                    <span className="j-coltype">{c.type}</span>
                  </button>
                  <button type="button" className="j-sort" aria-label={`Sort by ${c.name}`} onClick={() => toggleSort(i)}>
                    {sort?.column === i ? (sort.desc ? '▼' : '▲') : '↕'}
                  </button>
                  <span className="j-resize" aria-hidden onPointerDown={(e) => startResize(e, i)} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {start > 0 && <tr style={{ height: start * ROW_HEIGHT }} aria-hidden />}
            {order.slice(start, end).map((ri, k) => {
              const r = rows[ri];
              const vi = start + k;
              const rowSel = range && vi >= range.r0 && vi <= range.r1;
              return (
                <tr key={ri} style={{ height: ROW_HEIGHT }}>
                  <td className="j-rownum" onClick={(e) => pick(e, vi, 'row')}>
                    {ri + 1}
                  </td>
                  {r.map((v, j) => {
                    const text = formatCell(v);
                    const cls = [v === null ? 'j-null' : numeric[j] ? 'j-num' : '', rowSel && j >= range.c0 && j <= range.c1 ? 'j-sel' : '']
                      .filter(Boolean)
                      .join(' ');
                    return (
                      <td
                        key={j}
                        className={cls || undefined}
                        title={v === null ? undefined : text.length > 200 ? `${text.slice(0, 200)}… (Enter or double-click shows all)` : text}
                        onClick={(e) => pick(e, vi, j)}
                        onDoubleClick={() => setViewing({ row: vi, col: j })}
                      >
                        {text}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
            {end < total && <tr style={{ height: (total - end) * ROW_HEIGHT }} aria-hidden />}
          </tbody>
        </table>
        {finished && rowCount === 0 && (
          <p className="j-grid-empty" role="status" data-testid="results-empty">
            No rows: the query ran to the end and its answer is empty.
          </p>
        )}
        {rowCount > 0 && total === 0 && (
          <p className="j-grid-empty" role="status">
            No loaded row matches the filter.
          </p>
        )}
      </div>
      {viewing && order[viewing.row] !== undefined && (
        <CellViewer
          column={columns[viewing.col]}
          rowNumber={order[viewing.row] + 1}
          value={rows[order[viewing.row]][viewing.col]}
          onClose={() => {
            setViewing(undefined);
            scroller.current?.focus();
          }}
        />
      )}
    </div>
  );
}
