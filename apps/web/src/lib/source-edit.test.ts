import { describe, expect, it } from 'vitest';
import type { SourceDetail } from './api.js';
import { toSourcePatch } from './source-edit.js';

const pg: SourceDetail = {
  id: '1',
  name: 'crm',
  engine: 'postgresql',
  status: 'online',
  host: 'db.local',
  port: 5432,
  database: 'crm',
  user: 'app',
  file: null,
  hasPassword: true,
  statusMessage: null,
  tables: 3,
  options: { pool: { max: 10 } },
};
const unchanged = {
  host: 'db.local',
  port: '5432',
  database: 'crm',
  user: 'app',
  password: '',
  poolMax: '10',
  connectTimeoutMs: '',
};

describe('toSourcePatch', () => {
  it('sends nothing for an untouched form, and never a blank password', () => {
    expect(toSourcePatch(pg, unchanged)).toEqual({});
  });
  it('sends only the changed fields', () => {
    expect(toSourcePatch(pg, { ...unchanged, host: 'db2.local', password: 'n3w' })).toEqual({
      host: 'db2.local',
      password: 'n3w',
    });
  });
  it('keeps the other options when TLS or the pool change', () => {
    expect(toSourcePatch(pg, { ...unchanged, tls: 'on', verify: 'on', poolMax: '20' })).toEqual({
      options: { pool: { max: 20 }, tls: { enabled: true, rejectUnauthorized: true } },
    });
  });
  it('sets, keeps and removes the CA certificate as the form shows it', () => {
    const tlsPg: SourceDetail = { ...pg, options: { tls: { enabled: true, rejectUnauthorized: true, ca: 'CA1' } } };
    const same = { ...unchanged, poolMax: '', tls: 'on', verify: 'on', ca: 'CA1' };
    expect(toSourcePatch(tlsPg, same)).toEqual({});
    expect(toSourcePatch(tlsPg, { ...same, ca: ' CA2 ' }).options).toEqual({
      tls: { enabled: true, rejectUnauthorized: true, ca: 'CA2' },
    });
    expect(toSourcePatch(tlsPg, { ...same, ca: '' }).options).toEqual({ tls: { enabled: true, rejectUnauthorized: true } });
  });
  it('takes a SQLite file path as the file, not a database name', () => {
    const lite: SourceDetail = {
      ...pg,
      engine: 'sqlite',
      host: null,
      port: null,
      database: null,
      user: null,
      file: '/a.db',
    };
    expect(toSourcePatch(lite, { file: '/b.db' })).toEqual({ file: '/b.db' });
  });
});
