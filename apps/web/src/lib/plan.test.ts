import { describe, expect, it } from 'vitest';
import { formatParams } from './plan.js';

describe('formatParams', () => {
  it('numbers parameters like PostgreSQL placeholders', () => {
    expect(formatParams([1, 'x', true])).toBe("$1 = 1, $2 = 'x', $3 = true");
  });
});
