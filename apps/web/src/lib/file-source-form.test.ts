import { describe, expect, it } from 'vitest';
import {
  documentsDraftOf,
  DraftError,
  emptyDocTable,
  emptyFileTable,
  filesDraftOf,
  fileSourcePatch,
  fileSourcePayload,
  parseTypeOverrides,
  previewCell,
  previewRequest,
  previewTable,
  secretHeaders,
  suggestTableName,
  type DocumentsDraft,
  type FilesDraft,
} from './file-source-form.js';
import type { SourceOptions } from './api.js';
import { connectionLabel } from './source-form.js';

const filesDraft = (over: Partial<FilesDraft> = {}): FilesDraft => ({
  root: ' /srv/files/sales ',
  file: '',
  tables: [
    {
      ...emptyFileTable(),
      path: 'orders/*.csv',
      delimiter: ';',
      header: 'yes',
      nullValues: 'NA, ',
      columns: 'total: decimal(15,2)\n\nday: date',
    },
  ],
  ...over,
});

const docsDraft = (): DocumentsDraft => ({
  root: '/srv/files/xml',
  tables: [
    {
      ...emptyDocTable(),
      name: 'accounts',
      location: 'customers/*.xml',
      rowPath: '/c:Customer/Accounts/Account',
      namespaces: 'c = http://example.com/customer',
      columns: [
        { name: 'id', path: '@id', type: 'text' },
        { name: 'balance', path: 'Balance/OnlineActualBal', type: 'decimal(15,2)' },
        { name: '', path: '', type: 'text' },
      ],
    },
  ],
});

function draftError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof DraftError) return e.message;
    throw e;
  }
  throw new Error('expected a DraftError');
}

describe('file source form', () => {
  it('suggests a table name from a path or glob', () => {
    expect(suggestTableName('orders/*.csv')).toBe('orders');
    expect(suggestTableName('Sales 2024.csv.gz')).toBe('sales_2024');
    expect(suggestTableName('/data/events.ndjson')).toBe('events');
    expect(suggestTableName('**/*.parquet')).toBe('');
  });

  it('sends what was filled in: the root trimmed, the CSV dialect, the type overrides, the suggested name', () => {
    expect(fileSourcePayload('sales', { engine: 'duckdb', files: filesDraft() })).toEqual({
      name: 'sales',
      engine: 'duckdb',
      options: {
        files: {
          root: '/srv/files/sales',
          tables: [
            {
              name: 'orders',
              path: 'orders/*.csv',
              csv: { delimiter: ';', header: true, nullValues: ['NA', ''] },
              columns: { total: 'decimal(15,2)', day: 'date' },
            },
          ],
        },
      },
    });
  });

  it('sends a Parquet table without CSV options, a tab as \\t, and a root alone as every file in it', () => {
    const t = { ...emptyFileTable(), name: 'facts', path: 'facts.parquet', delimiter: ';' };
    expect(fileSourcePayload('s', { engine: 'duckdb', files: filesDraft({ tables: [t] }) }).options).toEqual({
      files: { root: '/srv/files/sales', tables: [{ name: 'facts', path: 'facts.parquet' }] },
    });
    const tsv = { ...emptyFileTable(), path: 'x.tsv', delimiter: '\\t' };
    expect(fileSourcePayload('s', { engine: 'duckdb', files: filesDraft({ tables: [tsv] }) }).options?.files).toEqual({
      root: '/srv/files/sales',
      tables: [{ name: 'x', path: 'x.tsv', csv: { delimiter: '\t' } }],
    });
    expect(fileSourcePayload('s', { engine: 'duckdb', files: filesDraft({ tables: [emptyFileTable()] }) })).toEqual({
      name: 's',
      engine: 'duckdb',
      options: { files: { root: '/srv/files/sales' } },
    });
  });

  it('says what is missing or malformed, naming the table', () => {
    expect(
      draftError(() => fileSourcePayload('s', { engine: 'duckdb', files: { root: '', file: '', tables: [] } })),
    ).toBe('Give a root folder (its CSV, Parquet and JSON files become tables), a table or a .duckdb file.');
    const unnamed = { ...emptyFileTable(), path: '**/*.csv' };
    expect(
      draftError(() => fileSourcePayload('s', { engine: 'duckdb', files: filesDraft({ tables: [unnamed] }) })),
    ).toBe('Table 1 needs a name (lower-case letters, digits and _).');
    expect(draftError(() => parseTypeOverrides('total decimal', 'orders'))).toBe(
      'Table "orders": write each type override as "column: type" (got "total decimal").',
    );
    const upper = { ...emptyFileTable(), name: 'Orders', path: 'a.csv' };
    expect(draftError(() => fileSourcePayload('s', { engine: 'duckdb', files: filesDraft({ tables: [upper] }) }))).toBe(
      'Table name "Orders": use lower-case letters, digits and _ only.',
    );
  });
});

