import { describe, expect, it } from 'vitest';
import { toNewSource } from './source-form.js';

describe('toNewSource', () => {
  it('fills the default port and trims fields, keeping the password as typed', () => {
    expect(toNewSource({ name: ' pg1 ', engine: 'postgresql', host: '127.0.0.1 ', port: '', database: 'shop', user: 'u', password: ' p w ' })).toEqual({
      name: 'pg1',
      engine: 'postgresql',
      host: '127.0.0.1',
      port: 5432,
      database: 'shop',
      user: 'u',
      password: ' p w ',
    });
  });
  it('uses a typed port and omits an empty password', () => {
    expect(toNewSource({ name: 'm', engine: 'mysql', host: 'h', port: '3307', database: 'd', user: 'u', password: '' })).toEqual({
      name: 'm',
      engine: 'mysql',
      host: 'h',
      port: 3307,
      database: 'd',
      user: 'u',
    });
  });
  it('sends only the file for SQLite', () => {
    expect(toNewSource({ name: 'lite', engine: 'sqlite', host: 'x', port: '1', database: '/tmp/a.db', user: 'u', password: 'p' })).toEqual({
      name: 'lite',
      engine: 'sqlite',
      database: '/tmp/a.db',
    });
  });
});
