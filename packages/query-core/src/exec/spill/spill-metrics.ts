/** What an operator wrote to disk in its last run, for EXPLAIN ANALYZE and tests. */
export interface SpillMetrics {
  /** bytes written to spill files (each file counted once, however often it is read) */
  bytes: number;
  /** hash partitions written, over every recursion level (sort: runs) */
  partitions: number;
  /** deepest recursion level reached: 1 when the input was partitioned once, 2 when a partition was split again, … */
  depth: number;
  /** partitions that still did not fit at the deepest level (one key held most rows) and were joined block by block */
  blocks: number;
  /** a hash join whose build side passed the budget built the other side instead */
  swapped: boolean;
}

export function emptySpill(): SpillMetrics {
  return { bytes: 0, partitions: 0, depth: 0, blocks: 0, swapped: false };
}

/** `, spilled 3.2 MB in 32 partitions, depth 2, 1 joined in blocks`, `, build side past the budget: sides swapped, spilled 60.0 MB`, or '' when nothing spilled. */
export function spillText(m: SpillMetrics): string {
  if (m.bytes === 0 && m.partitions === 0) return '';
  if (m.partitions === 0) return `, build side past the budget: ${m.swapped ? 'sides swapped, ' : ''}spilled ${formatBytes(m.bytes)}`;
  const blocks = m.blocks > 0 ? `, ${m.blocks} joined in blocks` : '';
  return `, spilled ${formatBytes(m.bytes)} in ${m.partitions} partitions, depth ${m.depth}${blocks}`;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}
