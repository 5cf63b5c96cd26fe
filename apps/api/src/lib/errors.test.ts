import { describe, expect, it } from 'vitest';
import { JunctionError } from '@junction/connectors';
import { logLevelOf, toErrorBody } from './errors.js';

describe('logLevelOf', () => {
  it('keeps internal errors, failing sources and unknown throws at error; expected outcomes below it', () => {
    const of = (kind: ConstructorParameters<typeof JunctionError>[1]) => logLevelOf(new JunctionError('x', kind, 'm'));
    expect(of('internal')).toBe('error');
    expect(of('external')).toBe('error');
    expect(logLevelOf(new Error('boom'))).toBe('error');
    expect(of('timeout')).toBe('warn');
    expect(of('resources')).toBe('warn');
    for (const k of ['user', 'unsupported', 'forbidden', 'not_found', 'cancelled', 'auth', 'conflict'] as const)
      expect(of(k)).toBe('info');
  });

  it('answers the per-user limit with 429 and the global one with 503, both with Retry-After', () => {
    const details = { retryAfterSeconds: 1 };
    expect(toErrorBody(new JunctionError('user_concurrency_limit', 'resources', 'm', { details }))).toMatchObject({
      status: 429,
      headers: { 'retry-after': '1' },
    });
    expect(toErrorBody(new JunctionError('server_busy', 'resources', 'm', { details }))).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1' },
    });
  });
});

describe('toErrorBody for a query read through a view grant (details.readThroughView)', () => {
  const through = { readThroughView: true };

  it('replaces a cast error quoting a value with its code and SQLSTATE', () => {
    const message = 'invalid input syntax for type integer: "Alice Smith"';
    const cast = new JunctionError('invalid_text_representation', 'user', message, { details: through });
    expect(toErrorBody(cast)).toEqual({
      status: 400,
      body: {
        code: 'invalid_text_representation',
        kind: 'user',
        message:
          'The query failed on a value it read through a view (invalid_text_representation, SQLSTATE 22P02); an administrator finds the full message in the server log.',
        details: { sqlState: '22P02' },
      },
    });
    expect(toErrorBody(new JunctionError('invalid_text_representation', 'user', message)).body.message).toBe(message);
  });

  it("replaces a source's own message, keeping the driver's SQLSTATE and dropping the source details", () => {
    const source = new JunctionError('source_error', 'external', 'Source "pg" failed the query: value "90000" out of range', {
      details: { source: 'pg', driverCode: '22003', ...through },
    });
    expect(toErrorBody(source)).toEqual({
      status: 502,
      body: {
        code: 'source_error',
        kind: 'external',
        message:
          'The query failed on a value it read through a view (source_error, SQLSTATE 22003); an administrator finds the full message in the server log.',
        details: { sqlState: '22003' },
      },
    });
  });

  it('leaves errors that quote no data as they are, without the mark', () => {
    const timeout = new JunctionError('query_timeout', 'timeout', 'The query ran longer than its 5 ms timeout and was stopped.', {
      details: { timeoutMs: 5, ...through },
    });
    expect(toErrorBody(timeout)).toEqual({
      status: 504,
      body: {
        code: 'query_timeout',
        kind: 'timeout',
        message: 'The query ran longer than its 5 ms timeout and was stopped.',
        details: { timeoutMs: 5 },
      },
    });
  });
});
