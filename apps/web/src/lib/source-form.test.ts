import { describe, expect, it } from 'vitest';
import { connectionLabel, describeDiagnosis, toNewSource } from './source-form.js';

describe('toNewSource', () => {
  it('fills the default port and trims fields, keeping the password as typed', () => {
    expect(
      toNewSource({
        name: ' pg1 ',
        engine: 'postgresql',
        host: '127.0.0.1 ',
        port: '',
        database: 'shop',
        user: 'u',
        password: ' p w ',
      }),
    ).toEqual({
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
    expect(
      toNewSource({ name: 'm', engine: 'mysql', host: 'h', port: '3307', database: 'd', user: 'u', password: '' }),
    ).toEqual({
      name: 'm',
      engine: 'mysql',
      host: 'h',
      port: 3307,
      database: 'd',
      user: 'u',
    });
  });
  it('sends only the file for SQLite', () => {
    expect(
      toNewSource({
        name: 'lite',
        engine: 'sqlite',
        host: 'x',
        port: '1',
        database: '/tmp/a.db',
        user: 'u',
        password: 'p',
      }),
    ).toEqual({
      name: 'lite',
      engine: 'sqlite',
      file: '/tmp/a.db',
    });
  });
});

describe('toNewSource with connection options', () => {
  const base = { name: 'tls1', engine: 'postgresql', host: 'db', port: '', database: 'd', user: 'u', password: '' };
  it('registers a TLS-only server: encryption, verification and the CA come along', () => {
    expect(
      toNewSource({ ...base, tls: 'on', verify: 'on', ca: ' -----BEGIN CERTIFICATE-----\nMII…\n-----END CERTIFICATE----- ' })
        .options,
    ).toEqual({
      tls: {
        enabled: true,
        rejectUnauthorized: true,
        ca: '-----BEGIN CERTIFICATE-----\nMII…\n-----END CERTIFICATE-----',
      },
    });
    // an unticked checkbox is absent from FormData: no verification, and no empty CA
    expect(toNewSource({ ...base, tls: 'on', ca: '' }).options).toEqual({
      tls: { enabled: true, rejectUnauthorized: false },
    });
  });
  it('sends the pool size and the connect timeout when given', () => {
    expect(toNewSource({ ...base, poolMax: '4', connectTimeoutMs: '2500' }).options).toEqual({
      pool: { max: 4 },
      connectTimeoutMs: 2500,
    });
  });
  it('sends no options when none were set, so the defaults apply', () => {
    expect(toNewSource({ ...base, poolMax: ' ', connectTimeoutMs: '', verify: 'on', ca: 'x' })).not.toHaveProperty(
      'options',
    );
  });
});

describe('describeDiagnosis', () => {
  it('says where it connected and how fast', () => {
    expect(describeDiagnosis({ ok: true, serverVersion: 'PostgreSQL 15.8', latencyMs: 3.6 })).toBe(
      'Connected to PostgreSQL 15.8 in 4 ms.',
    );
    expect(describeDiagnosis({ ok: true })).toBe('Connected.');
  });
  it('gives the message, the hint and the code of a failure', () => {
    expect(
      describeDiagnosis({
        ok: false,
        code: 'auth_failed',
        message: 'The server rejected user "junction".',
        hint: 'Check the password.',
      }),
    ).toBe('The server rejected user "junction". Check the password. (auth_failed)');
    expect(describeDiagnosis({ ok: false })).toBe('The connection failed.');
  });
});

describe('connectionLabel', () => {
  it('shows user@host:port/database or the SQLite file', () => {
    expect(
      connectionLabel({
        engine: 'postgresql',
        host: '127.0.0.1',
        port: 5432,
        database: 'jdv_a',
        user: 'junction',
        file: null,
      }),
    ).toBe('junction@127.0.0.1:5432/jdv_a');
    expect(
      connectionLabel({
        engine: 'sqlite',
        host: null,
        port: null,
        database: null,
        user: null,
        file: '/data/demo/dbC.sqlite',
      }),
    ).toBe('/data/demo/dbC.sqlite');
  });
});
