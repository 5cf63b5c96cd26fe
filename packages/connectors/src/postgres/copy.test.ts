import { describe, expect, it } from 'vitest';
import { copyField, copyRows } from './copy.js';

describe('COPY text format', () => {
  it('escapes what the text format gives meaning to', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('\\N')).toBe('\\\\N');
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyField(9223372036854775807n)).toBe('9223372036854775807');
    expect(copyField(NaN)).toBe('NaN');
    expect(copyField(-Infinity)).toBe('-Infinity');
    expect(copyField(false)).toBe('f');
    expect(copyField(new Uint8Array([0, 92]))).toBe('\\\\x005c');
    expect(
      copyRows([
        [1, 'x'],
        [null, ''],
      ]),
    ).toBe('1\tx\n\\N\t\n');
  });
});
