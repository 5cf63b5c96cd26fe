/**
 * `npm run bench` — with --preset, the benchmark lab's CLI (lab.ts, through a running studio's
 * REST API); otherwise the in-process JDV benchmark (run.ts).
 */
if (process.argv.includes('--preset')) await import('./lab.js');
else await import('./run.js');
