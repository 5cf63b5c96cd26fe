import { describe, expect, it } from 'vitest';
import { parseRoute } from './route.js';

describe('parseRoute', () => {
  it('maps the start page and known hashes to their page', () => {
    expect(parseRoute('/', '')).toBe('query');
    expect(parseRoute('/', '#/')).toBe('query');
    expect(parseRoute('/', '#/sources')).toBe('sources');
    expect(parseRoute('/', '#/admin/users')).toBe('admin/users');
    expect(parseRoute('/index.html', '#/settings/password/')).toBe('settings/password');
    expect(parseRoute('/', '#/benchmarks')).toBe('benchmarks');
    expect(parseRoute('/', '#/benchmarks/run/abc')).toBe('benchmarks');
    expect(parseRoute('/', '#/designer')).toBe('designer');
    expect(parseRoute('/', '#/designer/sales/cust_nation')).toBe('designer');
  });
  it('calls anything else not found instead of showing the Query page', () => {
    expect(parseRoute('/', '#/nope')).toBe('not-found');
    expect(parseRoute('/', '#/admin')).toBe('not-found');
    expect(parseRoute('/admin/users', '')).toBe('not-found');
  });
});
