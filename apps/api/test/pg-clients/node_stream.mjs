// Streams one query's rows through node-postgres + pg-query-stream (a cursor: Bind, then
// Execute with a row limit, PortalSuspended, Execute again ...) in a process of its own, so that
// the RSS it reports is the stream's alone. Run by clients.ts (nodePgStream) with --expose-gc.
//   JT_PG_STREAM='{"target":{...},"sql":"...","params":[],"batchSize":100,"buffered":false}' node node_stream.mjs
// Prints one JSON document: { count, first, last, sum, rssBaselineBytes, rssMaxBytes, ... }.
import pg from 'pg';
import QueryStream from 'pg-query-stream';

const job = JSON.parse(process.env.JT_PG_STREAM ?? '{}');
const { target } = job;
const raw = (v) => v; // every column as the server's exact text
const types = { getTypeParser: () => raw };

function sslOf(mode) {
  if (!mode || mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  if (mode === 'require') return { rejectUnauthorized: false };
  return true; // verify-ca, verify-full
}

const gc = globalThis.gc ?? (() => {});
const client = new pg.Client({
  host: target.host,
  port: target.port,
  user: target.user,
  password: target.password,
  database: target.database,
  ssl: sslOf(target.sslmode),
  application_name: 'junction-test-node-stream',
  connectionTimeoutMillis: 10_000,
});

const sampleEvery = job.sampleEvery ?? 1000;
let count = 0;
let first = null;
let last = null;
let sum = job.sumColumn === undefined || job.sumColumn === null ? null : 0n;
let rssMax = 0;
const sample = () => {
  const rss = process.memoryUsage.rss();
  if (rss > rssMax) rssMax = rss;
};
const take = (row) => {
  if (count === 0) first = row;
  last = row;
  count++;
  if (sum !== null && row[job.sumColumn] !== null) sum += BigInt(row[job.sumColumn]);
  if (count % sampleEvery === 0) sample();
};

await client.connect();
gc();
const rssBaseline = process.memoryUsage.rss();
const heapBaseline = process.memoryUsage().heapUsed;
rssMax = rssBaseline;
const started = performance.now();
let firstRowMs = null;

if (job.buffered) {
  // the same rows without a cursor: everything in memory at once (the comparison point)
  const r = await client.query({ text: job.sql, values: job.params ?? [], rowMode: 'array', types });
  firstRowMs = performance.now() - started;
  sample();
  for (const row of r.rows) take(row);
} else {
  const stream = client.query(
    new QueryStream(job.sql, job.params ?? [], {
      batchSize: job.batchSize ?? 100,
      highWaterMark: job.highWaterMark ?? job.batchSize ?? 100,
      rowMode: 'array',
      types,
    }),
  );
  for await (const row of stream) {
    if (firstRowMs === null) firstRowMs = performance.now() - started;
    take(row);
  }
}
sample();
const ms = performance.now() - started;
const heapEnd = process.memoryUsage().heapUsed;
await client.end();

process.stdout.write(
  `${JSON.stringify({
    count,
    first,
    last,
    sum: sum === null ? null : sum.toString(),
    ms: Math.round(ms * 10) / 10,
    firstRowMs: firstRowMs === null ? null : Math.round(firstRowMs * 10) / 10,
    rssBaselineBytes: rssBaseline,
    rssMaxBytes: rssMax,
    rssGrowthBytes: rssMax - rssBaseline,
    heapGrowthBytes: heapEnd - heapBaseline,
  })}\n`,
);
