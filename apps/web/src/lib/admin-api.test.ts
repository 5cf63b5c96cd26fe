import { describe, expect, it } from 'vitest';
import { limitBody, materializationBody } from './admin-api.js';

describe('limitBody', () => {
  it('sends every field, blank ones as null so they inherit', () => {
    expect(limitBody({ maxConcurrent: ' 4 ', maxQueued: '', queueTimeoutMs: '0' })).toEqual({
      maxConcurrent: 4,
      maxQueued: null,
      queueTimeoutMs: 0,
    });
  });
  it('names the field that is out of range or not a whole number', () => {
    expect(() => limitBody({ maxConcurrent: '0', maxQueued: '', queueTimeoutMs: '' })).toThrow(
      /^Running at once must be/,
    );
    expect(() => limitBody({ maxConcurrent: '2', maxQueued: '1.5', queueTimeoutMs: '' })).toThrow(/^Waiting must be/);
    expect(() => limitBody({ maxConcurrent: '', maxQueued: '', queueTimeoutMs: 'soon' })).toThrow(/^Wait at most/);
  });
  it('refuses a setting that sets nothing', () => {
    expect(() => limitBody({ maxConcurrent: '', maxQueued: ' ', queueTimeoutMs: '' })).toThrow(/remove the setting/);
  });
});

describe('materializationBody', () => {
  it('takes a schedule in seconds, or none for refreshing on demand', () => {
    expect(materializationBody({ interval: '600', staleness: '3600' })).toEqual({
      intervalSeconds: 600,
      maxStalenessSeconds: 3600,
    });
    expect(materializationBody({ interval: ' ', staleness: '60' })).toEqual({
      intervalSeconds: null,
      maxStalenessSeconds: 60,
    });
  });
  it('says what is wrong with a value', () => {
    expect(() => materializationBody({ interval: '0', staleness: '60' })).toThrow(/^The refresh schedule must be/);
    expect(() => materializationBody({ interval: '', staleness: '' })).toThrow(/^The staleness allowed must be/);
  });
});
