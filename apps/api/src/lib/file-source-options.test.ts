import { describe, expect, it } from 'vitest';
import { checkSourcePayload, type SourcePayload } from './file-source-options.js';

function refusal(p: SourcePayload, partial = false): { code: string; message: string; details: unknown } | undefined {
  try {
    checkSourcePayload(p, { partial });
    return undefined;
  } catch (e) {
    const err = e as { code: string; message: string; details: unknown };
    return { code: err.code, message: err.message, details: err.details };
  }
}

const docs = { documents: { tables: [] } };

describe('checkSourcePayload', () => {
  it('accepts each engine with its own options', () => {
    expect(refusal({ name: 's', engine: 'duckdb', options: { files: { root: '/r' } } })).toBeUndefined();
    expect(refusal({ name: 's', engine: 'duckdb', file: '/r/w.duckdb' })).toBeUndefined();
    expect(
      refusal({ name: 's', engine: 'documents', options: docs, password: '{"*":{"Authorization":"Bearer t"}}' }),
    ).toBeUndefined();
    expect(refusal({ name: 's', engine: 'postgresql', options: { schema: 'x' } })).toBeUndefined();
    // an update sends only what changed
    expect(refusal({ name: 's', engine: 'documents', password: '{"t":{"X-Key":"k"}}' }, true)).toBeUndefined();
  });

  it('refuses options of another engine, and a source with nothing to read', () => {
    expect(refusal({ name: 's', engine: 'postgresql', options: { files: {} } })).toEqual({
      code: 'source_options_invalid',
      message: 'Source "s": options.files is for file sources (engine duckdb).',
      details: { source: 's', field: 'body.options.files' },
    });
    expect(refusal({ name: 's', engine: 'duckdb', options: docs })?.message).toBe(
      'Source "s": options.documents is for document sources (engine documents).',
    );
    expect(refusal({ name: 's', engine: 'duckdb', options: {} })?.message).toBe(
      'Source "s": a file source needs options.files (a root folder and its tables) or a .duckdb file.',
    );
    expect(refusal({ name: 's', engine: 'documents', options: {} })?.message).toBe(
      'Source "s": a document source needs options.documents (its tables).',
    );
    expect(refusal({ name: 's', engine: 'documents', file: '/x', options: docs })?.message).toBe(
      'Source "s": a document source reads the paths and URLs of its tables, not a file.',
    );
  });

  it('refuses secret headers that are not a table → headers map, without quoting them', () => {
    for (const password of [
      'Bearer s3cret',
      '["s3cret"]',
      '{"*":"s3cret"}',
      '{"*":{"Authorization":1}}',
      '{"*":{"Bad Header":"s3cret"}}',
      '{"*":{"X":"a\\r\\nInjected: s3cret"}}',
    ]) {
      const r = refusal({ name: 's', engine: 'documents', options: docs, password });
      expect(r?.message).toBe(
        'Source "s": the secret headers must be JSON: {"<table>" or "*": {"Header-Name": "value"}}.',
      );
      expect(JSON.stringify(r)).not.toContain('s3cret');
    }
  });
});
