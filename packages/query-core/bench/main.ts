/**
 * `npm run bench` — with --preset tpch22, TPC-H 1–22 direct vs federated (tpch22.ts); with
 * another --preset, the benchmark lab's CLI (lab.ts, through a running studio's REST API);
 * otherwise the in-process JDV benchmark (run.ts).
 */
const at = process.argv.indexOf('--preset');
const preset = at >= 0 ? process.argv[at + 1] : process.argv.find((a) => a.startsWith('--preset='))?.slice('--preset='.length);
if (preset === 'tpch22') await import('./tpch22.js');
else if (preset !== undefined) await import('./lab.js');
else await import('./run.js');
