import { describe, expect, it } from 'vitest';
import { markerRange } from './markers.js';

describe('markerRange', () => {
  it('uses the reported length', () => {
    expect(markerRange('SELECT * FORM t', { offset: 9, line: 1, column: 10, length: 4 })).toEqual({
      startLineNumber: 1,
      startColumn: 10,
      endLineNumber: 1,
      endColumn: 14,
    });
  });
  it('underlines the word at the position when no length is given', () => {
    expect(markerRange('SELECT *\nFROM dbA.nope x', { offset: 14, line: 2, column: 6 })).toEqual({
      startLineNumber: 2,
      startColumn: 6,
      endLineNumber: 2,
      endColumn: 9,
    });
  });
  it('marks one column at the end of the text', () => {
    expect(markerRange('SELECT', { offset: 6, line: 1, column: 7 })).toEqual({
      startLineNumber: 1,
      startColumn: 7,
      endLineNumber: 1,
      endColumn: 8,
    });
  });
});
