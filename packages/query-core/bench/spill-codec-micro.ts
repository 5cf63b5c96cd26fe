/**
 * node --import tsx packages/query-core/bench/spill-codec-micro.ts
 *
 * Encode and decode times of one spill chunk shape (a lineitem-like row and a GroupRecord
 * of sum/count states), spill-codec against V8's serialiser, optionally with zstd.
 */
import { deserialize, serialize } from 'node:v8';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import type { Row } from '@junction/connectors';
import { decodeChunk, encodeChunk } from '../src/exec/spill/spill-codec.js';

const N = Number(process.argv[2] ?? 1000);
const CHUNKS = Math.ceil(200_000 / N);
// lineitem as the PostgreSQL connector gives it (decimals and dates as strings), fresh strings per row
const rows: Row[] = Array.from({ length: N }, (_, i) => [
  i * 7 + 1,
  (i * 13) % 200000,
  (i * 17) % 10000,
  (i % 7) + 1,
  `${(i % 50) + 1}.00`,
  `${(i * 104.37).toFixed(2)}`,
  `0.0${i % 10}`,
  `0.0${(i * 3) % 9}`,
  ['N', 'R', 'A'][i % 3],
  ['O', 'F'][i % 2],
  `199${i % 8}-0${(i % 9) + 1}-1${i % 10}`,
  `199${i % 8}-0${(i % 9) + 1}-2${i % 10}`,
  `199${i % 8}-1${i % 3}-0${(i % 9) + 1}`,
  ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'][i % 4],
  ['TRUCK', 'MAIL', 'REG AIR', 'AIR', 'FOB', 'RAIL', 'SHIP'][i % 7],
  `furiously regular ${i.toString(36)} deposits ${'x'.repeat(i % 20)}`,
]);
const groups = Array.from({ length: N }, (_, i) =>
  i % 3 === 0 ? [0, rows[i]] : [1, [`key ${i}`, i % 25], [{ v: 0n, small: i * 100, s: 2, count: i }, { n: i }]],
);

/** best of 5 rounds of CHUNKS calls, ms per call (the machine is shared: the minimum is the least disturbed) */
function time(f: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (let i = 0; i < CHUNKS; i++) f();
    best = Math.min(best, (performance.now() - t0) / CHUNKS);
  }
  return best;
}

for (const [name, data] of [
  ['rows', rows],
  ['group records', groups],
] as const) {
  const v8b = serialize(data);
  const cb = encodeChunk(data);
  const z = zstdCompressSync(cb);
  const res = {
    v8Encode: time(() => serialize(data)),
    v8Decode: time(() => deserialize(v8b)),
    codecEncode: time(() => encodeChunk(data)),
    codecDecode: time(() => decodeChunk(cb)),
    zstdCompress: time(() => zstdCompressSync(cb)),
    zstdDecompress: time(() => zstdDecompressSync(z)),
  };
  process.stdout.write(
    `${name}, ${N} per chunk: bytes v8 ${v8b.length}, codec ${cb.length}, codec+zstd ${z.length}\n` +
      Object.entries(res)
        .map(([k, v]) => `  ${k.padEnd(15)} ${v.toFixed(3)} ms/chunk  ${((N / v) * 1000 / 1e6).toFixed(2)} M rec/s`)
        .join('\n') +
      '\n',
  );
}