describe('document source form', () => {
  it('sends tables with their row path, namespaces and filled-in columns, and the headers as the password', () => {
    const headers = ' {"*": {"Authorization": "Bearer t"}} ';
    expect(fileSourcePayload('bank', { engine: 'documents', documents: docsDraft(), headers })).toEqual({
      name: 'bank',
      engine: 'documents',
      password: '{"*": {"Authorization": "Bearer t"}}',
      options: {
        documents: {
          root: '/srv/files/xml',
          tables: [
            {
              name: 'accounts',
              format: 'xml',
              from: { path: 'customers/*.xml' },
              rowPath: '/c:Customer/Accounts/Account',
              namespaces: { c: 'http://example.com/customer' },
              columns: [
                { name: 'id', path: '@id', type: 'text' },
                { name: 'balance', path: 'Balance/OnlineActualBal', type: 'decimal(15,2)' },
              ],
            },
          ],
        },
      },
    });
  });

  it('reads a URL table, and refuses headers that are not a table → headers map', () => {
    const d = docsDraft();
    d.tables[0] = {
      ...d.tables[0],
      format: 'json',
      from: 'url',
      location: 'https://x.example/a.json',
      rowPath: '$.a[*]',
    };
    const p = fileSourcePayload('feed', { engine: 'documents', documents: d, headers: '' });
    expect(p.password).toBeUndefined();
    expect((p.options?.documents as { tables: { from: unknown; namespaces?: unknown }[] }).tables[0]).toMatchObject({
      from: { url: 'https://x.example/a.json' },
    });
    expect((p.options?.documents as { tables: { namespaces?: unknown }[] }).tables[0].namespaces).toBeUndefined();
    expect(draftError(() => secretHeaders('Bearer t'))).toBe(
      'Secret headers must be JSON, e.g. {"*": {"Authorization": "Bearer …"}}.',
    );
    expect(draftError(() => secretHeaders('{"*": "Bearer t"}'))).toBe(
      'Secret headers map a table name (or "*" for all) to its headers: {"*": {"Authorization": "Bearer …"}}.',
    );
  });

  it('says what a table lacks', () => {
    const d = docsDraft();
    d.tables[0] = { ...d.tables[0], rowPath: ' ' };
    expect(draftError(() => fileSourcePayload('b', { engine: 'documents', documents: d, headers: '' }))).toBe(
      'Table "accounts" needs a row path (e.g. /Customer/Accounts/Account).',
    );
    d.tables[0] = { ...docsDraft().tables[0], columns: [{ name: 'id', path: '', type: 'text' }] };
    expect(draftError(() => fileSourcePayload('b', { engine: 'documents', documents: d, headers: '' }))).toBe(
      'Table "accounts": column "id" needs a path.',
    );
    expect(
      draftError(() =>
        fileSourcePayload('b', { engine: 'documents', documents: { root: '', tables: [] }, headers: '' }),
      ),
    ).toBe('Add a table: a document source is the tables it defines.');
  });
});

