import type { Row } from '@junction/connectors';
import { checkAborted, type ExecContext } from '../context.js';
import { chunk } from '../operator.js';
import { partitionOf } from '../spill/partition-hash.js';
import type { SpillFile } from '../spill/spill-file.js';
import type { SpillMetrics } from '../spill/spill-metrics.js';
import { SpillPartitions } from '../spill/spill-partitions.js';
import type { GroupRecord, GroupTable } from './group-table.js';

/**
 * Past this many splits a partition's groups must fit: deeper, the table fails with
 * memory_budget_exceeded. Each level divides a partition's groups by 32, so only a budget
 * that cannot hold a handful of groups (other operators hold it all) ends here.
 */
export const MAX_AGGREGATE_DEPTH = 6;

const OPERATOR = 'HashAggregate';

/**
 * Where a hash aggregate's overflow goes (the table's sink) and how it comes back: records
 * are written to hash partitions of the group key, so all of a group's rows and partials
 * share one partition; after the input ends, the groups still in memory are emitted (or,
 * if the table was ever evicted, written out as partials too, since their group may have
 * states on disk as well), and each partition is aggregated by a fresh table in the same
 * way, one level deeper.
 */
export class GroupSpill {
  readonly sink: GroupRecord[] = [];
  private parts: SpillPartitions<GroupRecord> | undefined;
  private evicted = false;

  constructor(
    private readonly level: number,
    private readonly newTable: () => GroupTable,
    private readonly ctx: ExecContext,
    private readonly report: SpillMetrics,
  ) {}

  /** Moves what the table could not hold to disk; call after each batch given to the table. */
  async drain(table: GroupTable): Promise<void> {
    if (table.wantsEvict) {
      for (const r of table.evict()) this.sink.push(r);
      this.evicted = true;
    }
    if (this.sink.length === 0) return;
    this.parts ??= new SpillPartitions<GroupRecord>(this.ctx, OPERATOR);
    this.report.depth = Math.max(this.report.depth, this.level + 1);
    const parts = this.parts;
    for (const r of this.sink) parts.add(partitionOf(table.recordKey(r), this.level, parts.fanout), r, table.recordBytes(r));
    this.sink.length = 0;
    await parts.flushFull();
  }

  /** The aggregate's output: the table's groups, then every partition's. */
  async *finish(table: GroupTable): AsyncIterable<Row[]> {
    const batchSize = this.ctx.batchSize;
    if (!this.parts) {
      yield* chunk(table.finish(this.level === 0), batchSize);
      return;
    }
    if (this.evicted) {
      table.wantsEvict = true;
      await this.drain(table);
    } else {
      // nothing of these groups is on disk: they are complete
      const out = table.finish(false);
      table.release();
      yield* chunk(out, batchSize);
    }
    const parts = this.parts;
    await parts.flushAll();
    for (const f of parts.files) {
      if (!f) continue;
      this.report.partitions++;
      this.report.bytes += f.bytes;
    }
    for (const f of parts.files) {
      if (!f) continue;
      yield* this.partition(f);
      await f.remove();
    }
  }

  async remove(): Promise<void> {
    this.sink.length = 0;
    await this.parts?.remove();
  }

  private async *partition(file: SpillFile<GroupRecord>): AsyncIterable<Row[]> {
    const table = this.newTable();
    const next = this.level + 1;
    const sub = new GroupSpill(next, this.newTable, this.ctx, this.report);
    if (next < MAX_AGGREGATE_DEPTH) table.spillTo(sub.sink);
    try {
      let rows: Row[] = [];
      for await (const records of file.read()) {
        checkAborted(this.ctx.signal);
        for (const r of records) {
          if (r[0] === 0) {
            rows.push(r[1]);
            continue;
          }
          // keep the file's order: rows before a partial are added before it
          if (rows.length > 0) {
            table.addRows(rows);
            rows = [];
          }
          table.merge([r[1]], [r[2]]);
        }
        if (rows.length > 0) {
          table.addRows(rows);
          rows = [];
        }
        await sub.drain(table);
      }
      yield* sub.finish(table);
    } finally {
      table.release();
      await sub.remove();
    }
  }
}
