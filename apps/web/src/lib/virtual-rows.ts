/** Which rows a fixed-row-height list must render to fill the viewport (plus some overscan). */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  total: number,
  overscan = 10,
): { start: number; end: number } {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const count = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(first - overscan, total - 1));
  const end = Math.min(total, first + count + overscan);
  return { start, end: Math.max(start, end) };
}
