import { describe, expect, it } from 'vitest';
import { switchKeyLimit } from './planner.js';

describe('switchKeyLimit', () => {
  it('restricts a probe by up to a tenth of its estimated rows in keys, at least the configured number, at most one statement’s IN lists', () => {
    // Q20: 871,129 grouped lineitem rows estimated; its 2,100 part keys are well within
    expect(switchKeyLimit(1000, 871_129, 1000)).toBe(50_000);
    expect(switchKeyLimit(1000, 120_000, 1000)).toBe(12_000);
    // a small probe: the configured number
    expect(switchKeyLimit(1000, 5000, 1000)).toBe(1000);
    expect(switchKeyLimit(1000, undefined, 1000)).toBe(1000);
    // the source takes 100 values per IN list: 50 lists of them
    expect(switchKeyLimit(1000, 871_129, 100)).toBe(5000);
  });
});
