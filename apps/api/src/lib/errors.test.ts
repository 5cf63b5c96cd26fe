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
