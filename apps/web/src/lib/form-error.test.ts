import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { friendlyError } from './form-error.js';

const validation = (message: string, field: string) =>
  new ApiError(400, 'user', 'validation', message, undefined, { field });

describe('friendlyError', () => {
  it('names the field by its label and says the limit in words', () => {
    expect(friendlyError(validation('body/port must be <= 65535', 'body.port'), { port: 'Port' })).toBe(
      'Port must be at most 65535.',
    );
    expect(
      friendlyError(validation('body/password must NOT have fewer than 8 characters', 'body.password'), {
        password: 'Password',
      }),
    ).toBe('Password must have at least 8 characters.');
    expect(friendlyError(validation('body/username must match pattern "^[A-Za-z]+$"', 'body.username'))).toBe(
      'Username has characters that are not allowed.',
    );
  });
  it('keeps the API message of any other error', () => {
    expect(friendlyError(new ApiError(409, 'conflict', 'user_exists', 'A user named "x" already exists.'))).toBe(
      'A user named "x" already exists.',
    );
    expect(friendlyError(new Error('boom'))).toBe('boom');
  });
});
