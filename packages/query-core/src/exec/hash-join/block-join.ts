import type { Row } from '@junction/connectors';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import type { SpillFile } from '../spill/spill-file.js';
import { JoinCore, type JoinSpec } from './join-core.js';

/**
 * The last resort of a spilled hash join, for a partition that no split can shrink
 * (one key holds most of its rows): the build partition is read in blocks that fit the
 * memory budget, and the whole probe partition is streamed past each block. A build
 * row's fate is known after its block's pass; a probe row's (outer, semi and anti joins
 * with the right side built) only after every block, so one bit per probe row records
 * whether it matched and a last pass emits what that decides. Only a single chunk of
 * build rows larger than the whole budget fails (memory_budget_exceeded).
 */
export async function* blockJoin(spec: JoinSpec, ctx: ExecContext, build: SpillFile<Row>, probe: SpillFile<Row>): AsyncIterable<Row[]> {
  const shape = new JoinCore(spec, ctx.memory);
  const seen = shape.probeFateMatters ? new Uint8Array(probe.records) : undefined;
  const blocks = build.read()[Symbol.asyncIterator]();
  let pending: Row[] | undefined;
  let done = false;
  try {
    while (!done) {
      const core = new JoinCore(spec, ctx.memory);
      let held = 0;
      try {
        for (;;) {
          let chunk = pending;
          pending = undefined;
          if (!chunk) {
            const r = await blocks.next();
            if (r.done) {
              done = true;
              break;
            }
            chunk = r.value;
          }
          let b = 0;
          for (const row of chunk) b += rowBytes(row);
          if (ctx.memory.tryReserve(b)) {
            held += b;
            core.addBuild(chunk, false);
            continue;
          }
          if (held > 0) {
            pending = chunk;
            break;
          }
          // not even this chunk fits (other operators hold the budget): the rows that do make the block
          let n = 0;
          for (; n < chunk.length; n++) {
            const rb = rowBytes(chunk[n]);
            if (!ctx.memory.tryReserve(rb)) break;
            held += rb;
          }
          if (n === 0) ctx.memory.reserve(rowBytes(chunk[0]), 'HashJoin build block');
          core.addBuild(chunk.slice(0, n), false);
          pending = n < chunk.length ? chunk.slice(n) : undefined;
          break;
        }
        if (held === 0) break;
        let offset = 0;
        for await (const chunk of probe.read()) {
          checkAborted(ctx.signal);
          const out = core.probe(chunk, seen, offset);
          offset += chunk.length;
          if (out.length > 0) yield out;
        }
        yield* core.finish(ctx.batchSize);
      } finally {
        core.release();
        ctx.memory.release(held);
      }
    }
    if (!seen) return;
    let offset = 0;
    for await (const chunk of probe.read()) {
      checkAborted(ctx.signal);
      const out: Row[] = [];
      for (let i = 0; i < chunk.length; i++) {
        const o = shape.probeOutcome(chunk[i], seen[offset + i] === 1);
        if (o) out.push(o);
      }
      offset += chunk.length;
      if (out.length > 0) yield out;
    }
  } finally {
    await blocks.return?.();
  }
}
