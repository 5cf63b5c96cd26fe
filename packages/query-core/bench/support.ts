import type { Row } from '@junction/connectors';
import { MemoryTracker, type ExecContext } from '../src/exec/context.js';
import { Operator, type OperatorInfo } from '../src/exec/operator.js';
import type { WorkerPool } from '../src/exec/workers/pool.js';

/** Benchmark input: prepared batches handed out as they are (no copy, unlike the tests' RowsOp). */
export class InputOp extends Operator {
  readonly children = [];
  constructor(private readonly batches: Row[][]) {
    super();
  }
  info(): OperatorInfo {
    return { operator: 'Input', runsIn: 'bench' };
  }
  protected async *run(): AsyncIterable<Row[]> {
    yield* this.batches;
  }
}

/** An execution context with room for any input: the benchmarks time operators, not budgets. */
export function benchContext(workers?: WorkerPool): ExecContext {
  return {
    signal: new AbortController().signal,
    memory: new MemoryTracker(2 ** 31),
    statements: [],
    spillDir: '/tmp',
    batchSize: 1024,
    workers,
  };
}
