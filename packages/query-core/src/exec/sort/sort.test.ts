import { readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { t, type Row } from '@junction/connectors';
import { isJunctionError } from '@junction/connectors';
import { DiskTracker } from '../context.js';
import { RowsOp, run, testContext } from '../test-support.js';
import { SortOp } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'jt-sort-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SortOp', () => {
  it('orders with NULLS LAST for ASC and NULLS FIRST for DESC, code-point string order', async () => {
    const rows: Row[] = [
      [2, 'b'],
      [null, 'a'],
      [1, 'B'],
      [2, 'a'],
      [1, null],
    ];
    const asc = new SortOp(
      new RowsOp([rows]),
      [
        { column: 0, type: t.int32, desc: false, nullsFirst: false },
        { column: 1, type: t.string, desc: true, nullsFirst: true },
      ],
      '',
    );
    expect(await run(asc)).toEqual([
      [1, null],
      [1, 'B'],
      [2, 'b'],
      [2, 'a'],
      [null, 'a'],
    ]);
  });

  it('sorts decimals numerically, not as text', async () => {
    const op = new SortOp(new RowsOp([[['10.5'], ['9.25'], ['-1'], ['100']]]), [{ column: 0, type: t.decimal(10, 2), desc: false, nullsFirst: false }], '');
    expect(await run(op)).toEqual([['-1'], ['9.25'], ['10.5'], ['100']]);
  });

  function bigInput(n: number): Row[][] {
    const batches: Row[][] = [];
    for (let b = 0; b < 20; b++) {
      const batch: Row[] = [];
      for (let i = 0; i < n / 20; i++) {
        const k = (b * 7919 + i * 104729) % n;
        batch.push([BigInt(k), `v${k}`]);
      }
      batches.push(batch);
    }
    return batches;
  }
  const byKeyDesc = [{ column: 0, type: t.int64, desc: true, nullsFirst: true }];

  it('spills sorted runs to disk past the memory budget and merges them into the same order', async () => {
    const n = 20_000;
    const op = new SortOp(new RowsOp(bigInput(n)), byKeyDesc, '');
    const disk = new DiskTracker(1 << 30);
    const ctx = testContext({ budget: 200_000, spillDir: dir, batchSize: 1000, disk });
    const out = await run(op, ctx);
    expect(op.spilledRuns).toBeGreaterThan(1);
    expect(out.length).toBe(n);
    const keys = out.map((r) => Number(r[0]));
    const sorted = [...keys].sort((a, b) => b - a);
    expect(keys).toEqual(sorted);
    expect(out[0]).toEqual([BigInt(keys[0]), `v${keys[0]}`]);
    // spill files are removed and the memory returned
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.memory.usedBytes).toBe(0);
    expect(disk.usedBytes).toBe(0);
  });

  it('stops with a resources error past the spill limit, and removes what it wrote', async () => {
    const op = new SortOp(new RowsOp(bigInput(20_000)), byKeyDesc, '');
    const disk = new DiskTracker(100_000);
    const err = await run(op, testContext({ budget: 200_000, spillDir: dir, batchSize: 1000, disk })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && [err.code, err.kind, err.message]).toEqual([
      'spill_limit_exceeded',
      'resources',
      'The query needs more than its 100000 bytes of spill space on disk (in Sort). Add filters or let more of the work run in the sources.',
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(disk.usedBytes).toBe(0);
  });

  it('names the spill directory when it cannot be written', async () => {
    const op = new SortOp(new RowsOp(bigInput(20_000)), byKeyDesc, '');
    const missing = join(dir, 'no-such-dir');
    const err = await run(op, testContext({ budget: 200_000, spillDir: missing, batchSize: 1000 })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && [err.code, err.kind, err.message]).toEqual([
      'spill_dir_unusable',
      'internal',
      `Junction cannot write spill files in ${missing} (ENOENT); set spillDir to a writable directory.`,
    ]);
  });

  it('evaluates expression keys once per row', async () => {
    let calls = 0;
    const op = new SortOp(
      new RowsOp([[[3], [1], [2]]]),
      [
        {
          column: (r) => {
            calls++;
            return -(r[0] as number);
          },
          type: t.int32,
          desc: false,
          nullsFirst: false,
        },
      ],
      '',
    );
    expect(await run(op)).toEqual([[3], [2], [1]]);
    expect(calls).toBe(3);
  });
});
