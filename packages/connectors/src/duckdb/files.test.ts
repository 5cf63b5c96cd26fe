import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConfig } from '../contract/connector.js';
import { expandGlob, resolveFiles } from './files.js';

let dir: string;
let root: string;
let outside: string;

const config = (
  files: NonNullable<SourceConfig['options']>['files'],
  extra: Partial<SourceConfig> = {},
): SourceConfig => ({
  name: 'f',
  engine: 'duckdb',
  ...extra,
  options: { fileRoots: [root], files },
});

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

beforeAll(() => {
  // realpath: the tmp folder may itself sit behind a symlink
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'jt-duck-files-')));
  root = path.join(dir, 'root');
  outside = path.join(dir, 'outside');
  for (const d of [
    root,
    outside,
    path.join(root, 'sales', '2024'),
    path.join(root, 'sales', '2025'),
    path.join(root, '.hidden'),
  ])
    fs.mkdirSync(d, { recursive: true });
  const write = (p: string, text = 'a\n1\n') => fs.writeFileSync(path.join(root, p), text);
  write('orders.csv');
  fs.mkdirSync(path.join(root, 'plain', 'sub'), { recursive: true });
  for (const f of ['orders.csv', 'Line Items.TSV', 'events.ndjson', 'notes.txt', '.hidden.csv', 'sub/deeper.csv'])
    write(`plain/${f}`);
  write('sales/2024/jan.csv');
  write('sales/2024/feb.csv');
  write('sales/2025/jan.csv');
  write('sales/2025/jan.parquet');
  write('.hidden/x.csv');
  fs.writeFileSync(path.join(outside, 'secret.csv'), 'a\n1\n');
  fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(root, 'escape.csv'));
  fs.symlinkSync(outside, path.join(root, 'elsewhere'));
  fs.symlinkSync(path.join(root, 'orders.csv'), path.join(root, 'alias.csv'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('expandGlob', () => {
  it('expands *, ? and ** in sorted order, never into hidden folders', () => {
    expect(expandGlob(path.join(root, 'sales/*/jan.csv'))).toEqual([
      path.join(root, 'sales/2024/jan.csv'),
      path.join(root, 'sales/2025/jan.csv'),
    ]);
    expect(expandGlob(path.join(root, 'sales/2024/?e?.csv'))).toEqual([path.join(root, 'sales/2024/feb.csv')]);
    expect(expandGlob(path.join(root, '**/*.csv')).map((p) => path.relative(root, p))).toEqual([
      'alias.csv',
      'escape.csv',
      'orders.csv',
      'plain/orders.csv',
      'plain/sub/deeper.csv',
      'sales/2024/feb.csv',
      'sales/2024/jan.csv',
      'sales/2025/jan.csv',
    ]);
  });

  it('matches nothing rather than failing for a folder that does not exist', () => {
    expect(expandGlob(path.join(root, 'nope/*.csv'))).toEqual([]);
  });
});

describe('resolveFiles', () => {
  it('resolves a glob table into real paths and lists them for the sandbox', () => {
    const r = resolveFiles(config({ root, tables: [{ name: 'sales', path: 'sales/**/*.csv' }] }));
    expect(r.tables.map((t) => [t.name, t.format, t.files.map((f) => path.relative(root, f))])).toEqual([
      ['sales', 'csv', ['sales/2024/feb.csv', 'sales/2024/jan.csv', 'sales/2025/jan.csv']],
    ]);
    expect(r.allowedPaths.map((f) => path.relative(root, f))).toEqual([
      'sales/2024/feb.csv',
      'sales/2024/jan.csv',
      'sales/2025/jan.csv',
    ]);
  });

  it('without tables: one table per known file directly in the root, named after it', () => {
    const r = resolveFiles(config({ root: path.join(root, 'plain') }));
    // by file name, code-point order; notes.txt, folders and hidden entries are not tables
    expect(r.tables.map((t) => [t.name, t.format, t.spec.csv?.delimiter ?? null, t.spec.json?.format ?? null])).toEqual(
      [
        ['line_items', 'csv', '\t', null],
        ['events', 'json', null, 'newline_delimited'],
        ['orders', 'csv', null, null],
      ],
    );
    // the root holds escape.csv, a link out of the roots: listing it refuses the source
    expect(codeOf(() => resolveFiles(config({ root })))).toBe('file_outside_roots');
  });

  it('follows a symlink that stays inside the roots to its real path', () => {
    const r = resolveFiles(config({ root, tables: [{ name: 'a', path: 'alias.csv' }] }));
    expect(r.tables[0].files).toEqual([path.join(root, 'orders.csv')]);
  });

  it('refuses a symlink inside the root that points outside it', () => {
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'e', path: 'escape.csv' }] })))).toBe(
      'file_outside_roots',
    );
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'e', path: 'elsewhere/secret.csv' }] })))).toBe(
      'file_outside_roots',
    );
    // a glob that reaches the link is refused as a whole, not silently narrowed
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'e', path: '*.csv' }] })))).toBe(
      'file_outside_roots',
    );
  });

  it('refuses .. segments, before looking at the file system', () => {
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'x', path: '../outside/secret.csv' }] })))).toBe(
      'file_path_invalid',
    );
    expect(
      codeOf(() => resolveFiles(config({ root, tables: [{ name: 'x', path: `${root}/sales/../orders.csv` }] }))),
    ).toBe('file_path_invalid');
    expect(codeOf(() => resolveFiles(config({ root: `${root}/..` })))).toBe('file_path_invalid');
  });

  it('refuses absolute paths and roots outside the file roots', () => {
    expect(
      codeOf(() => resolveFiles(config({ root, tables: [{ name: 'x', path: path.join(outside, 'secret.csv') }] }))),
    ).toBe('file_outside_roots');
    expect(codeOf(() => resolveFiles(config({ root: outside })))).toBe('file_outside_roots');
    expect(codeOf(() => resolveFiles(config({ root: '/etc' })))).toBe('file_outside_roots');
    expect(codeOf(() => resolveFiles({ name: 'f', engine: 'duckdb', options: { files: { root } } }))).toBe(
      'file_roots_not_configured',
    );
  });

  it('reports missing files and folders as file_missing', () => {
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'x', path: 'missing.csv' }] })))).toBe(
      'file_missing',
    );
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'x', path: 'nope/*.csv' }] })))).toBe(
      'file_missing',
    );
    expect(codeOf(() => resolveFiles(config({ root: path.join(root, 'gone') })))).toBe('file_missing');
    expect(codeOf(() => resolveFiles(config({ root, tables: [] }, { file: 'missing.duckdb' })))).toBe('file_missing');
  });

  it('refuses bad table names, duplicates and unknown formats', () => {
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'Orders', path: 'orders.csv' }] })))).toBe(
      'file_table_name_invalid',
    );
    expect(
      codeOf(() =>
        resolveFiles(
          config({
            root,
            tables: [
              { name: 'o', path: 'orders.csv' },
              { name: 'o', path: 'orders.csv' },
            ],
          }),
        ),
      ),
    ).toBe('file_table_duplicate');
    expect(codeOf(() => resolveFiles(config({ root, tables: [{ name: 'n', path: 'plain/notes.txt' }] })))).toBe(
      'file_format_unknown',
    );
    expect(
      resolveFiles(config({ root, tables: [{ name: 'n', path: 'plain/notes.txt', format: 'csv' }] })).tables[0].format,
    ).toBe('csv');
  });
});
