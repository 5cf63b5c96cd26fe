import { describe, expect, it } from 'vitest';
import { STATUS_LABEL } from './bench-format.js';
import { errorFor, parseBenchHash } from './bench-view.js';

describe('benchmarks page views', () => {
  it('reads the view from the hash', () => {
    expect(parseBenchHash('#/benchmarks')).toEqual({});
    expect(parseBenchHash('#/benchmarks/run/abc')).toEqual({ run: 'abc' });
    expect(parseBenchHash('#/benchmarks/compare/a/b')).toEqual({ compare: ['a', 'b'] });
  });

  it('an error belongs to the view it happened in: navigating away drops it', () => {
    const e = { hash: '#/benchmarks', message: 'Could not import x.json' };
    expect(errorFor(e, '#/benchmarks')).toBe('Could not import x.json');
    expect(errorFor(e, '#/benchmarks/run/abc')).toBeUndefined();
    expect(errorFor(undefined, '#/benchmarks')).toBeUndefined();
  });

  it('names every status the server gives a run, interrupted ones too', () => {
    expect(STATUS_LABEL.interrupted).toBe('Interrupted');
  });
});
