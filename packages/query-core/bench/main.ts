/**
 * `npm run bench` — with --preset tpch22, TPC-H 1–22 direct vs federated (tpch22.ts); with
 * another --preset, the benchmark lab's CLI (lab.ts, through a running studio's REST API); with
 * --pg-wire, JDV through Junction's PostgreSQL port (apps/api/bench/pg-wire.ts); with --trino,
 * TPC-H 1–22 and JDV A–F local vs Trino vs direct (trino.ts); with --documents, TPoX-style
 * queries over XML documents vs the same data shredded into PostgreSQL (documents.ts); with --shapes,
 * issue 30's query shapes direct vs federated (shapes.ts); otherwise the
 * in-process JDV benchmark (run.ts). --help prints how to call each.
 */
export const USAGE = `npm run bench -- [options]

The benchmark lab of a running studio, over its REST API (lab.ts):
  --preset jdv|oltp-mix|streams  a preset of the lab
  --url URL                      the studio (default JUNCTION_URL, else http://127.0.0.1:8080)
  --sources dbA=…,dbB=…,…        registered sources of the JDV layout (default dbA=dbA,…,dbD=dbD)
  --direct SOURCE                the source holding all eight tables (direct runs and answer checks)
  --sf N                         the scale factor the data was loaded at (default 0.01; the run counts the data and warns when it differs)
  --short | --repetitions N | --warmups N | --step-seconds S | --duration S | --max-users N
  --name TEXT | --json
  Token: JUNCTION_TOKEN=jct_… (an API token with the query scope). --token works too, but npm
  prints the command line it runs, token included, and the shell keeps it in its history.

TPC-H 1–22, direct vs federated, in process (tpch22.ts):
  --preset tpch22 [--sf 1] [--skip-load] [--only 5,19] [--runs 1] [--timeout-s 900] [--no-check] [--verbose]
                 [--save FILE] [--growth-from FILE]   (medians saved at one scale; growth shown at another)

The JDV benchmark in process (run.ts), without --preset:
  [--sf 1] [--runs 5] [--h-seconds 10] [--skip-load] [--only A,B,H] [--no-check] [--verbose] [--rest [--rss-seconds 60]]

TPC-H 1–22 and JDV A–F, the local engine vs Trino (the same engine, engine 'trino') vs direct, what
\`auto\` chose and whether it was the faster, then a query past the local memory budget (pushdown
off, spilling) vs Trino (trino.ts; Trino from --trino-url, else TRINO_URL, else scripts/trino.sh start):
  --trino [--sf 1] [--runs 3] [--only-tpch 1,5] [--only-jdv A,B] [--skip-tpch] [--skip-jdv] [--timeout-s 600]
          [--trino-url URL] [--auto-rows N] [--spill-query 5] [--spill-budget-mb 256] [--spill-runs 1] [--skip-spill]
          [--skip-load] [--no-check]

TPoX-style queries over XML documents (engine 'documents', with prices.parquet through engine
'duckdb') vs the same SQL on the documents shredded into PostgreSQL tables, through Junction over
the documents materialized as views, and through Junction over the shredded tables (documents.ts;
data from @junction/tpox, ids = TPC-H c_custkey):
  --documents [--sf 0.1] [--runs 5] [--layout collection|files] [--dir PATH] [--only Q1,Q3] [--mv-index | --no-mat]
              [--skip-load] [--no-check] [--verbose] [--timeout-s 300]

Issue 30's shapes (Q19's OR across a join, IN (subquery) from another source, a window over a
cross-source join, chained outer joins), direct vs federated, answers checked (shapes.ts):
  --shapes [--sf 1] [--runs 3] [--only a,b1,c,d1] [--verbose]

JDV through Junction's PostgreSQL port (apps/api/bench/pg-wire.ts: the server in a child process;
direct node-postgres with prepared statements vs the wire prepared and simple vs REST, H at 1/4/16
clients, H × 16 with pgbench -M prepared against PostgreSQL and against Junction):
  --pg-wire [--sf 1] [--runs 5] [--h-seconds 5] [--skip-load] [--only A,B,H] [--no-pgbench] [--cpu-prof DIR] [--main-ts PATH]
`;

const argv = process.argv.slice(2);
const at = argv.indexOf('--preset');
const preset = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--preset='))?.slice('--preset='.length);
// before any of them parses its options: each is strict and would die on --help
if (argv.includes('--help') || argv.includes('-h')) process.stdout.write(USAGE);
else if (preset === 'tpch22') await import('./tpch22.js');
else if (preset === undefined && argv.includes('--trino')) await import('./trino.js');
else if (preset === undefined && argv.includes('--pg-wire')) process.exit(await pgWire());
else if (preset === undefined && argv.includes('--documents')) await import('./documents.js');
else if (preset === undefined && argv.includes('--shapes')) await import('./shapes.js');
else if (preset !== undefined) await import('./lab.js');
else await import('./run.js');

/** loaded only for --pg-wire: it starts the API server with its PostgreSQL port */
async function pgWire(): Promise<number> {
  const { runPgWireBench } = await import('../../../apps/api/bench/pg-wire.js');
  return runPgWireBench(argv).catch((e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 1;
  });
}