describe('preview request', () => {
  it('waits for a complete draft, names the table being edited, and keys exactly on what it would send', () => {
    const empty = { engine: 'duckdb' as const, files: { root: '', file: '', tables: [emptyFileTable()] } };
    expect(previewRequest('s', empty, undefined)).toBeUndefined();
    const d = { engine: 'duckdb' as const, files: filesDraft() };
    expect(previewTable(d, 0)).toBe('orders');
    const r = previewRequest('half-typed name', d, previewTable(d, 0));
    expect(r?.source.name).toBe('preview');
    expect(r?.table).toBe('orders');
    expect(previewRequest('half-typed name', { ...d }, 'orders')?.key).toBe(r?.key);
    const moved = { engine: 'duckdb' as const, files: filesDraft({ root: '/srv/files/other' }) };
    expect(previewRequest('half-typed name', moved, 'orders')?.key).not.toBe(r?.key);
  });

  it('shows NULL, numbers and text as cells', () => {
    expect([null, 3, '12.50', true].map(previewCell)).toEqual(['NULL', '3', '12.50', 'true']);
  });
});

describe('editing a stored file or document source', () => {
  it('round-trips the stored options through the draft, so an untouched form changes nothing', () => {
    const payload = fileSourcePayload('sales', { engine: 'duckdb', files: filesDraft() });
    const stored = { options: { pool: { max: 2 }, ...(payload.options as SourceOptions) }, file: null };
    const draft = filesDraftOf(stored.options.files, null);
    expect(draft.tables[0]).toMatchObject({
      delimiter: ';',
      header: 'yes',
      nullValues: 'NA, ',
      columns: 'total: decimal(15,2)\nday: date',
    });
    expect(fileSourcePatch('duckdb', stored, fileSourcePayload('sales', { engine: 'duckdb', files: draft }))).toEqual(
      {},
    );
    const docs = fileSourcePayload('bank', { engine: 'documents', documents: docsDraft(), headers: '' });
    const back = documentsDraftOf(docs.options?.documents as never);
    expect(
      fileSourcePatch(
        'documents',
        { options: docs.options, file: null },
        fileSourcePayload('bank', { engine: 'documents', documents: back, headers: '' }),
      ),
    ).toEqual({});
  });

  it('sends changed options with the source’s other options kept, and typed headers only', () => {
    const payload = fileSourcePayload('sales', { engine: 'duckdb', files: filesDraft() });
    const stored = { options: { pool: { max: 2 }, ...(payload.options as SourceOptions) }, file: null };
    const changed = fileSourcePayload('sales', { engine: 'duckdb', files: filesDraft({ root: '/srv/files/sales2' }) });
    expect(fileSourcePatch('duckdb', stored, changed)).toEqual({
      options: { pool: { max: 2 }, files: (changed.options as SourceOptions).files },
    });
    const docs = fileSourcePayload('bank', {
      engine: 'documents',
      documents: docsDraft(),
      headers: '{"*":{"X-Key":"k"}}',
    });
    expect(fileSourcePatch('documents', { options: docs.options, file: null }, docs)).toEqual({
      password: '{"*":{"X-Key":"k"}}',
    });
  });

  it('labels a file source by its root and tables', () => {
    const base = { host: null, port: null, database: null, user: null, file: null };
    expect(
      connectionLabel({
        ...base,
        engine: 'duckdb',
        options: { files: { root: '/srv/f', tables: [{ name: 'a', path: 'a.csv' }] } },
      }),
    ).toBe('/srv/f, 1 table');
    expect(connectionLabel({ ...base, engine: 'documents', options: { documents: docsDraftOptions() } })).toBe(
      '/srv/files/xml, 1 table',
    );
    expect(connectionLabel({ ...base, engine: 'duckdb', file: '/srv/w.duckdb' })).toBe('/srv/w.duckdb');
  });
});

function docsDraftOptions() {
  return fileSourcePayload('b', { engine: 'documents', documents: docsDraft(), headers: '' }).options
    ?.documents as never;
}
