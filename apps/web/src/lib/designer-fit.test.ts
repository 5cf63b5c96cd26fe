import { describe, expect, it } from 'vitest';
import { boundsOf, estimatedNodeSize, MINIMAP, MINIMAP_MARGIN, minimapFitPadding, type Size } from './designer-fit.js';

const px = (s: string) => Number(s.replace('px', ''));

/** Where fitView puts the tables' box on screen with that padding: scaled and centred in what is left. */
function fitted(canvas: Size, bounds: Size, maxZoom = 1) {
  const p = minimapFitPadding(canvas, bounds, maxZoom);
  const w = canvas.width - px(p.left) - px(p.right);
  const h = canvas.height - px(p.top) - px(p.bottom);
  const zoom = Math.min(maxZoom, w / bounds.width, h / bounds.height);
  const x = px(p.left) + (w - bounds.width * zoom) / 2;
  const y = px(p.top) + (h - bounds.height * zoom) / 2;
  return { x, y, right: x + bounds.width * zoom, bottom: y + bounds.height * zoom, zoom };
}

function coversMinimap(canvas: Size, box: { right: number; bottom: number }): boolean {
  return (
    box.right > canvas.width - MINIMAP_MARGIN - MINIMAP.width && box.bottom > canvas.height - MINIMAP_MARGIN - MINIMAP.height
  );
}

describe('fitting the canvas beside the minimap', () => {
  // the designer's canvas at 1280 × 800 (palette and inspector beside it, SQL below) and at 1440 × 900
  const canvases: Size[] = [
    { width: 710, height: 420 },
    { width: 870, height: 500 },
  ];

  it('never puts a table under the minimap, wide or tall layouts alike', () => {
    const nation = { x: 100, y: 80, ...estimatedNodeSize(4) };
    const region = { x: 500, y: 80, ...estimatedNodeSize(3) };
    const orders = { x: 80, y: 60, ...estimatedNodeSize(9) };
    const tall = { x: 80, y: 400, ...estimatedNodeSize(9) };
    for (const canvas of canvases)
      for (const nodes of [[nation], [nation, region], [orders, region], [orders, tall]]) {
        const b = boundsOf(nodes)!;
        expect(coversMinimap(canvas, fitted(canvas, b))).toBe(false);
      }
  });

  it('reserves the strip that costs less zoom', () => {
    const canvas = { width: 710, height: 420 };
    // a row of tables: the band below them is cheaper than the column beside
    expect(minimapFitPadding(canvas, { width: 1200, height: 200 }).bottom).toBe('130px');
    // a stack of tables: the column beside them
    expect(minimapFitPadding(canvas, { width: 240, height: 900 }).right).toBe('190px');
  });

  it('boxes nodes, and has no box for none', () => {
    expect(boundsOf([])).toBeUndefined();
    expect(
      boundsOf([
        { x: 10, y: 20, width: 100, height: 50 },
        { x: 200, y: 0, width: 40, height: 40 },
      ]),
    ).toEqual({ x: 10, y: 0, width: 230, height: 70 });
  });
});
