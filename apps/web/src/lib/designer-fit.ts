/**
 * Fitting the designer canvas to its tables without the minimap covering any: the minimap sits
 * over the canvas's bottom-right corner, so a fit keeps the tables either left of it or above it,
 * whichever leaves them larger.
 */
export interface Size {
  readonly width: number;
  readonly height: number;
}
export interface Box extends Size {
  readonly x: number;
  readonly y: number;
}

/** the minimap's box (designer.css) and its margin from the canvas's edges (React Flow's panel) */
export const MINIMAP: Size = { width: 160, height: 100 };
export const MINIMAP_MARGIN = 15;
/** room around the tables, in screen pixels, on the sides without the minimap */
export const FIT_GAP = 24;

/** A table's box before React Flow has measured it: the node's header and one row per column. */
export function estimatedNodeSize(columns: number): Size {
  return { width: 240, height: 34 + 21 * columns };
}

/** The smallest box around the nodes. */
export function boundsOf(nodes: readonly Box[]): Box | undefined {
  if (nodes.length === 0) return undefined;
  const x = Math.min(...nodes.map((n) => n.x));
  const y = Math.min(...nodes.map((n) => n.y));
  const right = Math.max(...nodes.map((n) => n.x + n.width));
  const bottom = Math.max(...nodes.map((n) => n.y + n.height));
  return { x, y, width: right - x, height: bottom - y };
}

type Px = `${number}px`;
export interface FitPadding {
  readonly top: Px;
  readonly right: Px;
  readonly bottom: Px;
  readonly left: Px;
}

/**
 * Padding for React Flow's fitView (pixels of the canvas) that reserves the minimap's strip:
 * the column right of the tables or the band below them, the one that costs less zoom.
 */
export function minimapFitPadding(canvas: Size, bounds: Size, maxZoom = 1): FitPadding {
  const reserveX = MINIMAP.width + 2 * MINIMAP_MARGIN;
  const reserveY = MINIMAP.height + 2 * MINIMAP_MARGIN;
  const zoom = (w: number, h: number) =>
    Math.min(maxZoom, Math.max(0, w) / Math.max(1, bounds.width), Math.max(0, h) / Math.max(1, bounds.height));
  const besideIt = zoom(canvas.width - FIT_GAP - reserveX, canvas.height - 2 * FIT_GAP);
  const aboveIt = zoom(canvas.width - 2 * FIT_GAP, canvas.height - FIT_GAP - reserveY);
  const px = (n: number): Px => `${n}px`;
  return besideIt >= aboveIt
    ? { top: px(FIT_GAP), right: px(reserveX), bottom: px(FIT_GAP), left: px(FIT_GAP) }
    : { top: px(FIT_GAP), right: px(FIT_GAP), bottom: px(reserveY), left: px(FIT_GAP) };
}
