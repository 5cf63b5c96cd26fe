import { describe, expect, it } from 'vitest';
import { redactUrl, sourceFromUrl } from './source-url.js';

describe('sourceFromUrl', () => {
  it('reads PostgreSQL and MySQL URLs, decoding credentials and replacing the database', () => {
    expect(sourceFromUrl('dbA', 'postgres://junction:p%40ss@127.0.0.1:5432/junction_test', 'jdv_a')).toEqual({
      name: 'dbA',
      engine: 'postgresql',
      host: '127.0.0.1',
      port: 5432,
      database: 'jdv_a',
      user: 'junction',
      password: 'p@ss',
    });
    expect(sourceFromUrl('dbC', 'mysql://root:junction@mysql/junction_test')).toEqual({
      name: 'dbC',
      engine: 'mysql',
      host: 'mysql',
      port: 3306,
      database: 'junction_test',
      user: 'root',
      password: 'junction',
    });
  });

  it('reads SQL Server TLS settings and SQLite files', () => {
    expect(
      sourceFromUrl('dbC', 'mssql://sa:Junction_Passw0rd!@sqlserver:1433/master?trustServerCertificate=true'),
    ).toEqual({
      name: 'dbC',
      engine: 'sqlserver',
      host: 'sqlserver',
      port: 1433,
      database: 'master',
      user: 'sa',
      password: 'Junction_Passw0rd!',
      options: { tls: { enabled: true, rejectUnauthorized: false } },
    });
    expect(sourceFromUrl('dbD', 'sqlite:/data/dbD.sqlite')).toEqual({
      name: 'dbD',
      engine: 'sqlite',
      file: '/data/dbD.sqlite',
    });
    expect(() => sourceFromUrl('x', 'oracle://a@b/c')).toThrow('unsupported URL scheme "oracle:"');
  });

  it('hides the password in messages', () => {
    expect(redactUrl('postgres://junction:secret@db:5432/x')).toBe('postgres://junction:***@db:5432/x');
  });
});
