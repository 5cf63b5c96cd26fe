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
