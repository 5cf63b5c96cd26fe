import { describe, expect, it } from 'vitest';
import { ApiError, networkError, toApiError } from './api-error.js';

describe('toApiError', () => {
  it('keeps code, kind, message and SQL position from a top-level error body', () => {
    const e = toApiError(400, {
      code: 'SQL_SYNTAX',
      kind: 'user',
      message: 'syntax error at or near "FORM"',
      position: { offset: 9, line: 1, column: 10, length: 4 },
    });
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.kind, e.code, e.message]).toEqual([
      400,
      'user',
      'SQL_SYNTAX',
      'syntax error at or near "FORM"',
    ]);
    expect(e.position).toEqual({ offset: 9, line: 1, column: 10, length: 4 });
  });

  it('unwraps an {error: {...}} envelope', () => {
    const e = toApiError(502, {
      error: {
        code: 'SOURCE_AUTH',
        kind: 'external',
        message: 'dbX rejected the password',
        details: { source: 'dbX' },
      },
    });
    expect([e.kind, e.code, e.message]).toEqual(['external', 'SOURCE_AUTH', 'dbX rejected the password']);
    expect(e.details).toEqual({ source: 'dbX' });
  });

  it('derives the kind from the status when the body has none (Fastify validation errors)', () => {
    const e = toApiError(400, {
      statusCode: 400,
      error: 'Bad Request',
      message: "body must have required property 'sql'",
    });
    expect([e.kind, e.code, e.message]).toEqual(['user', 'HTTP_400', "body must have required property 'sql'"]);
  });

  it('maps statuses to kinds and gives a useful message when the body is empty', () => {
    expect(toApiError(401, null).kind).toBe('auth');
    expect(toApiError(401, null).message).toBe('Your session has ended. Sign in again.');
    expect(toApiError(403, '').kind).toBe('forbidden');
    expect(toApiError(503, undefined).message).toBe('Junction is busy. Try again in a moment.');
    expect(toApiError(500, 'Internal Server Error').kind).toBe('internal');
    expect(toApiError(500, {}).message).toBe(
      'The server failed (HTTP 500). Try again; if it persists, check the server log.',
    );
    expect(toApiError(418, {}).kind).toBe('user');
  });

  it('ignores an unknown kind and a malformed position', () => {
    const e = toApiError(422, { kind: 'weird', message: 'no', position: { line: 'x' } });
    expect(e.kind).toBe('unsupported');
    expect(e.position).toBeUndefined();
  });
});

describe('networkError', () => {
  it('says the server cannot be reached', () => {
    const e = networkError(new TypeError('Failed to fetch'));
    expect([e.status, e.kind]).toEqual([0, 'network']);
    expect(e.message).toBe('Cannot reach the Junction server (Failed to fetch). Check that it is running.');
  });
});
