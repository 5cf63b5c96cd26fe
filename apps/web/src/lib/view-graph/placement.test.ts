import { describe, expect, it } from 'vitest';
import { addTable } from './edit.js';
import { demoTable } from './fixtures.js';
import { EMPTY_GRAPH } from './model.js';
import { freeSpot } from './placement.js';

describe('freeSpot', () => {
  it('keeps a drop on free canvas where it was, and moves one onto a table to its right', () => {
    const g = addTable(EMPTY_GRAPH, demoTable('orders'), { x: 100, y: 50 });
    expect(freeSpot(g, { x: 700.4, y: 60 }, 4)).toEqual({ x: 700, y: 60 });
    expect(freeSpot(g, { x: 180, y: 90 }, 4)).toEqual({ x: 410, y: 90 });
    const two = addTable(g, demoTable('customer'), { x: 410, y: 90 });
    expect(freeSpot(two, { x: 120, y: 60 }, 3)).toEqual({ x: 720, y: 60 });
    // below the first table, clear of it: stays
    expect(freeSpot(g, { x: 100, y: 300 }, 3)).toEqual({ x: 100, y: 300 });
  });
});
