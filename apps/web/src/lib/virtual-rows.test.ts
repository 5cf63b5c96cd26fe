import { describe, expect, it } from 'vitest';
import { visibleRange } from './virtual-rows.js';

describe('visibleRange', () => {
  it('renders the rows in view plus overscan at the top', () => {
    expect(visibleRange(0, 240, 24, 1000, 5)).toEqual({ start: 0, end: 16 });
  });
  it('follows the scroll position', () => {
    expect(visibleRange(2400, 240, 24, 1000, 5)).toEqual({ start: 95, end: 116 });
  });
  it('clamps at the end and for few rows', () => {
    expect(visibleRange(24_000, 240, 24, 1000, 5)).toEqual({ start: 995, end: 1000 });
    expect(visibleRange(0, 240, 24, 3, 5)).toEqual({ start: 0, end: 3 });
    expect(visibleRange(0, 240, 24, 0)).toEqual({ start: 0, end: 0 });
  });
});
