import type { Row } from '@junction/connectors';
import type { NotPushed } from '../../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import { Operator, chunk, type OperatorInfo } from '../operator.js';
import { makeDecorator, type SortKeySpec } from '../sort-keys.js';
import { mergeRuns } from './merge-runs.js';
import { SpillFile } from '../spill/spill-file.js';
import { emptySpill, type SpillMetrics } from '../spill/spill-metrics.js';

const SPILL_CHUNK = 2048;

/**
 * In-memory sort while the input fits the query's memory budget; past it the buffer is
 * sorted and written to disk as a run, and the runs are merged at the end.
 */
export class SortOp extends Operator {
  readonly children: readonly Operator[];
  /** runs written to disk by the last execution (EXPLAIN ANALYZE, tests) */
  spilledRuns = 0;
  /** what the last run wrote to disk: runs count as partitions */
  readonly spill: SpillMetrics = emptySpill();

  constructor(
    private readonly input: Operator,
    private readonly keys: readonly SortKeySpec[],
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [input];
  }

  info(): OperatorInfo {
    return {
      operator: 'Sort',
      runsIn: 'junction',
      detail: this.detail + (this.spilledRuns > 0 ? ` (spilled ${this.spilledRuns} runs)` : ''),
      notPushed: this.notPushed,
      spill: this.spill,
    };
  }

  protected async *run(outer: ExecContext): AsyncIterable<Row[]> {
    // the input runs under the query's budget; the buffer under this sort's share of it
    const memory = outer.memory.consumer();
    const ctx: ExecContext = { ...outer, memory };
    const { decorate, undecorate, compare } = makeDecorator(this.keys);
    let buffer: Row[] = [];
    let held = 0;
    const runs: SpillFile[] = [];
    this.spilledRuns = 0;
    Object.assign(this.spill, emptySpill());
    const spill = async (): Promise<void> => {
      buffer.sort(compare);
      const file = await SpillFile.create(ctx.spillDir, ctx.disk);
      runs.push(file);
      for (let i = 0; i < buffer.length; i += SPILL_CHUNK) await file.write(buffer.slice(i, i + SPILL_CHUNK));
      buffer = [];
      ctx.memory.release(held);
      held = 0;
      this.spilledRuns = runs.length;
      this.spill.partitions = runs.length;
      this.spill.bytes += file.bytes;
      this.spill.depth = 1;
    };
    try {
      for await (const batch of this.input.execute(outer)) {
        checkAborted(ctx.signal);
        let b = 0;
        for (const r of batch) b += rowBytes(r);
        if (!ctx.memory.tryReserve(b)) {
          if (buffer.length > 0) await spill();
          if (!ctx.memory.tryReserve(b)) {
            // even one batch passes the budget: it becomes a run of its own
            buffer = batch.map(decorate);
            await spill();
            continue;
          }
        }
        held += b;
        for (const r of batch) buffer.push(decorate(r));
      }
      if (runs.length === 0) {
        buffer.sort(compare);
        const rows = buffer;
        buffer = [];
        for (const c of chunk(rows, ctx.batchSize)) yield c.map(undecorate);
        return;
      }
      if (buffer.length > 0) await spill();
      for await (const b of mergeRuns(
        runs.map((r) => r.read()),
        compare,
        ctx.batchSize,
      )) {
        checkAborted(ctx.signal);
        yield b.map(undecorate);
      }
    } finally {
      ctx.memory.release(held);
      memory.close();
      await Promise.all(runs.map((r) => r.remove()));
    }
  }
}
