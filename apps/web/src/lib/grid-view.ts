import { formatCell, isNumericType, type ResultColumn } from './query-protocol.js';

export interface SortSpec {
  readonly column: number;
  readonly desc: boolean;
}

type Row = readonly unknown[];

/**
 * Row indexes of the loaded rows as the grid shows them: those whose text contains `filter`
 * (any column, case-insensitive), in `sort` order. Sorting is stable and NULLs go last as in
 * PostgreSQL's ascending order (first when descending); numbers compare by value, exactly, even
 * when the API sent them as strings (int64, decimals).
 */
export function viewIndexes(
  rows: readonly Row[],
  count: number,
  columns: readonly ResultColumn[],
  sort: SortSpec | undefined,
  filter: string,
): number[] {
  const n = Math.min(count, rows.length);
  let idx = Array.from({ length: n }, (_, i) => i);
  const needle = filter.trim().toLowerCase();
  if (needle !== '') idx = idx.filter((i) => rows[i].some((v) => v !== null && formatCell(v).toLowerCase().includes(needle)));
  if (sort) {
    const numeric = isNumericType(columns[sort.column]?.type ?? '');
    const cmp = numeric ? compareNumbers : compareText;
    const c = sort.column;
    idx.sort((a, b) => {
      const x = rows[a][c];
      const y = rows[b][c];
      if (x === null || y === null) {
        if (x === y) return a - b;
        // NULLS LAST ascending, NULLS FIRST descending: both are "NULL is largest"
        return (x === null ? 1 : -1) * (sort.desc ? -1 : 1);
      }
      const r = cmp(x, y);
      return r === 0 ? a - b : sort.desc ? -r : r;
    });
  }
  return idx;
}

function compareText(x: unknown, y: unknown): number {
  const a = formatCell(x);
  const b = formatCell(y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Exact comparison of decimal text ("-12.50", "9007199254740993") without rounding to a double. */
export function compareNumbers(x: unknown, y: unknown): number {
  const a = String(x);
  const b = String(y);
  const pa = parseDecimal(a);
  const pb = parseDecimal(b);
  if (!pa || !pb) {
    const d = Number(a) - Number(b);
    return Number.isNaN(d) ? compareText(a, b) : Math.sign(d);
  }
  if (pa.neg !== pb.neg) return pa.neg ? -1 : 1;
  const mag = compareMagnitude(pa, pb);
  return pa.neg ? -mag : mag;
}

function parseDecimal(s: string): { neg: boolean; int: string; frac: string } | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const int = m[2].replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  // -0 and 0 are equal
  const neg = m[1] === '-' && (int !== '' || frac !== '');
  return { neg, int, frac };
}

function compareMagnitude(a: { int: string; frac: string }, b: { int: string; frac: string }): number {
  if (a.int.length !== b.int.length) return a.int.length < b.int.length ? -1 : 1;
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  const len = Math.max(a.frac.length, b.frac.length);
  const fa = a.frac.padEnd(len, '0');
  const fb = b.frac.padEnd(len, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

export interface CellRange {
  readonly r0: number;
  readonly c0: number;
  readonly r1: number;
  readonly c1: number;
}

export function normalise(r: CellRange): CellRange {
  return { r0: Math.min(r.r0, r.r1), r1: Math.max(r.r0, r.r1), c0: Math.min(r.c0, r.c1), c1: Math.max(r.c0, r.c1) };
}

/**
 * The selected cells as tab-separated text (what spreadsheets paste), in the grid's order;
 * with `header`, the column names first. NULL copies as an empty cell; tabs and newlines in a
 * value become spaces so the shape survives the paste.
 */
export function selectionText(
  rows: readonly Row[],
  view: readonly number[],
  columns: readonly ResultColumn[],
  range: CellRange,
  header = false,
): string {
  const r = normalise(range);
  const cell = (v: unknown) => (v === null || v === undefined ? '' : formatCell(v).replace(/[\t\r\n]+/g, ' '));
  const lines: string[] = [];
  if (header) lines.push(columns.slice(r.c0, r.c1 + 1).map((c) => cell(c.name)).join('\t'));
  for (let i = r.r0; i <= r.r1 && i < view.length; i++) {
    const row = rows[view[i]];
    lines.push(row.slice(r.c0, r.c1 + 1).map(cell).join('\t'));
  }
  return lines.join('\n');
}
