import { describe, expect, it } from 'vitest';
import { compareNumbers, selectionText, viewIndexes } from './grid-view.js';

const columns = [
  { name: 'id', type: 'int64' },
  { name: 'name', type: 'varchar' },
  { name: 'amount', type: 'decimal(15,2)' },
];
const rows = [
  ['9007199254740993', 'bob', '10.50'],
  ['9007199254740992', 'Ann', null],
  ['2', 'cy\tx', '-3.00'],
  ['10', null, '10.5'],
];

describe('grid view', () => {
  it('compares exact numbers by value', () => {
    expect(compareNumbers('9007199254740993', '9007199254740992')).toBe(1);
    expect(compareNumbers('10', '9')).toBe(1);
    expect(compareNumbers('-3.00', '-10')).toBe(1);
    expect(compareNumbers('10.50', '10.5')).toBe(0);
    expect(compareNumbers('-0', '0')).toBe(0);
    expect(compareNumbers(1.5, '1.25')).toBe(1);
  });

  it('sorts numerically with NULLs last ascending and first descending; stable', () => {
    expect(viewIndexes(rows, 4, columns, { column: 0, desc: false }, '')).toEqual([2, 3, 1, 0]);
    expect(viewIndexes(rows, 4, columns, { column: 2, desc: false }, '')).toEqual([2, 0, 3, 1]);
    expect(viewIndexes(rows, 4, columns, { column: 2, desc: true }, '')).toEqual([1, 0, 3, 2]);
    expect(viewIndexes(rows, 4, columns, { column: 1, desc: false }, '')).toEqual([1, 0, 2, 3]);
  });

  it('filters on any column, case-insensitively, never matching NULL as text', () => {
    expect(viewIndexes(rows, 4, columns, undefined, 'AN')).toEqual([1]);
    expect(viewIndexes(rows, 4, columns, undefined, 'null')).toEqual([]);
    expect(viewIndexes(rows, 4, columns, undefined, '10.5')).toEqual([0, 3]);
    expect(viewIndexes(rows, 2, columns, undefined, '')).toEqual([0, 1]);
  });

  it('copies a selection as tab-separated text in view order', () => {
    const view = [2, 3, 1, 0];
    expect(selectionText(rows, view, columns, { r0: 0, c0: 0, r1: 1, c1: 1 })).toBe('2\tcy x\n10\t');
    expect(selectionText(rows, view, columns, { r0: 2, c0: 2, r1: 2, c1: 0 }, true)).toBe('id\tname\tamount\n9007199254740992\tAnn\t');
  });
});
