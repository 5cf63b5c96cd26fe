import { describe, expect, it } from 'vitest';
import { authDiagnosis, diagnoseNetworkError, type Target } from './diagnosis.js';
import { redact, sourceError } from './errors.js';

const target = (source: string, password: string): Target => ({
  source,
  host: 'db.local',
  port: 3306,
  connectTimeoutMs: 1000,
  secrets: [password],
});

describe('redact', () => {
  it('masks the password where it stands as a value', () => {
    expect(redact('mysql://u:s3cret@db/x failed', ['s3cret'])).toBe('mysql://u:***@db/x failed');
    expect(redact('password=s3cret; host=db', ['s3cret'])).toBe('password=***; host=db');
    expect(redact('"s3cret" s3cret', ['s3cret'])).toBe('"***" ***');
  });

  it('leaves names that merely contain the password alone', () => {
    expect(redact('Unknown database "mdb_junction"', ['junction'])).toBe('Unknown database "mdb_junction"');
    expect(redact('user junction2 denied', ['junction'])).toBe('user junction2 denied');
  });

  it('masks passwords that begin or end with punctuation wherever they occur', () => {
    expect(redact('x!pw!y', ['!pw!'])).toBe('x***y');
  });

  it('never rewrites the strings it is told to keep', () => {
    expect(redact('Source "junction" failed: junction', ['junction'], ['junction'])).toBe(
      'Source "junction" failed: junction',
    );
  });
});

describe('messages with the source name', () => {
  it('sourceError keeps a source name that contains the password', () => {
    const e = sourceError('mdb_junction', new Error('Access denied; password junction is wrong'), ['junction']);
    expect(e.message).toBe('Source "mdb_junction" failed the query: Access denied; password *** is wrong');
  });

  it('diagnoses keep the source name and user name that contain the password', () => {
    const d = authDiagnosis(target('mdb_junction', 'junction'), 'junction_ro');
    expect(d.message).toContain('source "mdb_junction"');
    expect(d.message).toContain('user "junction_ro"');
    const refused = diagnoseNetworkError({ code: 'ECONNREFUSED' }, target('mdb_junction', 'junction'));
    expect(refused?.message).toContain('(source "mdb_junction")');
  });

  it('a reset while connecting is told apart from a connect timeout', () => {
    expect(diagnoseNetworkError({ code: 'ECONNRESET' }, target('pg', 'pw'))).toEqual({
      ok: false,
      code: 'connection_reset',
      message: 'The server at db.local:3306 (source "pg") closed the connection while Junction was connecting.',
      hint: 'It may be restarting, out of connections, or refusing this address; try again in a moment, and if it persists check its log and any proxy or firewall in between.',
    });
    expect(diagnoseNetworkError({ code: 'ETIMEDOUT' }, target('pg', 'pw'))?.message).toBe(
      'No answer from db.local:3306 (source "pg") within 1000 ms.',
    );
  });

  it('a source named exactly like its password keeps its name', () => {
    const d = authDiagnosis(target('junction', 'junction'), undefined);
    expect(d.message).toContain('source "junction"');
  });
});
