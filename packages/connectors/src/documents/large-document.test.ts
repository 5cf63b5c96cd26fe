import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentTableSpec, SourceConfig } from '../contract/connector.js';
import { t } from '../contract/types.js';
import { DocumentsConnector } from './connector.js';

/**
 * A 1 GB XML document streams in bounded memory: the file is written in pieces to the temp
 * folder (never held whole) and read back through the connector with a pushed filter.
 */
const TARGET_BYTES = 1024 ** 3;

let dir: string;
let file: string;
let written = 0;
let rowsWritten = 0;

/** Rows per written piece: the piece (about 1 MB) is built once and written again and again. */
const PIECE_ROWS = 8192;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'i29-docs-big-'));
  file = path.join(dir, 'huge.xml');
  const out = fs.createWriteStream(file);
  const write = (s: string): Promise<void> =>
    new Promise((resolve, reject) => {
      if (out.write(s, (err) => err && reject(err))) resolve();
      else out.once('drain', resolve);
    });
  let piece = '';
  for (let i = 0; i < PIECE_ROWS; i++)
    piece += `<Account id="${i}" type="${i % 3 === 0 ? 'SAV' : 'CUR'}"><Currency code="EUR">Euro &amp; cents</Currency><Balance><OnlineActualBal>${i % 2 ? '-' : ''}${i}.10</OnlineActualBal></Balance></Account>\n`;
  const head = '<?xml version="1.0"?>\n<Customer xmlns="urn:bank" id="C1"><Accounts>\n';
  await write(head);
  written += head.length;
  while (written < TARGET_BYTES) {
    await write(piece);
    written += piece.length;
    rowsWritten += PIECE_ROWS;
  }
  await write('</Accounts></Customer>\n');
  await new Promise<void>((resolve) => out.end(resolve));
}, 120_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a 1 GB document', () => {
  it('streams in bounded memory, every row counted', async () => {
    expect(fs.statSync(file).size).toBeGreaterThanOrEqual(TARGET_BYTES);
    const table: DocumentTableSpec = {
      name: 'accounts',
      format: 'xml',
      from: { path: 'huge.xml' },
      rowPath: '//Account',
      columns: [
        { name: 'id', path: '@id', type: 'bigint' },
        { name: 'balance', path: 'Balance/OnlineActualBal', type: 'decimal(15,2)' },
        { name: 'customer', path: '../../@id', type: 'text' },
      ],
    };
    const config: SourceConfig = {
      name: 'big',
      engine: 'documents',
      options: { fileRoots: [dir], documents: { root: dir, tables: [table] } },
    };
    const c = new DocumentsConnector(config);
    const dec = t.decimal(15, 2);
    const rendered = c.render({
      select: [
        { expr: { kind: 'column', table: 'a', column: 'id', type: t.int64 }, alias: 'id' },
        { expr: { kind: 'column', table: 'a', column: 'customer', type: t.string }, alias: 'customer' },
      ],
      from: { kind: 'table', alias: 'a', table: 'accounts' },
      where: {
        kind: 'call',
        fn: 'gt',
        args: [
          { kind: 'column', table: 'a', column: 'balance', type: dec },
          { kind: 'literal', value: '0.00', type: dec },
        ],
        type: t.bool,
      },
    });
    global.gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    let rows = 0;
    let last: unknown[] | undefined;
    const started = performance.now();
    for await (const b of c.stream(rendered, { batchSize: 4096 })) {
      rows += b.rows.length;
      last = b.rows[b.rows.length - 1];
      const rss = process.memoryUsage().rss;
      if (rss > peak) peak = rss;
    }
    const seconds = (performance.now() - started) / 1000;
    // even ids have positive balances (0.10 included): half of each piece
    expect(rows).toBe(rowsWritten / 2);
    expect(last).toEqual([BigInt(PIECE_ROWS - 2), 'C1']);
    expect(peak - base).toBeLessThan(200 * 1024 * 1024);
    // far over the row cache's default budget: the read gave up keeping rows and holds none
    expect(c.rowCacheStats()).toMatchObject({ tables: 0, bytes: 0, loads: 0, refused: 1, parses: 1 });
    console.log(
      `1 GB document: ${rowsWritten} rows read, ${rows} kept, ${seconds.toFixed(1)} s, RSS growth ${((peak - base) / 1024 / 1024).toFixed(0)} MB`,
    );
  }, 180_000);
});
