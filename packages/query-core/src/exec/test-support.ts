import { tmpdir } from 'node:os';
import type { Row } from '@junction/connectors';
import { MemoryTracker, type ExecContext } from './context.js';
import { Operator, collect, type OperatorInfo } from './operator.js';

/** Test input: fixed rows in fixed batches, recording how far it was read and whether it was closed. */
export class RowsOp extends Operator {
  readonly children = [];
  pulled = 0;
  closed = false;
  constructor(
    private readonly batches: Row[][],
    private readonly name = 'Rows',
  ) {
    super();
  }
  info(): OperatorInfo {
    return { operator: this.name, runsIn: 'test' };
  }
  protected async *run(): AsyncIterable<Row[]> {
    try {
      for (const b of this.batches) {
        this.pulled++;
        yield b.map((r) => r.slice());
      }
    } finally {
      this.closed = true;
    }
  }
}

export function testContext(overrides: Partial<ExecContext> & { budget?: number } = {}): ExecContext {
  return {
    signal: overrides.signal ?? new AbortController().signal,
    memory: overrides.memory ?? new MemoryTracker(overrides.budget ?? 64 * 1024 * 1024),
    statements: overrides.statements ?? [],
    spillDir: overrides.spillDir ?? tmpdir(),
    batchSize: overrides.batchSize ?? 1024,
    ...(overrides.batchBytes !== undefined ? { batchBytes: overrides.batchBytes } : {}),
    workers: overrides.workers,
    disk: overrides.disk,
  };
}

export async function run(op: Operator, ctx: ExecContext = testContext()): Promise<Row[]> {
  return collect(op.execute(ctx));
}

/** Order-insensitive comparison form: rows as sorted JSON strings (bigint spelled out). */
export function bag(rows: readonly Row[]): string[] {
  return rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
}

/** Yields its batches, aborting the query after `after` of them. */
export class AbortingOp extends Operator {
  readonly children = [];
  constructor(
    private readonly batches: Row[][],
    private readonly after: number,
    private readonly controller: AbortController,
  ) {
    super();
  }
  info(): OperatorInfo {
    return { operator: 'Aborting', runsIn: 'test' };
  }
  protected async *run(): AsyncIterable<Row[]> {
    for (let i = 0; i < this.batches.length; i++) {
      if (i === this.after) this.controller.abort();
      yield this.batches[i];
    }
  }
}
